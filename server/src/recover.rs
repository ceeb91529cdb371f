//! Rebuilding games at start-up: each stored game is set up again from its
//! record and its log is replayed through the deterministic engine, which
//! reproduces the same state and the same numbered events.

use crate::clock::{ClockRules, SeatClocks};
use crate::in_play::PlaySlot;
use crate::room::{Room, SeatSlot, Setup};
use crate::store::StoredGame;

/// Why a stored game could not be rebuilt.
#[derive(Debug, thiserror::Error)]
pub enum RecoverError {
    /// The record no longer sets a game up.
    #[error("game {id}: {source}")]
    Create {
        /// Game id.
        id: String,
        /// Why.
        source: crate::host::CreateError,
    },
    /// A logged action did not replay.
    #[error("game {id}: action {version} does not replay: {source}")]
    Replay {
        /// Game id.
        id: String,
        /// Version of the action.
        version: u64,
        /// Why.
        source: crate::host::ApplyError,
    },
}

/// The room of a stored game, with its state, seats, clocks and idempotency
/// keys. The pending decision's clock restarts at `now_ms`; `play` gives the
/// game its place among the games in play.
pub fn recover(
    stored: StoredGame,
    now_ms: u64,
    play: impl FnOnce() -> PlaySlot,
) -> Result<Room, RecoverError> {
    let StoredGame {
        record,
        joins,
        actions,
        abandoned,
        ended_unix_ms: _,
    } = stored;
    let id = record.id.clone();
    let mut game = crate::host::new_game(
        record.kind as i32,
        record.players,
        record.seed,
        &record.options,
    )
    .map_err(|source| RecoverError::Create {
        id: id.clone(),
        source,
    })?;
    let mut seats = vec![SeatSlot::default(); record.players];
    for (seat, name, token) in record.seats {
        seats[seat.index()] = SeatSlot {
            name,
            token: Some(token),
        };
    }
    for (seat, name, token) in joins {
        game.seat_joined(seat, &name);
        seats[seat.index()] = SeatSlot {
            name,
            token: Some(token),
        };
    }
    let clocks = ClockRules::of(&record.options).map(|r| SeatClocks::new(r, record.players));
    let setup = Setup {
        id: id.clone(),
        created_unix_ms: record.created_unix_ms,
        seed: record.seed,
        seed_chosen: record.seed_chosen,
        options: record.options,
    };
    let room = Room::new(setup, game, seats, clocks, now_ms, play());
    for a in actions {
        let version = a.version;
        room.replay_stored(a, now_ms)
            .map_err(|source| RecoverError::Replay {
                id: id.clone(),
                version,
                source,
            })?;
    }
    if let Some(reason) = abandoned {
        room.abandon_stored(reason);
    }
    Ok(room)
}
