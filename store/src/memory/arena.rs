//! The arena's records in memory: bots, matches, pending challenges,
//! tournaments and their event logs, under one lock, in the order of the
//! durable stores' `seq` columns.

use std::collections::{BTreeMap, HashMap};

use super::MemoryStore;
use crate::error::refused;
use crate::{
    Accounts, BotRecord, ChallengeRecord, EventLog, EventLogs, MatchRecord, MatchTag, Matches,
    PlacementRecord, StoreError, StoredMatch, TokenHash, TournamentRecord, Tournaments,
};

/// What the arena keeps.
#[derive(Default)]
pub(super) struct Arena {
    /// Bots in registration order.
    bots: Vec<BotRecord>,
    /// A bot's position in `bots`, by id.
    bot_index: HashMap<String, usize>,
    /// Matches in formation order.
    matches: Vec<StoredMatch>,
    /// A match's position in `matches`, by id.
    match_index: HashMap<String, usize>,
    /// Games of each match by index, by match id.
    match_games: HashMap<String, BTreeMap<u32, String>>,
    /// Tournaments in creation order.
    tournaments: Vec<TournamentRecord>,
    /// A tournament's position in `tournaments`, by id.
    tournament_index: HashMap<String, usize>,
    /// The event logs, by log and owner, each by seq.
    events: HashMap<(EventLog, String), BTreeMap<u64, Vec<u8>>>,
    /// Pending challenges in the order they were first saved (a few at a
    /// time: found by a scan).
    challenges: Vec<ChallengeRecord>,
}

impl Arena {
    /// Whether `owner` of `log` exists (events of others are refused).
    fn owns_log(&self, log: EventLog, owner: &str) -> bool {
        match log {
            EventLog::Bot => self.bot_index.contains_key(owner),
            EventLog::Tournament => self.tournament_index.contains_key(owner),
        }
    }

    /// The position of bot `bot_id`, or the refusal of `op`.
    fn bot(&self, op: &'static str, bot_id: &str) -> Result<usize, StoreError> {
        self.bot_index
            .get(bot_id)
            .copied()
            .ok_or_else(|| refused(op, format!("no bot {bot_id} is registered")))
    }

    /// The position of match `match_id`, or the refusal of `op`.
    fn a_match(&self, op: &'static str, match_id: &str) -> Result<usize, StoreError> {
        self.match_index
            .get(match_id)
            .copied()
            .ok_or_else(|| refused(op, format!("no match {match_id} is stored")))
    }
}

impl Arena {
    /// The arena's tag of every game of its matches, by game id.
    pub(super) fn match_tags(&self) -> HashMap<String, MatchTag> {
        let mut tags = HashMap::new();
        for m in &self.matches {
            let tag = MatchTag::of(&m.record);
            for game_id in self.match_games.get(&m.record.id).into_iter().flatten() {
                tags.insert(game_id.1.clone(), tag.clone());
            }
        }
        tags
    }
}

impl MemoryStore {
    pub(super) fn arena(&self) -> std::sync::MutexGuard<'_, Arena> {
        self.arena.lock().unwrap_or_else(|p| p.into_inner())
    }
}

impl Accounts for MemoryStore {
    fn register_bot(&self, bot: &BotRecord) -> Result<bool, StoreError> {
        let mut arena = self.arena();
        if arena.bot_index.contains_key(&bot.id) {
            return Err(refused(
                "registering a bot",
                format!("bot {} is registered already", bot.id),
            ));
        }
        if arena.bots.iter().any(|b| b.name == bot.name) {
            return Ok(false);
        }
        let at = arena.bots.len();
        arena.bot_index.insert(bot.id.clone(), at);
        arena.bots.push(bot.clone());
        Ok(true)
    }

    fn set_bot_key(&self, bot_id: &str, key_hash: &TokenHash) -> Result<(), StoreError> {
        let mut arena = self.arena();
        let at = arena.bot("replacing a bot's key", bot_id)?;
        arena.bots[at].key_hash = *key_hash;
        arena.bots[at].revoked_unix_ms = None;
        Ok(())
    }

    fn revoke_bot(&self, bot_id: &str, at_ms: u64) -> Result<(), StoreError> {
        let mut arena = self.arena();
        let at = arena.bot("revoking a bot's key", bot_id)?;
        arena.bots[at].revoked_unix_ms.get_or_insert(at_ms);
        Ok(())
    }

    fn bots(&self) -> Result<Vec<BotRecord>, StoreError> {
        Ok(self.arena().bots.clone())
    }
}

impl Matches for MemoryStore {
    fn create_match(&self, record: &MatchRecord) -> Result<(), StoreError> {
        let mut arena = self.arena();
        if arena.match_index.contains_key(&record.id) {
            return Err(refused(
                "recording a match",
                format!("match {} is stored already", record.id),
            ));
        }
        let at = arena.matches.len();
        arena.match_index.insert(record.id.clone(), at);
        arena.matches.push(StoredMatch {
            record: record.clone(),
            game_ids: Vec::new(),
            placements: None,
            finished_unix_ms: None,
        });
        Ok(())
    }

    fn add_match_game(&self, match_id: &str, index: u32, game_id: &str) -> Result<(), StoreError> {
        let op = "recording a match's game";
        let mut arena = self.arena();
        let at = arena.a_match(op, match_id)?;
        let games = arena.match_games.entry(match_id.to_owned()).or_default();
        if games.contains_key(&index) {
            return Err(refused(
                op,
                format!("match {match_id} has a game {index} already"),
            ));
        }
        games.insert(index, game_id.to_owned());
        let ids = games.values().cloned().collect();
        arena.matches[at].game_ids = ids;
        Ok(())
    }

    fn finish_match(
        &self,
        match_id: &str,
        placements: &[PlacementRecord],
        at_ms: u64,
    ) -> Result<(), StoreError> {
        let op = "recording a match's result";
        let mut arena = self.arena();
        let at = arena.a_match(op, match_id)?;
        let m = &mut arena.matches[at];
        match &m.placements {
            None => {
                m.placements = Some(placements.to_vec());
                m.finished_unix_ms = Some(at_ms);
                Ok(())
            }
            Some(stored) if stored.as_slice() == placements => Ok(()),
            Some(_) => Err(refused(
                op,
                format!("match {match_id} has another result already"),
            )),
        }
    }

    fn matches(&self) -> Result<Vec<StoredMatch>, StoreError> {
        Ok(self.arena().matches.clone())
    }

    fn save_challenge(&self, challenge: &ChallengeRecord) -> Result<(), StoreError> {
        let mut arena = self.arena();
        // A replaced challenge keeps its place.
        match arena.challenges.iter_mut().find(|c| c.id == challenge.id) {
            Some(stored) => *stored = challenge.clone(),
            None => arena.challenges.push(challenge.clone()),
        }
        Ok(())
    }

    fn remove_challenge(&self, id: &str) -> Result<(), StoreError> {
        self.arena().challenges.retain(|c| c.id != id);
        Ok(())
    }

    fn challenges(&self) -> Result<Vec<ChallengeRecord>, StoreError> {
        Ok(self.arena().challenges.clone())
    }
}

impl Tournaments for MemoryStore {
    fn create_tournament(&self, t: &TournamentRecord) -> Result<(), StoreError> {
        let mut arena = self.arena();
        if arena.tournament_index.contains_key(&t.id) {
            return Err(refused(
                "recording a tournament",
                format!("tournament {} is stored already", t.id),
            ));
        }
        let at = arena.tournaments.len();
        arena.tournament_index.insert(t.id.clone(), at);
        arena.tournaments.push(t.clone());
        Ok(())
    }

    fn finish_tournament(&self, id: &str, at_ms: u64) -> Result<(), StoreError> {
        let mut arena = self.arena();
        let at = *arena.tournament_index.get(id).ok_or_else(|| {
            refused(
                "recording a tournament's end",
                format!("no tournament {id} is stored"),
            )
        })?;
        arena.tournaments[at].finished_unix_ms.get_or_insert(at_ms);
        Ok(())
    }

    fn tournaments(&self) -> Result<Vec<TournamentRecord>, StoreError> {
        Ok(self.arena().tournaments.clone())
    }
}

impl EventLogs for MemoryStore {
    fn append_event(
        &self,
        log: EventLog,
        owner: &str,
        seq: u64,
        event: &[u8],
    ) -> Result<(), StoreError> {
        let mut arena = self.arena();
        if !arena.owns_log(log, owner) {
            return Err(refused(
                log.append_op(),
                format!("no {} {owner} is stored", log.owner_kind()),
            ));
        }
        let entries = arena.events.entry((log, owner.to_owned())).or_default();
        if entries.contains_key(&seq) {
            return Err(refused(
                log.append_op(),
                format!("{} {owner} has an event {seq} already", log.owner_kind()),
            ));
        }
        entries.insert(seq, event.to_vec());
        Ok(())
    }

    fn events(
        &self,
        log: EventLog,
        owner: &str,
        from_seq: u64,
        limit: usize,
    ) -> Result<Vec<(u64, Vec<u8>)>, StoreError> {
        let arena = self.arena();
        Ok(arena
            .events
            .get(&(log, owner.to_owned()))
            .map_or_else(Vec::new, |entries| {
                entries
                    .range(from_seq..)
                    .take(limit)
                    .map(|(seq, event)| (*seq, event.clone()))
                    .collect()
            }))
    }

    fn last_event(&self, log: EventLog, owner: &str) -> Result<u64, StoreError> {
        let arena = self.arena();
        Ok(arena
            .events
            .get(&(log, owner.to_owned()))
            .and_then(|entries| entries.keys().next_back().copied())
            .unwrap_or(0))
    }
}
