//! The embedded, durable [`Store`]: one SQLite file in WAL mode.
//!
//! A game is a row in `games`, its claimed seats rows in `seats`, and its
//! append-only action log rows in `actions` (protobuf-encoded). Every call is
//! one transaction, committed before it returns; with `Sync::Full` (the default)
//! each commit is fsynced, so an acknowledged action survives a power cut, and
//! with `Sync::Normal` it survives a killed process.

use std::path::Path;
use std::sync::Mutex;

use druids::pb;
use druids_engine::Seat;
use prost::Message;
use rusqlite::{Connection, OptionalExtension, params};

use crate::auth::TokenHash;
use crate::store::{ActionRecord, GameRecord, Origin, Store, StoreError, StoredGame};

/// How hard each commit waits for the disk.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Sync {
    /// fsync every commit: nothing acknowledged is lost, even on power loss.
    Full,
    /// fsync at checkpoints only: survives a crashed or killed server, not a power cut.
    Normal,
}

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS games (
    id              TEXT PRIMARY KEY,
    kind            INTEGER NOT NULL,
    players         INTEGER NOT NULL,
    seed            INTEGER NOT NULL,
    options         BLOB NOT NULL,
    created_unix_ms INTEGER NOT NULL,
    abandoned       TEXT
);
CREATE TABLE IF NOT EXISTS seats (
    game_id    TEXT NOT NULL REFERENCES games(id),
    seat       INTEGER NOT NULL,
    name       TEXT NOT NULL,
    token_hash BLOB NOT NULL,
    at_create  INTEGER NOT NULL,
    claim_no   INTEGER NOT NULL,
    PRIMARY KEY (game_id, seat)
);
CREATE TABLE IF NOT EXISTS actions (
    game_id TEXT NOT NULL REFERENCES games(id),
    version INTEGER NOT NULL,
    seat    INTEGER NOT NULL,
    origin  INTEGER NOT NULL,
    action  BLOB NOT NULL,
    request BLOB NOT NULL,
    PRIMARY KEY (game_id, version)
);
";

/// A SQLite database file holding every game.
pub struct SqliteStore {
    conn: Mutex<Connection>,
}

fn err(e: rusqlite::Error) -> StoreError {
    StoreError(format!("database error: {e}"))
}

impl SqliteStore {
    /// Opens (creating if needed) the database at `path`.
    pub fn open(path: &Path, sync: Sync) -> Result<SqliteStore, StoreError> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir)
                .map_err(|e| StoreError(format!("cannot create {}: {e}", dir.display())))?;
        }
        let conn = Connection::open(path).map_err(err)?;
        conn.pragma_update(None, "journal_mode", "WAL")
            .map_err(err)?;
        let level = match sync {
            Sync::Full => "FULL",
            Sync::Normal => "NORMAL",
        };
        conn.pragma_update(None, "synchronous", level)
            .map_err(err)?;
        conn.pragma_update(None, "foreign_keys", "ON")
            .map_err(err)?;
        conn.execute_batch(SCHEMA).map_err(err)?;
        Ok(SqliteStore {
            conn: Mutex::new(conn),
        })
    }

    fn conn(&self) -> std::sync::MutexGuard<'_, Connection> {
        self.conn.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Caps the database at `pages` pages, so tests can make the disk "full".
    pub fn set_max_pages(&self, pages: u64) -> Result<(), StoreError> {
        self.conn()
            .query_row(&format!("PRAGMA max_page_count = {pages}"), [], |_| Ok(()))
            .map_err(err)
    }
}

fn hash_of(blob: Vec<u8>) -> Result<TokenHash, rusqlite::Error> {
    let bytes: [u8; 32] = blob.try_into().map_err(|_| {
        rusqlite::Error::InvalidColumnType(0, "token_hash".into(), rusqlite::types::Type::Blob)
    })?;
    Ok(TokenHash(bytes))
}

fn decode<M: Message + Default>(what: &str, blob: &[u8]) -> Result<M, StoreError> {
    M::decode(blob).map_err(|e| StoreError(format!("stored {what} is corrupt: {e}")))
}

impl Store for SqliteStore {
    fn create_game(&self, game: &GameRecord) -> Result<(), StoreError> {
        let mut conn = self.conn();
        let tx = conn.transaction().map_err(err)?;
        tx.execute(
            "INSERT INTO games (id, kind, players, seed, options, created_unix_ms) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            params![
                game.id,
                game.kind as i32,
                game.players as i64,
                game.seed as i64,
                game.options.encode_to_vec(),
                game.created_unix_ms as i64
            ],
        )
        .map_err(err)?;
        for (i, (seat, name, hash)) in game.seats.iter().enumerate() {
            tx.execute(
                "INSERT INTO seats (game_id, seat, name, token_hash, at_create, claim_no) VALUES (?1, ?2, ?3, ?4, 1, ?5)",
                params![game.id, seat.0, name, hash.0.as_slice(), i as i64],
            )
            .map_err(err)?;
        }
        tx.commit().map_err(err)
    }

    fn claim_seat(
        &self,
        game_id: &str,
        seat: Seat,
        name: &str,
        token: &TokenHash,
    ) -> Result<(), StoreError> {
        self.conn()
            .execute(
                "INSERT INTO seats (game_id, seat, name, token_hash, at_create, claim_no)
                 VALUES (?1, ?2, ?3, ?4, 0, (SELECT COUNT(*) FROM seats WHERE game_id = ?1))",
                params![game_id, seat.0, name, token.0.as_slice()],
            )
            .map(|_| ())
            .map_err(err)
    }

    fn append_action(&self, game_id: &str, action: &ActionRecord) -> Result<(), StoreError> {
        self.conn()
            .execute(
                "INSERT INTO actions (game_id, version, seat, origin, action, request) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                params![
                    game_id,
                    action.version as i64,
                    action.seat.0,
                    action.origin as i64,
                    action.action.encode_to_vec(),
                    action.request.encode_to_vec()
                ],
            )
            .map(|_| ())
            .map_err(err)
    }

    fn abandon(&self, game_id: &str, reason: &str) -> Result<(), StoreError> {
        self.conn()
            .execute(
                "UPDATE games SET abandoned = ?2 WHERE id = ?1",
                params![game_id, reason],
            )
            .map(|_| ())
            .map_err(err)
    }

    fn load(&self) -> Result<Vec<StoredGame>, StoreError> {
        let conn = self.conn();
        let mut games_q = conn
            .prepare("SELECT id, kind, players, seed, options, created_unix_ms, abandoned FROM games ORDER BY created_unix_ms, id")
            .map_err(err)?;
        let rows = games_q
            .query_map([], |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    r.get::<_, i32>(1)?,
                    r.get::<_, i64>(2)?,
                    r.get::<_, i64>(3)?,
                    r.get::<_, Vec<u8>>(4)?,
                    r.get::<_, i64>(5)?,
                    r.get::<_, Option<String>>(6)?,
                ))
            })
            .map_err(err)?
            .collect::<Result<Vec<_>, _>>()
            .map_err(err)?;
        let mut seats_q = conn
            .prepare("SELECT seat, name, token_hash, at_create FROM seats WHERE game_id = ?1 ORDER BY claim_no")
            .map_err(err)?;
        let mut actions_q = conn
            .prepare("SELECT version, seat, origin, action, request FROM actions WHERE game_id = ?1 ORDER BY version")
            .map_err(err)?;
        let mut games = Vec::with_capacity(rows.len());
        for (id, kind, players, seed, options, created, abandoned) in rows {
            let mut record = GameRecord {
                id: id.clone(),
                kind: pb::GameKind::try_from(kind).unwrap_or(pb::GameKind::Unspecified),
                players: players as usize,
                seed: seed as u64,
                options: decode("options", &options)?,
                created_unix_ms: created as u64,
                seats: Vec::new(),
            };
            let mut joins = Vec::new();
            let seats = seats_q
                .query_map([&id], |r| {
                    Ok((
                        Seat(r.get::<_, u8>(0)?),
                        r.get::<_, String>(1)?,
                        hash_of(r.get(2)?)?,
                        r.get::<_, bool>(3)?,
                    ))
                })
                .map_err(err)?;
            for seat in seats {
                let (seat, name, hash, at_create) = seat.map_err(err)?;
                if at_create {
                    record.seats.push((seat, name, hash));
                } else {
                    joins.push((seat, name, hash));
                }
            }
            let mut actions = Vec::new();
            let rows = actions_q
                .query_map([&id], |r| {
                    Ok((
                        r.get::<_, i64>(0)?,
                        r.get::<_, u8>(1)?,
                        r.get::<_, i64>(2)?,
                        r.get::<_, Vec<u8>>(3)?,
                        r.get::<_, Vec<u8>>(4)?,
                    ))
                })
                .map_err(err)?;
            for row in rows {
                let (version, seat, origin, action, request) = row.map_err(err)?;
                actions.push(ActionRecord {
                    version: version as u64,
                    seat: Seat(seat),
                    origin: Origin::from_i64(origin).ok_or_else(|| {
                        StoreError(format!(
                            "stored action {version} has an unknown origin {origin}"
                        ))
                    })?,
                    action: decode("action", &action)?,
                    request: decode("request", &request)?,
                });
            }
            games.push(StoredGame {
                record,
                joins,
                actions,
                abandoned,
            });
        }
        Ok(games)
    }

    fn is_durable(&self) -> bool {
        true
    }
}

/// Tells whether a game id exists (for tests and tools).
impl SqliteStore {
    /// Number of actions stored for `game_id`.
    pub fn action_count(&self, game_id: &str) -> Result<u64, StoreError> {
        self.conn()
            .query_row(
                "SELECT COUNT(*) FROM actions WHERE game_id = ?1",
                [game_id],
                |r| r.get::<_, i64>(0),
            )
            .optional()
            .map(|n| n.unwrap_or(0) as u64)
            .map_err(err)
    }
}
