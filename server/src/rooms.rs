//! The games in this server's memory, and their lifecycle: hot state for what
//! is in play, the store for history.
//!
//! A game in play (waiting for players or running) is a [`Room`] in memory.
//! When it ends (finished or abandoned) it stays for a grace period
//! (`--evict-after-secs`), its idempotent retries still answered, then leaves:
//! only the store keeps it. Asking for an ended game that left reads it back
//! from the store ([`Rooms::load`], off the async workers) into a bounded set
//! of recently read games (`--recent-games`), with the same answers as before.
//! A game holds a [`PlaySlot`] while it is in play (see [`crate::play_slots`]).

use std::net::IpAddr;
use std::num::NonZeroUsize;
use std::sync::{Arc, Mutex, OnceLock};

use dashmap::{DashMap, DashSet};
use druids_contract::{Kind, pb};
use lru::LruCache;
use tokio::sync::mpsc;

use crate::auth::TokenHash;
use crate::error::{ServiceError, clip};
use crate::play_slots::{Full, PlaySlot, PlaySlots};
use crate::recover::{Rebuild, recover};
use crate::room::Room;
use crate::store::{self, StoreError};

/// How long ended games stay and how many read-back games are kept.
#[derive(Clone, Copy, Debug)]
pub struct Lifecycle {
    /// Games in play at most (`--max-games`).
    pub max_in_play: usize,
    /// Games in play one client address may have made (0: no limit;
    /// `--max-games-per-address`).
    pub max_in_play_per_address: usize,
    /// How long an ended game stays in memory, ms.
    pub evict_after_ms: u64,
    /// How many ended games read back from the store stay in memory.
    pub recent_games: usize,
    /// `--retain-finished-days` in ms: games that ended longer ago are
    /// deleted from the store, so they must not outlive it in memory.
    pub retain_ms: Option<u64>,
}

/// The rooms in memory, by id, and the way to the others.
pub struct Rooms {
    /// Games in play, and ended games during their grace period.
    games: DashMap<String, Arc<Room>>,
    /// Ended games still in `games`: when they ended, ms.
    ending: DashMap<String, u64>,
    /// Ended games read back from the store, least recently read first out.
    recent: Mutex<LruCache<String, Arc<Room>>>,
    /// The games the referee looks at: with a turn clock, or any unfinished
    /// game when idle games expire.
    watched: DashMap<String, Arc<Room>>,
    /// Every live token hash of a game in memory, to tell a token of another
    /// game from a forged one.
    tokens: DashSet<TokenHash>,
    /// Games this node is creating: stored (in a cluster, leased to it) but
    /// not in `games` yet. A cluster node's upkeep must not take one over
    /// as a game of its own that a restart left out of memory.
    creating: DashSet<String>,
    in_play: PlaySlots,
    store: Arc<dyn store::Lifecycle>,
    lifecycle: Lifecycle,
    /// Told the id of every game in play rebuilt from the store once someone
    /// listens ([`Rooms::rebuilt_games`]): the server's own bots play on.
    rebuilt: OnceLock<mpsc::UnboundedSender<String>>,
}

/// A game being created ([`Rooms::creating`]) until this is dropped, which
/// comes after its room is added or its creation failed.
pub struct Creating<'a> {
    rooms: &'a Rooms,
    id: String,
}

impl Drop for Creating<'_> {
    fn drop(&mut self) {
        self.rooms.creating.remove(&self.id);
    }
}

impl Rooms {
    /// No rooms yet; ended games are read back from `store`.
    pub fn new(store: Arc<dyn store::Lifecycle>, lifecycle: Lifecycle) -> Rooms {
        let recent = NonZeroUsize::new(lifecycle.recent_games).unwrap_or(NonZeroUsize::MIN);
        Rooms {
            games: DashMap::new(),
            ending: DashMap::new(),
            recent: Mutex::new(LruCache::new(recent)),
            watched: DashMap::new(),
            tokens: DashSet::new(),
            creating: DashSet::new(),
            in_play: PlaySlots::default(),
            store,
            lifecycle,
            rebuilt: OnceLock::new(),
        }
    }

    /// A place for a new game in play made by `address` (none: by the
    /// server itself), if the limits allow one.
    pub fn reserve(&self, address: Option<IpAddr>) -> Result<PlaySlot, ServiceError> {
        let max = self.lifecycle.max_in_play;
        let server_full = || {
            ServiceError::Limit(format!(
                "this server holds at most {max} games in play (waiting or running)"
            ))
        };
        let Some(address) = address else {
            return self.in_play.reserve(max).ok_or_else(server_full);
        };
        let per_address = self.lifecycle.max_in_play_per_address;
        self.in_play
            .reserve_for(max, address, per_address)
            .map_err(|full| match full {
                Full::Server => server_full(),
                Full::Address => ServiceError::Limit(format!(
                    "one client address may have at most {per_address} games in play (waiting or running) on this server; finish or resign some first"
                )),
            })
    }

    /// A place for a recovered game in play: granted whatever the limit, since
    /// the game exists already.
    pub fn reserve_recovered(&self) -> PlaySlot {
        self.in_play.reserve(usize::MAX).expect("no limit")
    }

    /// Marks game `id` as being created until the result is dropped: take
    /// it before the game is stored, drop it after its room is added.
    pub fn creating(&self, id: &str) -> Creating<'_> {
        self.creating.insert(id.to_owned());
        Creating {
            rooms: self,
            id: id.to_owned(),
        }
    }

    /// Whether game `id` is being created here, its room not added yet. Ask
    /// before [`Rooms::in_memory`]: a creation ends by adding its room, so
    /// a game neither being created nor in memory after that is not coming.
    pub fn is_being_created(&self, id: &str) -> bool {
        self.creating.contains(id)
    }

    /// Games in play now.
    pub fn in_play(&self) -> usize {
        self.in_play.count()
    }

    /// Adds a room (under the referee's eye if it must be).
    pub fn insert(&self, room: Arc<Room>) {
        let watch = room.is_live() && room.has_clock();
        for token in room.token_hashes() {
            self.tokens.insert(token);
        }
        if watch {
            self.watched.insert(room.id.clone(), Arc::clone(&room));
        }
        self.games.insert(room.id.clone(), Arc::clone(&room));
        self.settle(&room);
    }

    /// Adds the room of a game in play rebuilt from the store (at start-up,
    /// or taken over from another node), and tells whoever listens.
    pub fn insert_rebuilt(&self, room: Arc<Room>) {
        let id = room.id.clone();
        self.insert(room);
        if let Some(tx) = self.rebuilt.get() {
            let _ = tx.send(id);
        }
    }

    /// The ids of the games in play rebuilt from the store from now on (a
    /// takeover); only the first caller is told, later ones get `None`.
    pub fn rebuilt_games(&self) -> Option<mpsc::UnboundedReceiver<String>> {
        let (tx, rx) = mpsc::unbounded_channel();
        self.rebuilt.set(tx).ok().map(|()| rx)
    }

    /// Notes a change to `room`: once its game has ended, its grace period
    /// starts and the referee no longer looks at it.
    pub fn settle(&self, room: &Room) {
        if let Some(ended) = room.ended_ms() {
            self.watched.remove(&room.id);
            if self.games.contains_key(&room.id) {
                self.ending.entry(room.id.clone()).or_insert(ended);
            }
        }
    }

    /// Records a token claimed after the room was added.
    pub fn add_token(&self, token: TokenHash) {
        self.tokens.insert(token);
    }

    /// Whether `token` is a seat token of a game in memory.
    pub fn knows_token(&self, token: &TokenHash) -> bool {
        self.tokens.contains(token)
    }

    /// The room of game `id` if it is in memory; `None` if it must be read
    /// from the store ([`Rooms::load`]).
    pub fn in_memory(&self, id: &str) -> Result<Option<Arc<Room>>, ServiceError> {
        if id.is_empty() {
            return Err(ServiceError::invalid("game_id", "game_id is required"));
        }
        if let Some(room) = self.games.get(id) {
            return Ok(Some(Arc::clone(room.value())));
        }
        Ok(self.recent().get(id).map(Arc::clone))
    }

    /// The room of game `id`, read back from the store if it left memory.
    /// Blocks on the store: call it off the async workers.
    pub fn load(&self, id: &str, now_ms: u64) -> Result<Arc<Room>, ServiceError> {
        if let Some(room) = self.in_memory(id)? {
            return Ok(room);
        }
        let not_found = || ServiceError::GameNotFound(clip(id));
        // A game in play is always in memory: a stored one that is not is
        // being created right now, and is not there yet for anyone.
        let stored = self
            .store
            .load_game(id)?
            .filter(|g| g.ended_unix_ms.is_some())
            .ok_or_else(not_found)?;
        let grace_ms = self.lifecycle.evict_after_ms;
        let room = recover(stored, now_ms, Rebuild::Ended { grace_ms })
            .map_err(|e| ServiceError::Storage(StoreError::Corrupt(e.to_string())))?;
        let room = Arc::new(room);
        self.recent().put(id.to_owned(), Arc::clone(&room));
        Ok(room)
    }

    fn recent(&self) -> std::sync::MutexGuard<'_, LruCache<String, Arc<Room>>> {
        self.recent.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Takes the games whose grace period is over out of memory; returns how
    /// many left.
    pub fn evict_due(&self, now_ms: u64) -> usize {
        let after = self.lifecycle.evict_after_ms;
        // Past the retention window a game is (about to be) deleted from the
        // store: it leaves memory too, whatever its grace period.
        let before = self
            .lifecycle
            .retain_ms
            .map_or(0, |w| now_ms.saturating_sub(w));
        let due: Vec<String> = self
            .ending
            .iter()
            .filter(|e| now_ms.saturating_sub(*e.value()) >= after || *e.value() < before)
            .map(|e| e.key().clone())
            .collect();
        if before > 0 {
            let mut recent = self.recent();
            let old: Vec<String> = recent
                .iter()
                .filter(|(_, room)| room.ended_ms().is_some_and(|t| t < before))
                .map(|(id, _)| id.clone())
                .collect();
            for id in old {
                recent.pop(&id);
            }
        }
        for id in &due {
            self.ending.remove(id);
            self.watched.remove(id);
            if let Some((_, room)) = self.games.remove(id) {
                for token in room.token_hashes() {
                    self.tokens.remove(&token);
                }
            }
        }
        due.len()
    }

    /// Takes game `id` out of memory because another node owns it now: its
    /// room is stale. Its streams end, telling clients to resume elsewhere.
    /// Several paths may find it stale at once (the renewal, the upkeep, a
    /// write refused as fenced): the one that takes it out logs it.
    pub fn retire(&self, id: &str) {
        self.ending.remove(id);
        self.watched.remove(id);
        let Some((_, room)) = self.games.remove(id) else {
            return;
        };
        for token in room.token_hashes() {
            self.tokens.remove(&token);
        }
        room.retire();
        tracing::info!(game_id = %room.id, "game lost to another node");
    }

    /// The rooms the referee must look at.
    pub fn watched(&self) -> Vec<Arc<Room>> {
        self.watched.iter().map(|r| Arc::clone(r.value())).collect()
    }

    /// Every room in memory but the read-back ones: games in play and ended
    /// games in their grace period (for listing and metrics).
    pub fn all(&self) -> Vec<Arc<Room>> {
        self.games.iter().map(|r| Arc::clone(r.value())).collect()
    }

    /// The store ended games are read from.
    pub fn store(&self) -> &dyn store::Lifecycle {
        self.store.as_ref()
    }

    /// How many games in memory there are of each kind and status (read-back
    /// games not counted).
    pub fn census(&self) -> Vec<(Kind, pb::GameStatus, usize)> {
        let mut counts = std::collections::BTreeMap::new();
        for room in self.all() {
            let s = room.summary();
            *counts.entry((room.kind(), s.status)).or_insert(0) += 1;
        }
        counts
            .into_iter()
            .map(|((k, s), n)| (k, pb::GameStatus::try_from(s).unwrap_or_default(), n))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rooms(max: usize) -> Rooms {
        Rooms::new(
            Arc::new(crate::MemoryStore::default()),
            Lifecycle {
                max_in_play: max,
                max_in_play_per_address: 0,
                evict_after_ms: 1000,
                recent_games: 4,
                retain_ms: None,
            },
        )
    }

    #[test]
    fn slots_are_bounded_and_given_back() {
        let rooms = rooms(2);
        let a = rooms.reserve(None).unwrap();
        let _b = rooms.reserve(None).unwrap();
        assert!(rooms.reserve(None).is_err());
        drop(a);
        let _c = rooms.reserve(None).unwrap();
        let _d = rooms.reserve_recovered();
        assert_eq!(rooms.in_play(), 3);
    }

    #[test]
    fn concurrent_reservations_never_exceed_the_limit() {
        let rooms = Arc::new(rooms(20));
        let handles: Vec<_> = (0..8)
            .map(|_| {
                let rooms = Arc::clone(&rooms);
                std::thread::spawn(move || {
                    (0..12).filter_map(|_| rooms.reserve(None).ok()).collect()
                })
            })
            .collect();
        let slots: Vec<Vec<PlaySlot>> = handles.into_iter().map(|h| h.join().unwrap()).collect();
        assert_eq!(slots.iter().map(Vec::len).sum::<usize>(), 20);
    }
}
