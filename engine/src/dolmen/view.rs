//! What one viewer may see: the whole board, every score and count, and the
//! values of the viewer's own dolmens. Another player's dolmen values are never
//! in a view until scored (then they are in the seat's `scored` counts).

use super::action::{Decision, Site};
use crate::{Outcome, Seat, Viewer};

/// What stands on a site.
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

/// A dolmen in a stack as the viewer sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct DolmenView {
    /// Owner.
    pub seat: Seat,
    /// Value: only for the owner's own view.
    pub value: Option<u8>,
}

/// One circle as seen at the table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CircleView {
    /// The colour that most recently gained sole majority, if any.
    pub leader: Option<Seat>,
    /// Stones on the circle by seat.
    pub stones: Vec<u8>,
    /// The stack, top first (empty once scored).
    pub stack: Vec<DolmenView>,
    /// True once every site holds a stone (its stack has scored).
    pub complete: bool,
}

/// One seat as seen by the viewer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SeatView {
    /// Score.
    pub score: i32,
    /// Stones in stock.
    pub stones_left: u8,
    /// Dolmens in hand (the count is public, the values are not).
    pub dolmens_left: u8,
    /// Dolmens placed so far (the first tie-break).
    pub dolmens_placed: u8,
    /// Druids still to be placed at setup.
    pub druids_to_place: u8,
    /// Dolmens of value 1, 2, 3, 4 in hand: only in the seat's own view.
    pub hand: Option<[u8; 4]>,
    /// Dolmens of value 1, 2, 3, 4 that have scored (public).
    pub scored: [u8; 4],
}

/// A viewer's picture of a Die Dolmengötter game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct View {
    /// Who is looking.
    pub viewer: Viewer,
    /// What stands on each site, by site number.
    pub sites: Vec<Option<Occupant>>,
    /// Each circle, by circle number.
    pub circles: Vec<CircleView>,
    /// Each seat, by seat number.
    pub seats: Vec<SeatView>,
    /// Seat whose turn it is.
    pub active: Seat,
    /// Turns started so far.
    pub turn: u32,
    /// Seat that must decide now (None when the game is over).
    pub to_act: Option<Seat>,
    /// Kind of decision pending.
    pub decision: Option<Decision>,
    /// The seat that placed its last dolmen, once one has.
    pub end_triggered_by: Option<Seat>,
    /// Turns still to be played after the end was triggered.
    pub last_turns_left: u8,
    /// The `max_turns` safeguard of this game.
    pub max_turns: u32,
    /// Result, once over.
    pub outcome: Option<Outcome>,
}

/// The site a view shows for `site` (convenience for clients of the engine).
impl View {
    /// What stands on `site`.
    pub fn at(&self, site: Site) -> Option<Occupant> {
        self.sites[site.index()]
    }
}

pub(crate) fn view(state: &super::state::State, viewer: Viewer) -> View {
    let _ = (state, viewer);
    todo!("helper")
}

pub(crate) fn determinize(view: &View, seed: u64) -> super::state::State {
    let _ = (view, seed);
    todo!("helper")
}
