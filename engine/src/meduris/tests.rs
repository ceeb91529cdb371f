//! Scenario tests: every rulebook example and FAQ item from the digest, and one
//! test per rule. Positions are built directly on the state, then driven through
//! the public `apply`, and the exact outcome is checked.

use super::Meduris;
use super::action::{Action, Building, Chip, Decision, DieFace, DruidPos};
use super::board::Area;
use super::event::{Event, OfferingKind, ScoreReason};
use super::goods::{Good, Good::*, Goods};
use super::state::{Phase, Stack, State};
use super::{apply, rules, state};
use crate::{Game, Seat, TurnError};

const PURPLE: Seat = Seat(0);
const BLUE: Seat = Seat(1);
const GREEN: Seat = Seat(2);
const RED: Seat = Seat(3);

fn g(pairs: &[(Good, u8)]) -> Goods {
    Goods::from_pairs(pairs)
}

/// A game past setup: no workers, no chips, no goods anywhere but the supply,
/// `active` to play the main part of a turn, druid on his temple.
fn bare(players: usize, active: Seat) -> Meduris {
    let mut game = Meduris::new(players, 1, &Default::default(), &mut Vec::new()).unwrap();
    let st = game.state_mut();
    for f in 0..st.len() {
        st.ring.set_chip(f, None);
    }
    st.plateaus = [Stack::default(); 4];
    for s in 0..players {
        st.seats[s].workers_to_place = 0;
        st.seats[s].goods = Goods::EMPTY;
    }
    st.supply = Goods([18; 4]);
    st.phase = Phase::Turn;
    st.active = active;
    st.turn = 1;
    game
}

/// Sets a seat's goods, moving the difference from/to the supply (conservation holds).
fn set_goods(st: &mut State, seat: Seat, goods: Goods) {
    st.supply.add(st.seats[seat.index()].goods);
    st.seats[seat.index()].goods = goods;
    st.supply.remove(goods);
}

fn hut(st: &mut State, field: usize, seat: Seat) {
    st.ring.set_building(field, Some(Building::Hut(seat)));
}

fn temple(st: &mut State, field: usize, seat: Seat) {
    st.ring.set_building(field, Some(Building::Temple(seat)));
}

fn stack(st: &mut State, plateau: Good, workers: &[Seat]) {
    let mut s = Stack::default();
    for &w in workers {
        s.push(w);
    }
    st.plateaus[plateau.index()] = s;
}

fn play(game: &mut Meduris, seat: Seat, action: Action) -> Vec<Event> {
    let mut events = Vec::new();
    let before = game.clone();
    if let Err(e) = game.apply(seat, &action, &mut events) {
        panic!("{action:?} by {seat} rejected: {e}");
    }
    assert!(game.goods_conserved(), "goods conserved after {action:?}");
    let _ = before;
    events
}

fn reject(game: &mut Meduris, seat: Seat, action: Action) -> rules::RuleError {
    let before = game.clone();
    let mut events = Vec::new();
    let err = game.apply(seat, &action, &mut events).unwrap_err();
    assert_eq!(*game, before, "a rejected action changes nothing");
    assert!(events.is_empty());
    err
}

fn score(game: &Meduris, seat: Seat) -> i32 {
    game.state().seats[seat.index()].score
}

fn offer(payment: Goods) -> Action {
    Action::Offer { payment }
}

fn scored(events: &[Event], who: Seat, why: ScoreReason) -> i32 {
    events
        .iter()
        .filter_map(|e| match *e {
            Event::Scored {
                seat,
                delta,
                reason,
                ..
            } if seat == who && reason == why => Some(delta),
            _ => None,
        })
        .sum()
}

// ---------------------------------------------------------------------------
// The rulebook's examples and FAQ (digest list, items 1–12)

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
    super::scoring::finish(st, &mut ev);
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
    super::scoring::finish(st, &mut ev);
    let o = game.outcome().unwrap();
    assert_eq!(o.winners, vec![GREEN], "buildings tie, goods decide");
    assert_eq!(o.ranking, vec![GREEN, BLUE, PURPLE]);

    let mut game = bare(2, PURPLE);
    let st = game.state_mut();
    st.seats[0].score = 7;
    st.seats[1].score = 7;
    let mut ev = Vec::new();
    super::scoring::finish(st, &mut ev);
    assert_eq!(game.outcome().unwrap().winners, vec![PURPLE, BLUE]);
}

// ---------------------------------------------------------------------------
// One test per rule

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
    super::scoring::finish(game.state_mut(), &mut ev);
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

/// Plays the current turn to its end with "offer nothing" and the first big yield.
fn finish_turn_quietly(game: &mut Meduris) {
    let start = game.turn();
    while game.turn() == start
        && !matches!(
            game.decision(),
            None | Some(Decision::Offering {
                last_round: true,
                ..
            })
        )
    {
        let seat = game.to_act().unwrap();
        let mut legal = Vec::new();
        game.legal_actions(&mut legal);
        let action = legal
            .iter()
            .copied()
            .find(|a| matches!(a, Action::BigYield { .. } | Action::Offer { .. }))
            .unwrap_or(legal[0]);
        play(game, seat, action);
    }
}

#[test]
fn end_trigger_gives_every_other_player_one_turn_then_the_last_round() {
    let mut game = bare(3, BLUE);
    let st = game.state_mut();
    stack(st, Wood, &[PURPLE, BLUE, GREEN]);
    st.seats[BLUE.index()].huts_left = 1;
    st.seats[BLUE.index()].temples_left = 0;
    hut(st, 20, GREEN);
    hut(st, 10, PURPLE);
    st.druid = DruidPos::Field(20);
    set_goods(st, BLUE, g(&[(Wood, 1), (Wool, 1)]));
    let ev = play(
        &mut game,
        BLUE,
        Action::BuildHut {
            field: 5,
            payment: g(&[(Wood, 1), (Wool, 1)]),
        },
    );
    // Druid walks from 20 across the river to 5: blue's ritual first.
    assert!(!ev.iter().any(|e| matches!(e, Event::EndTriggered { .. })));
    play(&mut game, BLUE, offer(Goods::EMPTY));
    // Only now (after the ritual) the end is triggered.
    assert_eq!(game.state().end_trigger, Some(BLUE));
    assert_eq!(game.active(), GREEN);
    finish_turn_quietly(&mut game);
    assert_eq!(game.active(), PURPLE);
    finish_turn_quietly(&mut game);
    // No more turns: the druid's last round from his position (beside hut 5): 10, 20, 5.
    let mut order = Vec::new();
    while let Some(Decision::Offering { field, last_round }) = game.decision() {
        assert!(last_round);
        order.push(field);
        let seat = game.to_act().unwrap();
        play(&mut game, seat, offer(Goods::EMPTY));
    }
    assert_eq!(
        order,
        vec![10, 20, 5],
        "every hut exactly once, ending at the marked hut"
    );
    assert_eq!(game.to_act(), None);
    assert!(game.outcome().is_some());
}

#[test]
fn last_round_from_the_stone_fields_starts_at_field_zero_without_river_scoring() {
    let mut game = bare(2, PURPLE);
    let st = game.state_mut();
    st.druid = DruidPos::StoneField(2);
    for f in [0, 1, 2, 17, 31] {
        hut(st, f, BLUE);
    }
    st.runes[Area::Serpent.index()] = Some(BLUE);
    let mut ev = Vec::new();
    st.options.max_turns = 1;
    // Regular play ends by the safeguard at the end of this turn.
    apply::tests_end_turn(st, &mut ev);
    assert!(ev.contains(&Event::SafeguardReached { turns: 1 }));
    let mut order = Vec::new();
    let mut all = ev;
    while let Some(Decision::Offering { field, .. }) = game.decision() {
        order.push(field);
        all.extend(play(&mut game, BLUE, offer(Goods::EMPTY)));
    }
    assert_eq!(order, vec![0, 1, 2, 17, 31]);
    assert!(
        !all.contains(&Event::RiverCrossed),
        "no interim scoring in the last round"
    );
    let o = game.outcome().unwrap();
    assert!(o.by_safeguard);
}

/// \[ruling\] The safeguard applies only while no end has been triggered: once
/// a player has built everything, the owed final turns are played and then the
/// last round, even past `max_turns`.
#[test]
fn the_safeguard_never_cuts_the_owed_final_turns_short() {
    let mut game = bare(3, BLUE);
    let st = game.state_mut();
    st.turn = 5;
    st.options.max_turns = 5;
    st.end_trigger = Some(PURPLE);
    st.last_turns_left = 2;
    let mut ev = Vec::new();
    apply::tests_end_turn(st, &mut ev);
    assert!(
        !ev.iter()
            .any(|e| matches!(e, Event::SafeguardReached { .. })),
        "{ev:?}"
    );
    assert!(ev.contains(&Event::TurnStarted {
        seat: Seat(2),
        turn: 6
    }));
    assert_eq!(game.view(crate::Viewer::Spectator).last_turns_left, 1);
    let mut ev = Vec::new();
    let st = game.state_mut();
    st.phase = Phase::Turn;
    apply::tests_end_turn(st, &mut ev);
    assert!(
        !ev.iter()
            .any(|e| matches!(e, Event::SafeguardReached { .. }))
    );
    assert!(
        ev.iter()
            .any(|e| matches!(e, Event::LastRoundStarted { .. }))
    );
    assert!(!game.state().by_safeguard);
}

#[test]
fn setup_places_workers_in_seat_order_from_the_start_seat() {
    let options = super::Options {
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

#[test]
fn settlement_sizes_in_one_pass_match_the_direct_count() {
    let mut rng = 12345u64;
    for _ in 0..500 {
        let mut game = bare(2, PURPLE);
        let st = game.state_mut();
        for f in 0..32 {
            rng = rng
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            match rng >> 62 {
                0 | 1 => hut(st, f, BLUE),
                2 => temple(st, f, BLUE),
                _ => {}
            }
        }
        let sizes = st.new_hut_settlement_sizes();
        let sites = *st.ring.sites();
        for (f, &size) in sizes[..32].iter().enumerate() {
            if !st.is_hut(f) {
                assert_eq!(size as usize, st.settlement_through(f));
            }
            // The ring's sites sort the empty fields by that size.
            let empty = st.building(f).is_none();
            let at = |mask: u64| mask & (1 << f) != 0;
            assert_eq!(at(sites.alone), empty && size == 1);
            assert_eq!(at(sites.of_two), empty && size == 2);
            assert_eq!(at(sites.of_three), empty && size == 3);
            assert_eq!(at(sites.larger), empty && size >= 4);
            assert_eq!(at(sites.temple), empty);
        }
        assert!(st.ring.consistent());
    }
    // The edge cases: an empty ring, and the last gap in a ring full of huts
    // (both runs are then the same huts: the settlement is the whole ring).
    for players in [2, 4] {
        let mut game = bare(players, PURPLE);
        let st = game.state_mut();
        let n = st.len();
        assert!(st.new_hut_settlement_sizes()[..n].iter().all(|&s| s == 1));
        for gap in 0..n {
            for f in 0..n {
                hut(st, f, BLUE);
            }
            st.ring.set_building(gap, None);
            assert_eq!(st.settlement_through(gap), n);
            assert_eq!(st.new_hut_settlement_sizes()[gap] as usize, n);
            // Two gaps side by side: each closes a run of n - 2 huts.
            let next = st.next_field(gap);
            st.ring.set_building(next, None);
            assert_eq!(st.new_hut_settlement_sizes()[gap] as usize, n - 1);
            assert_eq!(st.new_hut_settlement_sizes()[next] as usize, n - 1);
        }
    }
}

#[test]
fn offering_lists_each_distinct_payment_once() {
    // Hut on field 5 (wood, wool); the owner holds neither, only stone and copper:
    // "one good" by 3-for-1 is the same payment whichever good it replaces.
    let mut game = bare(2, PURPLE);
    let st = game.state_mut();
    hut(st, 5, BLUE);
    st.phase = Phase::Ritual { field: 5, start: 5 };
    st.druid = DruidPos::Field(5);
    set_goods(st, BLUE, g(&[(Stone, 3), (Copper, 1)]));
    for all in [false, true] {
        let mut legal = Vec::new();
        if all {
            game.legal_actions_all_payments(&mut legal);
        } else {
            game.legal_actions(&mut legal);
        }
        let mut dedup = legal.clone();
        dedup.sort_by_key(|a| format!("{a:?}"));
        dedup.dedup();
        assert_eq!(dedup.len(), legal.len(), "duplicates in {legal:?}");
        assert!(legal.contains(&offer(g(&[(Stone, 2), (Copper, 1)]))));
        assert!(legal.contains(&offer(Goods::EMPTY)));
        if all {
            assert!(legal.contains(&offer(g(&[(Stone, 3)]))));
            // Every 3-good multiset of stone ×3 + copper: 3 stone, 2 stone + copper.
            assert_eq!(legal.len(), 3, "{legal:?}");
        } else {
            assert_eq!(legal.len(), 2, "{legal:?}");
        }
    }
}

/// The turn's legal actions computed the plain way, field by field, from the
/// rules' own cost function: the optimised listing must match it exactly.
fn naive_turn_actions(game: &Meduris, all: bool) -> Vec<Action> {
    let st = game.state();
    let me = st.active;
    let seat = &st.seats[me.index()];
    let mut out = Vec::new();
    for from in Good::ALL {
        for (h, owner) in st.plateaus[from.index()].workers().enumerate() {
            for to in Good::ALL {
                if owner == me && to != from && st.plateaus[to.index()].has_room() {
                    out.push(Action::BigYield {
                        from,
                        height: h as u8 + 1,
                        to,
                    });
                }
            }
        }
    }
    let payments = |required: Goods| {
        let mut v = Vec::new();
        if all {
            super::payment::all_payments(required, seat.goods, &mut v);
        } else {
            v.extend(super::payment::default_payment(required, seat.goods));
        }
        v
    };
    for field in 0..st.len() {
        if st.building(field).is_some() {
            continue;
        }
        let f = field as u8;
        if seat.huts_left > 0 {
            let required = if st.chip(field) == Some(Chip::FreeHut) {
                Goods::EMPTY
            } else {
                let n = st.settlement_through(field) as u8;
                let mut cost = Goods::EMPTY;
                for good in st.field(field).goods {
                    cost.0[good.index()] += n;
                }
                cost
            };
            for payment in payments(required) {
                out.push(Action::BuildHut { field: f, payment });
            }
        }
        if seat.temples_left > 0 && st.chip(field).is_none() {
            for payment in payments(state::field_goods(st, field)) {
                out.push(Action::BuildTemple { field: f, payment });
            }
        }
    }
    out
}

#[test]
fn turn_actions_match_the_plain_field_by_field_listing() {
    use rand_core::{RngCore, SeedableRng};
    let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(77);
    let mut checked = 0;
    for seed in 0..300u64 {
        let players = 2 + (seed % 3) as usize;
        let mut game = Meduris::new(players, seed, &Default::default(), &mut Vec::new()).unwrap();
        let mut legal = Vec::new();
        while let Some(seat) = game.to_act() {
            assert!(game.state().ring.consistent(), "seed {seed}");
            if game.decision() == Some(Decision::Turn) {
                legal.clear();
                game.legal_actions(&mut legal);
                assert_eq!(legal, naive_turn_actions(&game, false), "seed {seed}");
                if checked % 7 == 0 {
                    legal.clear();
                    game.legal_actions_all_payments(&mut legal);
                    assert_eq!(legal, naive_turn_actions(&game, true), "seed {seed}");
                }
                checked += 1;
            }
            legal.clear();
            game.legal_actions(&mut legal);
            let a = legal[rng.next_u32() as usize % legal.len()];
            game.apply(seat, &a, &mut Vec::new()).unwrap();
        }
    }
    // Crowded rings: almost every field built, runs across the river, the last gap.
    for trial in 0..2000u32 {
        let players = 2 + (trial % 3) as usize;
        let mut game = bare(players, PURPLE);
        let st = game.state_mut();
        let n = st.len();
        let holes = 1 + rng.next_u32() as usize % 4;
        for f in 0..n {
            match rng.next_u32() % 8 {
                0 => temple(st, f, BLUE),
                _ => hut(st, f, BLUE),
            }
        }
        for _ in 0..holes {
            st.ring.set_building(rng.next_u32() as usize % n, None);
        }
        if trial % 3 == 0 {
            st.ring
                .set_chip(rng.next_u32() as usize % n, Some(Chip::FreeHut));
        }
        let goods = Goods([0, 1, 2, 3].map(|_| (rng.next_u32() % 10) as u8));
        set_goods(st, PURPLE, goods);
        let mut legal = Vec::new();
        game.legal_actions(&mut legal);
        assert_eq!(legal, naive_turn_actions(&game, false));
        checked += 1;
    }
    assert!(checked > 10_000);
}

#[test]
fn example_03_rulebook_fourth_hut_druid_leaves_the_stone_fields_to_a_lone_hut() {
    // The rulebook's picture: three huts stand (the first three builds), the 4th
    // hut is built away from them; the druid leaves stone field 3 and walks from
    // field 0 to the nearest hut, light-green's, which stands alone.
    let mut game = bare(4, BLUE);
    let st = game.state_mut();
    st.druid = DruidPos::StoneField(3);
    hut(st, 10, GREEN); // Splash: wool, stone
    hut(st, 20, PURPLE);
    hut(st, 30, RED);
    st.built = [1, 0, 1, 1];
    set_goods(st, BLUE, g(&[(Stone, 1), (Wool, 1)]));
    set_goods(st, GREEN, g(&[(Wool, 1), (Wood, 2)]));
    let ev = play(
        &mut game,
        BLUE,
        Action::BuildHut {
            field: 25, // Wave: stone, wool
            payment: g(&[(Stone, 1), (Wool, 1)]),
        },
    );
    assert!(!ev.contains(&Event::RiverCrossed));
    assert_eq!(game.state().druid, DruidPos::Field(10));
    assert_eq!(
        game.decision(),
        Some(Decision::Offering {
            field: 10,
            last_round: false
        })
    );
    assert_eq!(game.to_act(), Some(GREEN));
    let (g0, b0) = (score(&game, GREEN), score(&game, BLUE));
    play(&mut game, GREEN, offer(g(&[(Wool, 1)])));
    assert_eq!(score(&game, GREEN), g0 + 1, "one good: +1");
    assert_eq!(score(&game, BLUE), b0);
    assert_eq!(game.goods(GREEN), g(&[(Wood, 2)]));
    // The lone hut ends the ritual: the next player's turn.
    assert_eq!(game.state().druid, DruidPos::Field(10));
    assert_eq!(game.active(), GREEN);
    assert_eq!(game.turn(), 2);
}

#[test]
fn example_04_rulebook_fields_third_hut_ritual_down_the_settlement() {
    // 4-player board: blue builds on 22 (wood, stone) in front of red's huts on
    // 23 (copper, wool) and 24 (stone, wood); a temple on 25 ends the settlement.
    let mut game = bare(4, BLUE);
    let st = game.state_mut();
    hut(st, 15, PURPLE);
    st.druid = DruidPos::Field(15);
    hut(st, 23, RED);
    hut(st, 24, RED);
    temple(st, 25, PURPLE);
    st.runes[Area::Wave.index()] = Some(RED);
    set_goods(st, BLUE, g(&[(Stone, 4), (Wood, 4)]));
    // Red has neither wool nor copper (but could replace one by three goods).
    set_goods(st, RED, g(&[(Wood, 1), (Stone, 2)]));
    let (b0, r0) = (score(&game, BLUE), score(&game, RED));
    // The 3rd hut of the settlement: 3 stone + 3 wood, not less.
    reject(
        &mut game,
        BLUE,
        Action::BuildHut {
            field: 22,
            payment: g(&[(Stone, 2), (Wood, 2)]),
        },
    );
    let ev = play(
        &mut game,
        BLUE,
        Action::BuildHut {
            field: 22,
            payment: g(&[(Stone, 3), (Wood, 3)]),
        },
    );
    assert!(matches!(ev[0], Event::HutBuilt { settlement: 3, .. }));
    assert_eq!(game.goods(BLUE), g(&[(Stone, 1), (Wood, 1)]));
    assert_eq!(game.state().runes[Area::Wave.index()], Some(BLUE));
    // The new hut is the nearest: the ritual starts there.
    assert_eq!(game.state().druid, DruidPos::Field(22));
    play(&mut game, BLUE, offer(g(&[(Stone, 1), (Wood, 1)])));
    assert_eq!(score(&game, BLUE), b0 + 3);
    assert_eq!(game.goods(BLUE), Goods::EMPTY);
    assert_eq!(game.state().druid, DruidPos::Field(23));
    assert_eq!(game.to_act(), Some(RED));
    play(&mut game, RED, offer(Goods::EMPTY));
    assert_eq!(score(&game, RED), r0 - 1);
    assert_eq!(game.state().druid, DruidPos::Field(24));
    play(&mut game, RED, offer(g(&[(Wood, 1)])));
    assert_eq!(score(&game, RED), r0);
    assert_eq!(game.goods(RED), g(&[(Stone, 2)]));
    // The temple on 25 ends the settlement and the ritual: next player.
    assert_eq!(game.state().druid, DruidPos::Field(24));
    assert_eq!(game.decision(), Some(Decision::Turn));
    assert_eq!(game.active(), GREEN);
}

#[test]
fn example_05_after_the_ritual_the_next_player_plays() {
    let mut game = bare(4, RED);
    let st = game.state_mut();
    st.druid = DruidPos::Field(38);
    hut(st, 38, PURPLE);
    hut(st, 1, GREEN); // Serpent: stone, wood
    st.runes[Area::Serpent.index()] = Some(GREEN);
    set_goods(st, RED, g(&[(Stone, 1), (Copper, 1)]));
    set_goods(st, GREEN, g(&[(Stone, 1), (Wood, 1)]));
    let g0 = score(&game, GREEN);
    play(
        &mut game,
        RED,
        Action::BuildTemple {
            field: 9,
            payment: g(&[(Stone, 1), (Copper, 1)]),
        },
    );
    assert_eq!(score(&game, GREEN), g0 + 1, "interim rune scoring");
    assert_eq!(game.active(), RED, "the ritual belongs to red's turn");
    play(&mut game, GREEN, offer(g(&[(Stone, 1), (Wood, 1)])));
    assert_eq!(
        score(&game, GREEN),
        g0 + 2,
        "a lone hut: both goods score 1"
    );
    assert_eq!(game.decision(), Some(Decision::Turn));
    assert_eq!(game.active(), PURPLE);
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
