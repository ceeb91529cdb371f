//! Re-running a recorded game: a [`pb::Replay`] holds a game's set-up and every
//! action; [`verify`] plays them through the engine again and checks that the
//! recorded result comes out.

use druids_engine::Seat;

use crate::host::{ApplyError, CreateError, new_game};
use crate::pb;

/// Why a replay does not reproduce its game.
#[derive(Debug, thiserror::Error)]
pub enum ReplayError {
    /// The set-up is refused.
    #[error("the replay's set-up is invalid: {0}")]
    Setup(#[from] CreateError),
    /// An action does not apply.
    #[error("action {index} (seat {seat}) does not apply: {source}")]
    Action {
        /// Position in the replay, from 0.
        index: usize,
        /// Its seat.
        seat: u32,
        /// Why.
        source: ApplyError,
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
    let options = replay.options.unwrap_or_default();
    let mut game = new_game(replay.kind, replay.players as usize, replay.seed, &options)?;
    game.start();
    for (index, a) in replay.actions.iter().enumerate() {
        let action = a.action.as_ref().ok_or(ReplayError::Empty(index))?;
        game.apply(Seat(a.seat.min(255) as u8), action, None, &mut |_| Ok(()))
            .map_err(|source| ReplayError::Action {
                index,
                seat: a.seat,
                source,
            })?;
    }
    let abandoned = replay.status == pb::GameStatus::Abandoned as i32;
    match (game.is_over(), abandoned) {
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
    let got = game.outcome();
    if got != replay.outcome {
        return Err(ReplayError::Outcome {
            got: format!("{got:?}"),
            recorded: format!("{:?}", replay.outcome),
        });
    }
    Ok(got)
}
