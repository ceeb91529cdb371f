//! Rebuilding games at start-up: each stored game is set up again from its
//! record and its log is replayed through the deterministic engine, which
//! reproduces the same state and the same numbered events.

use crate::clock::{ClockRules, SeatClocks};
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
        source: druids::CreateError,
    },
    /// A logged action did not replay.
    #[error("game {id}: action {version} does not replay: {source}")]
    Replay {
        /// Game id.
        id: String,
        /// Version of the action.
        version: u64,
        /// Why.
        source: druids::ApplyError,
    },
}

/// The room of a stored game, with its state, seats, clocks and idempotency
/// keys. The pending decision's clock restarts at `now_ms`.
pub fn recover(stored: StoredGame, now_ms: u64) -> Result<Room, RecoverError> {
    let StoredGame {
        record,
        joins,
        actions,
        abandoned,
    } = stored;
    let id = record.id.clone();
    let mut game = druids::new_game(
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
        options: record.options,
    };
    let room = Room::new(setup, game, seats, clocks, now_ms);
    {
        let mut state = room.lock();
        if state.seats.iter().all(|s| s.token.is_some()) {
            Room::start(&mut state, now_ms);
        }
        for a in actions {
            let choice = druids::pb::submit_action_request::Choice::Action(a.action);
            let applied = state
                .apply(a.seat, a.origin, &choice, now_ms, &mut |_| Ok(()))
                .map_err(|source| RecoverError::Replay {
                    id: id.clone(),
                    version: a.version,
                    source,
                })?;
            if !a.request.idempotency_key.is_empty() {
                let reply = druids::pb::SubmitActionResponse {
                    version: applied.version,
                    events: Room::events_of(&state, applied, a.seat),
                };
                Room::remember_key(&mut state, a.seat, a.request, reply);
            }
        }
        if let Some(reason) = abandoned {
            Room::abandon(&mut state, reason);
        }
        room.announce(&state);
    }
    Ok(room)
}
