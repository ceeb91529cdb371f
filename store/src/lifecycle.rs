//! Games in play and ended games ([`Lifecycle`]): games in play live in the
//! server's memory and are written through ([`crate::Games`]); they are read
//! from here only to be rebuilt at start-up. Ended games live only here and
//! are read back on demand, listed newest first, exported in id order and,
//! past the retention window, deleted.

use druids_contract::pb;

use crate::{ActionRecord, GameRecord, StoreError, TokenHash};
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
        pb::GameSummary {
            game_id: self.game_id,
            kind: self.kind,
            status: status as i32,
            players: self.players,
            version: self.version,
            seats,
            created_unix_ms: self.created_unix_ms,
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
