//! The payment rule against plain reference implementations.

use super::Good::*;
use super::*;

fn g(pairs: &[(Good, u8)]) -> Goods {
    Goods::from_pairs(pairs)
}

#[test]
fn direct_payment_covers() {
    let req = g(&[(Stone, 3), (Wood, 3)]);
    assert!(covers_exactly(req, req));
}

#[test]
fn three_for_one_with_mixed_kinds_covers() {
    let req = g(&[(Wool, 1), (Copper, 1)]);
    // wool direct, copper replaced by wood + stone + stone.
    assert!(covers_exactly(g(&[(Wool, 1), (Wood, 1), (Stone, 2)]), req));
    // both replaced.
    assert!(covers_exactly(g(&[(Wood, 3), (Stone, 3)]), req));
}

#[test]
fn overpaying_is_rejected() {
    let req = g(&[(Wool, 1), (Copper, 1)]);
    assert!(!covers_exactly(
        g(&[(Wool, 1), (Copper, 1), (Wood, 1)]),
        req
    ));
    assert!(!covers_exactly(g(&[(Wool, 2), (Copper, 1)]), req));
    assert!(!covers_exactly(g(&[(Wood, 7)]), req));
}

#[test]
fn underpaying_is_rejected() {
    let req = g(&[(Wool, 1), (Copper, 1)]);
    assert!(!covers_exactly(g(&[(Wool, 1)]), req));
    assert!(!covers_exactly(g(&[(Wood, 2)]), req));
    assert!(!covers_exactly(Goods::EMPTY, req));
    // four goods but only one of them usable directly: 1 + 3 needs a required one.
    assert!(!covers_exactly(g(&[(Wood, 4)]), req));
}

#[test]
fn empty_requirement_needs_empty_payment() {
    assert!(covers_exactly(Goods::EMPTY, Goods::EMPTY));
    assert!(!covers_exactly(g(&[(Wood, 3)]), Goods::EMPTY));
}

#[test]
fn default_payment_spends_required_goods_first_then_largest_surplus() {
    let req = g(&[(Wool, 1), (Copper, 1)]);
    let hold = g(&[(Wool, 2), (Stone, 4), (Wood, 1)]);
    let pay = default_payment(req, hold).unwrap();
    assert_eq!(pay, g(&[(Wool, 1), (Stone, 3)]));
    assert!(covers_exactly(pay, req));
    assert_eq!(default_payment(req, g(&[(Wool, 1), (Stone, 2)])), None);
    assert!(!can_pay(req, g(&[(Wool, 1), (Stone, 2)])));
    assert!(can_pay(req, hold));
}

#[test]
fn all_payments_are_valid_distinct_and_include_the_default() {
    let req = g(&[(Wool, 1), (Copper, 1)]);
    let hold = g(&[(Wool, 2), (Copper, 1), (Stone, 3), (Wood, 2)]);
    let mut out = Vec::new();
    all_payments(req, hold, &mut out);
    assert!(
        out.iter()
            .all(|p| covers_exactly(*p, req) && p.is_subset_of(hold))
    );
    let mut dedup = out.clone();
    dedup.sort_by_key(|p| p.0);
    dedup.dedup();
    assert_eq!(dedup.len(), out.len());
    assert!(out.contains(&default_payment(req, hold).unwrap()));
    assert!(out.contains(&g(&[(Wool, 1), (Copper, 1)])));
    assert!(out.contains(&g(&[(Wool, 1), (Stone, 3)])));
    assert!(out.contains(&g(&[(Wool, 2), (Stone, 3), (Wood, 1)])));
    // default payment exists iff some payment exists.
    let mut none = Vec::new();
    all_payments(req, g(&[(Wood, 2)]), &mut none);
    assert!(none.is_empty());
}
/// The plain greedy rule the optimised [`default_payment`] must reproduce.
fn default_payment_reference(required: Goods, holding: Goods) -> Option<Goods> {
    let mut pay = Goods::EMPTY;
    let mut missing = 0u32;
    let mut rest = holding;
    for i in 0..4 {
        let d = required.0[i].min(holding.0[i]);
        pay.0[i] = d;
        rest.0[i] -= d;
        missing += (required.0[i] - d) as u32;
    }
    if rest.total() < 3 * missing {
        return None;
    }
    for _ in 0..3 * missing {
        let mut best = 0;
        for i in 1..4 {
            if rest.0[i] > rest.0[best] {
                best = i;
            }
        }
        rest.0[best] -= 1;
        pay.0[best] += 1;
    }
    Some(pay)
}

#[test]
fn taking_three_by_table_matches_the_plain_greedy_rule() {
    for n in 0..19u32.pow(4) {
        let rest = [n % 19, n / 19 % 19, n / 361 % 19, n / 6859].map(|x| x as u8);
        if rest.iter().map(|&x| x as u32).sum::<u32>() < 3 {
            continue;
        }
        let mut r = rest;
        let mut want = [0u8; 4];
        for _ in 0..3 {
            let best = (1..4).fold(0, |b, i| if r[i] > r[b] { i } else { b });
            r[best] -= 1;
            want[best] += 1;
        }
        assert_eq!(
            take_three(u32::from_le_bytes(rest)),
            u32::from_le_bytes(want)
        );
    }
}

/// Every holding a seat can have (0..=18 of each good): the listing's fast
/// paths against the plain greedy rule.
#[test]
fn payment_fast_paths_match_the_plain_greedy_rule_for_every_holding() {
    for n in 0..19u32.pow(4) {
        let holding = Goods([n % 19, n / 19 % 19, n / 361 % 19, n / 6859].map(|x| x as u8));
        let (units, payable) = unit_pair_payments(holding);
        let (twice, thrice) = pairs_payable_twice_and_thrice(holding);
        for (p, [a, b]) in PAIR_GOODS.into_iter().enumerate() {
            let pair = |k| Goods::from_pairs(&[(a, k), (b, k)]);
            let want = default_payment_reference(pair(1), holding);
            assert_eq!(payable & (1 << p) != 0, want.is_some(), "{holding:?}");
            assert_eq!(want.unwrap_or(units[p]), units[p], "{holding:?}");
            assert_eq!(twice & (1 << p) != 0, can_pay(pair(2), holding));
            assert_eq!(thrice & (1 << p) != 0, can_pay(pair(3), holding));
            for k in 1..=5 {
                let set = pairs_payable(holding, k);
                assert_eq!(set & (1 << p) != 0, can_pay(pair(k), holding));
            }
            for k in 1..=4 {
                let want = default_payment_reference(pair(k), holding);
                assert_eq!(default_pair_payment(a, b, k, holding), want, "{holding:?}");
            }
            for (x, y) in [(a, b), (b, a)] {
                let one = |g| default_payment_reference(Goods::of(g, 1), holding);
                assert_eq!(offering_payments(x, y, holding), (want, one(x), one(y)));
            }
        }
    }
}

#[test]
fn greedy_take_in_closed_form_matches_one_at_a_time() {
    for n in 0..19u32.pow(4) {
        let rest = [n % 19, n / 19 % 19, n / 361 % 19, n / 6859].map(|x| x as u8);
        let total: u32 = rest.iter().map(|&x| x as u32).sum();
        let w = u32::from_le_bytes(rest);
        for k in (0..=total.min(24)).step_by(3) {
            assert_eq!(take_greedy(w, k), take_largest(w, k), "{rest:?} {k}");
        }
    }
}

#[test]
fn default_payment_matches_the_plain_greedy_rule() {
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = |m: u64| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        (x % m) as u8
    };
    for _ in 0..200_000 {
        let holding = Goods([next(12), next(12), next(12), next(12)]);
        let (a, b) = (next(4) as usize, next(4) as usize);
        let mut required = Goods::EMPTY;
        let n = next(6) + 1;
        required.0[a] += n;
        if b != a {
            required.0[b] += n;
        }
        let fast = default_payment(required, holding);
        assert_eq!(fast, default_payment_reference(required, holding));
        assert_eq!(fast.is_some(), can_pay(required, holding));
        if let Some(p) = fast {
            assert!(covers_exactly(p, required) && p.is_subset_of(holding));
        }
    }
}
