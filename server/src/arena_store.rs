//! What the arena keeps ([`ArenaStore`], part of every [`crate::store::Store`]):
//! registered bots, matches formed and their results, and each bot's event
//! log. Ratings are not stored: they are recomputed from the results alone
//! (`druids_arena::ratings`), so they can never disagree with them.

use druids_contract::{Kind, pb};

use crate::auth::TokenHash;
use crate::store::StoreError;

/// A registered bot.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BotRecord {
    /// Public id.
    pub id: String,
    /// Unique display name.
    pub name: String,
    /// What it is.
    pub description: String,
    /// How to reach its owner (never shown publicly).
    pub owner_contact: String,
    /// SHA-256 of its API key.
    pub key_hash: TokenHash,
    /// Registration time, ms since the Unix epoch.
    pub registered_unix_ms: u64,
    /// When its key was revoked (`RevokeBot`), ms since the Unix epoch; None
    /// while the key works. A new key ([`ArenaStore::set_bot_key`]) clears it.
    pub revoked_unix_ms: Option<u64>,
}

/// A match formed by the arena: one game, or one per seat rotation of a
/// duplicate match.
#[derive(Clone, Debug, PartialEq)]
pub struct MatchRecord {
    /// Match id.
    pub id: String,
    /// Which game.
    pub kind: Kind,
    /// Whether it counts for the ratings.
    pub rated: bool,
    /// The secret seed every game of the match is played with.
    pub seed: u64,
    /// The games' options (the arena's turn clock).
    pub options: pb::GameOptions,
    /// The bots in the seat order of the first game.
    pub bots: Vec<String>,
    /// How many games the match has.
    pub games: u32,
    /// When it was formed, ms since the Unix epoch.
    pub created_unix_ms: u64,
    /// The tournament and round it belongs to, if any.
    pub tournament: Option<(String, u32)>,
}

/// A tournament run by the server.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TournamentRecord {
    /// Tournament id.
    pub id: String,
    /// Its settings: an encoded `pb::CreateTournamentRequest`.
    pub settings: Vec<u8>,
    /// Creation time, ms since the Unix epoch.
    pub created_unix_ms: u64,
    /// When its last match finished, ms since the Unix epoch.
    pub finished_unix_ms: Option<u64>,
}

/// A challenge waiting for answers: kept so that a restart does not lose it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChallengeRecord {
    /// Its id (also the id of the match it becomes).
    pub id: String,
    /// An encoded `pb::ChallengeInfo`: who, what, until when.
    pub info: Vec<u8>,
    /// The ids of the opponents who accepted so far, in the order they did.
    pub accepted: Vec<String>,
}

/// One bot's place in a finished match.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlacementRecord {
    /// The bot.
    pub bot_id: String,
    /// 1 = best; equal ranks tie.
    pub rank: u32,
    /// Total score over the match's games.
    pub score: i64,
}

/// A match as stored: its record, the ids of its games started so far (by
/// index), and its result once it is over.
#[derive(Clone, Debug, PartialEq)]
pub struct StoredMatch {
    /// The record.
    pub record: MatchRecord,
    /// Game ids, in the order the games were started.
    pub game_ids: Vec<String>,
    /// The result, once every game is over.
    pub placements: Option<Vec<PlacementRecord>>,
    /// When it finished, ms since the Unix epoch.
    pub finished_unix_ms: Option<u64>,
}

/// The arena's part of a store. Every call is durable (or fails) before it
/// returns, as [`crate::store::Store`]'s.
///
/// Writes that contradict what is stored change nothing and fail with
/// [`StoreError::Database`] (its source a [`Refused`], or the database's
/// constraint violation in SQLite and PostgreSQL): an id
/// taken already (bot or match), a key for an unknown bot, a game for an
/// unknown match or at an index taken already, an event for an unknown bot
/// or at a seq taken already, another result for a finished match. Recording
/// the same result again is no change (the first finish time is kept).
/// Match game indexes are expected to be contiguous from 0; reads of unknown
/// bots' logs are empty.
pub trait ArenaStore: Send + Sync {
    /// Registers a bot; `false` (nothing stored) if its name is taken.
    fn register_bot(&self, bot: &BotRecord) -> Result<bool, StoreError>;
    /// Replaces a bot's key hash (and clears a revocation).
    fn set_bot_key(&self, bot_id: &str, key_hash: &TokenHash) -> Result<(), StoreError>;
    /// Revokes a bot's key at `at_ms`. Idempotent: a revoked bot keeps its
    /// first time. An unknown bot is refused.
    fn revoke_bot(&self, bot_id: &str, at_ms: u64) -> Result<(), StoreError>;
    /// Every registered bot, in registration order.
    fn bots(&self) -> Result<Vec<BotRecord>, StoreError>;
    /// Records a match just formed (before any of its games is created).
    fn create_match(&self, record: &MatchRecord) -> Result<(), StoreError>;
    /// Records that game `index` of the match is `game_id`.
    fn add_match_game(&self, match_id: &str, index: u32, game_id: &str) -> Result<(), StoreError>;
    /// Records a match's result.
    fn finish_match(
        &self,
        match_id: &str,
        placements: &[PlacementRecord],
        at_ms: u64,
    ) -> Result<(), StoreError>;
    /// Every match, finished or not, in the order they were formed: the
    /// arena resumes the unfinished ones and replays the results.
    fn matches(&self) -> Result<Vec<StoredMatch>, StoreError>;
    /// Appends event `seq` (the next of the bot's log) to a bot's log:
    /// `event` is an encoded `pb::BotEvent`.
    fn append_bot_event(&self, bot_id: &str, seq: u64, event: &[u8]) -> Result<(), StoreError>;
    /// The bot's events from `from_seq` on, at most `limit`, in order.
    fn bot_events(
        &self,
        bot_id: &str,
        from_seq: u64,
        limit: usize,
    ) -> Result<Vec<(u64, Vec<u8>)>, StoreError>;
    /// The seq of the bot's last event (0: none).
    fn last_bot_event(&self, bot_id: &str) -> Result<u64, StoreError>;
    /// Records a new tournament (refused if its id is stored already).
    fn create_tournament(&self, t: &TournamentRecord) -> Result<(), StoreError>;
    /// Records that a tournament is over, at `at_ms`. Idempotent: a tournament
    /// finished already keeps its first time. An unknown id is refused.
    fn finish_tournament(&self, id: &str, at_ms: u64) -> Result<(), StoreError>;
    /// Every tournament, in creation order (its matches are among
    /// [`ArenaStore::matches`], by [`MatchRecord::tournament`]).
    fn tournaments(&self) -> Result<Vec<TournamentRecord>, StoreError>;
    /// Appends event `seq` (the next of its log) to a tournament's log:
    /// `event` is an encoded `pb::TournamentEvent`. Refused for an unknown
    /// tournament or a seq taken already.
    fn append_tournament_event(
        &self,
        tournament_id: &str,
        seq: u64,
        event: &[u8],
    ) -> Result<(), StoreError>;
    /// The tournament's events from `from_seq` on, at most `limit`, in order
    /// (empty for an unknown tournament).
    fn tournament_events(
        &self,
        tournament_id: &str,
        from_seq: u64,
        limit: usize,
    ) -> Result<Vec<(u64, Vec<u8>)>, StoreError>;
    /// The seq of the tournament's last event (0: none).
    fn last_tournament_event(&self, tournament_id: &str) -> Result<u64, StoreError>;
    /// Stores a pending challenge, or replaces the stored one with its id
    /// (a new acceptance).
    fn save_challenge(&self, challenge: &ChallengeRecord) -> Result<(), StoreError>;
    /// Forgets a challenge (it ended or became a match); no change if it is
    /// not stored.
    fn remove_challenge(&self, id: &str) -> Result<(), StoreError>;
    /// Every stored challenge, in the order they were first saved.
    fn challenges(&self) -> Result<Vec<ChallengeRecord>, StoreError>;
}

/// One of the arena's event logs as the stores keep it: rows of `(owner,
/// seq, event)`. The bots' logs and the tournaments' differ only in these
/// names, so each store writes and reads both with the same code.
#[derive(Clone, Copy, Debug)]
pub(crate) struct EventLog {
    /// Its table (durable stores).
    pub table: &'static str,
    /// The column naming the owner: a bot's or a tournament's id.
    pub owner: &'static str,
    /// What owns a log, for messages ("bot", "tournament").
    pub owner_kind: &'static str,
    /// The operations, as errors name them.
    pub append_op: &'static str,
    pub read_op: &'static str,
    pub last_op: &'static str,
}

/// Each bot's event log.
pub(crate) const BOT_EVENTS: EventLog = EventLog {
    table: "bot_events",
    owner: "bot_id",
    owner_kind: "bot",
    append_op: "appending a bot event",
    read_op: "reading bot events",
    last_op: "reading a bot's last event",
};

/// Each tournament's event log.
pub(crate) const TOURNAMENT_EVENTS: EventLog = EventLog {
    table: "tournament_events",
    owner: "tournament_id",
    owner_kind: "tournament",
    append_op: "appending a tournament event",
    read_op: "reading tournament events",
    last_op: "reading a tournament's last event",
};

/// Why an arena write was refused: an unknown bot or match, a game index or
/// event seq stored already with other content, a match finished already
/// with another result. Every store reports it as [`StoreError::Database`]
/// (the database refused the write; nothing was changed).
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct Refused(pub String);

/// The [`StoreError`] of a refused arena write while doing `op`.
pub(crate) fn refused(op: &'static str, what: impl Into<String>) -> StoreError {
    StoreError::Database {
        op,
        source: std::sync::Arc::new(Refused(what.into())),
    }
}

/// A match's bots as the durable stores keep them: a JSON list of ids.
pub(crate) fn encode_bots(bots: &[String]) -> String {
    serde_json::to_string(bots).expect("a list of strings encodes")
}

/// The bots of [`encode_bots`].
pub(crate) fn decode_bots(stored: &str) -> Result<Vec<String>, StoreError> {
    serde_json::from_str(stored).map_err(|e| StoreError::Corrupt(format!("stored match bots: {e}")))
}

/// A match's result as the durable stores keep it: a JSON list of
/// `[bot_id, rank, score]` (a few dozen bytes per bot).
pub(crate) fn encode_placements(placements: &[PlacementRecord]) -> Vec<u8> {
    let rows: Vec<(&str, u32, i64)> = placements
        .iter()
        .map(|p| (p.bot_id.as_str(), p.rank, p.score))
        .collect();
    serde_json::to_vec(&rows).expect("a list of tuples encodes")
}

/// The result of [`encode_placements`].
pub(crate) fn decode_placements(stored: &[u8]) -> Result<Vec<PlacementRecord>, StoreError> {
    let rows: Vec<(String, u32, i64)> = serde_json::from_slice(stored)
        .map_err(|e| StoreError::Corrupt(format!("stored match placements: {e}")))?;
    Ok(rows
        .into_iter()
        .map(|(bot_id, rank, score)| PlacementRecord {
            bot_id,
            rank,
            score,
        })
        .collect())
}

/// Puts `(match id, game id)` rows, read in game index order, on the matches
/// they belong to (`index`: a match id's position in `matches`).
pub(crate) fn attach_games(
    matches: &mut [StoredMatch],
    index: &std::collections::HashMap<String, usize>,
    rows: impl IntoIterator<Item = (String, String)>,
) {
    for (match_id, game_id) in rows {
        if let Some(&i) = index.get(&match_id) {
            matches[i].game_ids.push(game_id);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encodings_round_trip() {
        let bots = vec!["a1".to_owned(), "b\"2\n".to_owned()];
        assert_eq!(decode_bots(&encode_bots(&bots)).unwrap(), bots);
        let placements = vec![
            PlacementRecord {
                bot_id: "a1".into(),
                rank: 1,
                score: -7,
            },
            PlacementRecord {
                bot_id: "b2".into(),
                rank: 1,
                score: i64::MAX,
            },
        ];
        assert_eq!(
            decode_placements(&encode_placements(&placements)).unwrap(),
            placements
        );
        assert!(matches!(decode_bots("nope"), Err(StoreError::Corrupt(_))));
        assert!(matches!(
            decode_placements(b"[1]"),
            Err(StoreError::Corrupt(_))
        ));
    }
}
