//! The codec between engine types and the proto contract.
//!
//! Each game implements [`ProtoGame`]: how its actions, events, views and
//! decisions look on the wire. Decoding validates everything a client sends, so
//! the engines only ever see well-formed actions; whether an action is *legal*
//! stays the engine's call.

mod dolmen;
mod meduris;

use druids_engine::{Game, Seat};

use crate::pb;

/// Why a proto message could not be turned into an engine value.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DecodeError {
    /// A required field is unset.
    #[error("{0} is required")]
    Missing(&'static str),
    /// An enum field holds a value outside the contract (or UNSPECIFIED).
    #[error("{field} has no valid value ({value})")]
    BadEnum {
        /// The field.
        field: &'static str,
        /// The value received.
        value: i32,
    },
    /// A number is out of the range the contract allows.
    #[error("{field} = {value} is out of range (at most {max})")]
    OutOfRange {
        /// The field.
        field: &'static str,
        /// The value received.
        value: u64,
        /// The largest allowed value.
        max: u64,
    },
    /// The action or option belongs to another game.
    #[error("this is a {expected} game: send a {expected} action")]
    WrongGame {
        /// The game being played.
        expected: &'static str,
    },
}

/// A game as it appears on the wire: the proto shapes of its actions, events,
/// views and decisions.
pub trait ProtoGame: Game {
    /// The game's kind in the contract.
    const KIND: pb::GameKind;

    /// The engine options from the contract's options (unset fields: defaults).
    fn decode_options(options: &pb::GameOptions) -> Result<Self::Options, DecodeError>;

    /// An action as sent on the wire.
    fn encode_action(action: &Self::Action) -> pb::Action;

    /// An action from the wire, fully validated in form (not in legality).
    fn decode_action(action: &pb::Action) -> Result<Self::Action, DecodeError>;

    /// A one-line human description of an action.
    fn describe_action(action: &Self::Action) -> String;

    /// An event as sent on the wire (already redacted for its viewer).
    fn encode_event(event: &Self::Event) -> pb::game_event::Body;

    /// A view as sent on the wire.
    fn encode_view(view: &Self::View) -> pb::state_view::Game;

    /// The decision pending now, `None` once the game is over.
    fn decision(&self) -> Option<pb::Decision>;

    /// Every legal action with every distinct payment, for games whose actions
    /// carry one; the default is the plain legal-action list.
    fn legal_actions_all_payments(&self, out: &mut Vec<Self::Action>) {
        self.legal_actions(out);
    }
}

/// A seat number from the wire.
pub(crate) fn seat_u32(seat: Seat) -> u32 {
    seat.0 as u32
}

/// Decodes an enum field, rejecting UNSPECIFIED and unknown values.
pub(crate) fn enum_field<E: TryFrom<i32>>(
    field: &'static str,
    value: i32,
) -> Result<E, DecodeError> {
    if value == 0 {
        return Err(DecodeError::BadEnum { field, value });
    }
    E::try_from(value).map_err(|_| DecodeError::BadEnum { field, value })
}

/// A small number from the wire that must fit in a `u8` (fields, heights ...).
pub(crate) fn small(field: &'static str, value: u32, max: u8) -> Result<u8, DecodeError> {
    if value > max as u32 {
        return Err(DecodeError::OutOfRange {
            field,
            value: value as u64,
            max: max as u64,
        });
    }
    Ok(value as u8)
}

/// The options both games share: start seat and the max_turns safeguard.
/// The engine checks them against the player count.
pub(crate) fn common_options(options: &pb::GameOptions) -> Result<(u8, u32), DecodeError> {
    let start_seat = small(
        "options.start_seat",
        options.start_seat.unwrap_or(0),
        u8::MAX,
    )?;
    let max_turns = options.max_turns.unwrap_or(1000);
    Ok((start_seat, max_turns))
}

/// An outcome on the wire.
pub fn encode_outcome(outcome: &druids_engine::Outcome) -> pb::Outcome {
    pb::Outcome {
        scores: outcome.scores.clone(),
        winners: outcome.winners.iter().map(|&s| seat_u32(s)).collect(),
        ranking: outcome.ranking.iter().map(|&s| seat_u32(s)).collect(),
        by_safeguard: outcome.by_safeguard,
    }
}
