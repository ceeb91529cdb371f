//! The games of this server: rooms by id, the index of live token hashes, and
//! the count of games in play that `--max-games` limits.
//!
//! A game holds a [`PlaySlot`] while it is in play (see [`crate::in_play`]).

use std::sync::Arc;

use dashmap::DashMap;
use druids::pb;

use crate::auth::TokenHash;
use crate::error::{ServiceError, clip};
use crate::in_play::{InPlay, PlaySlot};
use crate::room::Room;

/// Every room, by id.
pub struct Rooms {
    games: DashMap<String, Arc<Room>>,
    /// The games the referee looks at: with a turn clock, or any unfinished
    /// game when idle games expire.
    watched: DashMap<String, Arc<Room>>,
    /// Every live token hash, to tell a token of another game from a forged one.
    tokens: DashMap<TokenHash, String>,
    in_play: InPlay,
    max_in_play: usize,
    /// Whether every live game is watched (idle games expire), not only
    /// those with a clock.
    watch_all_live: bool,
}

impl Rooms {
    /// No rooms yet; at most `max_in_play` games in play; with
    /// `watch_all_live`, the referee looks at every live game (idle games
    /// expire), else only at those with a clock.
    pub fn new(max_in_play: usize, watch_all_live: bool) -> Rooms {
        Rooms {
            watch_all_live,
            games: DashMap::new(),
            watched: DashMap::new(),
            tokens: DashMap::new(),
            in_play: InPlay::default(),
            max_in_play,
        }
    }

    /// A place for a new game in play, if the limit allows one.
    pub fn reserve(&self) -> Result<PlaySlot, ServiceError> {
        let max = self.max_in_play;
        self.in_play.reserve(max).ok_or_else(|| {
            ServiceError::Limit(format!(
                "this server holds at most {max} games in play (waiting or running)"
            ))
        })
    }

    /// A place for a recovered game in play: granted whatever the limit, since
    /// the game exists already.
    pub fn reserve_recovered(&self) -> PlaySlot {
        self.in_play.reserve(usize::MAX).expect("no limit")
    }

    /// Games in play now.
    pub fn in_play(&self) -> usize {
        self.in_play.count()
    }

    /// Adds a room (under the referee's eye if it must be).
    pub fn insert(&self, room: Arc<Room>) {
        let watch = room.is_live() && (self.watch_all_live || room.has_clock());
        for token in room.token_hashes() {
            self.tokens.insert(token, room.id.clone());
        }
        if watch {
            self.watched.insert(room.id.clone(), Arc::clone(&room));
        }
        self.games.insert(room.id.clone(), room);
    }

    /// Records a token claimed after the room was added.
    pub fn add_token(&self, token: TokenHash, game_id: &str) {
        self.tokens.insert(token, game_id.to_owned());
    }

    /// Whether `token` is a seat token of any game.
    pub fn knows_token(&self, token: &TokenHash) -> bool {
        self.tokens.contains_key(token)
    }

    /// The room of game `id`.
    pub fn get(&self, id: &str) -> Result<Arc<Room>, ServiceError> {
        if id.is_empty() {
            return Err(ServiceError::invalid("game_id", "game_id is required"));
        }
        self.games
            .get(id)
            .map(|r| Arc::clone(r.value()))
            .ok_or_else(|| ServiceError::GameNotFound(clip(id)))
    }

    /// The rooms the referee must look at.
    pub fn watched(&self) -> Vec<Arc<Room>> {
        self.watched.iter().map(|r| Arc::clone(r.value())).collect()
    }

    /// Takes a room off the referee's list (its game is over).
    pub fn unwatch(&self, id: &str) {
        self.watched.remove(id);
    }

    /// Every room (for listing and metrics).
    pub fn all(&self) -> Vec<Arc<Room>> {
        self.games.iter().map(|r| Arc::clone(r.value())).collect()
    }

    /// How many games there are of each kind and status.
    pub fn census(&self) -> Vec<(pb::GameKind, pb::GameStatus, usize)> {
        let mut counts = std::collections::BTreeMap::new();
        for room in self.all() {
            let s = room.summary();
            *counts.entry((s.kind, s.status)).or_insert(0) += 1;
        }
        counts
            .into_iter()
            .map(|((k, s), n)| {
                (
                    pb::GameKind::try_from(k).unwrap_or_default(),
                    pb::GameStatus::try_from(s).unwrap_or_default(),
                    n,
                )
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_are_bounded_and_given_back() {
        let rooms = Rooms::new(2, false);
        let a = rooms.reserve().unwrap();
        let _b = rooms.reserve().unwrap();
        assert!(rooms.reserve().is_err());
        drop(a);
        let _c = rooms.reserve().unwrap();
        let _d = rooms.reserve_recovered();
        assert_eq!(rooms.in_play(), 3);
    }

    #[test]
    fn concurrent_reservations_never_exceed_the_limit() {
        let rooms = Arc::new(Rooms::new(20, false));
        let handles: Vec<_> = (0..8)
            .map(|_| {
                let rooms = Arc::clone(&rooms);
                std::thread::spawn(move || (0..12).filter_map(|_| rooms.reserve().ok()).collect())
            })
            .collect();
        let slots: Vec<Vec<PlaySlot>> = handles.into_iter().map(|h| h.join().unwrap()).collect();
        assert_eq!(slots.iter().map(Vec::len).sum::<usize>(), 20);
    }
}
