//! The complete state of a Meduris game, hidden goods included, and the queries
//! on it that the rules and the views share (settlements, holdings, stacks).

use rand_core::RngCore;

use super::action::{Building, Chip, DruidPos};
use super::board::{Area, BoardKind, Field, MAX_FIELDS};
use super::goods::Goods;
use crate::Seat;

/// Most players.
pub const MAX_SEATS: usize = 4;
/// Most workers on one plateau.
pub const STACK_LIMIT: usize = 3;
/// Goods of each kind in the game (supply plus all holdings).
pub const GOODS_PER_KIND: u8 = 18;

/// The workers on one plateau, bottom first.
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Stack {
    workers: [u8; STACK_LIMIT],
    len: u8,
}

impl Stack {
    /// Workers bottom → top.
    #[inline]
    pub fn workers(&self) -> impl DoubleEndedIterator<Item = Seat> + ExactSizeIterator + '_ {
        self.workers[..self.len as usize].iter().map(|&s| Seat(s))
    }

    /// Number of workers.
    #[inline]
    pub fn len(&self) -> usize {
        self.len as usize
    }

    /// True when a worker may be put on top.
    #[inline]
    pub fn has_room(&self) -> bool {
        (self.len as usize) < STACK_LIMIT
    }

    /// Owner of the worker at `height` (1 = bottom).
    #[inline]
    pub fn at(&self, height: u8) -> Option<Seat> {
        (height >= 1 && height <= self.len).then(|| Seat(self.workers[height as usize - 1]))
    }

    pub(crate) fn push(&mut self, seat: Seat) {
        debug_assert!(self.has_room());
        self.workers[self.len as usize] = seat.0;
        self.len += 1;
    }

    /// The heights of `seat`'s workers here, a bit each (bit `h - 1` for height `h`).
    #[inline]
    pub(crate) fn heights_of(&self, seat: Seat) -> u32 {
        let [w0, w1, w2] = self.workers.map(|w| (w == seat.0) as u32);
        (w0 | w1 << 1 | w2 << 2) & ((1 << self.len) - 1)
    }

    /// Removes the worker at `height`; the workers above move down.
    pub(crate) fn remove(&mut self, height: u8) {
        let i = height as usize - 1;
        self.workers.copy_within(i + 1..self.len as usize, i);
        self.len -= 1;
    }
}

/// One player's material.
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct SeatState {
    /// Goods behind the screen (private).
    pub goods: Goods,
    /// Victory points (never below 0).
    pub score: i32,
    /// Huts not yet built.
    pub huts_left: u8,
    /// Temples not yet built.
    pub temples_left: u8,
    /// Workers not yet placed at setup.
    pub workers_to_place: u8,
}

/// Whose decision is pending, and of what kind. Each variant carries exactly what
/// is needed to continue after the decision.
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Phase {
    /// Setup: `seat` places a worker.
    PlaceWorkers { seat: Seat },
    /// "+1": `seat` takes a good; the round ends when it comes back to the active seat.
    TakeGood { seat: Seat },
    /// "−1": `seat` returns a good.
    ReturnGood { seat: Seat },
    /// The active seat chooses big yield, hut or temple.
    Turn,
    /// A regular offering ritual, now at `field`, started at `start`.
    Ritual { field: u8, start: u8 },
    /// The druid's last round, now at `field`, ending at `end`.
    LastRound { field: u8, end: u8 },
    /// Explicit chance: the set-up waits for its draw number `drawn` (see
    /// [`super::setup::setup_draw_size`]); the draws so far are in
    /// [`State::setup_draws`].
    Chips { drawn: u8 },
    /// Explicit chance: the active seat's turn has started and waits for the
    /// die.
    Roll,
    /// The game is over.
    Over,
}

/// Game options fixed at creation.
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Options {
    /// Seat that starts (worker placement and the first turn) \[ruling: default 0\].
    pub start_seat: u8,
    /// Safeguard: regular play ends after this many turns \[ruling: default
    /// 1000\], unless the end has been triggered (owed final turns are always
    /// played).
    pub max_turns: u32,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            start_seat: 0,
            max_turns: 1000,
        }
    }
}

/// What stands on the fields of the ring: buildings and bonus chips, with bit
/// masks of both (bit `i` for field `i`) kept in step by the only writers,
/// [`Ring::set_building`] and [`Ring::set_chip`], so that the rules read facts
/// about the whole ring (where the huts are, which fields are free, how large a
/// settlement a new hut would join) without scanning it. The masks are derived
/// data: two rings with the same buildings and chips are equal.
///
/// It is written as its board and what stands on each field (`saved.rs`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Ring {
    buildings: [Option<Building>; MAX_FIELDS],
    chips: [Option<Chip>; MAX_FIELDS],
    /// The board, all its fields, and how many.
    board: BoardKind,
    fields: u64,
    len: u8,
    huts: u64,
    built: u64,
    chipped: u64,
    free_huts: u64,
    /// See [`Ring::sites`].
    sites: Sites,
}

/// The empty fields of a ring, by what may be built there (bit masks).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Sites {
    /// Without a chip: a temple may be built there.
    pub temple: u64,
    /// A hut there is free (a free-hut chip).
    pub free: u64,
    /// A hut there, not free, joins no settlement: it costs one of each good.
    pub alone: u64,
    /// A hut there, not free, joins one hut: a settlement of 2.
    pub of_two: u64,
    /// A hut there, not free, makes a settlement of 3.
    pub of_three: u64,
    /// A hut there, not free, makes a settlement of 4 or more.
    pub larger: u64,
    /// The pairs of goods of the fields in `of_two` (bit `p` for pair `p` of
    /// `PAIR_GOODS`).
    pub pairs_of_two: u8,
    /// The pairs of goods of the fields in `of_three`.
    pub pairs_of_three: u8,
}

impl Ring {
    /// The ring of `board`, no buildings, no chips.
    pub(crate) fn new(board: BoardKind) -> Ring {
        let len = board.field_count();
        debug_assert!(len < 64);
        let mut ring = Ring {
            buildings: [None; MAX_FIELDS],
            chips: [None; MAX_FIELDS],
            board,
            fields: (1 << len) - 1,
            len: len as u8,
            huts: 0,
            built: 0,
            chipped: 0,
            free_huts: 0,
            sites: Sites::default(),
        };
        ring.refresh();
        ring
    }

    /// The board the ring is of.
    #[cfg(feature = "serde")]
    pub(crate) fn board(&self) -> BoardKind {
        self.board
    }

    /// The building on field `i`.
    #[inline]
    pub(crate) fn building(&self, i: usize) -> Option<Building> {
        self.buildings[i]
    }

    /// The bonus chip on field `i`.
    #[inline]
    pub(crate) fn chip(&self, i: usize) -> Option<Chip> {
        self.chips[i]
    }

    /// Puts (or with `None` removes) a building.
    pub(crate) fn set_building(&mut self, i: usize, building: Option<Building>) {
        let bit = (1u64 << i) & self.fields;
        self.buildings[i] = building;
        self.huts &= !bit;
        self.built &= !bit;
        match building {
            Some(Building::Hut(_)) => {
                self.huts |= bit;
                self.built |= bit;
            }
            Some(Building::Temple(_)) => self.built |= bit,
            None => {}
        }
        self.refresh();
    }

    /// Puts (or with `None` removes) a bonus chip.
    pub(crate) fn set_chip(&mut self, i: usize, chip: Option<Chip>) {
        let bit = (1u64 << i) & self.fields;
        self.chips[i] = chip;
        self.chipped &= !bit;
        self.free_huts &= !bit;
        match chip {
            Some(Chip::FreeHut) => {
                self.chipped |= bit;
                self.free_huts |= bit;
            }
            Some(_) => self.chipped |= bit,
            None => {}
        }
        self.refresh();
    }

    /// Recomputes [`Ring::sites`] from the masks.
    fn refresh(&mut self) {
        let (all, n) = (self.fields, self.len as usize);
        let h = self.huts;
        // Bit i of `left(k)`: a hut on field i - k; of `right(k)`: on i + k.
        let left = |k: usize| (h << k | h >> (n - k)) & all;
        let right = |k: usize| (h >> k | h << (n - k)) & all;
        let (l1, l2, l3) = (left(1), left(2), left(3));
        let (r1, r2, r3) = (right(1), right(2), right(3));
        let empty = all & !self.built;
        let paid = empty & !self.free_huts;
        // Settlement sizes from the runs of huts on both sides.
        let of_two = paid & ((l1 & !l2 & !r1) | (r1 & !r2 & !l1));
        let of_three =
            paid & ((l1 & l2 & !l3 & !r1) | (r1 & r2 & !r3 & !l1) | (l1 & !l2 & r1 & !r2));
        // The pairs of those fields, a bit per field found (there are few).
        let pairs = self.board.pairs();
        let pairs_of = |mut fields: u64| {
            let mut set = 0u8;
            while fields != 0 {
                set |= 1 << (pairs[fields.trailing_zeros() as usize & 63] & 7);
                fields &= fields - 1;
            }
            set
        };
        let (pairs_of_two, pairs_of_three) = (pairs_of(of_two), pairs_of(of_three));
        self.sites = Sites {
            temple: empty & !self.chipped,
            free: empty & self.free_huts,
            alone: paid & !(l1 | r1),
            of_two,
            of_three,
            larger: paid & (l1 | r1) & !of_two & !of_three,
            pairs_of_two,
            pairs_of_three,
        };
    }

    /// The empty fields by what may be built there.
    #[inline]
    pub(crate) fn sites(&self) -> &Sites {
        &self.sites
    }

    /// Fields holding a hut.
    #[inline]
    pub(crate) fn huts(&self) -> u64 {
        self.huts
    }

    /// Fields holding any building.
    #[inline]
    pub(crate) fn built(&self) -> u64 {
        self.built
    }

    /// Whether the masks match the fields (for tests and debug checks).
    pub(crate) fn consistent(&self) -> bool {
        let mut r = Ring::new(self.board);
        for i in 0..MAX_FIELDS {
            r.set_building(i, self.buildings[i]);
            r.set_chip(i, self.chips[i]);
        }
        r == *self
    }
}

/// The full state. Fields are plain data so that `PartialEq` compares states
/// byte for byte (the property tests rely on it).
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct State {
    pub(crate) board: BoardKind,
    pub(crate) players: u8,
    pub(crate) options: Options,
    pub(crate) rng: rand_pcg::Pcg64Mcg,
    /// Buildings and bonus chips on the fields.
    pub(crate) ring: Ring,
    pub(crate) plateaus: [Stack; 4],
    pub(crate) supply: Goods,
    pub(crate) seats: [SeatState; MAX_SEATS],
    pub(crate) runes: [Option<Seat>; 9],
    pub(crate) druid: DruidPos,
    pub(crate) phase: Phase,
    /// Seat whose turn it is.
    pub(crate) active: Seat,
    /// Turns started so far.
    pub(crate) turn: u32,
    /// Set once a player has built everything.
    pub(crate) end_trigger: Option<Seat>,
    /// Last turns still to be played after the trigger.
    pub(crate) last_turns_left: u8,
    pub(crate) by_safeguard: bool,
    /// Buildings placed per seat (tie-break).
    pub(crate) built: [u8; MAX_SEATS],
    /// Whether draws wait for an outside outcome (see [`crate::Chance`]).
    pub(crate) explicit: bool,
    /// The set-up's draws supplied so far in explicit mode (zero otherwise).
    #[cfg_attr(feature = "serde", serde(with = "serde_big_array::BigArray"))]
    pub(crate) setup_draws: [u8; super::board::MAX_SETUP_DRAWS],
}

impl State {
    /// Number of fields on the ring.
    #[inline]
    pub(crate) fn len(&self) -> usize {
        self.board.field_count()
    }

    #[inline]
    pub(crate) fn field(&self, i: usize) -> &'static Field {
        &self.board.fields()[i]
    }

    #[inline]
    pub(crate) fn next_field(&self, i: usize) -> usize {
        if i + 1 == self.len() { 0 } else { i + 1 }
    }

    #[inline]
    pub(crate) fn prev_field(&self, i: usize) -> usize {
        if i == 0 { self.len() - 1 } else { i - 1 }
    }

    #[inline]
    pub(crate) fn is_hut(&self, i: usize) -> bool {
        self.ring.huts & (1 << i) != 0
    }

    #[inline]
    pub(crate) fn next_seat(&self, s: Seat) -> Seat {
        Seat((s.0 + 1) % self.players)
    }

    /// Consecutive huts clockwise from `i` (excluded), and counter-clockwise.
    fn runs(&self, i: usize) -> (usize, usize) {
        let n = self.len();
        let mut right = 0;
        let mut j = self.next_field(i);
        while right < n - 1 && self.is_hut(j) {
            right += 1;
            j = self.next_field(j);
        }
        let mut left = 0;
        let mut j = self.prev_field(i);
        while left + right < n - 1 && self.is_hut(j) {
            left += 1;
            j = self.prev_field(j);
        }
        (left, right)
    }

    /// Size of the settlement a hut on field `i` belongs to (or would belong to if
    /// built there): the run of consecutive huts through `i`, counting `i`.
    pub(crate) fn settlement_through(&self, i: usize) -> usize {
        let (l, r) = self.runs(i);
        l + r + 1
    }

    /// The building on field `i`.
    #[inline]
    pub(crate) fn building(&self, i: usize) -> Option<Building> {
        self.ring.building(i)
    }

    /// The bonus chip on field `i`.
    #[inline]
    pub(crate) fn chip(&self, i: usize) -> Option<Chip> {
        self.ring.chip(i)
    }

    /// The size of the settlement a new hut on field `i` (which holds no hut) would
    /// belong to, from the hut mask `huts` of a ring of `len` fields.
    #[inline]
    pub(crate) fn new_hut_settlement_size(huts: u64, len: usize, i: usize) -> u8 {
        debug_assert!(huts & (1 << i) == 0 && len < 64);
        // The ring rotated so that field i + 1 is bit 0 and field i bit len - 1.
        let s = i + 1;
        let r = (huts >> s | huts << (len - s)) & ((1 << len) - 1);
        // Huts right after `i` (bit len - 1, field i, stops the run) ...
        let right = r.trailing_ones();
        // ... and right before it: from bit len - 2 (field i - 1) downwards.
        let left = (r << (65 - len)).leading_ones();
        // Both runs are the same huts when `i` is the only field without a hut.
        (1 + (left + right).min(len as u32 - 1)) as u8
    }

    /// For every field without a hut, the size of the settlement a new hut there
    /// would belong to (1 + the hut runs on both sides). Entries of fields holding
    /// huts are meaningless. (The rules use [`State::new_hut_settlement_size`]
    /// field by field; this whole-ring form is what the tests compare.)
    #[cfg(test)]
    pub(crate) fn new_hut_settlement_sizes(&self) -> [u8; MAX_FIELDS] {
        let n = self.len();
        let huts = self.ring.huts;
        let mut sizes = [1u8; MAX_FIELDS];
        for (i, size) in sizes[..n].iter_mut().enumerate() {
            if huts & (1 << i) == 0 {
                *size = Self::new_hut_settlement_size(huts, n, i);
            }
        }
        sizes
    }

    /// Number of huts in the settlement(s) directly left and right of field `i`,
    /// each hut counted once (a temple's final score).
    pub(crate) fn huts_beside(&self, i: usize) -> usize {
        let (l, r) = self.runs(i);
        // `runs` stops before counting any hut twice, so l + r is the union.
        l + r
    }

    /// Whether any hut stands on the ring.
    pub(crate) fn any_hut(&self) -> bool {
        self.ring.huts != 0
    }

    /// Goods held by nobody (the general supply) must equal 18 minus all holdings.
    pub(crate) fn goods_conserved(&self) -> bool {
        let mut total = self.supply;
        for s in &self.seats[..self.players as usize] {
            total.add(s.goods);
        }
        total == Goods([GOODS_PER_KIND; 4])
    }
}

/// A uniform number below `n` (tiny bias-free rejection; `n` is small).
pub(crate) fn below(rng: &mut rand_pcg::Pcg64Mcg, n: usize) -> usize {
    let n = n as u32;
    let zone = u32::MAX - u32::MAX % n;
    loop {
        let x = rng.next_u32();
        if x < zone {
            return (x % n) as usize;
        }
    }
}

/// The cost of a hut on `field` for the active seat (empty on a free-hut chip).
pub(crate) fn hut_cost(state: &State, field: usize) -> Goods {
    if state.chip(field) == Some(Chip::FreeHut) {
        return Goods::EMPTY;
    }
    let n = state.settlement_through(field) as u8;
    let [a, b] = state.field(field).goods;
    let mut cost = Goods::of(a, n);
    cost.0[b.index()] += n;
    cost
}

/// The two goods of `field`, one of each: the cost of a temple there, and
/// what the druid asks for at a hut there.
pub(crate) fn field_goods(state: &State, field: usize) -> Goods {
    let [a, b] = state.field(field).goods;
    let mut g = Goods::of(a, 1);
    g.0[b.index()] += 1;
    g
}

/// Which rune areas a seat holds (used by views and scoring).
pub(crate) fn runes_of(state: &State, seat: Seat) -> impl Iterator<Item = Area> + '_ {
    Area::ALL
        .into_iter()
        .filter(move |a| state.runes[a.index()] == Some(seat))
}
