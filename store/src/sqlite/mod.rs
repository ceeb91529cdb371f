//! The embedded, durable [`Store`]: one SQLite file in WAL mode.
//!
//! A game is a row in `games`, its claimed seats rows in `seats`, and its
//! append-only action log rows in `actions` (protobuf-encoded). Every call
//! returns only once what it wrote is committed; with `Sync::Full` (the
//! default) each commit is fsynced, so an acknowledged action survives a power
//! cut, and with `Sync::Normal` it survives a killed process.
//!
//! Actions of many games arriving together share one commit ([`commit`]);
//! games are read back through indexes ([`read`]): one by id, those in play
//! at start-up, pages of ended ones. The arena's bots, matches, bot event
//! logs, tournaments with their event logs and pending challenges have tables
//! of their own ([`arena`]).

use std::path::Path;
use std::sync::{Arc, Mutex};

use druids_contract::pb;
use druids_engine::Seat;
use prost::Message;
use rusqlite::{Connection, params};

use crate::lifecycle::encode_outcome;
use crate::{
    ActionRecord, AppendResult, EndedQuery, Epoch, GameRecord, Games, Lifecycle, RequestRecord,
    Requests, Store, StoreError, StoredGame, Sync, TokenHash,
};

mod arena;
mod commit;
mod read;
mod schema;

use commit::Appends;

/// A SQLite database file holding every game.
pub struct SqliteStore {
    conn: Arc<Mutex<Connection>>,
    /// The writer of action rows, which shares the connection.
    appends: Appends,
}

/// Wraps a database error with what the store was doing.
pub(super) fn err(op: &'static str) -> impl Fn(rusqlite::Error) -> StoreError + Copy {
    move |e| StoreError::Database {
        op,
        source: std::sync::Arc::new(e),
    }
}

impl SqliteStore {
    /// Opens (creating if needed) the database at `path`.
    pub fn open(path: &Path, sync: Sync) -> Result<SqliteStore, StoreError> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|e| StoreError::Open {
                path: dir.to_owned(),
                source: std::sync::Arc::new(e),
            })?;
        }
        let mut conn = Connection::open(path).map_err(err("opening the database"))?;
        conn.pragma_update(None, "journal_mode", "WAL")
            .map_err(err("setting up the database"))?;
        let level = match sync {
            Sync::Full => "FULL",
            Sync::Normal => "NORMAL",
        };
        conn.pragma_update(None, "synchronous", level)
            .map_err(err("setting up the database"))?;
        conn.pragma_update(None, "foreign_keys", "ON")
            .map_err(err("setting up the database"))?;
        schema::migrate(&mut conn)?;
        let conn = Arc::new(Mutex::new(conn));
        Ok(SqliteStore {
            appends: Appends::start(Arc::clone(&conn))?,
            conn,
        })
    }

    fn conn(&self) -> std::sync::MutexGuard<'_, Connection> {
        self.conn.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Caps the database at `pages` pages, so tests can make the disk "full".
    pub fn set_max_pages(&self, pages: u64) -> Result<(), StoreError> {
        self.conn()
            .query_row(&format!("PRAGMA max_page_count = {pages}"), [], |_| Ok(()))
            .map_err(err("capping the database"))
    }
}

pub(super) fn hash_of(blob: Vec<u8>) -> Result<TokenHash, rusqlite::Error> {
    let bytes: [u8; 32] = blob.try_into().map_err(|_| {
        rusqlite::Error::InvalidColumnType(0, "token_hash".into(), rusqlite::types::Type::Blob)
    })?;
    Ok(TokenHash(bytes))
}

pub(super) fn decode<M: Message + Default>(what: &str, blob: &[u8]) -> Result<M, StoreError> {
    M::decode(blob).map_err(|e| StoreError::Corrupt(format!("stored {what}: {e}")))
}

/// Stores a request id in the transaction of the change it answered.
fn insert_request(tx: &rusqlite::Transaction<'_>, r: &RequestRecord) -> rusqlite::Result<()> {
    tx.execute(
        "INSERT INTO requests (key, fingerprint, game_id, seat, started, at_ms) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        params![
            r.key.as_slice(),
            r.fingerprint.as_slice(),
            r.game_id,
            r.seat.map(|s| s.0),
            r.started,
            r.at_ms as i64
        ],
    )
    .map(|_| ())
}

/// A 32-byte column.
fn bytes32(blob: Vec<u8>, column: &str) -> Result<[u8; 32], StoreError> {
    blob.try_into()
        .map_err(|_| StoreError::Corrupt(format!("{column} is not 32 bytes")))
}

impl Games for SqliteStore {
    fn create_game(&self, game: &GameRecord) -> Result<(), StoreError> {
        let op = "creating a game";
        let mut conn = self.conn();
        let tx = conn.transaction().map_err(err(op))?;
        tx.execute(
            "INSERT INTO games (id, kind, players, seed, seed_chosen, options, created_unix_ms) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            params![
                game.id,
                game.kind.number(),
                game.players as i64,
                game.seed as i64,
                game.seed_chosen,
                game.options.encode_to_vec(),
                game.created_unix_ms as i64
            ],
        )
        .map_err(err(op))?;
        for (i, (seat, name, hash)) in game.seats.iter().enumerate() {
            tx.execute(
                "INSERT INTO seats (game_id, seat, name, token_hash, at_create, claim_no) VALUES (?1, ?2, ?3, ?4, 1, ?5)",
                params![game.id, seat.0, name, hash.0.as_slice(), i as i64],
            )
            .map_err(err(op))?;
        }
        if let Some(r) = &game.request {
            insert_request(&tx, r).map_err(err(op))?;
        }
        tx.commit().map_err(err(op))
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
        let mut conn = self.conn();
        let tx = conn.transaction().map_err(err(op))?;
        tx.execute(
            "INSERT INTO seats (game_id, seat, name, token_hash, at_create, claim_no)
             VALUES (?1, ?2, ?3, ?4, 0, (SELECT COUNT(*) FROM seats WHERE game_id = ?1))",
            params![game_id, seat.0, name, token.0.as_slice()],
        )
        .map_err(err(op))?;
        if let Some(r) = request {
            insert_request(&tx, r).map_err(err(op))?;
        }
        tx.commit().map_err(err(op))
    }

    fn append_action(&self, game_id: &str, action: &ActionRecord) -> Result<(), StoreError> {
        self.append(game_id, action)
    }

    fn append_later(&self, game_id: &str, action: &ActionRecord) -> Option<AppendResult> {
        Some(SqliteStore::append_later(self, game_id, action))
    }

    fn queues_appends(&self) -> bool {
        true
    }

    fn finish(
        &self,
        game_id: &str,
        version: u64,
        outcome: &pb::Outcome,
        at_ms: u64,
    ) -> Result<(), StoreError> {
        self.conn()
            .execute(
                "UPDATE games SET ended_unix_ms = ?3, version = ?2, outcome = ?4
                  WHERE id = ?1 AND ended_unix_ms IS NULL",
                params![
                    game_id,
                    version as i64,
                    at_ms as i64,
                    encode_outcome(outcome)
                ],
            )
            .map(|_| ())
            .map_err(err("recording the end of a game"))
    }

    fn abandon(&self, game_id: &str, reason: &str, at_ms: u64) -> Result<(), StoreError> {
        self.conn()
            .execute(
                "UPDATE games SET abandoned = ?2, ended_unix_ms = ?3,
                        version = (SELECT COUNT(*) FROM actions WHERE game_id = ?1)
                  WHERE id = ?1 AND ended_unix_ms IS NULL",
                params![game_id, reason, at_ms as i64],
            )
            .map(|_| ())
            .map_err(err("abandoning a game"))
    }
}

impl Requests for SqliteStore {
    fn requests_since(&self, since_ms: u64) -> Result<Vec<RequestRecord>, StoreError> {
        let op = "reading request ids";
        let conn = self.conn();
        conn.execute("DELETE FROM requests WHERE at_ms < ?1", [since_ms as i64])
            .map_err(err(op))?;
        let mut q = conn
            .prepare("SELECT key, fingerprint, game_id, seat, started, at_ms FROM requests")
            .map_err(err(op))?;
        let rows = q
            .query_map([], |r| {
                Ok((
                    r.get::<_, Vec<u8>>(0)?,
                    r.get::<_, Vec<u8>>(1)?,
                    r.get::<_, String>(2)?,
                    r.get::<_, Option<u8>>(3)?,
                    r.get::<_, bool>(4)?,
                    r.get::<_, i64>(5)?,
                ))
            })
            .map_err(err(op))?;
        let mut out = Vec::new();
        for row in rows {
            let (key, fingerprint, game_id, seat, started, at_ms) = row.map_err(err(op))?;
            out.push(RequestRecord {
                key: bytes32(key, "requests.key")?,
                fingerprint: bytes32(fingerprint, "requests.fingerprint")?,
                game_id,
                seat: seat.map(Seat),
                started,
                at_ms: at_ms as u64,
            });
        }
        Ok(out)
    }

    fn secret(&self) -> Result<[u8; 32], StoreError> {
        let op = "reading the server secret";
        let conn = self.conn();
        let fresh: [u8; 32] = rand::random();
        // The first call stores a fresh secret; every later call reads it.
        conn.execute(
            "INSERT OR IGNORE INTO meta (key, value) VALUES ('token_secret', ?1)",
            [fresh.as_slice()],
        )
        .map_err(err(op))?;
        let stored: Vec<u8> = conn
            .query_row(
                "SELECT value FROM meta WHERE key = 'token_secret'",
                [],
                |r| r.get(0),
            )
            .map_err(err(op))?;
        bytes32(stored, "meta.token_secret")
    }
}

impl Lifecycle for SqliteStore {
    fn load_in_play(&self) -> Result<Vec<StoredGame>, StoreError> {
        read::in_play(&self.conn())
    }

    fn load_game(&self, game_id: &str) -> Result<Option<StoredGame>, StoreError> {
        read::one(&self.conn(), game_id)
    }

    fn list_ended(&self, query: &EndedQuery) -> Result<Vec<pb::GameSummary>, StoreError> {
        read::ended_page(&self.conn(), query)
    }

    fn ended_ids(&self, after_id: &str, limit: usize) -> Result<Vec<String>, StoreError> {
        read::ended_ids(&self.conn(), after_id, limit)
    }

    fn delete_ended_before(&self, before_ms: u64, limit: usize) -> Result<usize, StoreError> {
        let op = "deleting old games";
        let mut conn = self.conn();
        let tx = conn.transaction().map_err(err(op))?;
        let ids: Vec<String> = tx
            .prepare_cached(
                "SELECT id FROM games WHERE ended_unix_ms IS NOT NULL AND ended_unix_ms < ?1 LIMIT ?2",
            )
            .map_err(err(op))?
            .query_map(params![before_ms as i64, limit as i64], |r| r.get(0))
            .map_err(err(op))?
            .collect::<Result<_, _>>()
            .map_err(err(op))?;
        for id in &ids {
            for delete in [
                "DELETE FROM requests WHERE game_id = ?1",
                "DELETE FROM actions WHERE game_id = ?1",
                "DELETE FROM seats WHERE game_id = ?1",
                "DELETE FROM games WHERE id = ?1",
            ] {
                tx.prepare_cached(delete)
                    .and_then(|mut q| q.execute([id]))
                    .map_err(err(op))?;
            }
        }
        tx.commit().map_err(err(op))?;
        Ok(ids.len())
    }
}

impl Store for SqliteStore {
    fn is_durable(&self) -> bool {
        true
    }
}
