//! Die Dolmengötter (eggertspiele): walk your druids between the stone circles,
//! leave stones, win majorities and stack dolmens that score when a circle closes.
//!
//! The rules follow `shared/rules/dolmengoetter.md`; every `\[ruling\]` there is
//! cited where it is implemented. The module is split by concern: [`board`] (the
//! 28 circles and 73 sites as data), `state`, [`action`] and [`event`] (the
//! vocabulary), `rules` (setup, what is pending, legal actions, errors),
//! `apply`, `scoring`, `text` (the wording) and [`view`].
//!
//! # Rulings and engine decisions
//! * \[ruling\] The board: the digest's 8 × 8 letter grid ([`board::GRID`]);
//!   73 sites, paths along circle boundaries and board edges, wrap-around to the
//!   opposite border and the corner diagonals (see [`board`]).
//! * \[ruling\] Multipliers from the top of a stack down: square 3, 2, 1;
//!   hexagon 4, 3, 2, 1; octagon 5, 4, 3, 2, 1 — whatever the stack's height.
//! * \[ruling\] A seat with no legal action at all when its turn starts loses
//!   the turn ([`Event::TurnPassed`]). Should every seat in a row be unable to
//!   act, the game ends as by the safeguard instead of looping.
//! * \[ruling\] Safeguard: when another turn would exceed
//!   [`Options::max_turns`], the game ends ([`EndReason::Safeguard`]) with the
//!   usual final scoring — but only while no end has been triggered: once a
//!   seat has placed its last dolmen, the owed last turns are always played,
//!   whatever the turn count. [`View::last_turns_left`] is 0 once the game is
//!   over, however it ended.
//! * Last dolmen: when a seat places its last dolmen — possibly out of turn,
//!   in a dolmen decision during another seat's turn — the current turn is
//!   finished, then every other seat takes exactly one more turn, in seat order
//!   starting from the seat after the active one (so after an out-of-turn
//!   trigger the active seat plays once more, last), and the game ends. Only
//!   the first seat to place its last dolmen starts the last turns.
//! * The last stone of all players ends the game at once, after that stone's
//!   dolmen decisions and completion scoring, even during the last turns.
//! * A stone's dolmen decisions are taken one at a time, circles in letter
//!   order; one whose stack is full, or whose seat has no dolmen left, when it
//!   comes up is skipped without an event. A circle completed by the stone
//!   scores after all of them.
//! * A walk whose chain of jumped druids leads all the way round the board back
//!   to the walking druid is illegal.

pub mod action;
mod apply;
pub mod board;
mod evaluate;
pub mod event;
mod rules;
#[cfg(feature = "serde")]
mod saved;
mod scoring;
mod state;
mod tensor;
mod text;
pub mod view;

pub use action::{Action, Decision};
pub use board::{Circle, Dir, Shape, Site};
pub use event::{EndReason, Event, ScoreReason};
pub use rules::RuleError;
pub use state::{Occupant, Options, starting_dolmens, starting_stones};
pub use view::{CircleView, DolmenView, QueuedDolmen, SeatView, View};

use crate::{
    Chance, ChanceError, ChanceMode, Determinize, DeterminizeError, Draw, Game, Outcome, Seat,
    SetupError, Viewer,
};
use state::State;

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
    // No dice: the players decide far more of a result than chance does.
    const DICE_DRIVEN: bool = false;

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
        apply::apply(&mut self.state, seat, action, events)
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

    /// The value of a placed dolmen is its owner's secret: others see the
    /// action without it.
    fn redact_action(action: &Action, viewer: Viewer, actor: Seat) -> Action {
        match *action {
            Action::PlaceDolmen { value } => Action::PlaceDolmen {
                value: value.filter(|_| viewer.sees(actor)),
            },
            other => other,
        }
    }

    fn outcome(&self) -> Option<Outcome> {
        scoring::outcome(&self.state)
    }

    fn standing(&self) -> Outcome {
        scoring::standing(&self.state)
    }

    /// The least harmful choice per decision kind:
    /// * placing a druid: the lowest-numbered free site;
    /// * a turn: collect herbs with the standing druid on the lowest-numbered
    ///   site; with none standing, fly the lying druid on the lowest-numbered
    ///   site to the lowest-numbered free site;
    /// * a stone: leave it ([`Action::PlaceStone`]; declining costs a point);
    /// * a dolmen: pass ([`Action::PassDolmen`]; no penalty).
    fn timeout_action(&self) -> Option<Action> {
        rules::timeout_action(&self.state)
    }
}

/// The game has no random draw: explicit chance mode is the seeded game, and
/// no draw is ever pending.
impl Chance for Dolmen {
    fn new_explicit(
        players: usize,
        seed: u64,
        options: &Options,
        events: &mut Vec<Event>,
    ) -> Result<Self, SetupError> {
        Dolmen::new(players, seed, options, events)
    }

    fn chance_mode(&self) -> ChanceMode {
        ChanceMode::Seeded
    }

    fn set_chance_mode(&mut self, _: ChanceMode, _: &mut Vec<Event>) {}

    fn pending_draw(&self) -> Option<Draw> {
        None
    }

    fn apply_chance(&mut self, _: usize, _: &mut Vec<Event>) -> Result<(), ChanceError> {
        Err(ChanceError::NoDrawPending)
    }

    fn seed_draw(&self) -> Option<usize> {
        None
    }

    fn chance_text(&self, _: usize) -> Option<String> {
        None
    }
}

/// Public state copied, the hidden values of other seats' dolmens (in hand
/// and on the board) dealt at random from what they can still be. Dolmen
/// decisions queued behind the pending one are rebuilt from
/// [`View::queued_dolmens`]. Checked: the pieces are conserved and the result
/// shows the viewer exactly `view`, so the seat to act has the same legal
/// actions.
impl Determinize for Dolmen {
    fn determinize(view: &View, seed: u64) -> Result<Dolmen, DeterminizeError> {
        let bad = |what| Err(DeterminizeError::Inconsistent { what });
        if !(Dolmen::MIN_PLAYERS..=Dolmen::MAX_PLAYERS).contains(&view.seats.len()) {
            return bad("not 2 to 5 seats");
        }
        if view.sites.len() != board::SITES || view.circles.len() != board::CIRCLES {
            return bad("the sites or circles do not match the board");
        }
        let game = Dolmen {
            state: view::determinize(view, seed),
        };
        if !game.pieces_conserved() {
            return bad("pieces are not conserved");
        }
        if game.view(view.viewer) != *view {
            return bad("the view describes no position");
        }
        Ok(game)
    }
}

#[cfg(test)]
mod tests;
