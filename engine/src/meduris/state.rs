//! The complete state of a Meduris game, hidden goods included, and the queries
//! on it that the rules and the views share (settlements, holdings, stacks).

use super::action::{Building, Chip, DruidPos};
use super::board::{BoardKind, Field, MAX_FIELDS};
use super::goods::Goods;
use crate::Seat;

/// Most players.
pub const MAX_SEATS: usize = 4;
/// Most workers on one plateau.
pub const STACK_LIMIT: usize = 3;
/// Goods of each kind in the game (supply plus all holdings).
pub const GOODS_PER_KIND: u8 = 18;

/// The workers on one plateau, bottom first.
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

    /// True when no worker stands here.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
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

    /// Removes the worker at `height`; the workers above move down.
    pub(crate) fn remove(&mut self, height: u8) {
        let i = height as usize - 1;
        self.workers.copy_within(i + 1..self.len as usize, i);
        self.len -= 1;
    }
}

/// One player's material.
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
    /// The game is over.
    Over,
}

/// Game options fixed at creation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Options {
    /// Seat that starts (worker placement and the first turn) \[ruling: default 0\].
    pub start_seat: u8,
    /// Safeguard: regular play ends after this many turns \[ruling: default 1000\].
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

/// The full state. Fields are plain data so that `PartialEq` compares states
/// byte for byte (the property tests rely on it).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct State {
    pub(crate) board: BoardKind,
    pub(crate) players: u8,
    pub(crate) options: Options,
    pub(crate) rng: rand_pcg::Pcg64Mcg,
    pub(crate) buildings: [Option<Building>; MAX_FIELDS],
    pub(crate) chips: [Option<Chip>; MAX_FIELDS],
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
        matches!(self.buildings[i], Some(Building::Hut(_)))
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

    /// Bit masks of the ring: `(huts, built)`, bit `i` set when field `i` holds a
    /// hut, respectively any building.
    #[inline]
    pub(crate) fn masks(&self) -> (u64, u64) {
        let mut huts = 0u64;
        let mut built = 0u64;
        for (i, b) in self.buildings[..self.len()].iter().enumerate() {
            match b {
                Some(Building::Hut(_)) => {
                    huts |= 1 << i;
                    built |= 1 << i;
                }
                Some(Building::Temple(_)) => built |= 1 << i,
                None => {}
            }
        }
        (huts, built)
    }

    /// The size of the settlement a new hut on field `i` (which holds no hut) would
    /// belong to, from the hut mask `doubled` = `huts | huts << len` (the ring
    /// written twice, so that runs crossing the river are contiguous bits).
    #[inline]
    pub(crate) fn new_hut_settlement_size(doubled: u128, len: usize, i: usize) -> u8 {
        // Huts right after `i`: trailing ones from bit i + 1 (bit i + len is `i`
        // itself, not a hut, so the run stops within the ring).
        let right = (!(doubled >> (i + 1))).trailing_zeros() as usize;
        // Huts right before `i`: ones from bit i + len - 1 downwards (bit i stops it).
        let left = (doubled << (128 - (i + len))).leading_ones() as usize;
        // Both runs are the same huts when `i` is the only field without a hut.
        (1 + (left + right).min(len - 1)) as u8
    }

    /// For every field without a hut, the size of the settlement a new hut there
    /// would belong to (1 + the hut runs on both sides). Entries of fields holding
    /// huts are meaningless. (The rules use [`State::new_hut_settlement_size`]
    /// field by field; this whole-ring form is what the tests compare.)
    #[cfg(test)]
    pub(crate) fn new_hut_settlement_sizes(&self) -> [u8; MAX_FIELDS] {
        let n = self.len();
        let (huts, _) = self.masks();
        let doubled = huts as u128 | (huts as u128) << n;
        let mut sizes = [1u8; MAX_FIELDS];
        for (i, size) in sizes[..n].iter_mut().enumerate() {
            if huts & (1 << i) == 0 {
                *size = Self::new_hut_settlement_size(doubled, n, i);
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
        (0..self.len()).any(|i| self.is_hut(i))
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
