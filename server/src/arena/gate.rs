//! The dice promise of duplicate matches: no bot learns a die of its game
//! before that die is rolled in that game (docs/ratings.md). A duplicate
//! match's games share one seed, so one sequence of draws; they are played
//! at the same time, and draw k is released to a game only once every game
//! of the match has reached draw k or ended. A game that waits has no
//! decision pending, so no bot can act in any game on a die it has not
//! rolled yet. The gate keeps no state of its own: each game's position is
//! in its room (rebuilt from its log after a restart).

use std::sync::Arc;

use crate::room::Room;

/// Releases to the games of one match (`rooms`) every draw all of them have
/// reached, until none moves; a released game's clock starts at `now`.
pub(super) fn open(rooms: &[Arc<Room>], now: u64) {
    // The decisions' hold ([`crate::room::Hold`]) knows the games of a match
    // from here.
    if rooms.len() > 1 {
        for room in rooms {
            room.set_twins(rooms);
        }
    }
    loop {
        let positions: Vec<_> = rooms.iter().map(|r| r.gate()).collect();
        // Games without the gate (matches recorded before it) hold nothing.
        let reached = positions
            .iter()
            .flatten()
            .map(|p| p.reached())
            .min()
            .unwrap_or(u64::MAX);
        let mut moved = false;
        for room in rooms {
            moved |= room.release_draws(reached, now);
        }
        if !moved {
            return;
        }
    }
}
