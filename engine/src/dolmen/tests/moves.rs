//! Walking, collecting herbs, flying.

use super::*;

#[test]
fn walk_one_step_then_stone_decision() {
    let mut game = bare(2, RED);
    druid(game.state_mut(), s(1, 0), RED, false);
    let ev = play(&mut game, RED, walk(s(1, 0), Dir::East));
    assert_eq!(
        ev,
        [Event::Walked {
            seat: RED,
            from: s(1, 0),
            to: s(2, 0),
            dir: Dir::East,
            jumped: 0
        }]
    );
    assert_eq!(
        game.decision(),
        Some(Decision::Stone {
            site: s(1, 0),
            may_decline: true
        })
    );
    assert_eq!(legal(&game), [Action::PlaceStone, Action::DeclineStone]);
    let ev = play(&mut game, RED, Action::PlaceStone);
    assert_eq!(
        ev[0],
        Event::StonePlaced {
            seat: RED,
            site: s(1, 0),
            stones_left: 15
        }
    );
    assert_eq!(
        ev[1..],
        [Event::TurnStarted {
            seat: YELLOW,
            turn: 2
        }]
    );
    assert_eq!(
        game.view(Viewer::Spectator).at(s(1, 0)),
        Some(Occupant::Stone(RED))
    );
}

#[test]
fn walk_jumps_a_chain_of_druids_of_any_colour_and_state() {
    let mut game = bare(2, RED);
    let st = game.state_mut();
    druid(st, s(1, 0), RED, false);
    druid(st, s(2, 0), YELLOW, false);
    druid(st, s(3, 0), RED, true);
    let ev = play(&mut game, RED, walk(s(1, 0), Dir::East));
    assert_eq!(
        ev,
        [Event::Walked {
            seat: RED,
            from: s(1, 0),
            to: s(4, 0),
            dir: Dir::East,
            jumped: 2
        }]
    );
    assert_eq!(
        game.state().site(s(4, 0)),
        Some(Occupant::Druid {
            seat: RED,
            lying: false
        })
    );
    assert_eq!(game.state().site(s(1, 0)), None);
}

#[test]
fn a_stone_blocks_a_step_and_a_jump() {
    let mut game = bare(2, RED);
    let st = game.state_mut();
    druid(st, s(1, 0), RED, false);
    druid(st, s(2, 0), YELLOW, false);
    put_stone(st, s(3, 0), YELLOW);
    put_stone(st, s(0, 0), YELLOW);
    assert_eq!(
        reject(&mut game, RED, walk(s(1, 0), Dir::East)),
        RuleError::Blocked {
            from: s(1, 0),
            dir: Dir::East,
            stone: s(3, 0)
        }
    );
    assert_eq!(
        reject(&mut game, RED, walk(s(1, 0), Dir::West)),
        RuleError::Blocked {
            from: s(1, 0),
            dir: Dir::West,
            stone: s(0, 0)
        }
    );
    let walks: Vec<Action> = legal(&game)
        .into_iter()
        .filter(|a| matches!(a, Action::Walk { from, .. } if *from == s(1, 0)))
        .collect();
    // South is (1, 1). North wraps to (1, 8), where red's parked druid would
    // be jumped, but from there north runs into octagon W: no path.
    assert_eq!(walks, [walk(s(1, 0), Dir::South)]);
    assert_eq!(
        reject(&mut game, RED, walk(s(1, 0), Dir::North)),
        RuleError::NoPath {
            from: s(1, 0),
            dir: Dir::North,
            at: s(1, 8)
        }
    );
}

#[test]
fn a_missing_path_blocks_a_step_and_a_jump() {
    let mut game = bare(2, RED);
    let st = game.state_mut();
    druid(st, s(0, 1), RED, false);
    druid(st, s(6, 1), RED, false);
    druid(st, s(7, 1), YELLOW, false);
    // Inside hexagon A.
    assert_eq!(
        reject(&mut game, RED, walk(s(0, 1), Dir::East)),
        RuleError::NoPath {
            from: s(0, 1),
            dir: Dir::East,
            at: s(0, 1)
        }
    );
    // Jumping (7,1) would cross hexagon E.
    assert_eq!(
        reject(&mut game, RED, walk(s(6, 1), Dir::East)),
        RuleError::NoPath {
            from: s(6, 1),
            dir: Dir::East,
            at: s(7, 1)
        }
    );
    // Not from a non-corner diagonally.
    assert!(matches!(
        reject(&mut game, RED, walk(s(6, 1), Dir::Diagonal)),
        RuleError::NoPath { .. }
    ));
}

#[test]
fn walking_wraps_around_the_edges() {
    let mut game = bare(2, RED);
    druid(game.state_mut(), s(8, 4), RED, false);
    let ev = play(&mut game, RED, walk(s(8, 4), Dir::East));
    assert!(matches!(ev[0], Event::Walked { to, jumped: 0, .. } if to == s(0, 4)));

    let mut game = bare(2, RED);
    druid(game.state_mut(), s(3, 0), RED, false);
    let ev = play(&mut game, RED, walk(s(3, 0), Dir::North));
    assert!(matches!(ev[0], Event::Walked { to, .. } if to == s(3, 8)));

    // A jump continues across the wrap.
    let mut game = bare(2, RED);
    let st = game.state_mut();
    druid(st, s(7, 0), RED, false);
    druid(st, s(8, 0), YELLOW, false);
    let ev = play(&mut game, RED, walk(s(7, 0), Dir::East));
    assert!(matches!(ev[0], Event::Walked { to, jumped: 1, .. } if to == s(0, 0)));
}

#[test]
fn corner_diagonal_moves_but_never_jumps() {
    let mut game = bare(2, RED);
    druid(game.state_mut(), s(0, 0), RED, false);
    let ev = play(&mut game, RED, walk(s(0, 0), Dir::Diagonal));
    assert!(
        matches!(ev[0], Event::Walked { to, jumped: 0, dir: Dir::Diagonal, .. } if to == s(8, 8))
    );

    let mut game = bare(2, RED);
    let st = game.state_mut();
    druid(st, s(8, 0), RED, false);
    druid(st, s(0, 8), YELLOW, false);
    assert_eq!(
        reject(&mut game, RED, walk(s(8, 0), Dir::Diagonal)),
        RuleError::DiagonalJump(s(8, 0))
    );
    game.state_mut().set_site(s(0, 8), None);
    game.state_mut().seats[YELLOW.index()].druids_to_place += 1;
    put_stone(game.state_mut(), s(0, 8), YELLOW);
    assert!(matches!(
        reject(&mut game, RED, walk(s(8, 0), Dir::Diagonal)),
        RuleError::Blocked { .. }
    ));
}

#[test]
fn a_chain_of_druids_leading_back_round_is_illegal() {
    // Row 0 is a closed loop of 9 sites (edge, wrap). Druids on all of them.
    let mut game = bare(5, RED);
    let st = game.state_mut();
    for x in 0..9u8 {
        let seat = Seat(x % 5);
        st.set_site(s(x, 0), Some(Occupant::Druid { seat, lying: false }));
    }
    assert_eq!(
        reject(&mut game, RED, walk(s(0, 0), Dir::East)),
        RuleError::JumpLoop {
            from: s(0, 0),
            dir: Dir::East
        }
    );
    assert_eq!(
        reject(&mut game, RED, walk(s(0, 0), Dir::West)),
        RuleError::JumpLoop {
            from: s(0, 0),
            dir: Dir::West
        }
    );
}

#[test]
fn collect_herbs_lays_the_druid_down_and_ends_the_turn() {
    let mut game = bare(2, RED);
    druid(game.state_mut(), s(4, 4), RED, false);
    let ev = play(&mut game, RED, Action::CollectHerbs { site: s(4, 4) });
    assert_eq!(
        ev,
        [
            Event::HerbsCollected {
                seat: RED,
                site: s(4, 4)
            },
            Event::TurnStarted {
                seat: YELLOW,
                turn: 2
            }
        ]
    );
    assert_eq!(
        game.state().site(s(4, 4)),
        Some(Occupant::Druid {
            seat: RED,
            lying: true
        })
    );
    assert_eq!(score(&game, RED), 4);
    assert_eq!(game.state().seats[RED.index()].stones_left, 16);
}

#[test]
fn a_lying_druid_can_only_fly_and_stands_up() {
    let mut game = bare(2, RED);
    let st = game.state_mut();
    unpark(st, RED);
    druid(st, s(4, 4), RED, true);
    druid(st, s(5, 5), YELLOW, false);
    let acts = legal(&game);
    assert!(
        acts.iter()
            .all(|a| matches!(a, Action::Fly { from, .. } if *from == s(4, 4)))
    );
    // Every free site: 73 minus the two druids and the yellow parked one.
    assert_eq!(acts.len(), SITES - 3);
    assert_eq!(
        reject(&mut game, RED, walk(s(4, 4), Dir::North)),
        RuleError::DruidLying(s(4, 4))
    );
    assert_eq!(
        reject(&mut game, RED, Action::CollectHerbs { site: s(4, 4) }),
        RuleError::DruidLying(s(4, 4))
    );
    assert_eq!(
        reject(
            &mut game,
            RED,
            Action::Fly {
                from: s(4, 4),
                to: s(5, 5)
            }
        ),
        RuleError::SiteOccupied(s(5, 5))
    );
    assert_eq!(
        reject(
            &mut game,
            RED,
            Action::Fly {
                from: s(5, 5),
                to: s(0, 0)
            }
        ),
        RuleError::NotYourDruid(s(5, 5))
    );
    let ev = play(
        &mut game,
        RED,
        Action::Fly {
            from: s(4, 4),
            to: s(8, 0),
        },
    );
    assert_eq!(
        ev,
        [Event::Flew {
            seat: RED,
            from: s(4, 4),
            to: s(8, 0)
        }]
    );
    assert_eq!(
        game.state().site(s(8, 0)),
        Some(Occupant::Druid {
            seat: RED,
            lying: false
        })
    );
    assert_eq!(
        game.decision(),
        Some(Decision::Stone {
            site: s(4, 4),
            may_decline: true
        })
    );
}

#[test]
fn a_standing_druid_cannot_fly() {
    let mut game = bare(2, RED);
    assert_eq!(
        reject(
            &mut game,
            RED,
            Action::Fly {
                from: park(RED),
                to: s(0, 0)
            }
        ),
        RuleError::DruidStanding(park(RED))
    );
}
