//! Timeouts and errors; hidden information: redaction, views, determinization.

use super::*;

#[test]
fn timeout_defaults() {
    // Placing a druid: the lowest free site.
    let mut game = Dolmen::new(2, 0, &Options::default(), &mut Vec::new()).unwrap();
    play(&mut game, Seat(0), Action::PlaceDruid { site: Site(0) });
    assert_eq!(
        game.timeout_action(),
        Some(Action::PlaceDruid { site: Site(1) })
    );
    // A turn: collect herbs with the lowest standing druid.
    let mut game = bare(2, RED);
    druid(game.state_mut(), s(4, 4), RED, false);
    assert_eq!(
        game.timeout_action(),
        Some(Action::CollectHerbs { site: s(4, 4) })
    );
    // Only lying druids: fly the lowest to the lowest free site.
    let st = game.state_mut();
    st.set_site(
        s(4, 4),
        Some(Occupant::Druid {
            seat: RED,
            lying: true,
        }),
    );
    st.set_site(
        park(RED),
        Some(Occupant::Druid {
            seat: RED,
            lying: true,
        }),
    );
    st.set_site(Site(0), Some(Occupant::Stone(YELLOW)));
    assert_eq!(
        game.timeout_action(),
        Some(Action::Fly {
            from: s(4, 4),
            to: Site(1)
        })
    );
    // A stone: leave it. A dolmen: pass.
    game.state_mut().phase = Phase::Stone { site: s(0, 1) };
    assert_eq!(game.timeout_action(), Some(Action::PlaceStone));
    game.state_mut().phase = Phase::Dolmen;
    game.state_mut().queue.push(crate::dolmen::state::Pending {
        circle: c('A'),
        seat: RED,
        on_top: true,
    });
    assert_eq!(game.timeout_action(), Some(Action::PassDolmen));
}

#[test]
fn errors_say_what_was_wrong_and_classify_themselves() {
    let mut game = bare(2, RED);
    druid(game.state_mut(), s(4, 4), RED, false);
    let e = reject(&mut game, YELLOW, Action::CollectHerbs { site: s(4, 4) });
    assert_eq!(e, RuleError::Turn(TurnError::NotYourTurn { expected: RED }));
    assert_eq!(e.rejection(), Rejection::NotYourTurn);
    let e = reject(&mut game, RED, Action::PlaceStone);
    assert_eq!(
        e,
        RuleError::Turn(TurnError::WrongDecision {
            expected: Decision::Turn
        })
    );
    assert_eq!(e.rejection(), Rejection::Illegal);
    let e = reject(&mut game, RED, walk(Site(200), Dir::North));
    assert_eq!(e, RuleError::NoSuchSite(200));
    assert!(e.to_string().contains("no site 200"));
    // A site or value that does not exist is malformed, as the codec says of it.
    assert_eq!(e.rejection(), Rejection::Malformed);
    assert_eq!(RuleError::NoSuchValue(5).rejection(), Rejection::Malformed);
    let e = reject(
        &mut game,
        RED,
        Action::Fly {
            from: s(4, 4),
            to: Site(73),
        },
    );
    assert_eq!(e, RuleError::DruidStanding(s(4, 4)));
    let e = reject(&mut game, RED, Action::CollectHerbs { site: park(YELLOW) });
    assert_eq!(e, RuleError::NotYourDruid(park(YELLOW)));
    assert!(e.to_string().contains("no druid"));
    assert_eq!(
        RuleError::Turn(TurnError::GameOver).rejection(),
        Rejection::GameOver
    );
}

#[test]
fn redact_hides_dolmen_values_from_other_seats_and_spectators() {
    let placed = Event::DolmenPlaced {
        seat: YELLOW,
        circle: c('F'),
        on_top: true,
        value: Some(3),
        dolmens_left: 4,
    };
    let hidden = Event::DolmenPlaced {
        seat: YELLOW,
        circle: c('F'),
        on_top: true,
        value: None,
        dolmens_left: 4,
    };
    assert_eq!(
        Dolmen::redact(&placed, Viewer::Seat(YELLOW)),
        Some(placed.clone())
    );
    assert_eq!(
        Dolmen::redact(&placed, Viewer::Seat(RED)),
        Some(hidden.clone())
    );
    assert_eq!(Dolmen::redact(&placed, Viewer::Spectator), Some(hidden));
    // A scored dolmen's value is public.
    let scored = Event::DolmenScored {
        seat: YELLOW,
        circle: c('F'),
        value: 3,
        multiplier: 3,
    };
    assert_eq!(Dolmen::redact(&scored, Viewer::Seat(RED)), Some(scored));
}

#[test]
fn views_hide_other_hands_and_dolmen_values() {
    let f = c('F');
    let mut game = bare(3, RED);
    let st = game.state_mut();
    put_dolmen(st, f, RED, 4);
    put_dolmen(st, f, YELLOW, 2);
    put_stone(st, s(5, 1), BLUE);
    let red = game.view(Viewer::Seat(RED));
    assert_eq!(red.seats[RED.index()].hand, Some([4, 3, 2, 0]));
    assert_eq!(red.seats[YELLOW.index()].hand, None);
    assert_eq!(red.seats[YELLOW.index()].dolmens_left, 9);
    assert_eq!(red.seats[YELLOW.index()].dolmens_placed, 1);
    let stack_values = |v: &crate::dolmen::View| -> Vec<Option<u8>> {
        v.circles[f.index()].stack.iter().map(|d| d.value).collect()
    };
    assert_eq!(stack_values(&red), [Some(4), None]);
    let yellow = game.view(Viewer::Seat(YELLOW));
    assert_eq!(stack_values(&yellow), [None, Some(2)]);
    assert_eq!(yellow.seats[RED.index()].hand, None);
    let spectator = game.view(Viewer::Spectator);
    assert_eq!(stack_values(&spectator), [None, None]);
    assert!(spectator.seats.iter().all(|s| s.hand.is_none()));
    assert_eq!(spectator.circles[f.index()].stones, [0, 0, 1]);
    assert_eq!(spectator.to_act, Some(RED));
    assert_eq!(spectator.decision, Some(Decision::Turn));
    assert_eq!(spectator.at(s(5, 1)), Some(Occupant::Stone(BLUE)));
    // Apart from the secrets the views agree.
    let strip = |mut v: crate::dolmen::View| {
        v.viewer = Viewer::Spectator;
        for s in &mut v.seats {
            s.hand = None;
        }
        for c in &mut v.circles {
            for d in &mut c.stack {
                d.value = None;
            }
        }
        v
    };
    assert_eq!(strip(red), spectator);
}

#[test]
fn determinize_where_nothing_is_hidden_is_the_true_state() {
    let game = Dolmen::new(4, 0, &Options::default(), &mut Vec::new()).unwrap();
    for viewer in [Viewer::Seat(Seat(2)), Viewer::Spectator] {
        let d = Dolmen::determinize(&game.view(viewer), 9).unwrap();
        assert_eq!(d, game);
    }
}

#[test]
fn determinize_deals_hidden_values_consistently() {
    use rand_core::{RngCore, SeedableRng};
    let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(5);
    let mut checked_dolmen = 0;
    for seed in 0..30u64 {
        let players = 2 + (seed % 4) as usize;
        let mut game = Dolmen::new(players, seed, &Options::default(), &mut Vec::new()).unwrap();
        let mut step = 0u64;
        while let Some(seat) = game.to_act() {
            step += 1;
            if step.is_multiple_of(7) || matches!(game.decision(), Some(Decision::Dolmen { .. })) {
                let viewers = [Viewer::Seat(seat), Viewer::Spectator];
                for viewer in viewers {
                    let view = game.view(viewer);
                    let d = Dolmen::determinize(&view, seed * 1000 + step).unwrap();
                    assert!(d.pieces_conserved(), "seed {seed} step {step}");
                    // The determinized game shows the same view.
                    assert_eq!(d.view(viewer), view, "seed {seed} step {step}");
                    assert_eq!(d.to_act(), game.to_act());
                    assert_eq!(d.decision(), game.decision());
                    // The viewer's own secrets are exact; play goes on.
                    if let Viewer::Seat(me) = viewer {
                        assert_eq!(
                            d.state().seats[me.index()].hand,
                            game.state().seats[me.index()].hand
                        );
                        let mut a = legal(&game);
                        let mut b = legal(&d);
                        a.sort_by_key(|x| format!("{x:?}"));
                        b.sort_by_key(|x| format!("{x:?}"));
                        assert_eq!(a, b, "the viewer has the same choices");
                        if matches!(game.decision(), Some(Decision::Dolmen { .. })) {
                            checked_dolmen += 1;
                        }
                    }
                    let mut d = d;
                    let mut ev = Vec::new();
                    let mut l = legal(&d);
                    let a = l.swap_remove((rng.next_u32() as usize) % l.len());
                    d.apply(d.to_act().unwrap(), &a, &mut ev).unwrap();
                    assert!(d.pieces_conserved());
                }
            }
            let l = legal(&game);
            let a = l[(rng.next_u32() as usize) % l.len()];
            game.apply(seat, &a, &mut Vec::new()).unwrap();
        }
    }
    assert!(checked_dolmen > 50, "dolmen decisions were checked");
}

#[test]
fn determinize_varies_only_hidden_values_with_the_seed() {
    // Yellow has dolmens on the board and in hand: red cannot know which.
    let f = c('F');
    let mut game = bare(2, RED);
    let st = game.state_mut();
    put_dolmen(st, f, YELLOW, 4);
    put_dolmen(st, f, YELLOW, 1);
    let view = game.view(Viewer::Seat(RED));
    let mut stacks = std::collections::BTreeSet::new();
    for seed in 0..50 {
        let d = Dolmen::determinize(&view, seed).unwrap();
        assert!(d.pieces_conserved());
        assert_eq!(
            d.state().seats[RED.index()],
            game.state().seats[RED.index()]
        );
        assert_eq!(d.state().sites(), game.state().sites());
        stacks.insert(stack(&d, f));
    }
    assert!(stacks.len() > 3, "values are dealt at random: {stacks:?}");
    assert!(
        stacks
            .iter()
            .all(|s| s.iter().all(|&(seat, _)| seat == YELLOW))
    );
}

/// A placed dolmen's value is its owner's secret in the action too: a host
/// reporting the action (e.g. one a turn clock applied) shows others none.
#[test]
fn the_value_of_a_placed_dolmen_is_redacted_from_the_action_for_others() {
    let place = Action::PlaceDolmen { value: Some(3) };
    assert_eq!(Dolmen::redact_action(&place, Viewer::Seat(RED), RED), place);
    let hidden = Action::PlaceDolmen { value: None };
    assert_eq!(
        Dolmen::redact_action(&place, Viewer::Seat(YELLOW), RED),
        hidden
    );
    assert_eq!(
        Dolmen::redact_action(&place, Viewer::Spectator, RED),
        hidden
    );
    let walk = walk(s(4, 4), Dir::North);
    assert_eq!(Dolmen::redact_action(&walk, Viewer::Spectator, RED), walk);
    assert_eq!(hidden.to_string(), "place a dolmen");
    assert_eq!(place.to_string(), "place a dolmen of value 3");
    // The engine refuses the redacted form: the value must be named.
    let f = c('F');
    let mut game = bare(2, RED);
    let st = game.state_mut();
    put_stone(st, s(5, 1), YELLOW);
    put_stone(st, s(6, 1), YELLOW);
    stone(&mut game, RED, s(5, 2));
    assert_eq!(
        game.decision(),
        Some(Decision::Dolmen {
            circle: f,
            on_top: true
        })
    );
    let seat = game.to_act().unwrap();
    let e = reject(&mut game, seat, hidden);
    assert_eq!(e, RuleError::HiddenValue);
    assert_eq!(e.rejection(), Rejection::Malformed);
}
