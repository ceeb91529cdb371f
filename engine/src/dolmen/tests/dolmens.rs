//! Stones, majorities and dolmens.

use super::*;

#[test]
fn declining_a_stone_costs_a_point() {
    let mut game = bare(2, RED);
    druid(game.state_mut(), s(4, 4), RED, false);
    play(&mut game, RED, walk(s(4, 4), Dir::East));
    let ev = play(&mut game, RED, Action::DeclineStone);
    assert_eq!(
        ev,
        [
            Event::StoneDeclined {
                seat: RED,
                site: s(4, 4)
            },
            Event::ScoreChanged {
                seat: RED,
                delta: -1,
                score: 3,
                reason: ScoreReason::DeclinedStone
            },
            Event::TurnStarted {
                seat: YELLOW,
                turn: 2
            }
        ]
    );
    assert_eq!(game.state().site(s(4, 4)), None);
    assert_eq!(game.state().seats[RED.index()].stones_left, 16);
}

#[test]
fn at_one_point_the_stone_cannot_be_declined() {
    let mut game = bare(2, RED);
    druid(game.state_mut(), s(4, 4), RED, false);
    game.state_mut().seats[RED.index()].score = 1;
    play(&mut game, RED, walk(s(4, 4), Dir::East));
    assert_eq!(
        game.decision(),
        Some(Decision::Stone {
            site: s(4, 4),
            may_decline: false
        })
    );
    assert_eq!(legal(&game), [Action::PlaceStone]);
    let err = reject(&mut game, RED, Action::DeclineStone);
    assert_eq!(err, RuleError::MayNotDecline { score: 1 });
    assert!(err.to_string().contains("may not decline"));
    // At two points it can, down to one.
    game.state_mut().seats[RED.index()].score = 2;
    let ev = play(&mut game, RED, Action::DeclineStone);
    assert!(matches!(
        ev[1],
        Event::ScoreChanged {
            score: 1,
            delta: -1,
            ..
        }
    ));
}

#[test]
fn without_stones_there_is_no_stone_decision_and_no_penalty() {
    let mut game = bare(2, RED);
    druid(game.state_mut(), s(4, 4), RED, false);
    game.state_mut().seats[RED.index()].stones_left = 0;
    let ev = play_raw(&mut game, RED, walk(s(4, 4), Dir::East));
    assert_eq!(ev.len(), 2);
    assert_eq!(
        ev[1],
        Event::TurnStarted {
            seat: YELLOW,
            turn: 2
        }
    );
    assert_eq!(score(&game, RED), 4);
    assert_eq!(game.state().site(s(4, 4)), None);
    assert_eq!(game.decision(), Some(Decision::Turn));
}

#[test]
fn a_second_colour_hands_the_majority_to_the_first_out_of_turn() {
    // Square F: (5,1) (6,1) (5,2) (6,2). Red has two stones; blue joins.
    let f = c('F');
    let mut game = bare(3, BLUE);
    let st = game.state_mut();
    put_stone(st, s(5, 1), RED);
    put_stone(st, s(6, 1), RED);
    let ev = stone(&mut game, BLUE, s(5, 2));
    assert_eq!(
        ev[1..],
        [Event::LeaderChanged {
            circle: f,
            leader: RED
        }]
    );
    assert_eq!(game.decision(), dolmen_decision(f, true));
    assert_eq!(game.to_act(), Some(RED));
    assert_eq!(game.active(), BLUE);
    assert_eq!(
        legal(&game),
        [
            Action::PlaceDolmen { value: Some(1) },
            Action::PlaceDolmen { value: Some(2) },
            Action::PlaceDolmen { value: Some(3) },
            Action::PlaceDolmen { value: Some(4) },
            Action::PassDolmen
        ]
    );
    assert_eq!(
        reject(&mut game, BLUE, Action::PassDolmen),
        RuleError::Turn(TurnError::NotYourTurn { expected: RED })
    );
    assert_eq!(
        reject(&mut game, RED, Action::PlaceDolmen { value: Some(5) }),
        RuleError::NoSuchValue(5)
    );
    assert_eq!(
        reject(&mut game, RED, Action::PlaceStone),
        RuleError::Turn(TurnError::WrongDecision {
            expected: Decision::Dolmen {
                circle: f,
                on_top: true
            }
        })
    );
    let ev = play(&mut game, RED, Action::PlaceDolmen { value: Some(4) });
    assert_eq!(
        ev,
        [
            Event::DolmenPlaced {
                seat: RED,
                circle: f,
                on_top: true,
                value: Some(4),
                dolmens_left: 9
            },
            // Blue's turn is over: red is next.
            Event::TurnStarted { seat: RED, turn: 2 }
        ]
    );
    assert_eq!(stack(&game, f), [(RED, 4)]);
    // Red has no dolmen of value 4 any more.
    game.state_mut().phase = Phase::Dolmen;
    game.state_mut().queue.push(crate::dolmen::state::Pending {
        circle: f,
        seat: RED,
        on_top: true,
    });
    assert_eq!(
        reject(&mut game, RED, Action::PlaceDolmen { value: Some(4) }),
        RuleError::NoDolmenOfValue(4)
    );
}

#[test]
fn a_tie_keeps_the_leader_and_the_equaliser_goes_under() {
    // Hexagon G: (6,1) (7,1) (6,2) (7,2) (6,3) (7,3). Red leads 2:1.
    let g = c('G');
    let mut game = bare(3, RED);
    let st = game.state_mut();
    put_stone(st, s(6, 1), RED);
    put_stone(st, s(7, 1), RED);
    put_stone(st, s(6, 2), YELLOW);
    st.circles[g.index()].leader = Some(RED);
    put_dolmen(st, g, RED, 2);
    // Yellow equalises: dolmen under, red keeps the lead.
    let ev = stone(&mut game, YELLOW, s(7, 2));
    assert!(!ev.iter().any(|e| matches!(e, Event::LeaderChanged { .. })));
    assert_eq!(game.decision(), dolmen_decision(g, false));
    assert_eq!(game.to_act(), Some(YELLOW));
    play(&mut game, YELLOW, Action::PlaceDolmen { value: Some(1) });
    assert_eq!(stack(&game, g), [(RED, 2), (YELLOW, 1)]);
    assert_eq!(game.state().circles[g.index()].leader, Some(RED));
    // Red breaks the tie: it already leads, so nothing.
    let mut alt = game.clone();
    let ev = stone(&mut alt, RED, s(6, 3));
    assert!(!ev.iter().any(|e| matches!(e, Event::LeaderChanged { .. })));
    assert_eq!(alt.decision(), Some(Decision::Turn));
    // Yellow breaks it instead: yellow gains the majority, on top.
    let ev = stone(&mut game, YELLOW, s(6, 3));
    assert!(ev.contains(&Event::LeaderChanged {
        circle: g,
        leader: YELLOW
    }));
    assert_eq!(game.decision(), dolmen_decision(g, true));
}

#[test]
fn two_single_stones_are_no_majority_and_no_equalising() {
    let g = c('G');
    let mut game = bare(2, RED);
    stone(&mut game, RED, s(6, 1));
    let ev = stone(&mut game, YELLOW, s(7, 1));
    assert!(!ev.iter().any(|e| matches!(e, Event::LeaderChanged { .. })));
    assert_eq!(game.decision(), Some(Decision::Turn));
    assert_eq!(game.state().circles[g.index()].leader, None);
}

#[test]
fn increasing_a_lead_gives_nothing() {
    let g = c('G');
    let mut game = bare(2, RED);
    let st = game.state_mut();
    put_stone(st, s(6, 1), RED);
    put_stone(st, s(7, 1), RED);
    put_stone(st, s(6, 2), YELLOW);
    st.circles[g.index()].leader = Some(RED);
    let ev = stone(&mut game, RED, s(7, 2));
    assert_eq!(
        ev,
        [
            Event::StonePlaced {
                seat: RED,
                site: s(7, 2),
                stones_left: 13
            },
            Event::TurnStarted {
                seat: YELLOW,
                turn: 2
            }
        ]
    );
}

#[test]
fn a_full_stack_takes_no_dolmen() {
    // Square F holds at most 3 dolmens.
    let f = c('F');
    let mut game = bare(2, RED);
    let st = game.state_mut();
    put_stone(st, s(5, 1), RED);
    put_stone(st, s(6, 1), YELLOW);
    st.circles[f.index()].leader = Some(RED);
    for v in [1, 2, 1] {
        put_dolmen(st, f, RED, v);
    }
    // Yellow gains the majority: leader changes, but no decision.
    let ev = stone(&mut game, YELLOW, s(5, 2));
    assert_eq!(
        ev[1..],
        [
            Event::LeaderChanged {
                circle: f,
                leader: YELLOW
            },
            Event::TurnStarted { seat: RED, turn: 2 }
        ]
    );
    assert_eq!(stack(&game, f).len(), 3);
}

#[test]
fn a_player_without_dolmens_is_skipped() {
    let f = c('F');
    let mut game = bare(2, RED);
    let st = game.state_mut();
    put_stone(st, s(5, 1), YELLOW);
    put_stone(st, s(6, 1), YELLOW);
    leave_in_hand(st, YELLOW, [0; 4]);
    st.end_triggered_by = Some(YELLOW);
    st.last_turns_left = 1;
    let ev = stone(&mut game, RED, s(5, 2));
    assert_eq!(
        ev[1],
        Event::LeaderChanged {
            circle: f,
            leader: YELLOW
        }
    );
    assert!(!ev.iter().any(|e| matches!(e, Event::DolmenPassed { .. })));
    assert_eq!(game.decision(), Some(Decision::Turn));
    assert!(stack(&game, f).is_empty());
}

#[test]
fn one_stone_completing_two_circles_scores_both_in_letter_order() {
    // F (5,1) (6,1) (5,2) (6,2) and G (6,1) (7,1) (6,2) (7,2) (6,3) (7,3)
    // share (6,1) and (6,2); everything but (6,2) is red.
    let (f, g) = (c('F'), c('G'));
    let mut game = bare(2, RED);
    let st = game.state_mut();
    for site in [
        s(5, 1),
        s(6, 1),
        s(5, 2),
        s(7, 1),
        s(7, 2),
        s(6, 3),
        s(7, 3),
    ] {
        put_stone(st, site, RED);
    }
    put_dolmen(st, f, YELLOW, 2);
    put_dolmen(st, f, RED, 1);
    put_dolmen(st, g, RED, 4);
    let ev = stone(&mut game, RED, s(6, 2));
    let expected = [
        Event::StonePlaced {
            seat: RED,
            site: s(6, 2),
            stones_left: 8,
        },
        Event::CircleCompleted { circle: f },
        Event::DolmenScored {
            seat: YELLOW,
            circle: f,
            value: 2,
            multiplier: 3,
        },
        Event::ScoreChanged {
            seat: YELLOW,
            delta: 6,
            score: 10,
            reason: ScoreReason::Dolmen,
        },
        Event::DolmenScored {
            seat: RED,
            circle: f,
            value: 1,
            multiplier: 2,
        },
        Event::ScoreChanged {
            seat: RED,
            delta: 2,
            score: 6,
            reason: ScoreReason::Dolmen,
        },
        Event::CircleCompleted { circle: g },
        Event::DolmenScored {
            seat: RED,
            circle: g,
            value: 4,
            multiplier: 4,
        },
        Event::ScoreChanged {
            seat: RED,
            delta: 16,
            score: 22,
            reason: ScoreReason::Dolmen,
        },
        Event::TurnStarted {
            seat: YELLOW,
            turn: 2,
        },
    ];
    assert_eq!(ev, expected);
    let v = game.view(Viewer::Spectator);
    assert!(v.circles[f.index()].complete && v.circles[g.index()].complete);
    assert!(!v.circles[c('J').index()].complete);
    assert_eq!(v.seats[RED.index()].scored, [1, 0, 0, 1]);
    assert_eq!(v.seats[YELLOW.index()].scored, [0, 1, 0, 0]);
}
