//! The [`Store`] of a server without a database: games live as long as the
//! process. It still keeps each game's log, compactly (a few bytes per
//! action), so that a finished game can leave the server's hot state and be
//! read back on demand exactly as with a durable store. The arena's bots,
//! matches, bot event logs, tournaments with their event logs and pending
//! challenges are kept under one lock ([`ArenaStore`]): they change a few
//! times per game, not per action.

use std::collections::{BTreeMap, HashMap};
use std::sync::{LazyLock, Mutex};

use dashmap::DashMap;
use druids_contract::pb;
use druids_engine::Seat;
use prost::Message;

use crate::arena_store::{
    ArenaStore, BOT_EVENTS, BotRecord, ChallengeRecord, EventLog, MatchRecord, PlacementRecord,
    StoredMatch, TOURNAMENT_EVENTS, TournamentRecord, refused,
};
use crate::auth::TokenHash;
use crate::store::{
    ActionRecord, EndedQuery, EndedRow, Epoch, GameRecord, MatchTag, Origin, RequestRecord, Store,
    StoreError, StoredGame,
};

/// Every game of the process, by id.
#[derive(Default)]
pub struct MemoryStore {
    games: DashMap<String, Kept>,
    arena: Mutex<Arena>,
}

/// What the arena keeps, in the order of the durable stores' `seq` columns.
#[derive(Default)]
struct Arena {
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
    /// Each bot's event log.
    events: EventLogs,
    /// Tournaments in creation order.
    tournaments: Vec<TournamentRecord>,
    /// A tournament's position in `tournaments`, by id.
    tournament_index: HashMap<String, usize>,
    /// Each tournament's event log.
    tournament_events: EventLogs,
    /// Pending challenges in the order they were first saved (a few at a
    /// time: found by a scan).
    challenges: Vec<ChallengeRecord>,
}

/// Event logs by owner (a bot's or a tournament's id), each by seq.
#[derive(Default)]
struct EventLogs(HashMap<String, BTreeMap<u64, Vec<u8>>>);

impl EventLogs {
    /// Appends event `seq` to `owner`'s log (refused if the seq is taken).
    fn append(
        &mut self,
        log: EventLog,
        owner: &str,
        seq: u64,
        event: &[u8],
    ) -> Result<(), StoreError> {
        let entries = self.0.entry(owner.to_owned()).or_default();
        if entries.contains_key(&seq) {
            return Err(refused(
                log.append_op,
                format!("{} {owner} has an event {seq} already", log.owner_kind),
            ));
        }
        entries.insert(seq, event.to_vec());
        Ok(())
    }

    /// `owner`'s events from `from_seq` on, at most `limit`.
    fn page(&self, owner: &str, from_seq: u64, limit: usize) -> Vec<(u64, Vec<u8>)> {
        self.0.get(owner).map_or_else(Vec::new, |entries| {
            entries
                .range(from_seq..)
                .take(limit)
                .map(|(seq, event)| (*seq, event.clone()))
                .collect()
        })
    }

    /// The seq of `owner`'s last event (0: none).
    fn last(&self, owner: &str) -> u64 {
        self.0
            .get(owner)
            .and_then(|entries| entries.keys().next_back().copied())
            .unwrap_or(0)
    }
}

/// What is kept of one game.
struct Kept {
    record: GameRecord,
    joins: Vec<(Seat, String, TokenHash)>,
    /// Every action, as length-delimited `ReplayAction`s (versions are their
    /// positions; idempotency keys are not kept, since nothing is rebuilt
    /// from here after a restart).
    log: Vec<u8>,
    actions: u64,
    abandoned: Option<String>,
    ended_unix_ms: Option<u64>,
    outcome: Option<pb::Outcome>,
}

impl Kept {
    fn summary(&self, arena: Option<MatchTag>) -> pb::GameSummary {
        let row = EndedRow {
            game_id: self.record.id.clone(),
            kind: self.record.kind as i32,
            players: self.record.players as u32,
            created_unix_ms: self.record.created_unix_ms,
            abandoned: self.abandoned.is_some(),
            version: self.actions,
            outcome: self.outcome.clone(),
            arena,
        };
        let claimed = self.record.seats.iter().chain(&self.joins);
        row.summary(claimed.map(|(seat, name, _)| (seat.index(), name.clone())))
    }

    fn stored(&self) -> Result<StoredGame, StoreError> {
        let mut actions = Vec::with_capacity(self.actions as usize);
        let mut buf = self.log.as_slice();
        while !buf.is_empty() {
            let a = pb::ReplayAction::decode_length_delimited(&mut buf)
                .map_err(|e| StoreError::Corrupt(format!("kept action: {e}")))?;
            actions.push(ActionRecord {
                version: actions.len() as u64 + 1,
                seat: Seat(a.seat as u8),
                origin: Origin::of_replay(&a),
                action: a.action.unwrap_or_default(),
                request: pb::SubmitActionRequest::default(),
                epoch: Epoch::NONE,
            });
        }
        Ok(StoredGame {
            record: self.record.clone(),
            joins: self.joins.clone(),
            actions,
            abandoned: self.abandoned.clone(),
            ended_unix_ms: self.ended_unix_ms,
        })
    }
}

/// The secret of an in-memory server: random, for this process only.
static MEMORY_SECRET: LazyLock<[u8; 32]> = LazyLock::new(rand::random);

impl MemoryStore {
    /// The arena's tag of every game of its matches, by game id.
    fn match_tags(&self) -> HashMap<String, MatchTag> {
        let arena = self.arena();
        let mut tags = HashMap::new();
        for m in &arena.matches {
            let tag = MatchTag::of(&m.record);
            for game_id in arena.match_games.get(&m.record.id).into_iter().flatten() {
                tags.insert(game_id.1.clone(), tag.clone());
            }
        }
        tags
    }
}

fn no_game(game_id: &str) -> StoreError {
    StoreError::Corrupt(format!("no game {game_id} is kept"))
}

impl Store for MemoryStore {
    fn create_game(&self, game: &GameRecord) -> Result<(), StoreError> {
        let record = GameRecord {
            request: None,
            ..game.clone()
        };
        self.games.insert(
            game.id.clone(),
            Kept {
                record,
                joins: Vec::new(),
                log: Vec::new(),
                actions: 0,
                abandoned: None,
                ended_unix_ms: None,
                outcome: None,
            },
        );
        Ok(())
    }

    fn claim_seat(
        &self,
        game_id: &str,
        seat: Seat,
        name: &str,
        token: &TokenHash,
        _: Option<&RequestRecord>,
        _: Epoch,
    ) -> Result<(), StoreError> {
        let mut kept = self
            .games
            .get_mut(game_id)
            .ok_or_else(|| no_game(game_id))?;
        kept.joins.push((seat, name.to_owned(), *token));
        Ok(())
    }

    fn requests_since(&self, _: u64) -> Result<Vec<RequestRecord>, StoreError> {
        Ok(Vec::new())
    }

    fn secret(&self) -> Result<[u8; 32], StoreError> {
        Ok(*MEMORY_SECRET)
    }

    fn append_action(&self, game_id: &str, action: &ActionRecord) -> Result<(), StoreError> {
        let mut kept = self
            .games
            .get_mut(game_id)
            .ok_or_else(|| no_game(game_id))?;
        let replay = action.origin.replay_action(action.seat, action.action);
        replay
            .encode_length_delimited(&mut kept.log)
            .expect("a Vec grows");
        kept.actions += 1;
        Ok(())
    }

    fn finish(
        &self,
        game_id: &str,
        _: u64,
        outcome: &pb::Outcome,
        at_ms: u64,
    ) -> Result<(), StoreError> {
        let mut kept = self
            .games
            .get_mut(game_id)
            .ok_or_else(|| no_game(game_id))?;
        if kept.ended_unix_ms.is_none() {
            kept.outcome = Some(outcome.clone());
        }
        kept.ended_unix_ms.get_or_insert(at_ms);
        Ok(())
    }

    fn abandon(&self, game_id: &str, reason: &str, at_ms: u64) -> Result<(), StoreError> {
        let mut kept = self
            .games
            .get_mut(game_id)
            .ok_or_else(|| no_game(game_id))?;
        kept.abandoned = Some(reason.to_owned());
        kept.ended_unix_ms.get_or_insert(at_ms);
        Ok(())
    }

    fn load_in_play(&self) -> Result<Vec<StoredGame>, StoreError> {
        self.games
            .iter()
            .filter(|k| k.ended_unix_ms.is_none())
            .map(|k| k.stored())
            .collect()
    }

    fn load_game(&self, game_id: &str) -> Result<Option<StoredGame>, StoreError> {
        self.games.get(game_id).map(|k| k.stored()).transpose()
    }

    fn list_ended(&self, query: &EndedQuery) -> Result<Vec<pb::GameSummary>, StoreError> {
        let tags = self.match_tags();
        let mut rows: Vec<pb::GameSummary> = self
            .games
            .iter()
            .filter(|k| k.ended_unix_ms.is_some())
            .filter_map(|k| {
                let tag = tags.get(k.key()).cloned();
                query.arena.admits(tag.as_ref()).then(|| k.summary(tag))
            })
            .filter(|s| {
                query.kind.is_none_or(|k| s.kind == k as i32)
                    && query.status.is_none_or(|st| s.status == st as i32)
                    && query.after.as_ref().is_none_or(|(ms, id)| {
                        s.created_unix_ms < *ms || (s.created_unix_ms == *ms && s.game_id > *id)
                    })
            })
            .collect();
        rows.sort_by(|a, b| {
            b.created_unix_ms
                .cmp(&a.created_unix_ms)
                .then_with(|| a.game_id.cmp(&b.game_id))
        });
        rows.truncate(query.limit);
        Ok(rows)
    }

    fn ended_ids(&self, after_id: &str, limit: usize) -> Result<Vec<String>, StoreError> {
        let mut ids: Vec<String> = self
            .games
            .iter()
            .filter(|k| k.ended_unix_ms.is_some() && k.key().as_str() > after_id)
            .map(|k| k.key().clone())
            .collect();
        ids.sort();
        ids.truncate(limit);
        Ok(ids)
    }

    fn delete_ended_before(&self, before_ms: u64, limit: usize) -> Result<usize, StoreError> {
        let old: Vec<String> = self
            .games
            .iter()
            .filter(|k| k.ended_unix_ms.is_some_and(|t| t < before_ms))
            .map(|k| k.key().clone())
            .take(limit)
            .collect();
        for id in &old {
            self.games.remove(id);
        }
        Ok(old.len())
    }

    fn is_durable(&self) -> bool {
        false
    }
}

impl MemoryStore {
    fn arena(&self) -> std::sync::MutexGuard<'_, Arena> {
        self.arena.lock().unwrap_or_else(|p| p.into_inner())
    }
}

impl ArenaStore for MemoryStore {
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
        let at = *arena.bot_index.get(bot_id).ok_or_else(|| {
            refused(
                "replacing a bot's key",
                format!("no bot {bot_id} is registered"),
            )
        })?;
        arena.bots[at].key_hash = *key_hash;
        arena.bots[at].revoked_unix_ms = None;
        Ok(())
    }

    fn bots(&self) -> Result<Vec<BotRecord>, StoreError> {
        Ok(self.arena().bots.clone())
    }

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
        let at = *arena
            .match_index
            .get(match_id)
            .ok_or_else(|| refused(op, format!("no match {match_id} is stored")))?;
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
        let at = *arena
            .match_index
            .get(match_id)
            .ok_or_else(|| refused(op, format!("no match {match_id} is stored")))?;
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

    fn append_bot_event(&self, bot_id: &str, seq: u64, event: &[u8]) -> Result<(), StoreError> {
        let mut arena = self.arena();
        if !arena.bot_index.contains_key(bot_id) {
            return Err(refused(
                BOT_EVENTS.append_op,
                format!("no bot {bot_id} is registered"),
            ));
        }
        arena.events.append(BOT_EVENTS, bot_id, seq, event)
    }

    fn bot_events(
        &self,
        bot_id: &str,
        from_seq: u64,
        limit: usize,
    ) -> Result<Vec<(u64, Vec<u8>)>, StoreError> {
        Ok(self.arena().events.page(bot_id, from_seq, limit))
    }

    fn last_bot_event(&self, bot_id: &str) -> Result<u64, StoreError> {
        Ok(self.arena().events.last(bot_id))
    }

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

    fn revoke_bot(&self, bot_id: &str, at_ms: u64) -> Result<(), StoreError> {
        let mut arena = self.arena();
        let at = *arena.bot_index.get(bot_id).ok_or_else(|| {
            refused(
                "revoking a bot's key",
                format!("no bot {bot_id} is registered"),
            )
        })?;
        arena.bots[at].revoked_unix_ms.get_or_insert(at_ms);
        Ok(())
    }

    fn append_tournament_event(
        &self,
        tournament_id: &str,
        seq: u64,
        event: &[u8],
    ) -> Result<(), StoreError> {
        let mut arena = self.arena();
        if !arena.tournament_index.contains_key(tournament_id) {
            return Err(refused(
                TOURNAMENT_EVENTS.append_op,
                format!("no tournament {tournament_id} is stored"),
            ));
        }
        arena
            .tournament_events
            .append(TOURNAMENT_EVENTS, tournament_id, seq, event)
    }

    fn tournament_events(
        &self,
        tournament_id: &str,
        from_seq: u64,
        limit: usize,
    ) -> Result<Vec<(u64, Vec<u8>)>, StoreError> {
        Ok(self
            .arena()
            .tournament_events
            .page(tournament_id, from_seq, limit))
    }

    fn last_tournament_event(&self, tournament_id: &str) -> Result<u64, StoreError> {
        Ok(self.arena().tournament_events.last(tournament_id))
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

#[cfg(test)]
mod tests {
    use super::*;

    fn bot(id: &str, name: &str) -> BotRecord {
        BotRecord {
            id: id.to_owned(),
            name: name.to_owned(),
            description: format!("{name} plays"),
            owner_contact: "owner@example.org".to_owned(),
            key_hash: TokenHash([id.len() as u8; 32]),
            registered_unix_ms: 1_000,
            revoked_unix_ms: None,
        }
    }

    fn record(id: &str, bots: &[&str]) -> MatchRecord {
        MatchRecord {
            id: id.to_owned(),
            kind: pb::GameKind::Meduris,
            rated: true,
            seed: u64::MAX,
            options: pb::GameOptions::default(),
            bots: bots.iter().map(|b| (*b).to_owned()).collect(),
            games: 2,
            created_unix_ms: 2_000,
            tournament: None,
        }
    }

    #[test]
    fn the_arena_is_kept_as_the_durable_stores_keep_it() {
        let store = MemoryStore::default();
        assert!(store.register_bot(&bot("b2", "zed")).unwrap());
        assert!(store.register_bot(&bot("b1", "amy")).unwrap());
        assert!(!store.register_bot(&bot("b3", "amy")).unwrap());
        assert!(store.register_bot(&bot("b1", "other")).is_err());
        store.set_bot_key("b1", &TokenHash([9; 32])).unwrap();
        assert!(matches!(
            store.set_bot_key("nobody", &TokenHash([9; 32])),
            Err(StoreError::Database { .. })
        ));
        let bots = store.bots().unwrap();
        let ids: Vec<&str> = bots.iter().map(|b| b.id.as_str()).collect();
        assert_eq!(ids, ["b2", "b1"]);
        assert_eq!(bots[1].key_hash, TokenHash([9; 32]));

        store.create_match(&record("m2", &["b1", "b2"])).unwrap();
        store.create_match(&record("m1", &["b2", "b1"])).unwrap();
        store.add_match_game("m2", 1, "g-second").unwrap();
        store.add_match_game("m2", 0, "g-first").unwrap();
        assert!(store.add_match_game("m2", 0, "g-other").is_err());
        assert!(store.add_match_game("nomatch", 0, "g").is_err());
        let placements = vec![
            PlacementRecord {
                bot_id: "b1".into(),
                rank: 1,
                score: 30,
            },
            PlacementRecord {
                bot_id: "b2".into(),
                rank: 2,
                score: -4,
            },
        ];
        store.finish_match("m2", &placements, 3_000).unwrap();
        store.finish_match("m2", &placements, 4_000).unwrap();
        assert!(store.finish_match("m2", &placements[..1], 3_000).is_err());
        assert!(store.finish_match("nomatch", &placements, 3_000).is_err());
        let matches = store.matches().unwrap();
        assert_eq!(matches.len(), 2);
        assert_eq!(matches[0].record, record("m2", &["b1", "b2"]));
        assert_eq!(matches[0].game_ids, ["g-first", "g-second"]);
        assert_eq!(matches[0].placements.as_ref(), Some(&placements));
        assert_eq!(matches[0].finished_unix_ms, Some(3_000));
        assert_eq!(matches[1].record.id, "m1");
        assert!(matches[1].game_ids.is_empty());
        assert_eq!(matches[1].placements, None);

        assert_eq!(store.last_bot_event("b1").unwrap(), 0);
        for seq in 1..=5 {
            store.append_bot_event("b1", seq, &[seq as u8; 3]).unwrap();
        }
        assert!(store.append_bot_event("b1", 3, b"again").is_err());
        assert!(store.append_bot_event("nobody", 1, b"x").is_err());
        assert_eq!(store.last_bot_event("b1").unwrap(), 5);
        assert_eq!(store.last_bot_event("b2").unwrap(), 0);
        assert_eq!(
            store.bot_events("b1", 2, 2).unwrap(),
            [(2, vec![2; 3]), (3, vec![3; 3])]
        );
        assert_eq!(store.bot_events("b1", 5, 10).unwrap(), [(5, vec![5; 3])]);
        assert!(store.bot_events("b1", 6, 10).unwrap().is_empty());
        assert!(store.bot_events("b2", 0, 10).unwrap().is_empty());
    }

    fn tournament(id: &str, created: u64) -> TournamentRecord {
        TournamentRecord {
            id: id.to_owned(),
            settings: id.as_bytes().to_vec(),
            created_unix_ms: created,
            finished_unix_ms: None,
        }
    }

    #[test]
    fn tournaments_are_kept_in_creation_order_with_their_matches() {
        let store = MemoryStore::default();
        assert!(store.tournaments().unwrap().is_empty());
        store.create_tournament(&tournament("t2", 5_000)).unwrap();
        store.create_tournament(&tournament("t1", 4_000)).unwrap();
        assert!(store.create_tournament(&tournament("t1", 1)).is_err());
        store.finish_tournament("t1", 9_000).unwrap();
        store
            .finish_tournament("t1", 9_999)
            .expect("finishing again is no change");
        assert!(matches!(
            store.finish_tournament("nope", 9_000),
            Err(StoreError::Database { .. })
        ));
        let mut t1 = tournament("t1", 4_000);
        t1.finished_unix_ms = Some(9_000);
        assert_eq!(store.tournaments().unwrap(), [tournament("t2", 5_000), t1]);

        let mut in_t1 = record("m1", &["b1", "b2"]);
        in_t1.tournament = Some(("t1".into(), 2));
        store.create_match(&in_t1).unwrap();
        store.create_match(&record("m2", &["b2", "b1"])).unwrap();
        let matches = store.matches().unwrap();
        assert_eq!(matches[0].record, in_t1);
        assert_eq!(matches[1].record.tournament, None);
    }

    #[test]
    fn revocations_tournament_logs_and_challenges_are_kept() {
        let store = MemoryStore::default();
        assert!(store.register_bot(&bot("b1", "amy")).unwrap());
        store.revoke_bot("b1", 7_000).unwrap();
        store
            .revoke_bot("b1", 8_000)
            .expect("revoking again is no change");
        assert!(matches!(
            store.revoke_bot("nobody", 7_000),
            Err(StoreError::Database { .. })
        ));
        assert_eq!(store.bots().unwrap()[0].revoked_unix_ms, Some(7_000));
        store.set_bot_key("b1", &TokenHash([9; 32])).unwrap();
        assert_eq!(store.bots().unwrap()[0].revoked_unix_ms, None);

        store.create_tournament(&tournament("t1", 4_000)).unwrap();
        assert_eq!(store.last_tournament_event("t1").unwrap(), 0);
        for seq in 1..=3 {
            store
                .append_tournament_event("t1", seq, &[seq as u8; 2])
                .unwrap();
        }
        assert!(store.append_tournament_event("t1", 2, b"again").is_err());
        assert!(store.append_tournament_event("nope", 1, b"x").is_err());
        assert_eq!(store.last_tournament_event("t1").unwrap(), 3);
        assert_eq!(store.last_tournament_event("nope").unwrap(), 0);
        assert_eq!(
            store.tournament_events("t1", 2, 10).unwrap(),
            [(2, vec![2; 2]), (3, vec![3; 2])]
        );
        assert!(store.tournament_events("nope", 0, 10).unwrap().is_empty());

        let challenge = |id: &str, accepted: &[&str]| ChallengeRecord {
            id: id.to_owned(),
            info: id.as_bytes().to_vec(),
            accepted: accepted.iter().map(|a| (*a).to_owned()).collect(),
        };
        store.save_challenge(&challenge("c2", &[])).unwrap();
        store.save_challenge(&challenge("c1", &["b1"])).unwrap();
        store.save_challenge(&challenge("c2", &["b1"])).unwrap();
        assert_eq!(
            store.challenges().unwrap(),
            [challenge("c2", &["b1"]), challenge("c1", &["b1"])]
        );
        store.remove_challenge("c2").unwrap();
        store
            .remove_challenge("c2")
            .expect("removing again is no change");
        assert_eq!(store.challenges().unwrap(), [challenge("c1", &["b1"])]);
    }
}
