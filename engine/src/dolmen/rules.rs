//! Legal actions and applying them.

use super::action::{Action, Decision};
use super::event::Event;
use super::state::State;
use super::Options;
use crate::{Rejection, RuleViolation, Seat, SetupError};

/// Why an action was refused. The state is unchanged.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RuleError {
    /// The game is over.
    #[error("the game is over")]
    GameOver,
    /// Another seat must decide.
    #[error("it is not your decision: {expected} must decide now")]
    NotYourTurn {
        /// The seat that must decide.
        expected: Seat,
    },
}

impl RuleViolation for RuleError {
    fn rejection(&self) -> Rejection {
        match self {
            RuleError::GameOver => Rejection::GameOver,
            RuleError::NotYourTurn { .. } => Rejection::NotYourTurn,
        }
    }
}

pub(crate) fn setup(
    players: usize,
    seed: u64,
    options: &Options,
    events: &mut Vec<Event>,
) -> Result<State, SetupError> {
    let _ = (players, seed, options, events);
    todo!("helper")
}

pub(crate) fn decision(state: &State) -> Option<Decision> {
    let _ = state;
    todo!("helper")
}

pub(crate) fn to_act(state: &State) -> Option<Seat> {
    let _ = state;
    todo!("helper")
}

pub(crate) fn legal_actions(state: &State, out: &mut Vec<Action>) {
    let _ = (state, out);
    todo!("helper")
}

pub(crate) fn apply(
    state: &mut State,
    seat: Seat,
    action: &Action,
    events: &mut Vec<Event>,
) -> Result<(), RuleError> {
    let _ = (state, seat, action, events);
    todo!("helper")
}

pub(crate) fn timeout_action(state: &State) -> Option<Action> {
    let _ = state;
    todo!("helper")
}
