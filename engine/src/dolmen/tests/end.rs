//! The end: last dolmen, last stone, the safeguard.

use super::*;

/// The seats whose turns started in `events`.
fn turns(events: &[Event]) -> Vec<u8> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::TurnStarted { seat, .. } => Some(seat.0),
            _ => None,
        })
        .collect()
}

/// Plays the current turn by collecting herbs with the parked druid.
fn herbs(game: &mut Dolmen) -> Vec<Event> {
    let seat = game.to_act().unwrap();
    play(game, seat, Action::CollectHerbs { site: park(seat) })
}

#[test]
fn last_dolmen_on_own_turn_gives_every_other_player_one_more_turn() {
    let f = c('F');
    let mut game = bare(3, RED);
    let st = game.state_mut();
    leave_in_hand(st, RED, [1, 0, 0, 0]);
    put_stone(st, s(5, 1), RED);
    put_stone(st, s(6, 1), YELLOW);
    let ev = stone(&mut game, RED, s(5, 2));
    assert!(turns(&ev).is_empty());
    let ev = play(&mut game, RED, Action::PlaceDolmen { value: Some(1) });
    assert_eq!(ev[1], Event::LastTurnsBegin { seat: RED });
    assert_eq!(stack(&game, f), [(RED, 1)]);
    assert_eq!(turns(&ev), [1]);
    let v = game.view(Viewer::Spectator);
    assert_eq!((v.end_triggered_by, v.last_turns_left), (Some(RED), 1));
    let ev = herbs(&mut game);
    assert_eq!(turns(&ev), [2]);
    let ev = herbs(&mut game);
    assert!(turns(&ev).is_empty());
    assert_eq!(
        ev[1],
        Event::GameEnded {
            reason: EndReason::LastDolmen
        }
    );
    // Final scoring of the incomplete F: red's 1 on top × 3.
    assert_eq!(
        ev[2..4],
        [
            Event::DolmenScored {
                seat: RED,
                circle: f,
                value: 1,
                multiplier: 3
            },
            Event::ScoreChanged {
                seat: RED,
                delta: 3,
                score: 7,
                reason: ScoreReason::Dolmen
            }
        ]
    );
    assert_eq!(
        ev[4],
        Event::GameOver {
            scores: vec![7, 4, 4],
            winners: vec![RED]
        }
    );
    assert_eq!(game.to_act(), None);
    assert!(game.pieces_conserved());
    let o = game.outcome().unwrap();
    assert!(!o.by_safeguard);
    assert_eq!(o.ranking, [RED, YELLOW, BLUE]);
    assert_eq!(
        reject(&mut game, RED, Action::PassDolmen),
        RuleError::Turn(TurnError::GameOver)
    );
    assert_eq!(game.timeout_action(), None);
    assert!(legal(&game).is_empty());
}

/// Engine decision: a dolmen placed out of turn (here yellow's, during red's
/// turn) ends red's turn first; then every seat but yellow takes one more turn
/// in seat order from the seat after red: blue, then red again.
#[test]
fn last_dolmen_out_of_turn_the_active_seat_finishes_then_the_others_play_once() {
    let f = c('F');
    let mut game = bare(3, RED);
    let st = game.state_mut();
    leave_in_hand(st, YELLOW, [0, 0, 1, 0]);
    put_stone(st, s(5, 1), YELLOW);
    put_stone(st, s(6, 1), YELLOW);
    stone(&mut game, RED, s(5, 2));
    assert_eq!(game.to_act(), Some(YELLOW));
    let ev = play(&mut game, YELLOW, Action::PlaceDolmen { value: Some(3) });
    assert_eq!(ev[1], Event::LastTurnsBegin { seat: YELLOW });
    assert_eq!(turns(&ev), [2], "yellow is skipped");
    assert_eq!(game.view(Viewer::Spectator).last_turns_left, 1);
    let ev = herbs(&mut game);
    assert_eq!(turns(&ev), [0], "red plays once more");
    assert_eq!(game.view(Viewer::Spectator).last_turns_left, 0);
    let ev = herbs(&mut game);
    assert!(turns(&ev).is_empty());
    assert_eq!(
        ev[1],
        Event::GameEnded {
            reason: EndReason::LastDolmen
        }
    );
    assert_eq!(score(&game, YELLOW), 4 + 3 * 3);
    assert_eq!(stack(&game, f), []);
}

#[test]
fn a_later_last_dolmen_does_not_restart_the_last_turns() {
    let mut game = bare(2, RED);
    let st = game.state_mut();
    leave_in_hand(st, RED, [1, 0, 0, 0]);
    leave_in_hand(st, YELLOW, [1, 0, 0, 0]);
    put_stone(st, s(5, 1), RED);
    put_stone(st, s(6, 1), YELLOW);
    stone(&mut game, RED, s(5, 2));
    let ev = play(&mut game, RED, Action::PlaceDolmen { value: Some(1) });
    assert_eq!(ev[1], Event::LastTurnsBegin { seat: RED });
    // Yellow's last turn: it equalises in F (completing it) and places its
    // last dolmen too: the last turns are not restarted.
    druid(game.state_mut(), s(6, 2), YELLOW, false);
    play(&mut game, YELLOW, walk(s(6, 2), Dir::South));
    play(&mut game, YELLOW, Action::PlaceStone);
    assert_eq!(game.decision(), dolmen_decision(c('F'), false));
    let ev = play(&mut game, YELLOW, Action::PlaceDolmen { value: Some(1) });
    assert!(!ev.contains(&Event::LastTurnsBegin { seat: YELLOW }));
    assert!(ev.contains(&Event::CircleCompleted { circle: c('F') }));
    assert!(ev.contains(&Event::GameEnded {
        reason: EndReason::LastDolmen
    }));
    assert_eq!(game.to_act(), None, "yellow's one more turn is over");
    let v = game.view(Viewer::Spectator);
    assert_eq!(v.end_triggered_by, Some(RED));
}

#[test]
fn the_last_stone_of_all_ends_the_game_at_once_after_its_dolmen_decisions() {
    // Yellow has no stones; red leaves its last one, handing F to yellow.
    let f = c('F');
    let mut game = bare(2, RED);
    let st = game.state_mut();
    put_stone(st, s(5, 1), YELLOW);
    put_stone(st, s(6, 1), YELLOW);
    st.seats[YELLOW.index()].stones_left = 0;
    st.seats[RED.index()].stones_left = 1;
    druid(st, s(5, 2), RED, false);
    play_raw(&mut game, RED, walk(s(5, 2), Dir::West));
    let ev = play_raw(&mut game, RED, Action::PlaceStone);
    assert_eq!(
        ev[1],
        Event::LeaderChanged {
            circle: f,
            leader: YELLOW
        }
    );
    assert_eq!(game.to_act(), Some(YELLOW), "the decision still happens");
    let ev = play_raw(&mut game, YELLOW, Action::PlaceDolmen { value: Some(2) });
    assert_eq!(
        ev[1],
        Event::GameEnded {
            reason: EndReason::LastStone
        }
    );
    assert!(turns(&ev).is_empty());
    assert_eq!(
        ev[2],
        Event::DolmenScored {
            seat: YELLOW,
            circle: f,
            value: 2,
            multiplier: 3
        }
    );
    assert_eq!(
        ev.last(),
        Some(&Event::GameOver {
            scores: vec![4, 10],
            winners: vec![YELLOW]
        })
    );
}

#[test]
fn final_scoring_covers_incomplete_circles_in_letter_order_top_down() {
    let mut game = bare(2, RED);
    let st = game.state_mut();
    st.max_turns = 1;
    put_dolmen(st, c('V'), RED, 1);
    put_dolmen(st, c('V'), YELLOW, 3);
    put_dolmen(st, c('A'), YELLOW, 2);
    let ev = herbs(&mut game);
    let scored: Vec<(u8, char, u8, u8)> = ev
        .iter()
        .filter_map(|e| match *e {
            Event::DolmenScored {
                seat,
                circle,
                value,
                multiplier,
            } => Some((seat.0, circle.letter(), value, multiplier)),
            _ => None,
        })
        .collect();
    assert_eq!(scored, [(1, 'A', 2, 4), (0, 'V', 1, 5), (1, 'V', 3, 4)]);
    assert_eq!(
        ev[1],
        Event::GameEnded {
            reason: EndReason::Safeguard
        }
    );
    assert_eq!((score(&game, RED), score(&game, YELLOW)), (9, 24));
    let o = game.outcome().unwrap();
    assert!(o.by_safeguard);
    assert_eq!(o.winners, [YELLOW]);
    assert!(game.pieces_conserved());
}

/// \[ruling\] The safeguard applies only while no end has been triggered:
/// owed last turns are always played. Here the game is at `max_turns` when
/// yellow places its last dolmen; blue and red still play once each.
#[test]
fn the_safeguard_never_cuts_the_owed_last_turns_short() {
    let mut game = bare(3, RED);
    let st = game.state_mut();
    st.max_turns = st.turn + 1;
    leave_in_hand(st, YELLOW, [0, 0, 1, 0]);
    put_stone(st, s(5, 1), YELLOW);
    put_stone(st, s(6, 1), YELLOW);
    stone(&mut game, RED, s(5, 2));
    let ev = play(&mut game, YELLOW, Action::PlaceDolmen { value: Some(3) });
    assert_eq!(turns(&ev), [2]);
    assert_eq!(game.turn(), game.state().max_turns);
    let ev = herbs(&mut game);
    assert_eq!(turns(&ev), [0], "red's owed turn is played past max_turns");
    let ev = herbs(&mut game);
    assert_eq!(
        ev[1],
        Event::GameEnded {
            reason: EndReason::LastDolmen
        }
    );
    assert!(!game.outcome().unwrap().by_safeguard);
}

/// The view's `last_turns_left` counts turns still to be played: none once the
/// game is over, even when the last stone ends it during the last turns.
#[test]
fn no_last_turns_are_left_once_the_game_is_over() {
    let mut game = bare(3, YELLOW);
    let st = game.state_mut();
    leave_in_hand(st, RED, [0; 4]);
    st.end_triggered_by = Some(RED);
    st.last_turns_left = 1;
    st.seats[RED.index()].stones_left = 0;
    st.seats[BLUE.index()].stones_left = 0;
    st.seats[YELLOW.index()].stones_left = 1;
    druid(st, s(5, 2), YELLOW, false);
    play_raw(&mut game, YELLOW, walk(s(5, 2), Dir::West));
    play_raw(&mut game, YELLOW, Action::PlaceStone);
    while let Some(seat) = game.to_act() {
        play_raw(&mut game, seat, Action::PassDolmen);
    }
    assert!(game.outcome().is_some());
    for viewer in [Viewer::Spectator, Viewer::Seat(RED), Viewer::Seat(YELLOW)] {
        assert_eq!(game.view(viewer).last_turns_left, 0);
    }
}

#[test]
fn safeguard_ends_when_another_turn_would_exceed_max_turns() {
    let options = Options {
        max_turns: 3,
        ..Options::default()
    };
    let mut game = Dolmen::new(2, 0, &options, &mut Vec::new()).unwrap();
    for i in 0..6 {
        let seat = game.to_act().unwrap();
        play(&mut game, seat, Action::PlaceDruid { site: Site(i * 3) });
    }
    assert_eq!(game.turn(), 1);
    herbs_any(&mut game);
    assert_eq!(game.turn(), 2);
    herbs_any(&mut game);
    assert_eq!(game.turn(), 3);
    let ev = herbs_any(&mut game);
    assert_eq!(
        ev[1],
        Event::GameEnded {
            reason: EndReason::Safeguard
        }
    );
    assert_eq!(game.turn(), 3);
    assert!(game.outcome().unwrap().by_safeguard);
}

/// Collects herbs with the seat's first standing druid.
fn herbs_any(game: &mut Dolmen) -> Vec<Event> {
    let seat = game.to_act().unwrap();
    let a = legal(game)
        .into_iter()
        .find(|a| matches!(a, Action::CollectHerbs { .. }))
        .unwrap();
    play(game, seat, a)
}

#[test]
fn ties_are_broken_by_dolmens_placed_then_shared() {
    let mut game = bare(3, RED);
    let st = game.state_mut();
    st.max_turns = 1;
    for seat in [RED, YELLOW, BLUE] {
        st.seats[seat.index()].score = 20;
    }
    st.seats[BLUE.index()].score = 25;
    leave_in_hand(st, RED, [4, 3, 2, 0]); // 1 placed
    leave_in_hand(st, YELLOW, [4, 3, 1, 0]); // 2 placed
    leave_in_hand(st, BLUE, [0, 0, 0, 0]); // 10 placed, but more points
    let mut alt = game.clone();
    let ev = herbs(&mut game);
    assert_eq!(
        ev.last(),
        Some(&Event::GameOver {
            scores: vec![20, 20, 25],
            winners: vec![BLUE]
        })
    );
    assert_eq!(game.outcome().unwrap().ranking, [BLUE, YELLOW, RED]);

    // Blue at 20 too: yellow placed more than red, blue most of all.
    alt.state_mut().seats[BLUE.index()].score = 20;
    let mut alt2 = alt.clone();
    herbs(&mut alt);
    assert_eq!(alt.outcome().unwrap().winners, [BLUE]);
    // Equal points and equal dolmens placed: shared win, seat order.
    let st = alt2.state_mut();
    leave_in_hand(st, RED, [4, 3, 1, 0]);
    st.seats[BLUE.index()].score = 19;
    herbs(&mut alt2);
    let o = alt2.outcome().unwrap();
    assert_eq!(o.winners, [RED, YELLOW]);
    assert_eq!(o.ranking, [RED, YELLOW, BLUE]);
    assert_eq!(o.scores, [20, 20, 19]);
}

#[test]
fn a_seat_without_any_action_passes_its_turn() {
    // \[ruling\]: yellow has no druid on the board: its turn passes.
    let mut game = bare(3, RED);
    unpark(game.state_mut(), YELLOW);
    let ev = herbs(&mut game);
    assert_eq!(
        ev[1..],
        [
            Event::TurnStarted {
                seat: YELLOW,
                turn: 2
            },
            Event::TurnPassed { seat: YELLOW },
            Event::TurnStarted {
                seat: BLUE,
                turn: 3
            }
        ]
    );
    // Lying druids and no free site: no action either. Nobody can act: the
    // game ends rather than loop.
    let mut game = bare(2, RED);
    let st = game.state_mut();
    for site in board::sites() {
        match st.site(site) {
            None => st.set_site(site, Some(Occupant::Stone(RED))),
            Some(Occupant::Druid { seat, .. }) if seat == YELLOW => {
                st.set_site(site, Some(Occupant::Druid { seat, lying: true }))
            }
            _ => {}
        }
    }
    let ev = play_raw(&mut game, RED, Action::CollectHerbs { site: park(RED) });
    assert_eq!(
        ev[1..5],
        [
            Event::TurnStarted {
                seat: YELLOW,
                turn: 2
            },
            Event::TurnPassed { seat: YELLOW },
            Event::TurnStarted { seat: RED, turn: 3 },
            Event::TurnPassed { seat: RED },
        ]
    );
    assert_eq!(
        ev[5],
        Event::GameEnded {
            reason: EndReason::Safeguard
        }
    );
    assert_eq!(game.to_act(), None);
}
