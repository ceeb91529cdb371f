//! The payment rule of Meduris and its tables: whether a payment covers a
//! cost exactly (any required good may be replaced by any three goods,
//! \[ruling\]), the default payment the legal-action list shows, and every
//! distinct payment on request. Kept apart from [`super::goods`] (the
//! vocabulary) because the tables here serve the legal-action hot path.

use super::board::PAIR_GOODS;
use super::goods::{Good, Goods};

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
    Some(goods_of(take_largest(word(rest), 3 * missing) + word(pay)))
}

/// Goods as one little-endian word, a byte per kind (wood lowest). The payment
/// helpers below add and subtract whole multisets as words (a payment never
/// holds more of a kind than the holding it comes from, so no byte carries or
/// borrows into the next), and never write a byte only to read the word back.
#[inline]
fn word(goods: Goods) -> u32 {
    u32::from_le_bytes(goods.0)
}

/// The multiset of [`word`] `w`.
#[inline]
fn goods_of(w: u32) -> Goods {
    Goods(w.to_le_bytes())
}

/// Byte `good` of a [`word`].
#[inline]
fn byte(w: u32, good: usize) -> u32 {
    w >> (8 * good) & 0xff
}

/// Takes `k` goods out of `rest` (a [`word`]) one at a time, each from the kind
/// with the largest remaining count (ties: first in [`Good::ALL`]), and returns
/// what was taken. `k` is a multiple of 3 (three goods replace each missing
/// one); the caller guarantees `rest` holds at least `k` goods.
#[inline]
fn take_largest(rest: u32, k: u32) -> u32 {
    debug_assert!(k.is_multiple_of(3));
    let mut rest = rest;
    let mut taken = 0;
    for _ in 0..k / 3 {
        let t = take_three(rest);
        rest -= t;
        taken += t;
    }
    taken
}

/// Three goods taken one at a time from the largest count (ties: first kind),
/// by table: the three all come from the top three levels of `rest`, so only
/// the counts above `max - 3` matter, each 0..=3.
#[inline]
fn take_three(rest: u32) -> u32 {
    let [r0, r1, r2, r3] = rest.to_le_bytes();
    let max = r0.max(r1).max(r2).max(r3);
    let base = max.saturating_sub(3);
    // Four base-4 digits (each count is at most `max`, so at most 3 above `base`).
    let digit = |n: u8| n.saturating_sub(base) & 3;
    let index = digit(r0) << 6 | digit(r1) << 4 | digit(r2) << 2 | digit(r3);
    TAKE_THREE[index as usize]
}

/// The plain rule the tables below are computed by: three goods taken one at a
/// time from the largest count of `rest` (ties: first kind), as a [`word`];
/// fewer when `rest` holds fewer.
const fn take_three_plain(mut rest: [u8; 4]) -> u32 {
    let mut taken = 0;
    let mut step = 0;
    while step < 3 {
        let mut best = 0;
        let mut i = 1;
        while i < 4 {
            if rest[i] > rest[best] {
                best = i;
            }
            i += 1;
        }
        if rest[best] > 0 {
            rest[best] -= 1;
            taken += 1 << (8 * best);
        }
        step += 1;
    }
    taken
}

/// [`take_three`] for every `rest` with counts 0..=3 (index: base-4 digits, wood
/// first), computed by the plain rule, as [`word`]s. Rests of fewer than three
/// goods never reach the table; their entries take what there is.
static TAKE_THREE: [u32; 256] = {
    let mut table = [0u32; 256];
    let mut index = 0;
    while index < 256 {
        let r = [
            (index >> 6) as u8 & 3,
            (index >> 4) as u8 & 3,
            (index >> 2) as u8 & 3,
            index as u8 & 3,
        ];
        table[index] = take_three_plain(r);
        index += 1;
    }
    table
};

/// [`default_payment`] of `n` of `a` and `n` of `b` (two different goods): the
/// cost of a hut joining a settlement of `n`, without the general bookkeeping
/// and without branches. For holdings only (at most 18 of a kind).
#[inline(always)]
pub(crate) fn default_pair_payment(a: Good, b: Good, n: u8, holding: Goods) -> Option<Goods> {
    debug_assert_ne!(a, b);
    let (a, b) = (a.index(), b.index());
    let h = word(holding);
    let n = n as u32;
    let (da, db) = (byte(h, a).min(n), byte(h, b).min(n));
    let direct = da << (8 * a) | db << (8 * b);
    let missing = 2 * n - da - db;
    let pay = goods_of(take_greedy(h - direct, 3 * missing) + direct);
    (holding.total() - (da + db) >= 3 * missing).then_some(pay)
}

/// [`take_largest`] in closed form, without branches, for counts below 32 (a
/// holding has at most 18 of a kind): taking one at a time from the largest
/// count lowers the largest counts to a common level `t`, the smallest with at
/// most `k` goods above it, and the goods still to take then come one each from
/// the kinds at that level, first kinds first. Any `k` up to the goods held.
#[inline]
fn take_greedy(rest: u32, k: u32) -> u32 {
    debug_assert!(rest & 0xe0e0_e0e0 == 0, "counts below 32");
    const ONES: u32 = 0x0101_0101;
    const HIGH: u32 = 0x8080_8080;
    // Per count: 128 + count - t (no borrows), the high bit set when count >= t;
    // the counts above t are then the low bits of the bytes with it set.
    let above = |t_ones: u32| (rest | HIGH) - t_ones;
    let excess = |x: u32| {
        let high = x & HIGH;
        x & (high - (high >> 7))
    };
    let sum = |x: u32| x.wrapping_mul(ONES) >> 24;
    // Binary search for t, kept as t * ONES.
    let mut t_ones = 0;
    for step in [16, 8, 4, 2, 1] {
        let over = sum(excess(above(t_ones + (step - 1) * ONES))) > k;
        t_ones += over as u32 * step * ONES;
    }
    let x = above(t_ones);
    let taken = excess(x);
    let more = k - sum(taken);
    // The first `more` kinds at level t: rank = how many such kinds come before.
    let at = (x & HIGH) >> 7;
    let rank = at.wrapping_mul(ONES << 8);
    let first = (((more * ONES) | HIGH) - rank - ONES) & HIGH;
    taken + (at & first >> 7)
}

/// The [`default_payment`]s of an offering at a field of goods `a` and `b`: of
/// both goods, of one `a`, of one `b`. Three goods for a missing one come from
/// the same greedy take, so two table look-ups serve all three.
#[inline]
pub(crate) fn offering_payments(
    a: Good,
    b: Good,
    holding: Goods,
) -> (Option<Goods>, Option<Goods>, Option<Goods>) {
    let (a, b) = (a.index(), b.index());
    let h = word(holding);
    let held = holding.total();
    let (da, db) = (byte(h, a).min(1), byte(h, b).min(1));
    let direct = da << (8 * a) | db << (8 * b);
    let missing = 2 - da - db;
    // Three goods from the whole holding (for one good missing, and the first
    // three of six for both), then three more from what is left.
    let three = take_three(h);
    let rest = if missing == 2 { h - three } else { h - direct };
    let next = take_three(rest);
    let both = match missing {
        0 => direct,
        1 => next + direct,
        _ => three + next,
    };
    let one = |d: u32, good: usize| {
        let pay = if d > 0 { 1 << (8 * good) } else { three };
        (d > 0 || held >= 3).then_some(goods_of(pay))
    };
    (
        (held - (da + db) >= 3 * missing).then_some(goods_of(both)),
        one(da, a),
        one(db, b),
    )
}

/// The pairs of [`PAIR_GOODS`] (bit `p` for pair `p`) that `holding` can pay for
/// twice over (two of each good), respectively three times over: every good
/// held of the two pays directly, three goods replace each other one, so `n` of
/// each can be paid when `held - direct >= 3 (2n - direct)`.
#[inline]
pub(crate) fn pairs_payable_twice_and_thrice(holding: Goods) -> (u32, u32) {
    // Only min(count, n) of each good and the total (capped at 6n, enough for
    // anything) matter: two tables.
    let [h0, h1, h2, h3] = holding.0.map(|c| c as usize);
    let held = holding.total() as usize;
    let two = ((h0.min(2) * 3 + h1.min(2)) * 3 + h2.min(2)) * 3 + h3.min(2);
    let three = h0.min(3) << 6 | h1.min(3) << 4 | h2.min(3) << 2 | h3.min(3);
    (
        PAYABLE_TWICE[held.min(12) * 81 + two] as u32,
        PAYABLE_THRICE[held.min(18) * 256 + three] as u32,
    )
}

/// The pairs of [`PAIR_GOODS`] (bit `p` for pair `p`) that `holding` can pay for
/// `n` times over (see [`pairs_payable_twice_and_thrice`]), computed directly.
#[inline]
pub(crate) fn pairs_payable(holding: Goods, n: u8) -> u32 {
    let h = holding.0.map(|c| c.min(n) as u32);
    let held = holding.total();
    let mut set = 0;
    for (p, &[a, b]) in PAIR_GOODS.iter().enumerate() {
        let direct = h[a.index()] + h[b.index()];
        set |= ((held + 2 * direct >= 6 * n as u32) as u32) << p;
    }
    set
}

/// The pairs payable `n` times over given the total held (0..=6n) and the
/// counts capped at `n` (digits base `n + 1`, wood first): see
/// [`pairs_payable_twice_and_thrice`].
const fn payable_table<const N: usize>(n: usize) -> [u8; N] {
    let digits = (n + 1) * (n + 1) * (n + 1) * (n + 1);
    let mut table = [0u8; N];
    let mut held = 0;
    while held <= 6 * n {
        let mut index = 0;
        while index < digits {
            let counts = [
                index / ((n + 1) * (n + 1) * (n + 1)),
                index / ((n + 1) * (n + 1)) % (n + 1),
                index / (n + 1) % (n + 1),
                index % (n + 1),
            ];
            let mut p = 0;
            while p < 6 {
                let direct = counts[PAIR_GOODS[p][0] as usize] + counts[PAIR_GOODS[p][1] as usize];
                if held + 2 * direct >= 6 * n {
                    table[held * digits + index] |= 1 << p;
                }
                p += 1;
            }
            index += 1;
        }
        held += 1;
    }
    table
}

static PAYABLE_TWICE: [u8; 13 * 81] = payable_table(2);
static PAYABLE_THRICE: [u8; 19 * 256] = payable_table(3);

/// [`default_pair_payment`] with `n` = 1 for all six pairs of goods at once, in
/// the order of [`PAIR_GOODS`] (entries 6 and 7 unused), and a bit per pair that
/// can be paid. Pairs share work: a pair with one good missing replaces it by
/// three goods taken from the holding less its other good (the same for every
/// pair with that other good held), a pair with both missing by six goods taken
/// from the whole holding.
#[inline]
pub(crate) fn unit_pair_payments(holding: Goods) -> ([Goods; 8], u8) {
    let h = word(holding);
    let held = holding.total();
    let kinds = (byte(h, 0) > 0) as usize
        | ((byte(h, 1) > 0) as usize) << 1
        | ((byte(h, 2) > 0) as usize) << 2
        | ((byte(h, 3) > 0) as usize) << 3;
    // The payment of each case, and a bit per case that can be paid. The cases
    // with one good held come from one table entry; both missing (six goods) is
    // rarer and computed only when it occurs.
    let mut by_case = [0u32; 8];
    by_case[..4].copy_from_slice(&ONE_MISSING[one_missing_index(h)]);
    let none = PAIR_CASES_NONE[kinds] && held >= 6;
    if none {
        by_case[NONE_HELD as usize] = take_greedy(h, 6);
    }
    let ok = ((held >= 4) as u8 * 0b1111) | (none as u8) << NONE_HELD | 1 << BOTH_HELD;
    let mut pay = [Goods::EMPTY; 8];
    let mut payable = 0u8;
    for (p, &case) in PAIR_CASES[kinds].iter().enumerate() {
        by_case[BOTH_HELD as usize] = PAIR_UNITS[p];
        pay[p] = goods_of(by_case[case as usize & 7]);
        payable |= (ok >> case & 1) << p;
    }
    (pay, payable)
}

/// The index into [`ONE_MISSING`] of holding `h` (a [`word`]): its counts above
/// `max - 4`, each 0..=4, as base-5 digits (wood first). Three goods taken from
/// the holding less one good all come from those top levels.
#[inline]
fn one_missing_index(h: u32) -> usize {
    let [h0, h1, h2, h3] = h.to_le_bytes();
    let base = h0.max(h1).max(h2).max(h3).saturating_sub(4);
    let digit = |n: u8| n.saturating_sub(base) as usize;
    ((digit(h0) * 5 + digit(h1)) * 5 + digit(h2)) * 5 + digit(h3)
}

/// For every holding with counts 0..=4 (see [`one_missing_index`]) and each good
/// `d`: one `d` and the three goods [`take_three`] takes from the rest, as a
/// [`word`] (the default payment of a pair whose other good is missing, when
/// `d` is held; a count of 0 here may stand for a few `d` below the top levels).
static ONE_MISSING: [[u32; 4]; 625] = {
    let mut table = [[0u32; 4]; 625];
    let mut index = 0;
    while index < 625 {
        let digits = [index / 125, index / 25 % 5, index / 5 % 5, index % 5];
        let mut d = 0;
        while d < 4 {
            let mut r = [
                digits[0] as u8,
                digits[1] as u8,
                digits[2] as u8,
                digits[3] as u8,
            ];
            r[d] = r[d].saturating_sub(1);
            table[index][d] = (1 << (8 * d)) + take_three_plain(r);
            d += 1;
        }
        index += 1;
    }
    table
};

/// Cases of [`PAIR_CASES`]: 0..4 is the good of the pair held (the other is
/// not), and these two.
const NONE_HELD: u8 = 4;
const BOTH_HELD: u8 = 5;

/// For each set of goods held (bit `k` for good `k`) and each pair of
/// [`PAIR_GOODS`]: which of the pair's goods is held if only one is, else
/// [`NONE_HELD`] or [`BOTH_HELD`].
static PAIR_CASES: [[u8; 6]; 16] = {
    let mut table = [[0u8; 6]; 16];
    let mut kinds = 0;
    while kinds < 16 {
        let mut p = 0;
        while p < 6 {
            let (a, b) = (PAIR_GOODS[p][0] as usize, PAIR_GOODS[p][1] as usize);
            let (ha, hb) = (kinds & (1 << a) != 0, kinds & (1 << b) != 0);
            table[kinds][p] = match (ha, hb) {
                (true, true) => BOTH_HELD,
                (true, false) => a as u8,
                (false, true) => b as u8,
                (false, false) => NONE_HELD,
            };
            p += 1;
        }
        kinds += 1;
    }
    table
};

/// For each set of goods held, whether some pair of [`PAIR_GOODS`] has neither.
static PAIR_CASES_NONE: [bool; 16] = {
    let mut table = [false; 16];
    let mut kinds = 0;
    while kinds < 16 {
        let mut p = 0;
        while p < 6 {
            if PAIR_CASES[kinds][p] == NONE_HELD {
                table[kinds] = true;
            }
            p += 1;
        }
        kinds += 1;
    }
    table
};

/// One of each good of a pair of [`PAIR_GOODS`], as [`word`]s.
const PAIR_UNITS: [u32; 6] = {
    let mut units = [0; 6];
    let mut i = 0;
    while i < 6 {
        units[i] = 1 << (8 * PAIR_GOODS[i][0] as u32) | 1 << (8 * PAIR_GOODS[i][1] as u32);
        i += 1;
    }
    units
};

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
mod tests;
