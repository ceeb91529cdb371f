//! Fixed shapes for learning: a fixed action space per game and player count
//! (every action of the default legal list has one index, the legal list
//! becomes a mask), and an observation tensor of any viewer's view, laid out
//! in named sections. `docs/observations.md` documents both, section by
//! section; each game writes its own beside its rules (`tensor.rs`).
//!
//! The observation is computed from a [`Game::View`] only, so it holds
//! exactly what that viewer may see: the public state and the viewer's own
//! secrets (a spectator's, the public state). Seats are numbered from the
//! viewer: in every per-seat section the viewer's own seat comes first, then
//! the seats after it in play order (a spectator's tensor starts at seat 0).

use crate::{Game, Seat, Viewer};

/// One named section of an observation tensor.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Section {
    /// Its name in `docs/observations.md`.
    pub name: &'static str,
    /// Its shape, outermost first (rows, then the values of a row).
    pub shape: [usize; 2],
}

impl Section {
    /// Number of values.
    pub const fn len(self) -> usize {
        self.shape[0] * self.shape[1]
    }

    /// Whether the section holds no value.
    pub const fn is_empty(self) -> bool {
        self.len() == 0
    }
}

/// A game's fixed action space and observation tensors.
pub trait Tensors: Game {
    /// The number of distinct actions of a game of `players` seats.
    fn action_count(players: usize) -> usize;

    /// The index of `action` in the fixed space of a `players`-seat game; any
    /// two actions of one default legal list have different indices. `None`
    /// for actions that are never listed (a field beyond the board, a
    /// redacted value).
    fn action_index(players: usize, action: &Self::Action) -> Option<usize>;

    /// The sections of the observation tensor of a `players`-seat game, in
    /// order.
    fn observation_layout(players: usize) -> Vec<Section>;

    /// The number of seats `view` shows.
    fn view_players(view: &Self::View) -> usize;

    /// Writes the observation of `view` (for its viewer) into `out`, whose
    /// length is the layout's total; every value is written.
    fn observe(view: &Self::View, out: &mut [f32]);

    /// The number of values of the observation tensor.
    fn observation_len(players: usize) -> usize {
        Self::observation_layout(players)
            .iter()
            .map(|s| s.len())
            .sum()
    }
}

/// Appends the indices of the actions in `legal` (a default legal list of a
/// `players`-seat game) to `out`, in the list's order.
pub fn legal_indices<G: Tensors>(players: usize, legal: &[G::Action], out: &mut Vec<usize>) {
    out.extend(
        legal
            .iter()
            .map(|a| G::action_index(players, a).expect("every listed action has an index")),
    );
}

/// Writes an observation section by section, in the layout's order.
pub(crate) struct Writer<'a> {
    out: &'a mut [f32],
    at: usize,
    layout: std::slice::Iter<'a, Section>,
    /// Each seat's place counted from the viewer, and the seat at each place.
    places: Places,
}

/// Seats counted from the viewer (0 for the viewer's own), both ways, as
/// tables: the writers ask for them per field and per site.
#[derive(Clone, Copy)]
struct Places {
    rel: [u8; MAX_SEATS],
    seat_at: [u8; MAX_SEATS],
}

/// The most seats of any game.
const MAX_SEATS: usize = 8;

impl<'a> Writer<'a> {
    /// Zeroes `out` and starts at its first section.
    pub(crate) fn new(
        out: &'a mut [f32],
        layout: &'a [Section],
        viewer: Viewer,
        players: usize,
    ) -> Self {
        let total: usize = layout.iter().map(|s| s.len()).sum();
        assert_eq!(
            out.len(),
            total,
            "the observation buffer has the layout's length"
        );
        out.fill(0.0);
        Writer {
            out,
            at: 0,
            layout: layout.iter(),
            places: {
                let base = match viewer {
                    Viewer::Seat(s) => s.index(),
                    Viewer::Spectator => 0,
                };
                let mut places = Places {
                    rel: [0; MAX_SEATS],
                    seat_at: [0; MAX_SEATS],
                };
                for s in 0..players.min(MAX_SEATS) {
                    places.rel[s] = ((s + players - base) % players) as u8;
                    places.seat_at[s] = ((base + s) % players) as u8;
                }
                places
            },
        }
    }

    /// The next section, which must be `name`, as rows of its row length.
    pub(crate) fn section(&mut self, name: &'static str) -> Rows<'_> {
        let s = *self.layout.next().expect("a section left");
        debug_assert_eq!(s.name, name, "sections written in layout order");
        let start = self.at;
        self.at += s.len();
        Rows {
            values: &mut self.out[start..self.at],
            width: s.shape[1],
            places: self.places,
        }
    }

    /// Checks that every section was written.
    pub(crate) fn finish(mut self) {
        debug_assert!(self.layout.next().is_none(), "every section written");
        debug_assert_eq!(self.at, self.out.len());
    }
}

/// One section being written: `width` values per row.
pub(crate) struct Rows<'a> {
    values: &'a mut [f32],
    width: usize,
    places: Places,
}

impl Rows<'_> {
    /// `seat`'s place counted from the viewer (0 for the viewer's own).
    #[inline]
    pub(crate) fn rel(&self, seat: Seat) -> usize {
        self.places.rel[seat.index() % MAX_SEATS] as usize
    }

    /// The seat at place `k` counted from the viewer.
    #[inline]
    pub(crate) fn seat_at(&self, k: usize) -> Seat {
        Seat(self.places.seat_at[k % MAX_SEATS])
    }

    /// Sets `row`, `col` to 1 when `value` holds (the tensor starts at 0).
    #[inline]
    pub(crate) fn flag(&mut self, row: usize, col: usize, value: bool) {
        if value {
            self.one(row, col);
        }
    }

    /// Sets value `col` of row `row`.
    #[inline]
    pub(crate) fn set(&mut self, row: usize, col: usize, value: f32) {
        debug_assert!(col < self.width);
        self.values[row * self.width + col] = value;
    }

    /// Sets value `col` of row `row` to 1.
    #[inline]
    pub(crate) fn one(&mut self, row: usize, col: usize) {
        self.set(row, col, 1.0);
    }
}

/// The `turn` section both games share (1 × (3n + 10), see
/// `docs/observations.md`): who is active, who acts, who triggered the end,
/// the decision (one of 6, numbered by the game), the turn number, the last
/// turns left, whether the game is over, whether the viewer is a spectator.
pub(crate) struct TurnFacts {
    pub(crate) active: Seat,
    pub(crate) to_act: Option<Seat>,
    pub(crate) end_triggered_by: Option<Seat>,
    pub(crate) decision: Option<usize>,
    pub(crate) turn: u32,
    pub(crate) last_turns_left: u8,
    pub(crate) over: bool,
    pub(crate) viewer: Viewer,
}

impl Rows<'_> {
    /// Writes the `turn` section of `n` seats.
    pub(crate) fn turn(&mut self, n: usize, t: TurnFacts) {
        self.one(0, self.rel(t.active));
        if let Some(s) = t.to_act {
            self.one(0, n + self.rel(s));
        }
        if let Some(s) = t.end_triggered_by {
            self.one(0, 2 * n + self.rel(s));
        }
        if let Some(d) = t.decision {
            self.one(0, 3 * n + d);
        }
        self.set(0, 3 * n + 6, t.turn as f32);
        self.set(0, 3 * n + 7, t.last_turns_left as f32);
        self.flag(0, 3 * n + 8, t.over);
        self.flag(0, 3 * n + 9, t.viewer == Viewer::Spectator);
    }
}
