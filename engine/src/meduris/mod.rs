//! Meduris (HABA): build huts and temples around the ring, feed the druid's
//! offering rituals, collect rune stones.
//!
//! The rules follow `shared/rules/meduris.md`; every `\[ruling\]` there is cited
//! where it is implemented. The module is split by concern: [`board`] (the rings
//! as data), [`goods`] (goods) and [`payment`] (the payment rule), `state`,
//! [`action`] and [`event`] (the vocabulary), `rules` (what is pending, and
//! why an action is refused), `setup`, `legal` (legal actions and the timeout
//! default), `apply`, [`scoring`] and [`view`].
//!
//! # Safeguard
//! \[ruling\] The `max_turns` option ([`Options::max_turns`]) is not a rule of
//! the game: it ends a game that cannot finish with the same last round and
//! scoring ([`Event::SafeguardReached`]). It counts turns and applies only
//! while no end has been triggered: once a player has built everything, the
//! owed final turns are played and then the last round, as without it.

pub mod action;
mod apply;
pub mod board;
mod chance;
mod evaluate;
pub mod event;
pub mod goods;
mod legal;
pub mod payment;
mod rules;
#[cfg(feature = "serde")]
mod saved;
pub mod scoring;
mod setup;
mod state;
mod tensor;
mod text;
pub mod view;

pub use action::{Action, Building, Chip, Decision, DieFace, DruidPos, Plateau};
pub use board::{Area, BoardKind, Field};
pub use event::{Event, FinalResult, OfferingKind, ScoreReason};
pub use goods::{Good, Goods};
pub use rules::RuleError;
pub use state::{GOODS_PER_KIND, Options, STACK_LIMIT};
pub use view::{FieldView, SeatView, View};

use crate::{Determinize, DeterminizeError, Game, Outcome, Seat, SetupError, Viewer};
use state::State;

/// A Meduris game: the whole state, hidden goods included. Use [`Game::view`] to
/// show it to a seat or a spectator.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Meduris {
    state: State,
}

impl Meduris {
    /// The kind of decision the seat to act must take, `None` once the game is over.
    pub fn decision(&self) -> Option<Decision> {
        rules::decision(&self.state)
    }

    /// Like [`Game::legal_actions`], but every action that carries a payment is
    /// listed once per distinct valid payment instead of once with a default.
    pub fn legal_actions_all_payments(&self, out: &mut Vec<Action>) {
        legal::legal_actions(&self.state, true, out);
    }

    /// The seat whose turn it is (the active player; offerings and "+1"/"−1"
    /// choices may be due from others, see [`Game::to_act`]).
    pub fn active(&self) -> Seat {
        self.state.active
    }

    /// Turns started so far.
    pub fn turn(&self) -> u32 {
        self.state.turn
    }

    /// The goods a seat holds (full information; servers must use [`Game::view`]).
    pub fn goods(&self, seat: Seat) -> Goods {
        self.state.seats[seat.index()].goods
    }

    /// The general supply.
    pub fn supply(&self) -> Goods {
        self.state.supply
    }

    /// Checks the conservation law: supply plus all holdings is 18 of each good.
    pub fn goods_conserved(&self) -> bool {
        self.state.goods_conserved()
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

impl Game for Meduris {
    type Options = Options;
    type Action = Action;
    type Event = Event;
    type View = View;
    type Error = RuleError;

    const NAME: &'static str = "meduris";
    const MIN_PLAYERS: usize = 2;
    const MAX_PLAYERS: usize = 4;
    // Every turn starts with a die roll that decides who may build where.
    const DICE_DRIVEN: bool = true;

    fn new(
        players: usize,
        seed: u64,
        options: &Options,
        events: &mut Vec<Event>,
    ) -> Result<Self, SetupError> {
        setup::setup(players, seed, options, false, events).map(|state| Meduris { state })
    }

    fn players(&self) -> usize {
        self.state.players as usize
    }

    fn to_act(&self) -> Option<Seat> {
        rules::to_act(&self.state)
    }

    fn legal_actions(&self, out: &mut Vec<Action>) {
        legal::legal_actions(&self.state, false, out);
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

    /// Gains and payments happen at the table and are public; only the final
    /// holdings in [`Event::GameOver`] are private to each seat.
    fn redact(event: &Event, viewer: Viewer) -> Option<Event> {
        Some(match event {
            Event::GameOver(end) => Event::GameOver(Box::new(FinalResult {
                scores: end.scores.clone(),
                goods_left: end
                    .goods_left
                    .iter()
                    .enumerate()
                    .map(|(i, g)| g.filter(|_| viewer.sees(Seat(i as u8))))
                    .collect(),
                winners: end.winners.clone(),
            })),
            other => other.clone(),
        })
    }

    fn outcome(&self) -> Option<Outcome> {
        scoring::outcome(&self.state)
    }

    fn standing(&self) -> Outcome {
        scoring::standing(&self.state)
    }

    /// See the README's turn-clock section: first plateau with room; the most
    /// plentiful good to take; the most held good to return; the big yield
    /// bringing the most goods; offer nothing.
    fn timeout_action(&self) -> Option<Action> {
        legal::timeout_action(&self.state)
    }
}

/// Public state copied, the goods hidden from the viewer dealt at random among
/// the seats whose goods are hidden (out of those neither in the supply nor
/// in sight), future die rolls drawn from `seed`. Checked: goods are
/// conserved and the result shows the viewer exactly `view`.
impl Determinize for Meduris {
    fn determinize(view: &View, seed: u64) -> Result<Meduris, DeterminizeError> {
        let game = Meduris {
            state: view::determinize(view, seed)?,
        };
        if !game.goods_conserved() {
            return Err(DeterminizeError::Inconsistent {
                what: "goods are not conserved",
            });
        }
        if game.view(view.viewer) != *view {
            return Err(DeterminizeError::Inconsistent {
                what: "the view describes no position",
            });
        }
        Ok(game)
    }
}

#[cfg(test)]
mod tests;
