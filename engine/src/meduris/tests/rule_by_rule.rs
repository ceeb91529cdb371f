//! One test per rule: settlements, the river, chips, offerings, "+1" and "−1", temple scoring.

use super::*;

#[test]
fn closing_the_gap_between_two_settlements_costs_the_whole_settlement() {
    let mut game = bare(3, PURPLE);
    let st = game.state_mut();
    for f in [3, 4, 6, 7] {
        hut(st, f, BLUE);
    }
    // Field 5 (Star: wood, wool) joins both: 5 huts.
    set_goods(st, PURPLE, g(&[(Wood, 5), (Wool, 5)]));
    for n in [2, 3, 4] {
        let err = reject(
            &mut game,
            PURPLE,
            Action::BuildHut {
                field: 5,
                payment: g(&[(Wood, n), (Wool, n)]),
            },
        );
        assert!(matches!(err, rules::RuleError::WrongPayment { .. }));
    }
    let ev = play(
        &mut game,
        PURPLE,
        Action::BuildHut {
            field: 5,
            payment: g(&[(Wood, 5), (Wool, 5)]),
        },
    );
    assert!(matches!(ev[0], Event::HutBuilt { settlement: 5, .. }));
    assert_eq!(game.goods(PURPLE), Goods::EMPTY);
    assert_eq!(game.state().settlement_through(5), 5);
}

#[test]
fn a_settlement_across_the_river() {
    let mut game = bare(2, PURPLE);
    let st = game.state_mut();
    hut(st, 31, BLUE);
    hut(st, 0, BLUE);
    // Field 1 (stone, wood) becomes the 3rd hut of the settlement 31-0-1.
    assert_eq!(st.settlement_through(1), 3);
    assert_eq!(st.settlement_through(30), 3);
    set_goods(st, PURPLE, g(&[(Stone, 3), (Wood, 3)]));
    reject(
        &mut game,
        PURPLE,
        Action::BuildHut {
            field: 1,
            payment: g(&[(Stone, 1), (Wood, 1)]),
        },
    );
    let ev = play(
        &mut game,
        PURPLE,
        Action::BuildHut {
            field: 1,
            payment: g(&[(Stone, 3), (Wood, 3)]),
        },
    );
    assert!(matches!(ev[0], Event::HutBuilt { settlement: 3, .. }));
    assert_eq!(game.goods(PURPLE), Goods::EMPTY);
    assert_eq!(game.state().settlement_through(31), 3);
}

#[test]
fn the_ritual_crosses_the_river_midway() {
    let mut game = bare(2, PURPLE);
    let st = game.state_mut();
    st.druid = DruidPos::Field(20);
    hut(st, 20, BLUE);
    hut(st, 31, BLUE);
    hut(st, 0, PURPLE);
    st.runes[Area::Moon.index()] = Some(PURPLE);
    set_goods(st, PURPLE, g(&[(Stone, 1), (Wool, 1)]));
    // Hut on 30 (Arrow: copper, stone) extends 30-31-0.
    set_goods(st, PURPLE, g(&[(Copper, 3), (Stone, 3)]));
    play(
        &mut game,
        PURPLE,
        Action::BuildHut {
            field: 30,
            payment: g(&[(Copper, 3), (Stone, 3)]),
        },
    );
    assert_eq!(game.state().druid, DruidPos::Field(30));
    play(&mut game, PURPLE, offer(Goods::EMPTY));
    let p0 = score(&game, PURPLE);
    // From 31 to 0 the druid crosses the river during the ritual.
    let ev = play(&mut game, BLUE, offer(Goods::EMPTY));
    assert!(ev.contains(&Event::RiverCrossed));
    // Purple holds Moon and (after building on 30) Arrow: 2 points.
    assert_eq!(scored(&ev, PURPLE, ScoreReason::RiverCrossing), 2);
    assert_eq!(score(&game, PURPLE), p0 + 2);
    assert_eq!(game.state().druid, DruidPos::Field(0));
    assert_eq!(game.to_act(), Some(PURPLE));
}

#[test]
fn the_druid_walks_the_full_ring_to_the_only_hut() {
    let mut game = bare(2, PURPLE);
    let st = game.state_mut();
    st.druid = DruidPos::Field(12);
    hut(st, 12, BLUE);
    st.runes[Area::Scales.index()] = Some(BLUE);
    set_goods(st, PURPLE, g(&[(Wood, 1), (Wool, 1)]));
    let b0 = score(&game, BLUE);
    let ev = play(
        &mut game,
        PURPLE,
        Action::BuildTemple {
            field: 5,
            payment: g(&[(Wood, 1), (Wool, 1)]),
        },
    );
    assert_eq!(ev.iter().filter(|e| **e == Event::RiverCrossed).count(), 1);
    assert_eq!(score(&game, BLUE), b0 + 1);
    assert_eq!(game.state().druid, DruidPos::Field(12));
    assert_eq!(game.to_act(), Some(BLUE));
    // The ritual visits that hut once and ends.
    play(&mut game, BLUE, offer(Goods::EMPTY));
    assert_eq!(game.decision(), Some(Decision::Turn));
    assert_eq!(game.active(), BLUE);
}

#[test]
fn no_hut_on_the_board_the_druid_stays() {
    let mut game = bare(2, PURPLE);
    let st = game.state_mut();
    st.druid = DruidPos::StoneField(3);
    set_goods(st, PURPLE, g(&[(Wood, 1), (Wool, 1)]));
    play(
        &mut game,
        PURPLE,
        Action::BuildTemple {
            field: 5,
            payment: g(&[(Wood, 1), (Wool, 1)]),
        },
    );
    assert_eq!(game.state().druid, DruidPos::StoneField(3));
    assert_eq!(game.active(), BLUE);
}

#[test]
fn chip_plus_two_scores_and_is_paid_as_usual() {
    let mut game = bare(2, PURPLE);
    let st = game.state_mut();
    st.ring.set_chip(5, Some(Chip::PlusTwo));
    set_goods(st, PURPLE, g(&[(Wood, 1), (Wool, 1)]));
    reject(
        &mut game,
        PURPLE,
        Action::BuildHut {
            field: 5,
            payment: Goods::EMPTY,
        },
    );
    let p0 = score(&game, PURPLE);
    let ev = play(
        &mut game,
        PURPLE,
        Action::BuildHut {
            field: 5,
            payment: g(&[(Wood, 1), (Wool, 1)]),
        },
    );
    assert_eq!(score(&game, PURPLE), p0 + 2);
    assert!(ev.contains(&Event::ChipUsed {
        field: 5,
        chip: Chip::PlusTwo
    }));
    assert_eq!(game.state().chip(5), None);
}

#[test]
fn chip_free_hut_costs_nothing_whatever_the_settlement() {
    let mut game = bare(2, PURPLE);
    let st = game.state_mut();
    st.ring.set_chip(5, Some(Chip::FreeHut));
    hut(st, 4, BLUE);
    hut(st, 6, BLUE);
    set_goods(st, PURPLE, g(&[(Wood, 3), (Wool, 3)]));
    reject(
        &mut game,
        PURPLE,
        Action::BuildHut {
            field: 5,
            payment: g(&[(Wood, 3), (Wool, 3)]),
        },
    );
    play(
        &mut game,
        PURPLE,
        Action::BuildHut {
            field: 5,
            payment: Goods::EMPTY,
        },
    );
    assert_eq!(game.goods(PURPLE), g(&[(Wood, 3), (Wool, 3)]));
    assert_eq!(game.state().chip(5), None);
}

#[test]
fn temple_may_not_be_built_on_a_chip() {
    let mut game = bare(2, PURPLE);
    let st = game.state_mut();
    st.ring.set_chip(5, Some(Chip::DruidOffering));
    set_goods(st, PURPLE, g(&[(Wood, 1), (Wool, 1)]));
    let err = reject(
        &mut game,
        PURPLE,
        Action::BuildTemple {
            field: 5,
            payment: g(&[(Wood, 1), (Wool, 1)]),
        },
    );
    assert_eq!(err, rules::RuleError::ChipOnField(5));
}

#[test]
fn druid_chip_kept_then_used_counts_as_both() {
    let mut game = bare(2, PURPLE);
    let st = game.state_mut();
    st.ring.set_chip(5, Some(Chip::DruidOffering));
    hut(st, 6, BLUE);
    st.druid = DruidPos::StoneField(3);
    set_goods(st, PURPLE, g(&[(Wood, 2), (Wool, 2)]));
    play(
        &mut game,
        PURPLE,
        Action::BuildHut {
            field: 5,
            payment: g(&[(Wood, 2), (Wool, 2)]),
        },
    );
    assert_eq!(
        game.state().chip(5),
        Some(Chip::DruidOffering),
        "the chip stays under the hut"
    );
    assert_eq!(game.to_act(), Some(PURPLE));
    let mut legal = Vec::new();
    game.legal_actions(&mut legal);
    assert!(legal.contains(&Action::OfferChip));
    // Keep it: offer nothing.
    play(&mut game, PURPLE, offer(Goods::EMPTY));
    assert_eq!(game.state().chip(5), Some(Chip::DruidOffering));
    play(&mut game, BLUE, offer(Goods::EMPTY));
    // A later visit: hand it in, it counts as both goods (settlement of 2).
    let st = game.state_mut();
    st.phase = Phase::Ritual { field: 5, start: 5 };
    st.druid = DruidPos::Field(5);
    let p0 = score(&game, PURPLE);
    let ev = play(&mut game, PURPLE, Action::OfferChip);
    assert_eq!(score(&game, PURPLE), p0 + 2);
    assert!(ev.contains(&Event::ChipUsed {
        field: 5,
        chip: Chip::DruidOffering
    }));
    assert_eq!(game.state().chip(5), None);
    // No chip any more: the chip offering is refused.
    let st = game.state_mut();
    st.phase = Phase::Ritual { field: 6, start: 6 };
    assert_eq!(
        reject(&mut game, BLUE, Action::OfferChip),
        rules::RuleError::NoDruidChip(6)
    );
}

#[test]
fn offering_minus_one_never_below_zero() {
    let mut game = bare(2, PURPLE);
    let st = game.state_mut();
    hut(st, 5, BLUE);
    st.phase = Phase::Ritual { field: 5, start: 5 };
    st.druid = DruidPos::Field(5);
    st.seats[BLUE.index()].score = 0;
    let ev = play(&mut game, BLUE, offer(Goods::EMPTY));
    assert_eq!(score(&game, BLUE), 0);
    assert!(ev.contains(&Event::Scored {
        seat: BLUE,
        delta: 0,
        total: 0,
        reason: ScoreReason::Offering
    }));
}

#[test]
fn offering_one_good_by_three_for_one_and_wrong_offerings() {
    let mut game = bare(2, PURPLE);
    let st = game.state_mut();
    hut(st, 5, BLUE); // wood, wool
    hut(st, 6, BLUE);
    st.phase = Phase::Ritual { field: 5, start: 5 };
    st.druid = DruidPos::Field(5);
    set_goods(st, BLUE, g(&[(Stone, 3), (Wood, 2)]));
    let err = reject(&mut game, BLUE, offer(g(&[(Wood, 2)])));
    assert!(matches!(err, rules::RuleError::WrongOffering { .. }));
    let err = reject(&mut game, BLUE, offer(g(&[(Copper, 1)])));
    assert!(matches!(err, rules::RuleError::WrongOffering { .. }));
    let err = reject(&mut game, BLUE, offer(g(&[(Wool, 1)])));
    assert_eq!(err, rules::RuleError::CannotAfford(g(&[(Wool, 1)])));
    let b0 = score(&game, BLUE);
    // Wool replaced by three stone, wood paid directly: both → settlement of 2.
    play(&mut game, BLUE, offer(g(&[(Stone, 3), (Wood, 1)])));
    assert_eq!(score(&game, BLUE), b0 + 2);
    // At hut 6 (copper, wool) the last wood is neither good.
    assert_eq!(game.state().druid, DruidPos::Field(6));
    let err = reject(&mut game, BLUE, offer(g(&[(Wood, 1)])));
    assert!(matches!(err, rules::RuleError::WrongOffering { .. }));
    set_goods(game.state_mut(), BLUE, g(&[(Wood, 2), (Stone, 1)]));
    let b1 = score(&game, BLUE);
    // One good (copper) replaced by two wood and a stone: +1.
    play(&mut game, BLUE, offer(g(&[(Wood, 2), (Stone, 1)])));
    assert_eq!(score(&game, BLUE), b1 + 1);
}

#[test]
fn plus_one_every_player_in_seat_order_from_the_active_one() {
    let mut game = bare(3, BLUE);
    let mut ev = Vec::new();
    apply::small_yield(game.state_mut(), DieFace::PlusOne, &mut ev);
    assert_eq!(game.to_act(), Some(BLUE));
    assert_eq!(game.decision(), Some(Decision::TakeGood));
    play(&mut game, BLUE, Action::TakeGood { good: Copper });
    assert_eq!(game.to_act(), Some(GREEN));
    reject(&mut game, BLUE, Action::TakeGood { good: Copper });
    play(&mut game, GREEN, Action::TakeGood { good: Wool });
    assert_eq!(game.to_act(), Some(PURPLE));
    play(&mut game, PURPLE, Action::TakeGood { good: Wool });
    assert_eq!(game.decision(), Some(Decision::Turn));
    assert_eq!(game.to_act(), Some(BLUE));
    assert_eq!(game.goods(GREEN), g(&[(Wool, 1)]));
}

#[test]
fn plus_one_with_an_exhausted_supply() {
    let mut game = bare(3, PURPLE);
    let st = game.state_mut();
    // Only one copper left in the whole supply.
    set_goods(
        st,
        BLUE,
        g(&[(Wood, 18), (Wool, 18), (Stone, 18), (Copper, 9)]),
    );
    set_goods(st, GREEN, g(&[(Copper, 8)]));
    let mut ev = Vec::new();
    apply::small_yield(game.state_mut(), DieFace::PlusOne, &mut ev);
    let mut legal = Vec::new();
    game.legal_actions(&mut legal);
    assert_eq!(legal, vec![Action::TakeGood { good: Copper }]);
    reject(&mut game, PURPLE, Action::TakeGood { good: Wood });
    play(&mut game, PURPLE, Action::TakeGood { good: Copper });
    // The supply is empty: nobody else is asked.
    assert_eq!(game.decision(), Some(Decision::Turn));
    assert_eq!(game.to_act(), Some(PURPLE));
}

#[test]
fn minus_one_skips_players_without_goods() {
    let mut game = bare(3, PURPLE);
    let st = game.state_mut();
    set_goods(st, BLUE, g(&[(Stone, 2)]));
    set_goods(st, GREEN, g(&[(Wood, 1)]));
    let mut ev = Vec::new();
    apply::small_yield(game.state_mut(), DieFace::MinusOne, &mut ev);
    // Purple (active) holds nothing: blue is first.
    assert_eq!(game.to_act(), Some(BLUE));
    reject(&mut game, BLUE, Action::ReturnGood { good: Wood });
    play(&mut game, BLUE, Action::ReturnGood { good: Stone });
    play(&mut game, GREEN, Action::ReturnGood { good: Wood });
    assert_eq!(game.decision(), Some(Decision::Turn));
    assert_eq!(game.goods(BLUE), g(&[(Stone, 1)]));
    assert_eq!(game.goods(GREEN), Goods::EMPTY);
}

#[test]
fn temple_scoring_with_settlements_on_both_sides() {
    let mut game = bare(2, PURPLE);
    let st = game.state_mut();
    hut(st, 1, BLUE);
    hut(st, 2, PURPLE);
    temple(st, 3, PURPLE);
    hut(st, 4, BLUE);
    hut(st, 5, BLUE);
    hut(st, 6, PURPLE);
    temple(st, 7, BLUE);
    assert_eq!(st.huts_beside(3), 5);
    assert_eq!(st.huts_beside(7), 3);
    // Huts 4–6 count for both temples.
    let mut ev = Vec::new();
    crate::meduris::scoring::finish(game.state_mut(), &mut ev);
    assert_eq!(scored(&ev, PURPLE, ScoreReason::Temple), 5);
    assert_eq!(scored(&ev, BLUE, ScoreReason::Temple), 3);
    assert_eq!(game.outcome().unwrap().scores, vec![10, 8]);
    // One settlement touching both sides of a temple is counted once.
    let mut game = bare(2, PURPLE);
    let st = game.state_mut();
    for f in 0..32 {
        hut(st, f, BLUE);
    }
    temple(st, 9, PURPLE);
    assert_eq!(st.huts_beside(9), 31);
    st.ring.set_building(20, None);
    assert_eq!(st.huts_beside(9), 30);
}
