//! Legal-action listing: settlement sizes, offering payments and the turn's actions against plain field-by-field references.

use super::*;

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
            crate::meduris::payment::all_payments(required, seat.goods, &mut v);
        } else {
            v.extend(crate::meduris::payment::default_payment(
                required, seat.goods,
            ));
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
