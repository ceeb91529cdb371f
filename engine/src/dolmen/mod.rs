//! Die Dolmengötter (eggertspiele): walk your druids between the stone circles,
//! leave stones, win majorities and stack dolmens that score when a circle closes.
//!
//! The rules follow `shared/rules/dolmengoetter.md`; every `\[ruling\]` there is
//! cited where it is implemented. The module is split by concern: [`board`] (the
//! 28 circles and 73 sites as data), `state`, [`action`] and [`event`] (the
//! vocabulary), `rules` (legal actions and apply), `scoring` and [`view`].

pub mod action;
pub mod board;
pub mod event;
mod rules;
mod scoring;
mod state;
pub mod view;

pub use action::{Action, Circle, Decision, Dir, Shape, Site};
pub use event::{EndReason, Event, ScoreReason};
pub use rules::RuleError;
pub use state::{starting_dolmens, starting_stones};
pub use view::{CircleView, DolmenView, Occupant, QueuedDolmen, SeatView, View};

use crate::{Game, Outcome, Seat, SetupError, Viewer};
use state::State;

/// Options fixed when a game is created.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Options {
    /// The seat that places the first druid and takes the first turn
    /// (the rulebook: the youngest; default seat 0).
    pub start_seat: Seat,
    /// Safeguard (\[ruling\]): regular play ends after this many turns, then
    /// final scoring. Not a rule of the game. At least 1.
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

/// A Die Dolmengötter game: the whole state, hidden dolmen values included. Use
/// [`Game::view`] to show it to a seat or a spectator.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Dolmen {
    state: State,
}

impl Dolmen {
    /// The kind of decision the seat to act must take, `None` once the game is over.
    pub fn decision(&self) -> Option<Decision> {
        rules::decision(&self.state)
    }

    /// The seat whose turn it is (dolmen decisions may fall to others, see [`Game::to_act`]).
    pub fn active(&self) -> Seat {
        self.state.active
    }

    /// Turns started so far.
    pub fn turn(&self) -> u32 {
        self.state.turn
    }

    /// A complete game consistent with what `view` shows: public state copied,
    /// the hidden values of other seats' dolmens (in hand and on the board)
    /// dealt at random from what they can still be, using `seed`. The result is
    /// a legal position, not necessarily the true one (for the bots).
    pub fn determinize(view: &View, seed: u64) -> Dolmen {
        Dolmen {
            state: view::determinize(view, seed),
        }
    }

    /// Checks the conservation laws: each seat's stones (stock + board) and
    /// dolmens (hand + stacks + scored) add up to its starting numbers.
    pub fn pieces_conserved(&self) -> bool {
        self.state.pieces_conserved()
    }

    #[cfg(test)]
    pub(crate) fn state_mut(&mut self) -> &mut State {
        &mut self.state
    }

    #[cfg(test)]
    pub(crate) fn state(&self) -> &State {
        &self.state
    }
}

impl Game for Dolmen {
    type Options = Options;
    type Action = Action;
    type Event = Event;
    type View = View;
    type Error = RuleError;

    const NAME: &'static str = "dolmen";
    const MIN_PLAYERS: usize = 2;
    const MAX_PLAYERS: usize = 5;

    /// The game has no chance element: `seed` is accepted for the common
    /// interface and otherwise unused.
    fn new(
        players: usize,
        seed: u64,
        options: &Options,
        events: &mut Vec<Event>,
    ) -> Result<Self, SetupError> {
        rules::setup(players, seed, options, events).map(|state| Dolmen { state })
    }

    fn players(&self) -> usize {
        self.state.players as usize
    }

    fn to_act(&self) -> Option<Seat> {
        rules::to_act(&self.state)
    }

    fn legal_actions(&self, out: &mut Vec<Action>) {
        rules::legal_actions(&self.state, out);
    }

    fn apply(
        &mut self,
        seat: Seat,
        action: &Action,
        events: &mut Vec<Event>,
    ) -> Result<(), RuleError> {
        rules::apply(&mut self.state, seat, action, events)
    }

    fn view(&self, viewer: Viewer) -> View {
        view::view(&self.state, viewer)
    }

    /// A dolmen's value is its owner's secret until it scores.
    fn redact(event: &Event, viewer: Viewer) -> Option<Event> {
        Some(match *event {
            Event::DolmenPlaced {
                seat,
                circle,
                on_top,
                value,
                dolmens_left,
            } => Event::DolmenPlaced {
                seat,
                circle,
                on_top,
                value: value.filter(|_| viewer.sees(seat)),
                dolmens_left,
            },
            ref other => other.clone(),
        })
    }

    fn outcome(&self) -> Option<Outcome> {
        scoring::outcome(&self.state)
    }

    /// See the README's turn-clock section.
    fn timeout_action(&self) -> Option<Action> {
        rules::timeout_action(&self.state)
    }
}

#[cfg(test)]
mod tests;
