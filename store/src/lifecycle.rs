//! Games in play and ended games ([`Lifecycle`]): games in play live in the
//! server's memory and are written through ([`crate::Games`]); they are read
//! from here only to be rebuilt at start-up. Ended games live only here and
//! are read back on demand, listed newest first, exported in id order and,
//! past the retention window, deleted.

use druids_contract::pb;

use crate::{ActionRecord, GameRecord, MatchRecord, StoreError, TokenHash};
use druids_engine::Seat;

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
    pub kind: Option<druids_contract::Kind>,
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

/// What a store knows of an ended game, for its `ListGames` row.
pub(crate) struct EndedRow {
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
    pub fn of(record: &MatchRecord) -> MatchTag {
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
pub(crate) fn encode_outcome(outcome: &pb::Outcome) -> Vec<u8> {
    use prost::Message;
    outcome.encode_to_vec()
}

/// The result of [`encode_outcome`].
pub(crate) fn decode_outcome(stored: &[u8]) -> Result<pb::Outcome, StoreError> {
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

/// Reading games back, and deleting old ended ones.
pub trait Lifecycle: Send + Sync {
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
}
