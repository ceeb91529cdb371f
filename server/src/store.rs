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
    /// Whether the creator chose the seed (then the dice are not secret).
    pub seed_chosen: bool,
    /// Options as created.
    pub options: pb::GameOptions,
    /// Creation time, ms since the Unix epoch.
    pub created_unix_ms: u64,
    /// Seats claimed at creation: seat, name, token hash.
    pub seats: Vec<(Seat, String, TokenHash)>,
    /// The request id the game was created with, stored in the same commit.
    pub request: Option<RequestRecord>,
}

/// A CreateGame or JoinGame call made with a request id: what a retry with the
/// same id needs to give the same answer. Tokens are not kept: they are derived
/// again from the server secret and the id ([`crate::auth::derived_token`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RequestRecord {
    /// SHA-256 of the client's request id (the id itself is never stored).
    pub key: [u8; 32],
    /// SHA-256 of the request without its id: a retry must match it.
    pub fingerprint: [u8; 32],
    /// The game created or joined.
    pub game_id: String,
    /// JoinGame: the seat claimed; CreateGame: none.
    pub seat: Option<Seat>,
    /// JoinGame: whether this join started the game.
    pub started: bool,
    /// When the call was answered, ms since the Unix epoch.
    pub at_ms: u64,
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
pub enum StoreError {
    /// The database refused or failed an operation.
    #[error("database error while {op}: {source}")]
    Database {
        /// What the store was doing.
        op: &'static str,
        /// The database's error.
        #[source]
        source: std::sync::Arc<dyn std::error::Error + Send + Sync>,
    },
    /// The database file or its folder could not be opened or created.
    #[error("cannot open {path}: {source}")]
    Open {
        /// The path.
        path: std::path::PathBuf,
        /// Why.
        #[source]
        source: std::sync::Arc<std::io::Error>,
    },
    /// A stored value does not decode.
    #[error("stored data is corrupt: {0}")]
    Corrupt(String),
}

/// Durable storage of games. Implementations must make each call durable (or
/// fail) before returning.
pub trait Store: Send + Sync + 'static {
    /// Records a new game (and its request id, if any, in the same commit).
    fn create_game(&self, game: &GameRecord) -> Result<(), StoreError>;
    /// Records that a seat was claimed (and the request id of the claim, if
    /// any, in the same commit).
    fn claim_seat(
        &self,
        game_id: &str,
        seat: Seat,
        name: &str,
        token: &TokenHash,
        request: Option<&RequestRecord>,
    ) -> Result<(), StoreError>;
    /// The request ids answered at or after `since_ms`; older ones may be
    /// forgotten.
    fn requests_since(&self, since_ms: u64) -> Result<Vec<RequestRecord>, StoreError>;
    /// The server's secret for deriving retry-safe tokens: created once and
    /// kept, so that answers survive restarts.
    fn secret(&self) -> Result<[u8; 32], StoreError>;
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

/// The secret of an in-memory server: random, for this process only.
static MEMORY_SECRET: std::sync::LazyLock<[u8; 32]> = std::sync::LazyLock::new(rand::random);

impl Store for MemoryStore {
    fn create_game(&self, _: &GameRecord) -> Result<(), StoreError> {
        Ok(())
    }

    fn claim_seat(
        &self,
        _: &str,
        _: Seat,
        _: &str,
        _: &TokenHash,
        _: Option<&RequestRecord>,
    ) -> Result<(), StoreError> {
        Ok(())
    }

    fn requests_since(&self, _: u64) -> Result<Vec<RequestRecord>, StoreError> {
        Ok(Vec::new())
    }

    fn secret(&self) -> Result<[u8; 32], StoreError> {
        Ok(*MEMORY_SECRET)
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
        request: Option<&RequestRecord>,
    ) -> Result<(), StoreError> {
        (**self).claim_seat(game_id, seat, name, token, request)
    }

    fn requests_since(&self, since_ms: u64) -> Result<Vec<RequestRecord>, StoreError> {
        (**self).requests_since(since_ms)
    }

    fn secret(&self) -> Result<[u8; 32], StoreError> {
        (**self).secret()
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
