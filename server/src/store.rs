//! Where games are kept: the [`Store`] trait. Games in play live in memory
//! and are written through; ended games live only here and are read back on
//! demand ([`crate::rooms`]). Implementations: [`crate::memory_store`] (a
//! process's lifetime) and [`crate::sqlite`] (durable).
//!
//! A game is its creation record plus an append-only log of seat claims and
//! actions; replaying the log through the deterministic engine rebuilds it.
//! The server calls the store *before* a change takes effect, so an
//! acknowledged action is always stored.

use druids_contract::pb;
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

impl Origin {
    /// Who decided an action of a replay.
    pub fn of_replay(action: &pb::ReplayAction) -> Origin {
        match (action.timeout, action.autopilot) {
            (_, true) => Origin::Autopilot,
            (true, false) => Origin::Timeout,
            (false, false) => Origin::Seat,
        }
    }

    /// `action` of `seat`, decided this way, as a replay holds it.
    pub fn replay_action(self, seat: Seat, action: pb::Action) -> pb::ReplayAction {
        pb::ReplayAction {
            seat: seat.0 as u32,
            action: Some(action),
            timeout: self == Origin::Timeout,
            autopilot: self == Origin::Autopilot,
        }
    }
}

/// What a store knows of an ended game, for its `ListGames` row.
pub struct EndedRow {
    /// Game id.
    pub game_id: String,
    /// `pb::GameKind` as stored.
    pub kind: i32,
    /// Seats.
    pub players: u32,
    /// Creation time, ms since the Unix epoch.
    pub created_unix_ms: u64,
    /// Whether it was abandoned (else it finished).
    pub abandoned: bool,
    /// Its last version.
    pub version: u64,
    /// Its result, if it finished since the store records results.
    pub outcome: Option<pb::Outcome>,
    /// The arena match it belongs to, if any.
    pub arena: Option<MatchTag>,
}

/// What a game of the arena's matches is, for `ListGames`' filters and rows.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MatchTag {
    /// The match.
    pub match_id: String,
    /// Whether it is rated.
    pub rated: bool,
    /// Its bots' public ids.
    pub bots: Vec<String>,
    /// The tournament it belongs to, if any.
    pub tournament_id: Option<String>,
}

impl MatchTag {
    /// The tag of the games of the match `record`.
    pub fn of(record: &crate::arena_store::MatchRecord) -> MatchTag {
        MatchTag {
            match_id: record.id.clone(),
            rated: record.rated,
            bots: record.bots.clone(),
            tournament_id: record.tournament.as_ref().map(|(id, _)| id.clone()),
        }
    }
}

/// `ListGames`' filters on the arena's matches.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ArenaFilter {
    /// Only games of matches this bot played.
    pub bot_id: Option<String>,
    /// Only games of this tournament's matches.
    pub tournament_id: Option<String>,
    /// Only arena games (true) or only others (false).
    pub arena: Option<bool>,
    /// Only games of rated matches (true) or only others (false).
    pub rated: Option<bool>,
}

impl ArenaFilter {
    /// Whether it filters anything.
    pub fn is_empty(&self) -> bool {
        *self == ArenaFilter::default()
    }

    /// Whether a game with this tag (`None`: not an arena game) passes.
    pub fn admits(&self, tag: Option<&MatchTag>) -> bool {
        self.arena.is_none_or(|a| a == tag.is_some())
            && self.rated.is_none_or(|r| r == tag.is_some_and(|t| t.rated))
            && self
                .bot_id
                .as_ref()
                .is_none_or(|b| tag.is_some_and(|t| t.bots.contains(b)))
            && self
                .tournament_id
                .as_ref()
                .is_none_or(|id| tag.is_some_and(|t| t.tournament_id.as_ref() == Some(id)))
    }
}

/// A game's result as the durable stores keep it: the encoded `pb::Outcome`.
pub fn encode_outcome(outcome: &pb::Outcome) -> Vec<u8> {
    use prost::Message;
    outcome.encode_to_vec()
}

/// The result of [`encode_outcome`].
pub fn decode_outcome(stored: &[u8]) -> Result<pb::Outcome, StoreError> {
    use prost::Message;
    pb::Outcome::decode(stored).map_err(|e| StoreError::Corrupt(format!("stored outcome: {e}")))
}

impl EndedRow {
    /// The `ListGames` row, with the claimed seats' names (seat, name);
    /// seats never claimed are listed unnamed.
    pub fn summary(self, claimed: impl IntoIterator<Item = (usize, String)>) -> pb::GameSummary {
        let mut seats: Vec<pb::SeatInfo> = (0..self.players)
            .map(|seat| pb::SeatInfo {
                seat,
                ..Default::default()
            })
            .collect();
        for (seat, name) in claimed {
            if let Some(s) = seats.get_mut(seat) {
                s.name = name;
                s.claimed = true;
            }
        }
        let status = if self.abandoned {
            pb::GameStatus::Abandoned
        } else {
            pb::GameStatus::Finished
        };
        let arena = self.arena.unwrap_or_default();
        pb::GameSummary {
            game_id: self.game_id,
            kind: self.kind,
            status: status as i32,
            players: self.players,
            version: self.version,
            seats,
            created_unix_ms: self.created_unix_ms,
            outcome: self.outcome,
            match_id: arena.match_id,
            rated: arena.rated,
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
    /// The lease the writer held the game under.
    pub epoch: Epoch,
}

/// The epoch of the lease a node holds a game under ([`crate::cluster`]):
/// raised by every takeover, so a write under an older one is refused
/// ([`StoreError::Fenced`]). A single server holds no lease: [`Epoch::NONE`],
/// which is never checked.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Epoch(pub u64);

impl Epoch {
    /// No lease: a single server.
    pub const NONE: Epoch = Epoch(0);
    /// The lease of the node that created the game.
    pub const FIRST: Epoch = Epoch(1);

    /// Whether writes under this epoch are checked against the lease.
    pub fn is_fenced(self) -> bool {
        self != Epoch::NONE
    }
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
    /// When the game ended (finished or abandoned), ms since the Unix epoch.
    pub ended_unix_ms: Option<u64>,
}

/// A page of ended (finished or abandoned) games, newest first: the games
/// `ListGames` reads from the store, since only games in play stay in memory.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EndedQuery {
    /// Only games of this kind (`None`: every kind).
    pub kind: Option<pb::GameKind>,
    /// Only games with this status, `Finished` or `Abandoned` (`None`: both).
    pub status: Option<pb::GameStatus>,
    /// Only games after this one in the order (creation time descending, then
    /// id ascending): `(created_unix_ms, game_id)` of the previous page's last.
    pub after: Option<(u64, String)>,
    /// Only the arena's games this admits.
    pub arena: ArenaFilter,
    /// At most this many.
    pub limit: usize,
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
    /// The write was made under a lease another node has taken over since:
    /// this node no longer owns the game.
    #[error("game {game_id} is owned by another node now (its lease moved on from epoch {epoch})")]
    Fenced {
        /// The game.
        game_id: String,
        /// The epoch the write was made under.
        epoch: u64,
    },
}

/// Durable storage of games, and of the arena ([`crate::arena_store`]).
/// Implementations must make each call durable (or fail) before returning.
pub trait Store: crate::arena_store::ArenaStore + Send + Sync + 'static {
    /// Records a new game (and its request id, if any, in the same commit).
    fn create_game(&self, game: &GameRecord) -> Result<(), StoreError>;
    /// Records that a seat was claimed (and the request id of the claim, if
    /// any, in the same commit), under the game's lease `epoch`.
    fn claim_seat(
        &self,
        game_id: &str,
        seat: Seat,
        name: &str,
        token: &TokenHash,
        request: Option<&RequestRecord>,
        epoch: Epoch,
    ) -> Result<(), StoreError>;
    /// The request ids answered at or after `since_ms`; older ones may be
    /// forgotten.
    fn requests_since(&self, since_ms: u64) -> Result<Vec<RequestRecord>, StoreError>;
    /// The server's secret for deriving retry-safe tokens: created once and
    /// kept, so that answers survive restarts.
    fn secret(&self) -> Result<[u8; 32], StoreError>;
    /// Appends an action to a game's log; a store shared by several nodes
    /// refuses it ([`StoreError::Fenced`]) if the action's epoch is no longer
    /// the game's lease.
    fn append_action(&self, game_id: &str, action: &ActionRecord) -> Result<(), StoreError>;
    /// Records that the game ended at `at_ms` with its last action, `version`
    /// (stored already), and its result (for `ListGames`): it is no longer
    /// rebuilt at start-up. If the server stops before this, the restart
    /// rebuilds the game, sees it over and calls this again.
    fn finish(
        &self,
        game_id: &str,
        version: u64,
        outcome: &pb::Outcome,
        at_ms: u64,
    ) -> Result<(), StoreError>;
    /// Records that an unfinished game was given up at `at_ms`.
    fn abandon(&self, game_id: &str, reason: &str, at_ms: u64) -> Result<(), StoreError>;
    /// Every game still in play (waiting for players or running), to be
    /// rebuilt at start-up: ended games are not read.
    fn load_in_play(&self) -> Result<Vec<StoredGame>, StoreError>;
    /// One game, in play or ended (`None`: no such game).
    fn load_game(&self, game_id: &str) -> Result<Option<StoredGame>, StoreError>;
    /// The `ListGames` rows of ended games that `query` asks for, in its order.
    fn list_ended(&self, query: &EndedQuery) -> Result<Vec<pb::GameSummary>, StoreError>;
    /// Ids of ended games after `after_id` in id order (all from `""`), at
    /// most `limit`: for exports that resume where they stopped.
    fn ended_ids(&self, after_id: &str, limit: usize) -> Result<Vec<String>, StoreError>;
    /// Deletes at most `limit` games that ended before `before_ms`, with
    /// everything stored of them; returns how many. Games in play are never
    /// deleted.
    fn delete_ended_before(&self, before_ms: u64, limit: usize) -> Result<usize, StoreError>;
    /// Whether calls block on a disk (the server then makes them off the async
    /// worker threads).
    fn is_durable(&self) -> bool;
}
