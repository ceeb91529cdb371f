//! Where games are kept between restarts: the [`Store`] trait and its
//! in-memory implementation.
//!
//! A game is its creation record plus an append-only log of seat claims and
//! actions; replaying the log through the deterministic engine rebuilds it.
//! The server calls the store *before* a change takes effect, so an
//! acknowledged action is always stored.

use druids::pb;
use druids_engine::Seat;

use crate::auth::TokenHash;

/// Everything needed to set a game up again.
#[derive(Clone, Debug)]
pub struct GameRecord {
    /// Game id.
    pub id: String,
    /// Which game.
    pub kind: pb::GameKind,
    /// Seats.
    pub players: usize,
    /// RNG seed.
    pub seed: u64,
    /// Options as created.
    pub options: pb::GameOptions,
    /// Creation time, ms since the Unix epoch.
    pub created_unix_ms: u64,
    /// Seats claimed at creation: seat, name, token hash.
    pub seats: Vec<(Seat, String, TokenHash)>,
}

/// Who decided an action.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Origin {
    /// The seat's owner submitted it.
    Seat = 0,
    /// The seat's clock ran out: the game's default action.
    Timeout = 1,
    /// The seat is on autopilot: the built-in random bot chose it.
    Autopilot = 2,
}

impl Origin {
    /// The origin stored as `n`.
    pub fn from_i64(n: i64) -> Option<Origin> {
        match n {
            0 => Some(Origin::Seat),
            1 => Some(Origin::Timeout),
            2 => Some(Origin::Autopilot),
            _ => None,
        }
    }
}

/// One applied action, as logged.
#[derive(Clone, Debug)]
pub struct ActionRecord {
    /// Version after the action (1 for the first).
    pub version: u64,
    /// Seat that acted.
    pub seat: Seat,
    /// Who decided it.
    pub origin: Origin,
    /// The action in canonical form (what replay applies).
    pub action: pb::Action,
    /// The request as the client sent it (without its game id), so that a retry
    /// with the same idempotency key is still recognised after a restart.
    pub request: pb::SubmitActionRequest,
}

/// A stored game: its record and its log, in order.
#[derive(Clone, Debug)]
pub struct StoredGame {
    /// The creation record.
    pub record: GameRecord,
    /// Seats claimed after creation, in the order they were claimed.
    pub joins: Vec<(Seat, String, TokenHash)>,
    /// Every applied action, by version.
    pub actions: Vec<ActionRecord>,
    /// Why the game was abandoned, if it was.
    pub abandoned: Option<String>,
}

/// Why the store failed. The change it was asked to store did not happen.
#[derive(Clone, Debug, thiserror::Error)]
#[error("{0}")]
pub struct StoreError(pub String);

/// Durable storage of games. Implementations must make each call durable (or
/// fail) before returning.
pub trait Store: Send + Sync + 'static {
    /// Records a new game.
    fn create_game(&self, game: &GameRecord) -> Result<(), StoreError>;
    /// Records that a seat was claimed.
    fn claim_seat(
        &self,
        game_id: &str,
        seat: Seat,
        name: &str,
        token: &TokenHash,
    ) -> Result<(), StoreError>;
    /// Appends an action to a game's log.
    fn append_action(&self, game_id: &str, action: &ActionRecord) -> Result<(), StoreError>;
    /// Records that an unfinished game was given up (it is kept, never deleted).
    fn abandon(&self, game_id: &str, reason: &str) -> Result<(), StoreError>;
    /// Every stored game, to be rebuilt at start-up.
    fn load(&self) -> Result<Vec<StoredGame>, StoreError>;
    /// Whether calls block on a disk (the server then makes them off the async
    /// worker threads).
    fn is_durable(&self) -> bool;
}

/// Keeps nothing: games live as long as the process.
#[derive(Clone, Copy, Debug, Default)]
pub struct MemoryStore;

impl Store for MemoryStore {
    fn create_game(&self, _: &GameRecord) -> Result<(), StoreError> {
        Ok(())
    }

    fn claim_seat(&self, _: &str, _: Seat, _: &str, _: &TokenHash) -> Result<(), StoreError> {
        Ok(())
    }

    fn append_action(&self, _: &str, _: &ActionRecord) -> Result<(), StoreError> {
        Ok(())
    }

    fn abandon(&self, _: &str, _: &str) -> Result<(), StoreError> {
        Ok(())
    }

    fn load(&self) -> Result<Vec<StoredGame>, StoreError> {
        Ok(Vec::new())
    }

    fn is_durable(&self) -> bool {
        false
    }
}

/// A shared store is a store.
impl<T: Store + ?Sized> Store for std::sync::Arc<T> {
    fn create_game(&self, game: &GameRecord) -> Result<(), StoreError> {
        (**self).create_game(game)
    }

    fn claim_seat(
        &self,
        game_id: &str,
        seat: Seat,
        name: &str,
        token: &TokenHash,
    ) -> Result<(), StoreError> {
        (**self).claim_seat(game_id, seat, name, token)
    }

    fn append_action(&self, game_id: &str, action: &ActionRecord) -> Result<(), StoreError> {
        (**self).append_action(game_id, action)
    }

    fn abandon(&self, game_id: &str, reason: &str) -> Result<(), StoreError> {
        (**self).abandon(game_id, reason)
    }

    fn load(&self) -> Result<Vec<StoredGame>, StoreError> {
        (**self).load()
    }

    fn is_durable(&self) -> bool {
        (**self).is_durable()
    }
}
