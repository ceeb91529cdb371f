//! The referee's pass over the turn clocks: which decisions the server takes
//! for silent seats, in what order, and how much of it per pass, so that a
//! deadline fires on time whatever other games do.
//!
//! Every pass takes at most one decision per game: a game on autopilot is
//! played one move per pass, never to its end at once. Real deadlines come
//! first, earliest first; then the seats on autopilot, longest waiting first,
//! at most [`AUTOPILOT_PER_PASS`] of them (the rest wait for the next pass).
//! So a deadline waits at most for the deadlines due before it (one per
//! game) and one pass, however many games play on autopilot. The decisions
//! of one pass are taken by a few threads at once, so that a durable store
//! commits them together (group commit) rather than one fsync after another.
//! `server/benches/referee.rs` measures the lateness of deadlines while many
//! games play on autopilot (BENCHMARKS.md).

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::room::{Due, Room};
use crate::store::Games;

/// Most autopilot decisions of one pass (a pass every 20 ms: 3,200 a second).
pub const AUTOPILOT_PER_PASS: usize = 64;
/// Threads taking one pass's decisions at once.
const WORKERS: usize = 4;

/// The decisions due at `now_ms` among `rooms`, in the order they are taken:
/// deadlines, earliest first, then autopilots up to the pass's share.
pub fn due(rooms: Vec<Arc<Room>>, now_ms: u64) -> Vec<Arc<Room>> {
    let mut due: Vec<(Due, Arc<Room>)> = rooms
        .into_iter()
        .filter_map(|room| Some((room.due(now_ms)?, room)))
        .collect();
    due.sort_by_key(|(d, _)| *d);
    let deadlines = due
        .iter()
        .take_while(|(d, _)| matches!(d, Due::Timeout { .. }))
        .count();
    due.truncate(deadlines + AUTOPILOT_PER_PASS);
    due.into_iter().map(|(_, room)| room).collect()
}

/// Takes one decision in each of `rooms` (in order, a few at once), calling
/// `taken` after each; returns how many were taken. Blocks on the store.
pub fn decide(
    rooms: &[Arc<Room>],
    games: &dyn Games,
    now_ms: u64,
    taken: &(dyn Fn(&Room) + Sync),
) -> usize {
    let next = AtomicUsize::new(0);
    let count = AtomicUsize::new(0);
    let work = || {
        while let Some(room) = rooms.get(next.fetch_add(1, Ordering::Relaxed)) {
            match room.expire_one(games, now_ms) {
                Ok(true) => {
                    count.fetch_add(1, Ordering::Relaxed);
                    taken(room);
                }
                Ok(false) => {}
                Err(e) => tracing::warn!(game_id = %room.id, "cannot apply a timeout: {e}"),
            }
        }
    };
    let workers = WORKERS.min(rooms.len());
    if workers <= 1 {
        work();
    } else {
        std::thread::scope(|s| {
            for _ in 0..workers {
                s.spawn(work);
            }
        });
    }
    count.into_inner()
}
