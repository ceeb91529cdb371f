//! Rebuilding a stored game: set up again from its record, its log replayed
//! through the deterministic engine, which reproduces the same state and the
//! same numbered events. Games in play are rebuilt at start-up; ended games
//! when a client asks for one that has left memory.

use crate::clock::{ClockRules, SeatClocks};
use crate::play_slots::PlaySlot;
use crate::room::{Room, SeatSlot, Setup};
use crate::store::{Epoch, StoredGame};

/// Why a stored game could not be rebuilt.
#[derive(Debug, thiserror::Error)]
pub enum RecoverError {
    /// The record no longer sets a game up.
    #[error("game {id}: {source}")]
    Create {
        /// Game id.
        id: String,
        /// Why.
        source: crate::hosted_game::CreateError,
    },
    /// A logged action did not replay.
    #[error("game {id}: action {version} does not replay: {source}")]
    Replay {
        /// Game id.
        id: String,
        /// Version of the action.
        version: u64,
        /// Why.
        source: crate::hosted_game::ApplyError,
    },
}

/// How a stored game comes back.
pub enum Rebuild {
    /// A game in play, at start-up or taken over from another node: it takes
    /// its place among the games in play, keeps its idempotency keys and
    /// writes under lease `epoch`.
    InPlay {
        /// Its place among the games in play.
        slot: PlaySlot,
        /// The lease it is held under ([`Epoch::NONE`] on a single server).
        epoch: Epoch,
    },
    /// An ended game read back on demand: no place in play; its keys are
    /// honoured until `grace_ms` after its end (a restart within the grace
    /// period shortens nothing), then retries of its submissions are refused.
    Ended {
        /// The grace period after a game's end (`--evict-after-secs`).
        grace_ms: u64,
    },
}

/// The room of a stored game, with its state, seats and clocks. A game in
/// play replays its turn clocks as they ran, each action at the time it was
/// made: the pending decision keeps the deadline it was announced with (a
/// deadline that passed while the server was down is due at once), and no
/// seat's bank is refilled. Only what the store does not date is taken as
/// happening at `now_ms`: the start of a game whose seats were joined, and
/// actions stored before their times were kept.
pub fn recover(stored: StoredGame, now_ms: u64, how: Rebuild) -> Result<Room, RecoverError> {
    let StoredGame {
        record,
        joins,
        actions,
        abandoned,
        ended_unix_ms,
    } = stored;
    let id = record.id.clone();
    let mut game =
        crate::hosted_game::new_game(record.kind, record.players, record.seed, &record.options)
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
    let joins_were_none = joins.is_empty();
    for (seat, name, token) in joins {
        game.seat_joined(seat, &name);
        seats[seat.index()] = SeatSlot {
            name,
            token: Some(token),
        };
    }
    let in_play = matches!(how, Rebuild::InPlay { .. });
    // A game whose seats were all claimed at creation started then.
    let started_ms = if in_play && joins_were_none {
        record.created_unix_ms.min(now_ms)
    } else {
        now_ms
    };
    let (play, keys_until, epoch) = match how {
        Rebuild::InPlay { slot, epoch } => (Some(slot), None, epoch),
        Rebuild::Ended { grace_ms } => (
            None,
            Some(ended_unix_ms.unwrap_or(now_ms).saturating_add(grace_ms)),
            Epoch::NONE,
        ),
    };
    let clocks = ClockRules::of(&record.options).map(|r| SeatClocks::new(r, record.players));
    let setup = Setup {
        id: id.clone(),
        created_unix_ms: record.created_unix_ms,
        seed: record.seed,
        seed_chosen: record.seed_chosen,
        options: record.options,
        epoch,
    };
    let room = Room::new(setup, game, seats, clocks, started_ms, play);
    match keys_until {
        Some(until) if until <= now_ms => room.keep_no_keys(),
        Some(until) => room.keep_keys_until(until),
        None => {}
    }
    // An ended game ended when the store says, not when it is read back (a
    // game past the retention window must look as old as it is).
    let ended_at_ms = ended_unix_ms.unwrap_or(now_ms);
    for a in actions {
        let version = a.version;
        let at_ms = match (in_play, a.at_ms) {
            (true, 0) => now_ms,
            (true, made) => made,
            (false, _) => ended_at_ms,
        };
        room.replay_stored(a, at_ms)
            .map_err(|source| RecoverError::Replay {
                id: id.clone(),
                version,
                source,
            })?;
    }
    if let Some(reason) = abandoned {
        room.abandon_stored(reason, ended_unix_ms.unwrap_or(now_ms));
    }
    if in_play && !epoch.is_fenced() {
        // A single server: idleness counts from the restart, as it always
        // has (nobody could play while it was down). A game held under a
        // lease was playable on the other nodes all along: its idleness
        // counts from what the store dates (its last action, else its
        // creation when no seat was joined later), so that a game nobody
        // plays, e.g. one whose creation no client learned, is abandoned by
        // --idle-game-secs however often it is taken over.
        room.active_at(now_ms);
    }
    Ok(room)
}
