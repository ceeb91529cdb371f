//! The arena's matches ([`Matches`]): each formed match with its games and
//! its result, and the challenges waiting to become matches. Ratings are not
//! stored: they are recomputed from the results alone
//! (`druids_arena::ratings`), so they can never disagree with them.

use druids_contract::{Kind, pb};

use crate::StoreError;

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

/// Matches and pending challenges.
///
/// Writes that contradict what is stored change nothing and are refused
/// ([`crate::Refused`], or the database's constraint violation): a match id
/// taken already, a game for an unknown match or at an index taken already,
/// another result for a finished match. Recording the same result again is
/// no change (the first finish time is kept). Game indexes are expected to
/// be contiguous from 0.
pub trait Matches: Send + Sync {
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
    /// Stores a pending challenge, or replaces the stored one with its id
    /// (a new acceptance; it keeps its place in the order).
    fn save_challenge(&self, challenge: &ChallengeRecord) -> Result<(), StoreError>;
    /// Forgets a challenge (it ended or became a match); no change if it is
    /// not stored.
    fn remove_challenge(&self, id: &str) -> Result<(), StoreError>;
    /// Every stored challenge, in the order they were first saved.
    fn challenges(&self) -> Result<Vec<ChallengeRecord>, StoreError>;
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

/// A kind as stored, its `GameKind` number: one this build does not host
/// reads back as corrupt data, never as some other game.
pub(crate) fn stored_kind(stored: i32) -> Result<Kind, StoreError> {
    Kind::from_number(stored).map_err(|e| StoreError::Corrupt(e.to_string()))
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
