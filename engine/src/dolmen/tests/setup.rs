//! Setup, and the rulebook's octagon example.

use super::*;

#[test]
fn setup_checks_player_count_and_options() {
    let new = |p, o: Options| Dolmen::new(p, 0, &o, &mut Vec::new()).map(|_| ());
    assert!(matches!(
        new(1, Options::default()),
        Err(SetupError::PlayerCount { got: 1, .. })
    ));
    assert!(matches!(
        new(6, Options::default()),
        Err(SetupError::PlayerCount { got: 6, .. })
    ));
    let bad_start = Options {
        start_seat: Seat(3),
        ..Options::default()
    };
    assert!(matches!(new(3, bad_start), Err(SetupError::Option(_))));
    let no_turns = Options {
        max_turns: 0,
        ..Options::default()
    };
    assert!(matches!(new(2, no_turns), Err(SetupError::Option(_))));
}

#[test]
fn starting_material_follows_the_table() {
    for (players, stones, dolmens) in [
        (2, 16, [5, 4, 3, 1]),
        (3, 13, [4, 3, 2, 1]),
        (4, 12, [4, 3, 1, 1]),
        (5, 10, [3, 2, 1, 1]),
    ] {
        let game = Dolmen::new(players, 0, &Options::default(), &mut Vec::new()).unwrap();
        let v = game.view(Viewer::Seat(Seat(0)));
        assert_eq!(v.seats.len(), players);
        for (i, sv) in v.seats.iter().enumerate() {
            assert_eq!(sv.score, 4);
            assert_eq!(sv.stones_left, stones);
            assert_eq!(sv.dolmens_left, dolmens.iter().sum::<u8>());
            assert_eq!(sv.druids_to_place, 3);
            assert_eq!(sv.hand, (i == 0).then_some(dolmens));
        }
        assert_eq!(starting_dolmens(players), dolmens);
        assert!(game.pieces_conserved());
    }
}

#[test]
fn druids_are_placed_in_seat_order_from_the_start_seat_three_rounds() {
    let options = Options {
        start_seat: Seat(2),
        ..Options::default()
    };
    let mut game = Dolmen::new(3, 0, &options, &mut Vec::new()).unwrap();
    let mut order = Vec::new();
    for i in 0..9 {
        assert_eq!(game.decision(), Some(Decision::PlaceDruid));
        let seat = game.to_act().unwrap();
        order.push(seat.0);
        let site = Site(i * 5);
        let ev = play(&mut game, seat, Action::PlaceDruid { site });
        assert_eq!(ev[0], Event::DruidPlaced { seat, site });
        if i == 8 {
            // The first turn goes to the start seat.
            assert_eq!(
                ev[1..],
                [Event::TurnStarted {
                    seat: Seat(2),
                    turn: 1
                }]
            );
        }
    }
    assert_eq!(order, [2, 0, 1, 2, 0, 1, 2, 0, 1]);
    assert_eq!(game.decision(), Some(Decision::Turn));
    assert_eq!(game.to_act(), Some(Seat(2)));
    assert_eq!(game.turn(), 1);
    // A druid cannot go on an occupied site, nor off the board.
    let mut game = Dolmen::new(2, 0, &Options::default(), &mut Vec::new()).unwrap();
    play(&mut game, Seat(0), Action::PlaceDruid { site: Site(7) });
    assert_eq!(
        reject(&mut game, Seat(1), Action::PlaceDruid { site: Site(7) }),
        RuleError::SiteOccupied(Site(7))
    );
    assert_eq!(
        reject(&mut game, Seat(1), Action::PlaceDruid { site: Site(73) }),
        RuleError::NoSuchSite(73)
    );
    assert_eq!(legal(&game).len(), SITES - 1);
}

/// Red, yellow, blue in octagon I (sites (2,2) (3,2) (4,2) (2,3) (4,3) (2,4)
/// (3,4) (4,4)): the sequence of the rulebook, each dolmen decision in I taken
/// with the given value.
#[test]
fn rulebook_octagon_example() {
    let i = c('I');
    let mut game = bare(3, RED);
    // Red stone: one colour, no majority.
    let ev = stone(&mut game, RED, s(2, 2));
    assert!(!ev.iter().any(|e| matches!(e, Event::LeaderChanged { .. })));
    // Yellow stone: no majority yet (one each).
    stone(&mut game, YELLOW, s(3, 2));
    // Blue stone: still none.
    stone(&mut game, BLUE, s(4, 2));
    assert_eq!(game.state().circles[i.index()].leader, None);
    assert_eq!(game.decision(), Some(Decision::Turn));
    // Yellow stone: yellow leads, dolmen on top.
    let ev = stone(&mut game, YELLOW, s(2, 3));
    assert!(ev.contains(&Event::LeaderChanged {
        circle: i,
        leader: YELLOW
    }));
    assert_eq!(game.decision(), dolmen_decision(i, true));
    assert_eq!(game.to_act(), Some(YELLOW));
    play(&mut game, YELLOW, Action::PlaceDolmen { value: Some(3) });
    // Red stone: red equalises, dolmen under.
    stone(&mut game, RED, s(4, 3));
    assert_eq!(game.decision(), dolmen_decision(i, false));
    assert_eq!(game.to_act(), Some(RED));
    play(&mut game, RED, Action::PlaceDolmen { value: Some(2) });
    // Blue stone: blue equalises (yellow still leads), dolmen under red.
    stone(&mut game, BLUE, s(2, 4));
    assert_eq!(game.decision(), dolmen_decision(i, false));
    play(&mut game, BLUE, Action::PlaceDolmen { value: Some(4) });
    assert_eq!(stack(&game, i), [(YELLOW, 3), (RED, 2), (BLUE, 4)]);
    assert_eq!(game.state().circles[i.index()].leader, Some(YELLOW));

    // Had yellow placed the next stone: nothing (yellow still leads).
    let mut alt = game.clone();
    let ev = stone(&mut alt, YELLOW, s(3, 4));
    assert!(
        !ev.iter()
            .any(|e| matches!(e, Event::LeaderChanged { .. } | Event::DolmenPlaced { .. }))
    );
    assert_eq!(alt.decision(), Some(Decision::Turn));
    assert_eq!(alt.state().circles[i.index()].leader, Some(YELLOW));

    // Blue stone: blue gains sole majority, dolmen on top.
    let ev = stone(&mut game, BLUE, s(3, 4));
    assert!(ev.contains(&Event::LeaderChanged {
        circle: i,
        leader: BLUE
    }));
    assert_eq!(game.decision(), dolmen_decision(i, true));
    play(&mut game, BLUE, Action::PlaceDolmen { value: Some(1) });
    assert!([RED, YELLOW, BLUE].iter().all(|&p| score(&game, p) == 4));

    // Red fills the last site: red equalises blue, dolmen under; in the same
    // stone red also gains J (blue 1, red 2), decided after I (letter order).
    let ev = stone(&mut game, RED, s(4, 4));
    assert!(ev.contains(&Event::LeaderChanged {
        circle: c('J'),
        leader: RED
    }));
    assert_eq!(game.decision(), dolmen_decision(i, false));
    let view = game.view(Viewer::Spectator);
    assert_eq!(
        view.queued_dolmens,
        [QueuedDolmen {
            circle: c('J'),
            seat: RED,
            on_top: true
        }]
    );
    let ev = play(&mut game, RED, Action::PlaceDolmen { value: Some(1) });
    assert_eq!(
        ev,
        [Event::DolmenPlaced {
            seat: RED,
            circle: i,
            on_top: false,
            value: Some(1),
            dolmens_left: 8,
        }]
    );
    assert_eq!(
        stack(&game, i),
        [(BLUE, 1), (YELLOW, 3), (RED, 2), (BLUE, 4), (RED, 1)],
        "top → bottom: blue, yellow, red, blue, red"
    );
    // The circle scores only after the last decision of the stone (J).
    assert_eq!(game.decision(), dolmen_decision(c('J'), true));
    let ev = play(&mut game, RED, Action::PassDolmen);
    let sc = |seat, value, multiplier, delta, score| {
        [
            Event::DolmenScored {
                seat,
                circle: i,
                value,
                multiplier,
            },
            Event::ScoreChanged {
                seat,
                delta,
                score,
                reason: ScoreReason::Dolmen,
            },
        ]
    };
    let mut expected = vec![
        Event::DolmenPassed {
            seat: RED,
            circle: c('J'),
        },
        Event::CircleCompleted { circle: i },
    ];
    expected.extend(sc(BLUE, 1, 5, 5, 9));
    expected.extend(sc(YELLOW, 3, 4, 12, 16));
    expected.extend(sc(RED, 2, 3, 6, 10));
    expected.extend(sc(BLUE, 4, 2, 8, 17));
    expected.extend(sc(RED, 1, 1, 1, 11));
    assert_eq!(ev[..expected.len()], expected[..]);
    assert!(matches!(ev[expected.len()], Event::TurnStarted { .. }));
    assert!(stack(&game, i).is_empty());
    assert!(game.state().circles[i.index()].complete);
    assert_eq!(game.state().seats[RED.index()].scored, [1, 1, 0, 0]);
    assert_eq!(
        (score(&game, RED), score(&game, YELLOW), score(&game, BLUE)),
        (11, 16, 17)
    );
}
