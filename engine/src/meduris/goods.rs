//! Goods, multisets of goods, and the payment rule (each required good may be
//! replaced by any three goods; payments are exact).

use std::fmt;

/// The four goods; also names the four high plateaus.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Good {
    /// Wood.
    Wood,
    /// Wool.
    Wool,
    /// Copper.
    Copper,
    /// Stone.
    Stone,
}

impl Good {
    /// All goods in their fixed order (also the order of the plateaus).
    pub const ALL: [Good; 4] = [Good::Wood, Good::Wool, Good::Copper, Good::Stone];

    /// Index into per-good arrays.
    #[inline]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The good with this index (0..4).
    #[inline]
    pub const fn from_index(i: usize) -> Good {
        Good::ALL[i]
    }

    /// Lower-case name.
    pub const fn name(self) -> &'static str {
        match self {
            Good::Wood => "wood",
            Good::Wool => "wool",
            Good::Copper => "copper",
            Good::Stone => "stone",
        }
    }
}

impl fmt::Display for Good {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A multiset of goods: how many of each kind.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Goods(pub [u8; 4]);

impl Goods {
    /// No goods at all.
    pub const EMPTY: Goods = Goods([0; 4]);

    /// `n` of one good.
    pub const fn of(good: Good, n: u8) -> Goods {
        let mut g = [0; 4];
        g[good.index()] = n;
        Goods(g)
    }

    /// Builds a multiset from (good, count) pairs.
    pub fn from_pairs(pairs: &[(Good, u8)]) -> Goods {
        let mut g = Goods::EMPTY;
        for &(good, n) in pairs {
            g.0[good.index()] += n;
        }
        g
    }

    /// How many of `good`.
    #[inline]
    pub const fn get(self, good: Good) -> u8 {
        self.0[good.index()]
    }

    /// Total number of goods.
    #[inline]
    pub fn total(self) -> u32 {
        self.0.iter().map(|&n| n as u32).sum()
    }

    /// True when there are no goods.
    #[inline]
    pub fn is_empty(self) -> bool {
        self.0 == [0; 4]
    }

    /// True when every count is at most the count in `other`.
    #[inline]
    pub fn is_subset_of(self, other: Goods) -> bool {
        (0..4).all(|i| self.0[i] <= other.0[i])
    }

    /// Adds `other` (the caller guarantees no overflow: at most 18 of a kind exist).
    #[inline]
    pub fn add(&mut self, other: Goods) {
        for i in 0..4 {
            self.0[i] += other.0[i];
        }
    }

    /// Removes `other` (the caller guarantees `other` is a subset).
    #[inline]
    pub fn remove(&mut self, other: Goods) {
        for i in 0..4 {
            self.0[i] -= other.0[i];
        }
    }
}

impl fmt::Display for Goods {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_empty() {
            return f.write_str("nothing");
        }
        let mut first = true;
        for good in Good::ALL {
            let n = self.get(good);
            if n > 0 {
                if !first {
                    f.write_str(" + ")?;
                }
                write!(f, "{n} {good}")?;
                first = false;
            }
        }
        Ok(())
    }
}

/// Whether `payment` exactly covers `required` under the exchange rule: every
/// required unit is paid by itself or by a group of exactly three goods of any
/// kinds \[ruling\], and no good is left over.
///
/// With `d` goods paid directly, the payment size is `d + 3 (|R| - d)`, so `d` is
/// fixed by the sizes; such a `d` exists iff it is at most the number of units
/// that can be paid directly, `Σ min(R_k, P_k)`.
pub fn covers_exactly(payment: Goods, required: Goods) -> bool {
    let r = required.total();
    let p = payment.total();
    if p > 3 * r || !(3 * r - p).is_multiple_of(2) {
        return false;
    }
    let direct_needed = (3 * r - p) / 2;
    if direct_needed > r {
        return false;
    }
    let direct_possible: u32 = (0..4).map(|i| required.0[i].min(payment.0[i]) as u32).sum();
    direct_needed <= direct_possible
}

/// The default payment for `required` out of `holding`: every required good that
/// is held is paid directly, each missing one by three goods taken one at a time
/// from the kind with the largest remaining surplus (ties: first in [`Good::ALL`]).
/// `None` when the holding cannot cover the requirement at all.
///
/// Paying directly whatever is held is never worse: each direct unit saves two goods.
#[inline]
pub fn default_payment(required: Goods, holding: Goods) -> Option<Goods> {
    let mut pay = Goods::EMPTY;
    let mut missing = 0u32;
    let mut rest = holding;
    for i in 0..4 {
        let d = required.0[i].min(holding.0[i]);
        pay.0[i] = d;
        rest.0[i] -= d;
        missing += (required.0[i] - d) as u32;
    }
    if missing == 0 {
        return Some(pay);
    }
    if rest.total() < 3 * missing {
        return None;
    }
    // Take the 3 × missing goods one at a time from the kind with the largest
    // remaining surplus (ties: first kind). Scalars rather than indexed arrays
    // keep this loop in registers: it runs for every legal-action listing.
    let [mut r0, mut r1, mut r2, mut r3] = rest.0;
    let [mut p0, mut p1, mut p2, mut p3] = pay.0;
    for _ in 0..3 * missing {
        if r0 >= r1 && r0 >= r2 && r0 >= r3 {
            r0 -= 1;
            p0 += 1;
        } else if r1 >= r2 && r1 >= r3 {
            r1 -= 1;
            p1 += 1;
        } else if r2 >= r3 {
            r2 -= 1;
            p2 += 1;
        } else {
            r3 -= 1;
            p3 += 1;
        }
    }
    Some(Goods([p0, p1, p2, p3]))
}

/// Whether `holding` can pay `required` at all.
#[inline]
pub fn can_pay(required: Goods, holding: Goods) -> bool {
    let mut direct = 0u32;
    for i in 0..4 {
        direct += required.0[i].min(holding.0[i]) as u32;
    }
    let missing = required.total() - direct;
    holding.total() - direct >= 3 * missing
}

/// Every distinct exact payment of `required` that `holding` can make, in a
/// deterministic order. Used when a client asks for all payment options.
pub fn all_payments(required: Goods, holding: Goods, out: &mut Vec<Goods>) {
    let r = required.total();
    let start = out.len();
    // Payment sizes are r + 2m for m substituted units, m = 0..=r.
    for m in 0..=r {
        let size = r + 2 * m;
        if size > holding.total() {
            break;
        }
        enumerate_size(size, holding, 0, Goods::EMPTY, &mut |p| {
            if covers_exactly(p, required) {
                out.push(p);
            }
        });
    }
    debug_assert!(out[start..].iter().all(|p| p.is_subset_of(holding)));
}

fn enumerate_size(left: u32, holding: Goods, kind: usize, acc: Goods, f: &mut impl FnMut(Goods)) {
    if kind == 3 {
        if left <= holding.0[3] as u32 {
            let mut p = acc;
            p.0[3] = left as u8;
            f(p);
        }
        return;
    }
    let max = (holding.0[kind] as u32).min(left);
    for n in 0..=max {
        let mut p = acc;
        p.0[kind] = n as u8;
        enumerate_size(left - n, holding, kind + 1, p, f);
    }
}

#[cfg(test)]
mod tests {
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
}
