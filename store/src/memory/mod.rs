//! The [`Store`] of a server without a database: games live as long as the
//! process. It still keeps each game's log, compactly (a few bytes per
//! action), so that a finished game can leave the server's hot state and be
//! read back on demand exactly as with a durable store. The arena's records
//! are kept under one lock ([`arena`]): they change a few times per game,
//! not per action.

use std::sync::{LazyLock, Mutex};

use dashmap::DashMap;
use druids_contract::pb;
use druids_engine::Seat;
use prost::Message;

use crate::error::refused;
use crate::lifecycle::EndedRow;
use crate::{
    ActionRecord, EndedQuery, Epoch, GameRecord, Games, Lifecycle, MatchTag, Origin, RequestRecord,
    Requests, Store, StoreError, StoredGame, TokenHash,
};

mod arena;

/// Every game of the process, by id.
#[derive(Default)]
pub struct MemoryStore {
    games: DashMap<String, Kept>,
    /// Request ids answered, oldest first.
    requests: Mutex<Vec<RequestRecord>>,
    arena: Mutex<arena::Arena>,
}

/// What is kept of one game (its id is its key).
struct Kept {
    /// The creation record, its id and request left out.
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
    fn summary(&self, id: &str, arena: Option<MatchTag>) -> pb::GameSummary {
        let row = EndedRow {
            game_id: id.to_owned(),
            kind: self.record.kind.number(),
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

    fn stored(&self, id: &str) -> Result<StoredGame, StoreError> {
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
                key: None,
                epoch: Epoch::NONE,
                at_ms: 0,
            });
        }
        Ok(StoredGame {
            record: GameRecord {
                id: id.to_owned(),
                ..self.record.clone()
            },
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
    fn kept(
        &self,
        op: &'static str,
        game_id: &str,
    ) -> Result<dashmap::mapref::one::RefMut<'_, String, Kept>, StoreError> {
        self.games
            .get_mut(game_id)
            .ok_or_else(|| refused(op, format!("no game {game_id} is stored")))
    }

    fn requests(&self) -> std::sync::MutexGuard<'_, Vec<RequestRecord>> {
        self.requests.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn keep_request(&self, request: Option<&RequestRecord>) {
        if let Some(r) = request {
            self.requests().push(r.clone());
        }
    }
}

impl Games for MemoryStore {
    fn create_game(&self, game: &GameRecord) -> Result<(), StoreError> {
        let dashmap::Entry::Vacant(entry) = self.games.entry(game.id.clone()) else {
            return Err(refused(
                "creating a game",
                format!("game {} is stored already", game.id),
            ));
        };
        entry.insert(Kept {
            record: GameRecord {
                id: String::new(),
                request: None,
                ..game.clone()
            },
            joins: Vec::new(),
            log: Vec::new(),
            actions: 0,
            abandoned: None,
            ended_unix_ms: None,
            outcome: None,
        });
        self.keep_request(game.request.as_ref());
        Ok(())
    }

    fn claim_seat(
        &self,
        game_id: &str,
        seat: Seat,
        name: &str,
        token: &TokenHash,
        request: Option<&RequestRecord>,
        _: Epoch,
    ) -> Result<(), StoreError> {
        let op = "claiming a seat";
        let mut kept = self.kept(op, game_id)?;
        let claimed = kept.record.seats.iter().chain(&kept.joins);
        if claimed.map(|(s, _, _)| *s).any(|s| s == seat) {
            return Err(refused(op, format!("{seat} of game {game_id} is claimed")));
        }
        kept.joins.push((seat, name.to_owned(), *token));
        drop(kept);
        self.keep_request(request);
        Ok(())
    }

    fn append_action(&self, game_id: &str, action: &ActionRecord) -> Result<(), StoreError> {
        let op = "storing an action";
        let mut kept = self.kept(op, game_id)?;
        // Versions are positions in the compact log.
        if action.version != kept.actions + 1 {
            return Err(refused(
                op,
                format!(
                    "game {game_id} has {} actions: the next is version {}, not {}",
                    kept.actions,
                    kept.actions + 1,
                    action.version
                ),
            ));
        }
        let replay = action
            .origin
            .replay_action(action.seat, action.action.clone());
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
        let mut kept = self.kept("recording the end of a game", game_id)?;
        if kept.ended_unix_ms.is_none() {
            kept.outcome = Some(outcome.clone());
        }
        kept.ended_unix_ms.get_or_insert(at_ms);
        Ok(())
    }

    fn abandon(&self, game_id: &str, reason: &str, at_ms: u64) -> Result<(), StoreError> {
        let mut kept = self.kept("abandoning a game", game_id)?;
        if kept.ended_unix_ms.is_none() {
            kept.abandoned = Some(reason.to_owned());
            kept.ended_unix_ms = Some(at_ms);
        }
        Ok(())
    }
}

impl Lifecycle for MemoryStore {
    fn load_in_play(&self) -> Result<Vec<StoredGame>, StoreError> {
        let mut games: Vec<StoredGame> = self
            .games
            .iter()
            .filter(|k| k.ended_unix_ms.is_none())
            .map(|k| k.stored(k.key()))
            .collect::<Result<_, _>>()?;
        // Oldest first, as the durable stores read them.
        games.sort_by(|a, b| {
            (a.record.created_unix_ms, &a.record.id).cmp(&(b.record.created_unix_ms, &b.record.id))
        });
        Ok(games)
    }

    fn load_game(&self, game_id: &str) -> Result<Option<StoredGame>, StoreError> {
        self.games
            .get(game_id)
            .map(|k| k.stored(game_id))
            .transpose()
    }

    fn list_ended(&self, query: &EndedQuery) -> Result<Vec<pb::GameSummary>, StoreError> {
        let tags = self.arena().match_tags();
        let mut rows: Vec<pb::GameSummary> = self
            .games
            .iter()
            .filter(|k| k.ended_unix_ms.is_some())
            .filter_map(|k| {
                let tag = tags.get(k.key()).cloned();
                query
                    .arena
                    .admits(tag.as_ref())
                    .then(|| k.summary(k.key(), tag))
            })
            .filter(|s| {
                query.kind.is_none_or(|k| s.kind == k.number())
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
        self.requests().retain(|r| !old.contains(&r.game_id));
        Ok(old.len())
    }
}

impl Requests for MemoryStore {
    fn requests_since(&self, since_ms: u64) -> Result<Vec<RequestRecord>, StoreError> {
        let mut requests = self.requests();
        requests.retain(|r| r.at_ms >= since_ms);
        Ok(requests.clone())
    }

    fn secret(&self) -> Result<[u8; 32], StoreError> {
        Ok(*MEMORY_SECRET)
    }
}

impl Store for MemoryStore {
    fn is_durable(&self) -> bool {
        false
    }
}
