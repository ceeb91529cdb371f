//! The [`Store`] of a server without a database: games live as long as the
//! process. It still keeps each game's log, compactly (a few bytes per
//! action), so that a finished game can leave the server's hot state and be
//! read back on demand exactly as with a durable store.

use std::sync::LazyLock;

use dashmap::DashMap;
use druids::pb;
use druids_engine::Seat;
use prost::Message;

use crate::auth::TokenHash;
use crate::store::{
    ActionRecord, EndedQuery, EndedRow, Epoch, GameRecord, Origin, RequestRecord, Store,
    StoreError, StoredGame,
};

/// Every game of the process, by id.
#[derive(Default)]
pub struct MemoryStore {
    games: DashMap<String, Kept>,
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
}

impl Kept {
    fn summary(&self) -> pb::GameSummary {
        let row = EndedRow {
            game_id: self.record.id.clone(),
            kind: self.record.kind as i32,
            players: self.record.players as u32,
            created_unix_ms: self.record.created_unix_ms,
            abandoned: self.abandoned.is_some(),
            version: self.actions,
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

    fn finish(&self, game_id: &str, _: u64, at_ms: u64) -> Result<(), StoreError> {
        let mut kept = self
            .games
            .get_mut(game_id)
            .ok_or_else(|| no_game(game_id))?;
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
        let mut rows: Vec<pb::GameSummary> = self
            .games
            .iter()
            .filter(|k| k.ended_unix_ms.is_some())
            .map(|k| k.summary())
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
