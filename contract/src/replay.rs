//! Re-running a recorded game: a [`pb::Replay`] holds a game's set-up and every
//! action; [`verify`] plays them through the engine again and checks that the
//! recorded result comes out.

use druids_engine::{Seat, SetupError};

use crate::chance::{ScriptError, Scripted};
use crate::codec::{DecodeError, ProtoGame, encode_outcome};
use crate::pb;

/// Why a replay does not reproduce its game.
#[derive(Debug, thiserror::Error)]
pub enum ReplayError {
    /// The kind is unset or unknown.
    #[error("the replay's {0}")]
    UnknownKind(#[from] crate::registry::UnknownKind),
    /// The options do not decode.
    #[error("the replay's options are invalid: {0}")]
    Options(DecodeError),
    /// The options' chance script cannot be played.
    #[error("the replay's options are invalid: {0}")]
    Script(ScriptError),
    /// The engine refuses the set-up.
    #[error("the replay's set-up is invalid: {0}")]
    Setup(#[from] SetupError),
    /// An action does not decode.
    #[error("action {index} is malformed: {source}")]
    Malformed {
        /// Position in the replay, from 0.
        index: usize,
        /// Why.
        source: DecodeError,
    },
    /// An action does not apply.
    #[error("action {index} (seat {seat}) does not apply: {source}")]
    Action {
        /// Position in the replay, from 0.
        index: usize,
        /// Its seat.
        seat: u32,
        /// The engine's error.
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// An action has no body.
    #[error("action {0} is empty")]
    Empty(usize),
    /// The actions end before the game does, or go on after it.
    #[error("the game is {state} after the last action, but the replay says {recorded}")]
    Unfinished {
        /// What the engine says.
        state: &'static str,
        /// What the file says.
        recorded: &'static str,
    },
    /// The result differs.
    #[error("the replay produces {got}, but {recorded} was recorded")]
    Outcome {
        /// Recomputed.
        got: String,
        /// From the file.
        recorded: String,
    },
}

/// Plays `replay` through the engine and returns the outcome it produces, if
/// it equals the recorded one.
pub fn verify(replay: &pb::Replay) -> Result<Option<pb::Outcome>, ReplayError> {
    let kind = crate::registry::Kind::from_number(replay.kind)?;
    crate::with_game!(kind, |G| verify_game::<G>(replay))
}

fn verify_game<G: ProtoGame>(replay: &pb::Replay) -> Result<Option<pb::Outcome>, ReplayError> {
    let options = replay.options.clone().unwrap_or_default();
    let mut script = Scripted::parse(&options.chance_script).map_err(ReplayError::Options)?;
    let options = G::decode_options(&options).map_err(ReplayError::Options)?;
    let mut events = Vec::new();
    let mut game: G = script
        .new_game(replay.players as usize, replay.seed, &options, &mut events)
        .map_err(|e| match e {
            ScriptError::Setup(e) => ReplayError::Setup(e),
            e => ReplayError::Script(e),
        })?;
    for (index, a) in replay.actions.iter().enumerate() {
        let action = a.action.as_ref().ok_or(ReplayError::Empty(index))?;
        let action =
            G::decode_action(action).map_err(|source| ReplayError::Malformed { index, source })?;
        game.apply(Seat(a.seat.min(255) as u8), &action, &mut events)
            .map_err(|e| ReplayError::Action {
                index,
                seat: a.seat,
                source: Box::new(e),
            })?;
        script.play(&mut game, &mut events);
    }
    let abandoned = replay.status == pb::GameStatus::Abandoned as i32;
    match (game.to_act().is_none(), abandoned) {
        (true, true) => {
            return Err(ReplayError::Unfinished {
                state: "over",
                recorded: "abandoned",
            });
        }
        (false, false) => {
            return Err(ReplayError::Unfinished {
                state: "not over",
                recorded: "finished",
            });
        }
        _ => {}
    }
    let got = game.outcome().as_ref().map(encode_outcome);
    if got != replay.outcome {
        return Err(ReplayError::Outcome {
            got: format!("{got:?}"),
            recorded: format!("{:?}", replay.outcome),
        });
    }
    Ok(got)
}
