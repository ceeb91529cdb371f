//! The rulebook's examples and FAQ items from the digest (items 1–12).

use super::*;

#[test]
fn example_01_small_yield_wood() {
    let mut game = bare(4, RED);
    let st = game.state_mut();
    stack(st, Wood, &[BLUE, GREEN, BLUE]);
    stack(st, Stone, &[RED]);
    let mut events = Vec::new();
    apply::small_yield(st, DieFace::Yield(Wood), &mut events);
    assert_eq!(game.goods(GREEN), g(&[(Wood, 1)]));
    assert_eq!(game.goods(BLUE), g(&[(Wood, 2)]));
    assert_eq!(game.goods(RED), Goods::EMPTY);
    assert_eq!(game.supply().get(Wood), 15);
    assert_eq!(game.decision(), Some(Decision::Turn));
}

#[test]
fn example_02_big_yield_onto_a_stack() {
    let mut game = bare(4, RED);
    let st = game.state_mut();
    stack(st, Stone, &[RED, GREEN]);
    stack(st, Wood, &[RED]);
    play(
        &mut game,
        RED,
        Action::BigYield {
            from: Wood,
            height: 1,
            to: Stone,
        },
    );
    assert_eq!(
        game.goods(RED),
        g(&[(Stone, 4)]),
        "3 for the top worker + 1 for the bottom"
    );
    assert_eq!(game.goods(GREEN), g(&[(Stone, 2)]));
    let stone: Vec<Seat> = game.state().plateaus[Stone.index()].workers().collect();
    assert_eq!(stone, vec![RED, GREEN, RED]);
    assert!(game.state().plateaus[Wood.index()].len() == 0);
}

#[test]
fn example_03_fourth_build_leaves_the_stone_fields() {
    let mut game = bare(4, BLUE);
    let st = game.state_mut();
    st.druid = DruidPos::StoneField(3);
    hut(st, 5, GREEN); // Star: wood, wool
    hut(st, 6, RED); // Star: copper, wool
    temple(st, 20, PURPLE);
    set_goods(st, BLUE, g(&[(Wood, 1), (Copper, 1)]));
    set_goods(st, GREEN, g(&[(Wool, 1)]));
    // The 4th build: a temple on field 26 (copper, wood).
    let ev = play(
        &mut game,
        BLUE,
        Action::BuildTemple {
            field: 26,
            payment: g(&[(Copper, 1), (Wood, 1)]),
        },
    );
    assert!(!ev.contains(&Event::RiverCrossed));
    assert_eq!(
        game.state().druid,
        DruidPos::Field(5),
        "nearest hut from field 0"
    );
    assert_eq!(game.to_act(), Some(GREEN));
    let before = score(&game, GREEN);
    play(&mut game, GREEN, offer(g(&[(Wool, 1)])));
    assert_eq!(score(&game, GREEN), before + 1);
    assert_eq!(game.goods(GREEN), Goods::EMPTY);
    // The ritual goes on to the red hut of the same settlement.
    assert_eq!(game.state().druid, DruidPos::Field(6));
    assert_eq!(game.to_act(), Some(RED));
}

#[test]
fn example_03_offering_both_at_a_two_hut_settlement_scores_two() {
    let mut game = bare(4, BLUE);
    let st = game.state_mut();
    st.druid = DruidPos::StoneField(3);
    hut(st, 5, GREEN);
    hut(st, 6, RED);
    set_goods(st, BLUE, g(&[(Wood, 1), (Copper, 1)]));
    set_goods(st, GREEN, g(&[(Wool, 1), (Wood, 1)]));
    play(
        &mut game,
        BLUE,
        Action::BuildTemple {
            field: 26,
            payment: g(&[(Copper, 1), (Wood, 1)]),
        },
    );
    let before = score(&game, GREEN);
    play(&mut game, GREEN, offer(g(&[(Wool, 1), (Wood, 1)])));
    assert_eq!(
        score(&game, GREEN),
        before + 2,
        "up to 2 points thanks to the red hut"
    );
}

#[test]
fn example_04_third_hut_of_a_settlement_and_its_ritual() {
    let mut game = bare(4, BLUE);
    let st = game.state_mut();
    st.druid = DruidPos::Field(20);
    hut(st, 20, PURPLE);
    hut(st, 25, RED); // Wave: stone, wool
    hut(st, 26, RED); // Fire: copper, wood
    temple(st, 27, PURPLE);
    st.runes[Area::Wave.index()] = Some(RED);
    set_goods(st, BLUE, g(&[(Stone, 4), (Wood, 4)]));
    set_goods(st, RED, g(&[(Wood, 1), (Wool, 1)]));
    // Field 24 (Wave: stone, wood) becomes the 3rd hut: 3 stone + 3 wood.
    let ev = play(
        &mut game,
        BLUE,
        Action::BuildHut {
            field: 24,
            payment: g(&[(Stone, 3), (Wood, 3)]),
        },
    );
    assert!(ev.contains(&Event::RuneTaken {
        area: Area::Wave,
        from: Some(RED),
        to: BLUE
    }));
    assert_eq!(game.state().runes[Area::Wave.index()], Some(BLUE));
    assert_eq!(
        game.state().druid,
        DruidPos::Field(24),
        "the new hut is the nearest"
    );
    let (blue0, red0) = (score(&game, BLUE), score(&game, RED));
    play(&mut game, BLUE, offer(g(&[(Stone, 1), (Wood, 1)])));
    assert_eq!(score(&game, BLUE), blue0 + 3);
    assert_eq!(game.state().druid, DruidPos::Field(25));
    play(&mut game, RED, offer(Goods::EMPTY));
    assert_eq!(score(&game, RED), red0 - 1);
    assert_eq!(game.state().druid, DruidPos::Field(26));
    play(&mut game, RED, offer(g(&[(Wood, 1)])));
    assert_eq!(score(&game, RED), red0);
    // The temple ends the settlement: the druid stays beside the last hut, next player.
    assert_eq!(game.state().druid, DruidPos::Field(26));
    assert_eq!(game.active(), GREEN);
    assert_eq!(game.turn(), 2);
}

#[test]
fn example_05_temple_build_crosses_the_river_then_ritual() {
    let mut game = bare(4, RED);
    let st = game.state_mut();
    st.druid = DruidPos::Field(38);
    hut(st, 38, PURPLE);
    hut(st, 1, GREEN);
    st.runes[Area::Arrow.index()] = Some(PURPLE);
    st.runes[Area::Serpent.index()] = Some(GREEN);
    st.runes[Area::Moon.index()] = Some(GREEN);
    set_goods(st, RED, g(&[(Stone, 1), (Copper, 1)]));
    let (p0, g0, r0) = (score(&game, PURPLE), score(&game, GREEN), score(&game, RED));
    let ev = play(
        &mut game,
        RED,
        Action::BuildTemple {
            field: 9, // Splash: stone, copper
            payment: g(&[(Stone, 1), (Copper, 1)]),
        },
    );
    let crossed = ev
        .iter()
        .position(|e| *e == Event::RiverCrossed)
        .expect("crossed");
    let moved = ev
        .iter()
        .position(|e| {
            *e == Event::DruidMoved {
                to: DruidPos::Field(1),
            }
        })
        .expect("moved");
    assert!(crossed < moved, "rune scoring happens during the walk");
    assert_eq!(score(&game, PURPLE), p0 + 1);
    assert_eq!(score(&game, GREEN), g0 + 2);
    assert_eq!(score(&game, RED), r0);
    assert_eq!(
        game.decision(),
        Some(Decision::Offering {
            field: 1,
            last_round: false
        })
    );
    assert_eq!(game.to_act(), Some(GREEN));
}

#[test]
fn example_06_extending_costs_by_settlement_size_at_either_end() {
    for (a, b) in [(14, 15), (11, 12)] {
        let mut game = bare(3, PURPLE);
        let st = game.state_mut();
        hut(st, a, BLUE);
        hut(st, b, GREEN);
        set_goods(st, PURPLE, g(&[(Wool, 3), (Wood, 3)]));
        // Field 13 (Scales: wool, wood) becomes the 3rd hut.
        reject(
            &mut game,
            PURPLE,
            Action::BuildHut {
                field: 13,
                payment: g(&[(Wool, 2), (Wood, 2)]),
            },
        );
        let ev = play(
            &mut game,
            PURPLE,
            Action::BuildHut {
                field: 13,
                payment: g(&[(Wool, 3), (Wood, 3)]),
            },
        );
        assert!(matches!(ev[0], Event::HutBuilt { settlement: 3, .. }));
        assert_eq!(game.goods(PURPLE), Goods::EMPTY);
        assert_eq!(game.state().building(13), Some(Building::Hut(PURPLE)));
    }
}

#[test]
fn example_07_settlement_extended_in_front_of_the_druid() {
    let mut game = bare(3, BLUE);
    let st = game.state_mut();
    hut(st, 5, PURPLE);
    hut(st, 6, GREEN);
    st.druid = DruidPos::Field(6);
    hut(st, 8, GREEN);
    hut(st, 9, PURPLE);
    set_goods(st, BLUE, g(&[(Wood, 5), (Stone, 5)]));
    // Field 7 (Star: wood, stone) closes the gap: a settlement of 5 huts.
    play(
        &mut game,
        BLUE,
        Action::BuildHut {
            field: 7,
            payment: g(&[(Wood, 5), (Stone, 5)]),
        },
    );
    assert_eq!(
        game.state().druid,
        DruidPos::Field(7),
        "ritual starts mid-settlement"
    );
    set_goods(game.state_mut(), BLUE, g(&[(Wood, 1), (Stone, 1)]));
    let b0 = score(&game, BLUE);
    play(&mut game, BLUE, offer(g(&[(Wood, 1), (Stone, 1)])));
    assert_eq!(
        score(&game, BLUE),
        b0 + 5,
        "the whole settlement, huts behind the druid too"
    );
    assert_eq!(game.to_act(), Some(GREEN));
    play(&mut game, GREEN, offer(Goods::EMPTY));
    assert_eq!(game.to_act(), Some(PURPLE));
    play(&mut game, PURPLE, offer(Goods::EMPTY));
    // Field 10 is empty: the ritual ends without revisiting 5 and 6.
    assert_eq!(game.state().druid, DruidPos::Field(9));
    assert_eq!(game.decision(), Some(Decision::Turn));
}

#[test]
fn example_08_druid_passes_temples_temples_side_by_side_refusal_allowed() {
    let mut game = bare(2, PURPLE);
    let st = game.state_mut();
    st.druid = DruidPos::Field(3);
    hut(st, 3, BLUE);
    temple(st, 4, BLUE);
    hut(st, 8, BLUE);
    set_goods(st, PURPLE, g(&[(Wood, 1), (Wool, 1)]));
    set_goods(st, BLUE, g(&[(Stone, 1), (Copper, 1)]));
    // A second temple next to the first one (field 5: wood, wool).
    play(
        &mut game,
        PURPLE,
        Action::BuildTemple {
            field: 5,
            payment: g(&[(Wood, 1), (Wool, 1)]),
        },
    );
    assert_eq!(
        game.state().druid,
        DruidPos::Field(8),
        "past the temples and empty fields"
    );
    // Blue could pay stone + copper but refuses: −1.
    let b0 = score(&game, BLUE);
    let ev = play(&mut game, BLUE, offer(Goods::EMPTY));
    assert_eq!(score(&game, BLUE), b0 - 1);
    assert!(ev.iter().any(|e| matches!(
        e,
        Event::Offering {
            kind: OfferingKind::Nothing,
            ..
        }
    )));
    // Temples side by side score nothing for each other: 4 has hut 3 on its left (1),
    // 5 has only the temple and an empty field.
    let st = game.state();
    assert_eq!(st.huts_beside(4), 1);
    assert_eq!(st.huts_beside(5), 0);
}

#[test]
fn example_09_four_temples_before_the_first_hut() {
    let mut game = bare(2, PURPLE);
    let st = game.state_mut();
    set_goods(
        st,
        PURPLE,
        g(&[(Wood, 6), (Wool, 6), (Copper, 6), (Stone, 6)]),
    );
    set_goods(
        st,
        BLUE,
        g(&[(Wood, 6), (Wool, 6), (Copper, 6), (Stone, 6)]),
    );
    let temples = [(PURPLE, 1), (BLUE, 3), (PURPLE, 5), (BLUE, 7)];
    for (i, (seat, field)) in temples.into_iter().enumerate() {
        let st = game.state_mut();
        st.phase = Phase::Turn;
        st.active = seat;
        let payment = state::field_goods(st, field);
        play(
            &mut game,
            seat,
            Action::BuildTemple {
                field: field as u8,
                payment,
            },
        );
        let expect = DruidPos::StoneField((i as u8 + 1).min(3));
        assert_eq!(game.state().druid, expect);
    }
    // The first hut: the druid leaves the stone fields and goes to it.
    let st = game.state_mut();
    st.phase = Phase::Turn;
    st.active = PURPLE;
    play(
        &mut game,
        PURPLE,
        Action::BuildHut {
            field: 10,
            payment: g(&[(Copper, 1), (Wood, 1)]),
        },
    );
    assert_eq!(game.state().druid, DruidPos::Field(10));
    assert_eq!(game.to_act(), Some(PURPLE));
}

#[test]
fn example_10_bottom_worker_may_move_but_not_to_its_own_plateau() {
    let mut game = bare(2, PURPLE);
    let st = game.state_mut();
    stack(st, Wool, &[PURPLE, BLUE, BLUE]);
    let err = reject(
        &mut game,
        PURPLE,
        Action::BigYield {
            from: Wool,
            height: 1,
            to: Wool,
        },
    );
    assert_eq!(err, rules::RuleError::SamePlateau);
    reject(
        &mut game,
        PURPLE,
        Action::BigYield {
            from: Wool,
            height: 2,
            to: Wood,
        },
    );
    play(
        &mut game,
        PURPLE,
        Action::BigYield {
            from: Wool,
            height: 1,
            to: Copper,
        },
    );
    let wool: Vec<Seat> = game.state().plateaus[Wool.index()].workers().collect();
    assert_eq!(wool, vec![BLUE, BLUE], "the workers above moved down");
    assert_eq!(game.goods(PURPLE), g(&[(Copper, 1)]));
}

#[test]
fn example_11_supply_exhaustion_top_worker_first() {
    // Small yield: 1 copper left, stack bottom → top: blue, purple.
    let mut game = bare(2, PURPLE);
    let st = game.state_mut();
    stack(st, Copper, &[BLUE, PURPLE]);
    set_goods(st, BLUE, g(&[(Copper, 17)]));
    let mut ev = Vec::new();
    apply::small_yield(st, DieFace::Yield(Copper), &mut ev);
    assert_eq!(game.goods(PURPLE), g(&[(Copper, 1)]));
    assert_eq!(game.goods(BLUE), g(&[(Copper, 17)]));
    assert_eq!(game.supply().get(Copper), 0);

    // Big yield: 4 stone left; purple moves on top of [blue, blue]: purple (height 3)
    // takes 3, the middle blue 1, the bottom blue nothing.
    let mut game = bare(2, PURPLE);
    let st = game.state_mut();
    stack(st, Stone, &[BLUE, BLUE]);
    stack(st, Wood, &[PURPLE]);
    set_goods(st, BLUE, g(&[(Stone, 14)]));
    play(
        &mut game,
        PURPLE,
        Action::BigYield {
            from: Wood,
            height: 1,
            to: Stone,
        },
    );
    assert_eq!(game.goods(PURPLE), g(&[(Stone, 3)]));
    assert_eq!(game.goods(BLUE), g(&[(Stone, 15)]));
    assert_eq!(game.supply().get(Stone), 0);
}

#[test]
fn example_12_final_scoring_temples_runes_and_tie_breaks() {
    let mut game = bare(3, PURPLE);
    let st = game.state_mut();
    // Temple of purple at 10 with huts 8, 9 on its left and 11 on its right: 3.
    hut(st, 8, BLUE);
    hut(st, 9, GREEN);
    temple(st, 10, PURPLE);
    hut(st, 11, BLUE);
    for a in [
        Area::Serpent,
        Area::Star,
        Area::Splash,
        Area::Scales,
        Area::Spiral,
    ] {
        st.runes[a.index()] = Some(BLUE);
    }
    st.seats[0].score = 10;
    st.seats[1].score = 0;
    st.seats[2].score = 28;
    st.built = [1, 2, 1, 0];
    set_goods(st, GREEN, g(&[(Wood, 2)]));
    let mut ev = Vec::new();
    crate::meduris::scoring::finish(st, &mut ev);
    assert_eq!(scored(&ev, PURPLE, ScoreReason::Temple), 3);
    assert_eq!(
        scored(&ev, BLUE, ScoreReason::Runes),
        15,
        "5 rune stones: 1+2+3+4+5"
    );
    let outcome = game.outcome().unwrap();
    assert_eq!(outcome.scores, vec![13, 15, 28]);
    assert_eq!(outcome.winners, vec![GREEN]);
}

#[test]
fn tie_broken_by_buildings_then_goods_then_shared() {
    let mut game = bare(3, PURPLE);
    let st = game.state_mut();
    st.seats[0].score = 20;
    st.seats[1].score = 20;
    st.seats[2].score = 20;
    st.built = [3, 4, 4, 0];
    set_goods(st, BLUE, g(&[(Wood, 1)]));
    set_goods(st, GREEN, g(&[(Wood, 2)]));
    let mut ev = Vec::new();
    crate::meduris::scoring::finish(st, &mut ev);
    let o = game.outcome().unwrap();
    assert_eq!(o.winners, vec![GREEN], "buildings tie, goods decide");
    assert_eq!(o.ranking, vec![GREEN, BLUE, PURPLE]);

    let mut game = bare(2, PURPLE);
    let st = game.state_mut();
    st.seats[0].score = 7;
    st.seats[1].score = 7;
    let mut ev = Vec::new();
    crate::meduris::scoring::finish(st, &mut ev);
    assert_eq!(game.outcome().unwrap().winners, vec![PURPLE, BLUE]);
}
