//! The dice gate of a duplicate match whose games are not all where the
//! arena is. The holder's gate ([`crate::arena::gate`]) sees only the rooms
//! in its own memory; once a node died and others took its games over, a
//! match's games may be owned by nodes that do not hold the arena, and
//! their draws would never be released. So every node of a cluster opens
//! the gate of the waiting games it owns itself: a draw is released once
//! every game of the match reached it, each game's position read from its
//! room if it is here, else from its log in the database. A log is never
//! ahead of its game (an action is stored before it is applied), so a draw
//! is never released before every game reached it: the dice promise holds
//! (docs/ratings.md).

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};

use crate::hosted_game::GatePosition;
use crate::recover::{Rebuild, recover};
use crate::rooms::Rooms;
use crate::store::{ArenaLease, StoreError};

/// The games of the matches of this node's waiting games, read once.
pub(super) struct SpreadGate {
    lease: Arc<dyn ArenaLease>,
    /// By game here: every game of its match (only once all were started).
    matches: Mutex<HashMap<String, Arc<[String]>>>,
}

impl SpreadGate {
    pub(super) fn new(lease: Arc<dyn ArenaLease>) -> SpreadGate {
        SpreadGate {
            lease,
            matches: Mutex::new(HashMap::new()),
        }
    }

    /// Releases to each game here that waits for a draw every draw all the
    /// games of its match reached; a released game's clock starts at
    /// `now_ms`. Blocks on the database.
    pub(super) fn open(&self, rooms: &Rooms, now_ms: u64) -> Result<(), StoreError> {
        let here = rooms.all();
        self.forget_all_but(&here);
        let waiting = here
            .into_iter()
            .filter(|room| matches!(room.gate(), Some(GatePosition::Waiting { .. })));
        for room in waiting {
            let Some(games) = self.games_of(&room.id)? else {
                continue;
            };
            let mut reached = u64::MAX;
            for id in games.iter() {
                reached = reached.min(position(rooms, id, now_ms)?.reached());
            }
            room.release_draws(reached, now_ms);
        }
        Ok(())
    }

    /// The games of game `id`'s match, once all are started (none for a
    /// game of no match).
    fn games_of(&self, id: &str) -> Result<Option<Arc<[String]>>, StoreError> {
        if let Some(games) = self.known().get(id) {
            return Ok(Some(Arc::clone(games)));
        }
        let Some(found) = self.lease.match_of_game(id)? else {
            return Ok(None);
        };
        if found.game_ids.len() < found.games as usize {
            // The holder starts the rest; until then none is released.
            return Ok(None);
        }
        let games: Arc<[String]> = found.game_ids.into();
        self.known().insert(id.to_owned(), Arc::clone(&games));
        Ok(Some(games))
    }

    fn known(&self) -> std::sync::MutexGuard<'_, HashMap<String, Arc<[String]>>> {
        self.matches.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Forgets the matches of games no longer here.
    fn forget_all_but(&self, here: &[Arc<crate::room::Room>]) {
        let mut known = self.known();
        if !known.is_empty() {
            let here: HashSet<&str> = here.iter().map(|r| r.id.as_str()).collect();
            known.retain(|id, _| here.contains(id.as_str()));
        }
    }
}

/// Where game `id` stands in its match's draws: from its room if this node
/// has it, else from its log (at worst behind the game, never ahead).
fn position(rooms: &Rooms, id: &str, now_ms: u64) -> Result<GatePosition, StoreError> {
    // Nothing known holds every other game back.
    let unknown = GatePosition::Deciding { made: 0 };
    if let Ok(Some(room)) = rooms.in_memory(id) {
        return Ok(room.gate().unwrap_or(GatePosition::Over));
    }
    let Some(stored) = rooms.store().load_game(id)? else {
        return Ok(unknown);
    };
    if stored.ended_unix_ms.is_some() || stored.abandoned.is_some() {
        return Ok(GatePosition::Over);
    }
    // Rebuilt read-only: no place in play, no keys, nothing stored.
    match recover(stored, now_ms, Rebuild::Ended { grace_ms: 0 }) {
        Ok(room) => Ok(room.gate().unwrap_or(GatePosition::Over)),
        Err(e) => {
            tracing::warn!(
                game_id = id,
                "a match's game cannot be read for its dice gate: {e}"
            );
            Ok(unknown)
        }
    }
}
