//! The legal actions of the seat to act, and the default action when it runs
//! out of time. Listing the turn's actions is the hot path of random play
//! (see [`turn_actions`]).

use super::action::{Action, Building, Chip};
use super::board::{MAX_FIELDS, PAIR_GOODS};
use super::goods::{Good, Goods};
use super::payment;
use super::state::{Phase, State, field_goods, hut_cost};

/// Appends the legal actions of the seat to act. With `all_payments`, every
/// distinct valid payment is listed instead of one default payment per target.
pub(crate) fn legal_actions(state: &State, all_payments: bool, out: &mut Vec<Action>) {
    match state.phase {
        Phase::Chips { .. } | Phase::Roll | Phase::Over => {}
        Phase::PlaceWorkers { .. } => {
            let mut room = 0;
            for (p, stack) in state.plateaus.iter().enumerate() {
                room |= (stack.has_room() as usize) << p;
            }
            push_listed(out, &LISTS.place[room & 15], room);
        }
        Phase::TakeGood { .. } => {
            push_listed(out, &LISTS.take[kinds(state.supply)], kinds(state.supply))
        }
        Phase::ReturnGood { seat } => {
            let held = kinds(state.seats[seat.index()].goods);
            push_listed(out, &LISTS.give_back[held], held)
        }
        Phase::Turn => turn_actions(state, all_payments, out),
        Phase::Ritual { field, .. } | Phase::LastRound { field, .. } => {
            offering_actions(state, field as usize, all_payments, out)
        }
    }
}

/// The kinds present in `goods`, a bit each (bit `k` for good `k`).
#[inline]
fn kinds(goods: Goods) -> usize {
    goods
        .0
        .iter()
        .enumerate()
        .fold(0, |m, (k, &n)| m | ((n > 0) as usize) << k)
}

/// Appends the first `BITS[set]` actions of `list`: all four are copied (a fixed
/// size, no loop) and the list is cut to length.
#[inline]
fn push_listed(out: &mut Vec<Action>, list: &[Action; 4], set: usize) {
    let len = out.len();
    out.extend_from_slice(list);
    out.truncate(len + BITS[set & 15]);
}

/// The actions naming one good each, for every set of goods (bit `k` for good
/// `k`): those goods in order, padded to four.
struct Lists {
    place: [[Action; 4]; 16],
    take: [[Action; 4]; 16],
    give_back: [[Action; 4]; 16],
}

static LISTS: Lists = {
    /// `kind` 0: place a worker, 1: take a good, 2: return a good.
    const fn lists(kind: u8) -> [[Action; 4]; 16] {
        let mut table = [[Action::OfferChip; 4]; 16];
        let mut set = 0;
        while set < 16 {
            let mut k = 0;
            let mut g = 0;
            while g < 4 {
                if set & (1 << g) != 0 {
                    let good = Good::ALL[g];
                    table[set][k] = match kind {
                        0 => Action::PlaceWorker { plateau: good },
                        1 => Action::TakeGood { good },
                        _ => Action::ReturnGood { good },
                    };
                    k += 1;
                }
                g += 1;
            }
            set += 1;
        }
        table
    }
    Lists {
        place: lists(0),
        take: lists(1),
        give_back: lists(2),
    }
};

fn push_payments(
    required: Goods,
    holding: Goods,
    all: bool,
    out: &mut Vec<Action>,
    make: impl Fn(Goods) -> Action,
) {
    if all {
        let mut payments = Vec::new();
        payment::all_payments(required, holding, &mut payments);
        out.extend(payments.into_iter().map(make));
    } else if let Some(p) = payment::default_payment(required, holding) {
        out.push(make(p));
    }
}

/// The turn's actions: big yields, then for each empty field in ring order its
/// hut and its temple. This is the hot path of random play: everything is
/// decided on bit masks of the ring (bit `i` for field `i`) with what the fields
/// share computed once per position, and the actions are written in one pass
/// into space reserved for them.
fn turn_actions(state: &State, all: bool, out: &mut Vec<Action>) {
    let me = state.active;
    let seat = &state.seats[me.index()];
    // A. Big yield: each of the seat's workers (by plateau, bottom first) to each
    // other plateau with room. Bit 3p + h - 1 of `mine`: the seat has the worker
    // at height h of plateau p; bit p of `room`: plateau p has room.
    let mut room = 0usize;
    let mut mine = 0u32;
    for (p, stack) in state.plateaus.iter().enumerate() {
        room |= (stack.has_room() as usize) << p;
        mine |= stack.heights_of(me) << (3 * p);
    }
    let mut yields = 0;
    for from in 0..4 {
        yields += BITS[(mine >> (3 * from)) as usize & 7] * BITS[room & !(1 << from)];
    }

    // B and C. Build.
    let holding = seat.goods;
    let held = holding.total();
    let can_hut = seat.huts_left > 0;
    let can_temple = seat.temples_left > 0 && held >= 2;
    let n = state.len();
    let ring = &state.ring;
    if all {
        let empty = !ring.built() & ((1u64 << n) - 1);
        let start = out.len();
        out.extend_from_slice(&PLACEHOLDERS[..yields + SPARE]);
        write_yields(&mut out[start..], mine, room);
        out.truncate(start + yields);
        if can_hut || can_temple {
            build_actions_all_payments(state, empty, can_hut, can_temple, out);
        }
        return;
    }

    // Fields with a hut, respectively a temple, to list. A hut's payment is
    // `pay[pair * 4 + class]` for the field's pair of goods (see PAIR_GOODS) and
    // its class, given by bit i of `class1` and of `class2` for field i: 0 for a
    // hut alone (one of each of the two goods), 1 for one joining a single hut
    // (two of each), 2 for a settlement of 3 (three of each); class 3 is paid
    // `pay[32 + i]`: nothing on a free-hut chip, else a larger settlement's cost.
    let (mut huts, mut temples) = (0u64, 0u64);
    let (mut class1, mut class2) = (0u64, 0u64);
    let mut pay = [Goods::EMPTY; 32 + 64];
    let mut unit_pay = [Goods::EMPTY; 8];
    if can_hut || can_temple {
        let fields_of = state.board.pair_set_masks();
        let units;
        (unit_pay, units) = payment::unit_pair_payments(holding);
        let one = fields_of[units as usize & 63];
        let sites = ring.sites();
        if can_temple {
            temples = sites.temple & one;
        }
        if can_hut {
            // The pairs the seat can pay for twice and three times over, and four
            // times (a larger settlement costs at least four of each).
            let (twos, threes) = payment::pairs_payable_twice_and_thrice(holding);
            let (two, three) = (
                fields_of[twos as usize & 63],
                fields_of[threes as usize & 63],
            );
            let (of_two, of_three) = (sites.of_two & two, sites.of_three & three);
            let mut larger = 0;
            if sites.larger & three != 0 {
                let four = payment::pairs_payable(holding, 4) as usize;
                larger = sites.larger & fields_of[four & 63];
            }
            huts = sites.free | (sites.alone & one) | of_two | of_three;
            class1 = sites.free | sites.of_two | larger;
            class2 = sites.free | sites.of_three | larger;
            for p in 0..6 {
                pay[p * 4] = unit_pay[p];
            }
            let pairs = state.board.pairs();
            // Payments for 2 and 3 of each, for the pairs that need them.
            let mut need =
                (sites.pairs_of_two as u32 & twos) | (sites.pairs_of_three as u32 & threes) << 8;
            while need != 0 {
                let bit = need.trailing_zeros() as usize;
                need &= need - 1;
                let (pair, times) = (bit & 7, bit / 8 + 2);
                let [a, b] = PAIR_GOODS[pair % 6];
                pay[pair * 4 + times - 1] =
                    payment::default_pair_payment(a, b, times as u8, holding)
                        .expect("the pair pays for the settlement");
            }
            let mut rest = larger;
            while rest != 0 {
                let field = rest.trailing_zeros() as usize;
                rest &= rest - 1;
                let size = State::new_hut_settlement_size(ring.huts(), n, field);
                let [a, b] = PAIR_GOODS[pairs[field & 63] as usize % 6];
                if let Some(payment) = payment::default_pair_payment(a, b, size, holding) {
                    pay[32 + (field & 63)] = payment;
                    huts |= 1 << field;
                }
            }
        }
    }

    // Space for every action and a few spare slots (a worker's three yields, a
    // field's hut and temple, are written unconditionally, the count advanced
    // only for those listed), copied from a row of placeholders.
    let start = out.len();
    let most = yields + 2 * (huts | temples).count_ones() as usize;
    out.extend_from_slice(&PLACEHOLDERS[..most + SPARE]);
    let dst = &mut out[start..];
    let mut k = write_yields(dst, mine, room);
    let pairs = state.board.pairs();
    let mut todo = huts | temples;
    while todo != 0 {
        let field = todo.trailing_zeros() as usize;
        todo &= todo - 1;
        let pair = pairs[field & 63] as usize & 7;
        let class = (class1 >> field & 1 | (class2 >> field & 1) << 1) as usize;
        let slot = if class == 3 {
            32 + field
        } else {
            pair * 4 + class
        };
        let payment = pay[slot & 127];
        debug_assert!(
            huts & (1 << field) == 0
                || Some(payment) == payment::default_payment(hut_cost(state, field), holding)
        );
        let f = field as u8;
        dst[k] = Action::BuildHut { field: f, payment };
        k += (huts >> field & 1) as usize;
        dst[k] = Action::BuildTemple {
            field: f,
            payment: unit_pay[pair],
        };
        k += (temples >> field & 1) as usize;
    }
    out.truncate(start + k);
}

/// Placeholders for the turn's actions, overwritten: the most a turn can list
/// (9 big yields, a hut and a temple per field) and `SPARE` more.
static PLACEHOLDERS: [Action; 9 + 2 * MAX_FIELDS + SPARE] =
    [Action::OfferChip; 9 + 2 * MAX_FIELDS + SPARE];

/// Slots written past the listed actions (see [`turn_actions`]).
const SPARE: usize = 3;

/// Bits set in each 4-bit number.
const BITS: [usize; 16] = [0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4];

/// Writes the big yields (see [`turn_actions`]) to the start of `dst`, which has
/// room for them and `SPARE` more; returns how many were written. A worker's
/// targets are written three at a time, the count advanced by how many it has.
#[inline]
fn write_yields(dst: &mut [Action], mine: u32, room: usize) -> usize {
    let mut k = 0;
    let mut workers = mine;
    while workers != 0 {
        let bit = workers.trailing_zeros() as usize;
        workers &= workers - 1;
        let (from, height) = (bit / 3, (bit % 3) as u8 + 1);
        let targets = room & !(1 << from) & 15;
        let to = TARGETS[targets];
        for (j, &to) in to.iter().enumerate() {
            dst[k + j] = Action::BigYield {
                from: Good::from_index(from & 3),
                height,
                to: Good::from_index(to as usize & 3),
            };
        }
        k += BITS[targets];
    }
    k
}

/// For each set of plateaus (bit `p` for plateau `p`, at most three), the
/// plateaus in order, padded to three.
const TARGETS: [[u8; 3]; 16] = {
    let mut table = [[0u8; 3]; 16];
    let mut set = 0;
    while set < 16 {
        let mut k = 0;
        let mut p = 0;
        while p < 4 {
            if set & (1 << p) != 0 && k < 3 {
                table[set][k] = p as u8;
                k += 1;
            }
            p += 1;
        }
        set += 1;
    }
    table
};

/// The build actions with every distinct valid payment (on request only).
fn build_actions_all_payments(
    state: &State,
    empty: u64,
    can_hut: bool,
    can_temple: bool,
    out: &mut Vec<Action>,
) {
    let holding = state.seats[state.active.index()].goods;
    let n = state.len();
    for field in (0..n).filter(|&f| empty & (1 << f) != 0) {
        let f = field as u8;
        let chip = state.chip(field);
        let unit = field_goods(state, field);
        if can_hut {
            let make = |payment| Action::BuildHut { field: f, payment };
            if chip == Some(Chip::FreeHut) {
                out.push(make(Goods::EMPTY));
            } else {
                let size = State::new_hut_settlement_size(state.ring.huts(), n, field);
                push_payments(Goods(unit.0.map(|k| k * size)), holding, true, out, make);
            }
        }
        if can_temple && chip.is_none() {
            let make = |payment| Action::BuildTemple { field: f, payment };
            push_payments(unit, holding, true, out, make);
        }
    }
}

fn offering_actions(state: &State, field: usize, all: bool, out: &mut Vec<Action>) {
    let owner = state
        .building(field)
        .map(Building::owner)
        .expect("offering at a hut");
    let holding = state.seats[owner.index()].goods;
    let [a, b] = state.field(field).goods;
    let chip = state.chip(field) == Some(Chip::DruidOffering);
    let make = |payment| Action::Offer { payment };
    if !all {
        // The chip, both goods, one of them, nothing. Paying `a` by three goods
        // is the same payment as paying `b` by three goods (both come from the
        // largest surpluses of the same holding), so `b`'s is listed only if
        // different. Written in place, each slot kept only if listed.
        let (both, one_a, one_b) = payment::offering_payments(a, b, holding);
        let len = out.len();
        out.extend_from_slice(&[Action::OfferChip; 5]);
        let list = &mut out[len..];
        let mut k = chip as usize;
        list[k] = make(both.unwrap_or_default());
        k += both.is_some() as usize;
        list[k] = make(one_a.unwrap_or_default());
        k += one_a.is_some() as usize;
        list[k] = make(one_b.unwrap_or_default());
        k += (one_b.is_some() && one_b != one_a) as usize;
        list[k] = make(Goods::EMPTY);
        out.truncate(len + k + 1);
        return;
    }
    if chip {
        out.push(Action::OfferChip);
    }
    push_payments(field_goods(state, field), holding, all, out, make);
    // "One good": any three goods replace either of the two, so a 3-good payment
    // answers both requirements and is listed once; the second list adds only
    // what the first does not hold.
    let ones = out.len();
    push_payments(Goods::of(a, 1), holding, all, out, make);
    let mut second = Vec::new();
    payment::all_payments(Goods::of(b, 1), holding, &mut second);
    for payment in second {
        if !out[ones..].contains(&make(payment)) {
            out.push(make(payment));
        }
    }
    out.push(make(Goods::EMPTY));
}

/// The goods the active seat gains by a big yield onto `to`: its worker
/// lands on top, and every worker there yields its height in goods, top
/// first, while the supply lasts (the seat's lower workers count too).
fn big_yield_gain(state: &State, to: Good) -> u8 {
    let me = state.active;
    let plateau = &state.plateaus[to.index()];
    let top = plateau.len() as u8 + 1;
    let mut supply = state.supply.get(to);
    let mut mine = 0;
    for height in (1..=top).rev() {
        let owner = if height == top {
            Some(me)
        } else {
            plateau.at(height)
        };
        let take = height.min(supply);
        supply -= take;
        if owner == Some(me) {
            mine += take;
        }
    }
    mine
}

/// The default decision when a seat runs out of time [see README, turn clocks]:
/// place a worker on the first plateau with room (wood, wool, copper, stone);
/// take the good the supply holds most of; return the good you hold most of
/// (ties: first in that order); for a turn, the big yield that brings you the
/// most goods (ties: first listed); at an offering, offer nothing.
pub(crate) fn timeout_action(state: &State) -> Option<Action> {
    let most = |g: Goods| {
        Good::ALL
            .into_iter()
            .filter(|k| g.get(*k) > 0)
            .max_by_key(|k| (g.get(*k), std::cmp::Reverse(k.index())))
    };
    Some(match state.phase {
        Phase::Chips { .. } | Phase::Roll | Phase::Over => return None,
        Phase::PlaceWorkers { .. } => Action::PlaceWorker {
            plateau: Good::ALL
                .into_iter()
                .find(|p| state.plateaus[p.index()].has_room())?,
        },
        Phase::TakeGood { .. } => Action::TakeGood {
            good: most(state.supply)?,
        },
        Phase::ReturnGood { seat } => Action::ReturnGood {
            good: most(state.seats[seat.index()].goods)?,
        },
        Phase::Turn => {
            let mut legal = Vec::new();
            turn_actions(state, false, &mut legal);
            let gain_of = |a: &Action| match *a {
                Action::BigYield { to, .. } => i32::from(big_yield_gain(state, to)),
                _ => -1,
            };
            let best = legal.iter().map(gain_of).max()?;
            *legal.iter().find(|a| gain_of(a) == best)?
        }
        Phase::Ritual { .. } | Phase::LastRound { .. } => Action::Offer {
            payment: Goods::EMPTY,
        },
    })
}
