//! The complete state of a Die Dolmengötter game, hidden dolmen values included.
//!
//! Everything lives in fixed-size arrays (at most 5 seats, 73 sites, 28
//! circles, 5 dolmens per stack), so cloning a state is one `memcpy` and the
//! rules never allocate. Unused slots are kept zeroed, so two states that mean
//! the same position compare equal.
//!
//! The board is written only through [`State::set_site`], which also keeps two
//! masks derived from it (the free sites, each seat's druids): listing the
//! legal actions then never scans the 73 sites. The masks are never stored or
//! read from outside; a restored state rebuilds them ([`State::with_masks`]).

use super::board::{self, CIRCLES, Circle, SITES, Shape, Site};
use crate::Seat;

/// Most players.
pub const MAX_SEATS: usize = 5;
/// Most dolmens in one stack (an octagon's).
pub const MAX_STACK: usize = 5;
/// Most dolmen decisions one stone can trigger (one per circle of its site).
pub const MAX_QUEUE: usize = 3;
/// Druids each player puts on the board.
pub const DRUIDS: u8 = 3;
/// Score every player starts with.
pub const START_SCORE: i32 = 4;

/// Stones each player starts with, by player count (2–5; 0 otherwise).
pub const fn starting_stones(players: usize) -> u8 {
    match players {
        2 => 16,
        3 => 13,
        4 => 12,
        5 => 10,
        _ => 0,
    }
}

/// Dolmens each player starts with, as counts of the values 1, 2, 3, 4, by
/// player count (2–5; none otherwise).
pub const fn starting_dolmens(players: usize) -> [u8; 4] {
    match players {
        2 => [5, 4, 3, 1],
        3 => [4, 3, 2, 1],
        4 => [4, 3, 1, 1],
        5 => [3, 2, 1, 1],
        _ => [0; 4],
    }
}

/// What stands on a site.
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Occupant {
    /// A druid of this seat, standing or lying (collecting herbs).
    Druid {
        /// Owner.
        seat: Seat,
        /// True when lying: it can only fly.
        lying: bool,
    },
    /// A stone of this seat.
    Stone(Seat),
}

/// Options fixed when a game is created.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Options {
    /// The seat that places the first druid and takes the first turn
    /// (the rulebook: the youngest; default seat 0).
    pub start_seat: Seat,
    /// Safeguard (\[ruling\]): regular play ends after this many turns, then
    /// final scoring, unless a seat has placed its last dolmen (the owed last
    /// turns are always played). Not a rule of the game. At least 1.
    pub max_turns: u32,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            start_seat: Seat(0),
            max_turns: 1000,
        }
    }
}

/// One player's material.
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct SeatState {
    /// Victory points.
    pub score: i32,
    /// Stones in stock.
    pub stones_left: u8,
    /// Dolmens in hand: counts of the values 1, 2, 3, 4.
    pub hand: [u8; 4],
    /// Dolmens placed so far (the first tie-break).
    pub placed: u8,
    /// Dolmens that have scored and left the game: counts of the values 1..=4.
    pub scored: [u8; 4],
    /// Druids still to be placed at setup.
    pub druids_to_place: u8,
}

impl SeatState {
    /// Dolmens in hand.
    #[inline]
    pub fn dolmens_left(&self) -> u8 {
        self.hand.iter().sum()
    }
}

/// A dolmen in a stack: owner and value.
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct StackDolmen {
    /// Owner's seat number.
    pub owner: u8,
    /// Value 1..=4.
    pub value: u8,
}

/// One stone circle.
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct CircleState {
    /// The colour that most recently gained sole majority.
    pub leader: Option<Seat>,
    /// Stones on the circle by seat.
    pub stones: [u8; MAX_SEATS],
    /// Sites of the circle holding a stone.
    pub filled: u8,
    /// The stack, top first; the first `len` are valid, the rest zeroed.
    pub stack: [StackDolmen; MAX_STACK],
    /// Dolmens in the stack.
    pub len: u8,
    /// Every site holds a stone and the stack has scored.
    pub complete: bool,
}

impl CircleState {
    /// The dolmens, top first.
    #[inline]
    pub fn dolmens(&self) -> &[StackDolmen] {
        &self.stack[..self.len as usize]
    }

    /// Puts a dolmen on top of the stack or under it.
    pub fn push(&mut self, dolmen: StackDolmen, on_top: bool) {
        let len = self.len as usize;
        debug_assert!(len < MAX_STACK);
        if on_top {
            self.stack.copy_within(0..len, 1);
            self.stack[0] = dolmen;
        } else {
            self.stack[len] = dolmen;
        }
        self.len += 1;
    }

    /// Removes every dolmen.
    pub fn clear_stack(&mut self) {
        self.stack = [StackDolmen::default(); MAX_STACK];
        self.len = 0;
    }
}

/// A dolmen decision waiting for its turn: `seat` may place a dolmen in
/// `circle`, on top or under.
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Pending {
    /// The circle.
    pub circle: Circle,
    /// Who may place.
    pub seat: Seat,
    /// On top (gained the majority) or under (equalised).
    pub on_top: bool,
}

impl Default for Pending {
    fn default() -> Self {
        Pending {
            circle: Circle(0),
            seat: Seat(0),
            on_top: false,
        }
    }
}

/// The dolmen decisions triggered by one stone, in circle letter order; the
/// first `len` are valid (the first is the one being decided), the rest zeroed.
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Queue {
    /// Entries, front first.
    pub items: [Pending; MAX_QUEUE],
    /// Valid entries.
    pub len: u8,
}

impl Queue {
    /// The entries, front first.
    #[inline]
    pub fn as_slice(&self) -> &[Pending] {
        &self.items[..self.len as usize]
    }

    /// The front entry.
    #[inline]
    pub fn front(&self) -> Option<Pending> {
        self.as_slice().first().copied()
    }

    /// Appends an entry.
    pub fn push(&mut self, p: Pending) {
        debug_assert!((self.len as usize) < MAX_QUEUE);
        self.items[self.len as usize] = p;
        self.len += 1;
    }

    /// Drops the front entry.
    pub fn pop(&mut self) {
        let len = self.len as usize;
        debug_assert!(len > 0);
        self.items.copy_within(1..len, 0);
        self.items[len - 1] = Pending::default();
        self.len -= 1;
    }
}

/// Whose decision is pending, and of what kind.
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Phase {
    /// Setup: `seat` places a druid.
    PlaceDruid {
        /// Who places.
        seat: Seat,
    },
    /// The active seat walks, collects herbs or flies.
    Turn,
    /// The active seat's druid left `site`: leave a stone or decline.
    Stone {
        /// The site the druid left.
        site: Site,
    },
    /// The front of the queue decides on a dolmen.
    Dolmen,
    /// The game is over.
    Over,
}

/// A set of sites, bit `i` for site `i`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct SiteMask(u128);

impl SiteMask {
    /// No site.
    pub const EMPTY: SiteMask = SiteMask(0);
    /// Every site of the board.
    pub const ALL: SiteMask = SiteMask((1 << SITES) - 1);

    #[inline]
    fn insert(&mut self, i: usize) {
        self.0 |= 1 << i;
    }

    #[inline]
    fn remove(&mut self, i: usize) {
        self.0 &= !(1 << i);
    }

    /// True when no site is in the set.
    #[inline]
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The lowest-numbered site in the set.
    #[inline]
    pub fn first(self) -> Option<Site> {
        (self.0 != 0).then(|| Site(self.0.trailing_zeros() as u8))
    }

    /// The sites in the set, lowest first.
    #[inline]
    pub fn iter(self) -> SiteMaskIter {
        SiteMaskIter {
            low: self.0 as u64,
            high: (self.0 >> 64) as u64,
        }
    }
}

/// The sites of a [`SiteMask`], lowest first: the two 64-bit halves in turn,
/// which is cheaper than stepping a `u128`.
pub struct SiteMaskIter {
    low: u64,
    high: u64,
}

impl Iterator for SiteMaskIter {
    type Item = Site;

    #[inline]
    fn next(&mut self) -> Option<Site> {
        if self.low != 0 {
            let i = self.low.trailing_zeros();
            self.low &= self.low - 1;
            Some(Site(i as u8))
        } else if self.high != 0 {
            let i = self.high.trailing_zeros();
            self.high &= self.high - 1;
            Some(Site(64 + i as u8))
        } else {
            None
        }
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = (self.low.count_ones() + self.high.count_ones()) as usize;
        (n, Some(n))
    }
}

impl ExactSizeIterator for SiteMaskIter {}

/// The whole game state.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct State {
    /// Number of seats.
    pub players: u8,
    /// The seat whose turn it is.
    pub active: Seat,
    /// Turns started so far.
    pub turn: u32,
    /// The `max_turns` safeguard (\[ruling\]).
    pub max_turns: u32,
    /// What is pending.
    pub phase: Phase,
    /// What stands on each site (written by [`State::set_site`] only).
    #[cfg_attr(feature = "serde", serde(with = "serde_big_array::BigArray"))]
    sites: [Option<Occupant>; SITES],
    /// Derived from `sites`: bit `i` set when site `i` is free.
    #[cfg_attr(feature = "serde", serde(skip))]
    free: SiteMask,
    /// Derived from `sites`: bit `i` of entry `s` set when seat `s` has a
    /// druid (standing or lying) on site `i`.
    #[cfg_attr(feature = "serde", serde(skip))]
    druids: [SiteMask; MAX_SEATS],
    /// Derived from `circles`: bit `c` set when every site of circle `c` holds
    /// a stone and it has not scored yet (only between a stone and the end of
    /// its dolmen decisions).
    #[cfg_attr(feature = "serde", serde(skip))]
    due: u32,
    /// Each circle, in letter order.
    pub circles: [CircleState; CIRCLES],
    /// Each seat (slots beyond `players` stay default).
    pub seats: [SeatState; MAX_SEATS],
    /// Dolmen decisions of the last stone still to come.
    pub queue: Queue,
    /// The seat that placed its last dolmen first.
    pub end_triggered_by: Option<Seat>,
    /// Turns still to be played after the end was triggered.
    pub last_turns_left: u8,
    /// Set when the game ended by the safeguard.
    pub by_safeguard: bool,
}

impl State {
    /// A game before setup: empty board, starting material.
    pub fn new(players: usize, start_seat: Seat, max_turns: u32) -> State {
        let mut seats = [SeatState::default(); MAX_SEATS];
        for s in seats.iter_mut().take(players) {
            *s = SeatState {
                score: START_SCORE,
                stones_left: starting_stones(players),
                hand: starting_dolmens(players),
                placed: 0,
                scored: [0; 4],
                druids_to_place: DRUIDS,
            };
        }
        State {
            players: players as u8,
            active: start_seat,
            turn: 0,
            max_turns,
            phase: Phase::PlaceDruid { seat: start_seat },
            sites: [None; SITES],
            free: SiteMask::ALL,
            druids: [SiteMask::EMPTY; MAX_SEATS],
            due: 0,
            circles: [CircleState::default(); CIRCLES],
            seats,
            queue: Queue::default(),
            end_triggered_by: None,
            last_turns_left: 0,
            by_safeguard: false,
        }
    }

    /// Number of seats as a `usize`.
    #[inline]
    pub fn n(&self) -> usize {
        self.players as usize
    }

    /// The seat after `seat` in play order.
    #[inline]
    pub fn next_seat(&self, seat: Seat) -> Seat {
        Seat((seat.0 + 1) % self.players)
    }

    /// True when the site holds neither druid nor stone.
    #[inline]
    pub fn is_free(&self, site: Site) -> bool {
        self.sites[site.index()].is_none()
    }

    /// What stands on each site.
    #[inline]
    pub fn sites(&self) -> &[Option<Occupant>; SITES] {
        &self.sites
    }

    /// What stands on `site`.
    #[inline]
    pub fn site(&self, site: Site) -> Option<Occupant> {
        self.sites[site.index()]
    }

    /// The free sites.
    #[inline]
    pub fn free_sites(&self) -> SiteMask {
        self.free
    }

    /// The sites of `seat`'s druids, standing or lying.
    #[inline]
    pub fn druid_sites(&self, seat: Seat) -> SiteMask {
        self.druids[seat.index()]
    }

    /// Puts `occupant` on `site` (`None` empties it), keeping the masks.
    #[inline]
    pub fn set_site(&mut self, site: Site, occupant: Option<Occupant>) {
        let i = site.index();
        if let Some(Occupant::Druid { seat, .. }) = self.sites[i]
            && let Some(mask) = self.druids.get_mut(seat.index())
        {
            mask.remove(i);
        }
        self.sites[i] = occupant;
        match occupant {
            None => self.free.insert(i),
            Some(Occupant::Stone(_)) => self.free.remove(i),
            Some(Occupant::Druid { seat, .. }) => {
                self.free.remove(i);
                // A seat out of range (untrusted input) is refused by
                // `pieces_conserved`; it just has no mask.
                if let Some(mask) = self.druids.get_mut(seat.index()) {
                    mask.insert(i);
                }
            }
        }
    }

    /// Counts a stone of `seat` on `circle` (its site is already set).
    #[inline]
    pub fn add_circle_stone(&mut self, circle: Circle, seat: Seat) {
        let c = &mut self.circles[circle.index()];
        c.stones[seat.index()] += 1;
        c.filled += 1;
        if c.filled as usize == board::circle_sites(circle).len() {
            self.due |= 1 << circle.index();
        }
    }

    /// The circles full of stones that have not scored yet, bit `c` for
    /// circle `c`.
    #[inline]
    pub fn due_circles(&self) -> u32 {
        self.due
    }

    /// Marks `circle` as scored.
    #[inline]
    pub fn complete_circle(&mut self, circle: Circle) {
        self.circles[circle.index()].complete = true;
        self.due &= !(1 << circle.index());
    }

    /// The state with its masks rebuilt from the board and the circles: what a
    /// state restored from outside gets before anything reads them.
    pub fn with_masks(mut self) -> State {
        let sites = self.sites;
        self.free = SiteMask::EMPTY;
        self.druids = [SiteMask::EMPTY; MAX_SEATS];
        for (i, occupant) in sites.into_iter().enumerate() {
            self.set_site(Site(i as u8), occupant);
        }
        self.due = 0;
        for (c, cs) in self.circles.iter().enumerate() {
            let full = cs.filled as usize == board::circle_sites(Circle(c as u8)).len();
            self.due |= ((full && !cs.complete) as u32) << c;
        }
        self
    }

    /// True when the masks agree with the board and the circles.
    fn masks_agree(&self) -> bool {
        let rebuilt = self.clone().with_masks();
        rebuilt.free == self.free && rebuilt.druids == self.druids && rebuilt.due == self.due
    }

    /// Checks the conservation laws and the consistency of the derived counts:
    /// each seat's stones (stock + board) and dolmens of each value (hand +
    /// stacks + scored) add up to its starting numbers, its placed count matches,
    /// its druids on the board are 3 minus those still to place, and every
    /// circle's stone counts and stack agree with the board.
    pub fn pieces_conserved(&self) -> bool {
        let n = self.n();
        if !(2..=MAX_SEATS).contains(&n) || !self.masks_agree() {
            return false;
        }
        let stones0 = starting_stones(n);
        let dolmens0 = starting_dolmens(n);
        let total0: u8 = dolmens0.iter().sum();
        let mut stones = [0u8; MAX_SEATS];
        let mut druids = [0u8; MAX_SEATS];
        for occ in self.sites.iter().flatten() {
            match *occ {
                Occupant::Stone(s) if s.index() < n => stones[s.index()] += 1,
                Occupant::Druid { seat, .. } if seat.index() < n => druids[seat.index()] += 1,
                _ => return false,
            }
        }
        let mut on_board = [[0u8; 4]; MAX_SEATS];
        for (c, circle) in self.circles.iter().enumerate() {
            let sites = board::circle_sites(Circle(c as u8));
            let shape: Shape = board::shape(Circle(c as u8));
            let mut counts = [0u8; MAX_SEATS];
            for site in sites {
                if let Some(Occupant::Stone(s)) = self.sites[site.index()] {
                    counts[s.index()] += 1;
                }
            }
            let filled: u8 = counts.iter().sum();
            if counts != circle.stones
                || filled != circle.filled
                || circle.len as usize > shape.max_dolmens()
                || (circle.complete && filled as usize != sites.len())
                // A full circle scores once the dolmen decisions of its last
                // stone are over: only then may it be full and not complete.
                || (!circle.complete
                    && filled as usize == sites.len()
                    && self.phase != Phase::Dolmen)
                || (circle.complete && circle.len != 0)
                || circle.stack[circle.len as usize..] != [StackDolmen::default(); MAX_STACK][circle.len as usize..]
            {
                return false;
            }
            for d in circle.dolmens() {
                if d.owner as usize >= n || !(1..=4).contains(&d.value) {
                    return false;
                }
                on_board[d.owner as usize][d.value as usize - 1] += 1;
            }
        }
        for s in 0..n {
            let seat = &self.seats[s];
            if seat.stones_left as u16 + stones[s] as u16 != stones0 as u16
                || druids[s] as u16 + seat.druids_to_place as u16 != DRUIDS as u16
                // Summed wide: the state may come from outside (a view, a
                // serialised game) and hold any count.
                || seat.hand.iter().map(|&k| k as u16).sum::<u16>() + seat.placed as u16
                    != total0 as u16
            {
                return false;
            }
            for v in 0..4 {
                if seat.hand[v] as u16 + on_board[s][v] as u16 + seat.scored[v] as u16
                    != dolmens0[v] as u16
                {
                    return false;
                }
            }
        }
        true
    }
}
