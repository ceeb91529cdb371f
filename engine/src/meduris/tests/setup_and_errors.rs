//! Setup, refusals and their classes, and the wording of actions and events.

use super::*;

#[test]
fn setup_places_workers_in_seat_order_from_the_start_seat() {
    let options = crate::meduris::Options {
        start_seat: 2,
        max_turns: 1000,
    };
    let mut ev = Vec::new();
    let mut game = Meduris::new(3, 9, &options, &mut ev).unwrap();
    assert_eq!(
        ev.iter()
            .filter(|e| matches!(e, Event::ChipPlaced { .. }))
            .count(),
        6
    );
    let mut order = Vec::new();
    for _ in 0..6 {
        let seat = game.to_act().unwrap();
        assert_eq!(game.decision(), Some(Decision::PlaceWorker));
        order.push(seat);
        play(&mut game, seat, Action::PlaceWorker { plateau: Stone });
        if game.state().plateaus[Stone.index()].len() == 3 {
            let seat = game.to_act().unwrap();
            reject(&mut game, seat, Action::PlaceWorker { plateau: Stone });
            break;
        }
    }
    assert_eq!(order, vec![GREEN, PURPLE, BLUE]);
    for _ in 0..3 {
        let seat = game.to_act().unwrap();
        order.push(seat);
        play(&mut game, seat, Action::PlaceWorker { plateau: Wood });
    }
    assert_eq!(order, vec![GREEN, PURPLE, BLUE, GREEN, PURPLE, BLUE]);
    // First turn: the start seat.
    assert_eq!(game.turn(), 1);
    assert_eq!(game.active(), GREEN);
}

#[test]
fn setup_material_and_chip_spacing() {
    for players in 2..=4 {
        for seed in 0..200 {
            let mut ev = Vec::new();
            let game = Meduris::new(players, seed, &Default::default(), &mut ev).unwrap();
            let st = game.state();
            let n = st.len();
            let chips: Vec<usize> = (0..n).filter(|&f| st.chip(f).is_some()).collect();
            assert_eq!(chips.len(), 6);
            for (i, &a) in chips.iter().enumerate() {
                let b = chips[(i + 1) % chips.len()];
                let gap = (b + n - a) % n - 1;
                assert!(
                    gap >= 3,
                    "at least 3 chip-free fields between chips: {chips:?}"
                );
            }
            for kind in [Chip::PlusTwo, Chip::FreeHut, Chip::DruidOffering] {
                assert_eq!((0..n).filter(|&f| st.chip(f) == Some(kind)).count(), 2);
            }
            let s = &st.seats[0];
            assert_eq!(s.goods, Goods([1; 4]));
            assert_eq!(s.score, 5);
            assert_eq!(s.temples_left, 2);
            let (huts, workers) = if players == 2 { (12, 3) } else { (8, 2) };
            assert_eq!((s.huts_left, s.workers_to_place), (huts, workers));
            assert_eq!(st.supply, Goods([18 - players as u8; 4]));
        }
    }
}

#[test]
fn wrong_seat_and_wrong_decision_are_rejected_without_change() {
    let mut game = bare(2, PURPLE);
    let err = reject(&mut game, BLUE, Action::TakeGood { good: Wood });
    assert_eq!(
        err,
        rules::RuleError::Turn(TurnError::NotYourTurn { expected: PURPLE })
    );
    let err = reject(&mut game, PURPLE, Action::TakeGood { good: Wood });
    assert!(matches!(
        err,
        rules::RuleError::Turn(TurnError::WrongDecision { .. })
    ));
    let err = reject(
        &mut game,
        PURPLE,
        Action::BuildHut {
            field: 40,
            payment: Goods::EMPTY,
        },
    );
    assert!(matches!(err, rules::RuleError::NoSuchField { .. }));
}

/// A field the board in use does not have is one mistake with one class
/// (malformed, like the codec's refusal of absurd numbers), whatever its number,
/// and the message names the board's range.
#[test]
fn a_field_beyond_the_board_is_malformed_and_names_the_range() {
    use crate::{Rejection, RuleViolation};
    let mut game = bare(2, PURPLE);
    game.state_mut().phase = Phase::Turn;
    for field in [32, 45, 63] {
        let err = reject(
            &mut game,
            PURPLE,
            Action::BuildTemple {
                field,
                payment: Goods::EMPTY,
            },
        );
        assert_eq!(err.rejection(), Rejection::Malformed, "field {field}");
        assert_eq!(
            err.to_string(),
            format!("field {field} does not exist: this board has fields 0 to 31")
        );
    }
}

/// Actions and events read as one line of plain English.
#[test]
fn actions_and_events_read_as_plain_english() {
    let payment = Goods::from_pairs(&[(Wood, 2), (Wool, 2)]);
    assert_eq!(
        Action::BuildHut { field: 12, payment }.to_string(),
        "build a hut on field 12 paying 2 wood, 2 wool"
    );
    assert_eq!(offer(Goods::EMPTY).to_string(), "offer nothing (-1 point)");
    assert_eq!(
        Event::HutBuilt {
            seat: BLUE,
            field: 12,
            paid: payment,
            settlement: 3
        }
        .to_string(),
        "seat 1 built a hut on field 12 (settlement 3) paying 2 wood, 2 wool"
    );
    assert_eq!(
        Event::RuneTaken {
            area: Area::Serpent,
            from: None,
            to: PURPLE
        }
        .to_string(),
        "seat 0 took the serpent rune stone from the supply"
    );
}
