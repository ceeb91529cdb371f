//! Abandoning the games nobody plays (`--idle-game-secs`), so that games
//! made and left (by a careless client, or by many addresses on purpose)
//! do not hold `--max-games` for ever.
//!
//! The referee's pass runs every 20 ms and looks only at games on a turn
//! clock; idleness is counted in hours, so a sweep over every game in play
//! runs only when the first of them may have gone idle (each sweep notes
//! when that is), and at least every 30 s for the games it could not date
//! (on a clock, at a dice gate, taken over since): a server of 100,000
//! games pays for it a few times a minute, not 50 times a second, and a
//! game is abandoned as soon as its idle time is up.

use std::sync::atomic::{AtomicU64, Ordering};

use crate::rooms::Rooms;
use crate::store::Games;

/// Longest time between two sweeps.
const MAX_SWEEP_EVERY_MS: u64 = 30_000;

/// The sweeps of one server.
#[derive(Debug)]
pub struct IdleGames {
    /// How long a game may go without an action (0: for ever).
    idle_ms: u64,
    /// When the next sweep is due.
    next_ms: AtomicU64,
}

impl IdleGames {
    /// Sweeps abandoning games idle for `idle_secs` seconds (0: none).
    pub fn new(idle_secs: u64) -> IdleGames {
        IdleGames {
            idle_ms: idle_secs.saturating_mul(1000),
            next_ms: AtomicU64::new(0),
        }
    }

    /// If a sweep is due at `now_ms`, abandons every game of `rooms` that
    /// has been idle long enough (see [`crate::room::Room::expire_idle`]).
    /// Blocks on the store: call it off the async workers.
    pub fn sweep(&self, rooms: &Rooms, games: &dyn Games, now_ms: u64) {
        if self.idle_ms == 0 {
            return;
        }
        if now_ms < self.next_ms.load(Ordering::Acquire) {
            return;
        }
        // Games made from now on go idle an idle time from now at the soonest.
        let mut next = now_ms.saturating_add(self.idle_ms.min(MAX_SWEEP_EVERY_MS));
        for room in rooms.all() {
            let Some(since) = room.idle_since() else {
                continue;
            };
            let due = since.saturating_add(self.idle_ms);
            if due > now_ms {
                next = next.min(due);
                continue;
            }
            match room.expire_idle(games, self.idle_ms, now_ms) {
                Ok(true) => {
                    tracing::info!(game_id = %room.id, "idle game abandoned");
                    rooms.settle(&room);
                }
                Ok(false) => {}
                Err(e) => tracing::warn!(game_id = %room.id, "cannot abandon an idle game: {e}"),
            }
        }
        self.next_ms.store(next, Ordering::Release);
    }
}
