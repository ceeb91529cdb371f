//! The shared, durable [`Store`]: a PostgreSQL database, so that several
//! servers can one day keep their games in one place (issue #19; this module
//! is its first part: the store alone).
//!
//! Same tables and guarantees as [`crate::sqlite`]: every call returns only
//! once what it wrote is committed, actions of many games arriving together
//! share one transaction with each row's result its own ([`commit`]), and a
//! database that refuses a write fails the call with
//! [`StoreError::Database`] (the server answers `UNAVAILABLE`) having changed
//! nothing. The schema is versioned SQL under `migrations/postgres/`, applied
//! at start by refinery under an advisory lock.
//!
//! The client is `tokio-postgres` (pure Rust: no libpq to install) with a
//! `deadpool-postgres` pool. The [`Store`] trait is synchronous and is called
//! both from tokio's blocking pool and, at start-up, from async code, where
//! the sync `postgres` crate would panic (it nests a runtime). So the store
//! owns a one-thread runtime that drives the connections, and each call
//! blocks its own thread on a future whose I/O that runtime does ([`wait`]).
//!
//! Lost connections: connecting, reads and writes are retried with backoff
//! ([`retry`]). A write retried after a connection broke may have committed
//! the first time: its rows are keyed by primary key, and a retry that finds
//! its own row already there, with the same content, counts as done.

use std::future::Future;
use std::sync::{Condvar, Mutex};
use std::time::Duration;

use deadpool_postgres::{Manager, ManagerConfig, Pool, RecyclingMethod};
use druids_contract::pb;
use druids_engine::Seat;
use prost::Message;
use tokio_postgres::NoTls;

use crate::lifecycle::encode_outcome;
use crate::{
    ActionRecord, EndedQuery, Epoch, GameRecord, Games, Lifecycle, RequestRecord, Requests, Store,
    StoreError, StoredGame, Sync, TokenHash,
};

mod arena;
mod arena_lease;
mod commit;
mod event_logs;
mod lease;
mod node;
mod read;
mod retry;
mod schema;

use commit::Appends;
pub use node::NodeSessions;
use retry::{Failure, conflict};

/// Connections the pool keeps at most: reads of ended games and the group
/// commit share them.
const POOL_SIZE: usize = 8;

/// Whether `db` (a `--db` value) names a PostgreSQL database.
pub fn is_url(db: &str) -> bool {
    db.starts_with("postgres://") || db.starts_with("postgresql://")
}

/// `url` without its password, for logs.
pub fn redacted(url: &str) -> String {
    let Some(scheme_end) = url.find("://").map(|i| i + 3) else {
        return url.to_owned();
    };
    let rest = &url[scheme_end..];
    let host_start = rest.find('/').unwrap_or(rest.len());
    match rest[..host_start].rfind('@') {
        Some(at) => match rest[..at].find(':') {
            Some(colon) => format!(
                "{}{}:***{}",
                &url[..scheme_end],
                &rest[..colon],
                &rest[at..]
            ),
            None => url.to_owned(),
        },
        None => url.to_owned(),
    }
}

/// A PostgreSQL database holding every game.
pub struct PostgresStore {
    /// Drives the connections' I/O; `None` once dropped.
    runtime: Option<tokio::runtime::Runtime>,
    pool: Pool,
    /// A node's lease renewal's own connection ([`NodeSessions`]): it never
    /// waits for a connection the node's other work holds.
    renewal: Option<Pool>,
    appends: Mutex<Appends>,
    /// Signalled when a batch of appends has its results.
    appended: Condvar,
    /// Since when the database has been out of reach, if it is
    /// ([`retry::Outage`]).
    outage: retry::Outage,
    /// The arena's lease ('node:epoch') this node writes the arena's tables
    /// under, if it holds it ([`crate::ArenaLease::fence_arena`]).
    arena_fence: std::sync::RwLock<Option<String>>,
}

impl PostgresStore {
    /// Connects to `url` (`postgres://user:password@host:port/database`),
    /// retrying while the database cannot be reached yet, and brings its
    /// schema up to date. With `Sync::Normal` commits do not wait for the
    /// database's disk (`synchronous_commit = off`): a crash of the database
    /// server may lose the last moments of commits, never corrupt them.
    pub fn open(url: &str, sync: Sync) -> Result<PostgresStore, StoreError> {
        PostgresStore::open_with(url, sync, None)
    }

    /// [`PostgresStore::open`] for node `node` of a cluster: its sessions
    /// are named after it (`pg_stat_activity` tells the nodes apart), none
    /// holds its locks while it sits idle in a transaction (a paused node's
    /// open transaction is ended by the database, so takeovers of its games
    /// do not wait on it), and lease renewal has a connection of its own
    /// with a statement timeout ([`NodeSessions`]).
    pub fn open_node(
        url: &str,
        sync: Sync,
        node: &NodeSessions,
    ) -> Result<PostgresStore, StoreError> {
        PostgresStore::open_with(url, sync, Some(node))
    }

    fn open_with(
        url: &str,
        sync: Sync,
        node: Option<&NodeSessions>,
    ) -> Result<PostgresStore, StoreError> {
        let op = "connecting to PostgreSQL";
        let mut config: tokio_postgres::Config = url
            .parse()
            .map_err(|e| retry::database(op, Failure::Pg(e)))?;
        config.application_name("druids-server");
        config.connect_timeout(Duration::from_secs(5));
        let mut options = Vec::new();
        if sync == Sync::Normal {
            options.push("-c synchronous_commit=off".to_owned());
        }
        if let Some(node) = node {
            config.application_name(node.application_name());
            options.extend(node.options());
        }
        if !options.is_empty() {
            config.options(options.join(" "));
        }
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("druids-postgres")
            .enable_all()
            .build()
            .map_err(|e| retry::database(op, Failure::Io(e)))?;
        let pool = |config: tokio_postgres::Config, size: usize| {
            let manager = Manager::from_config(
                config,
                NoTls,
                ManagerConfig {
                    recycling_method: RecyclingMethod::Fast,
                },
            );
            Pool::builder(manager)
                .max_size(size)
                .runtime(deadpool_postgres::Runtime::Tokio1)
                .wait_timeout(Some(Duration::from_secs(30)))
                .create_timeout(Some(Duration::from_secs(10)))
                .build()
                .map_err(|e| retry::database(op, Failure::Other(e.to_string())))
        };
        let renewal = match node {
            Some(node) => {
                let mut config = config.clone();
                options.push(node.renewal_option());
                config.options(options.join(" "));
                Some(pool(config, 1)?)
            }
            None => None,
        };
        let store = PostgresStore {
            runtime: Some(runtime),
            pool: pool(config, POOL_SIZE)?,
            renewal,
            appends: Mutex::new(Appends::default()),
            appended: Condvar::new(),
            outage: retry::Outage::default(),
            arena_fence: std::sync::RwLock::new(None),
        };
        store.retry("migrating the schema", |_| {
            store.wait(async {
                let mut client = store.pool.get().await?;
                schema::migrate(&mut client).await
            })
        })?;
        Ok(store)
    }

    /// Runs `fut` to completion on this thread, its I/O driven by the
    /// store's runtime. Blocking is what the trait's callers expect (they are
    /// on the blocking pool, or starting up); it works whether or not the
    /// thread is inside another runtime.
    fn wait<F: Future>(&self, fut: F) -> F::Output {
        let _runtime = self.runtime.as_ref().map(|r| r.enter());
        futures_executor::block_on(fut)
    }

    fn appends(&self) -> std::sync::MutexGuard<'_, Appends> {
        self.appends.lock().unwrap_or_else(|p| p.into_inner())
    }
}

impl Drop for PostgresStore {
    fn drop(&mut self) {
        // Dropping a runtime blocks, which tokio forbids in async code.
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_background();
        }
    }
}

/// Stores a request id in the transaction of the change it answered.
async fn insert_request(
    tx: &deadpool_postgres::Transaction<'_>,
    r: &RequestRecord,
) -> Result<(), tokio_postgres::Error> {
    tx.execute(
        "INSERT INTO requests (key, fingerprint, game_id, seat, started, at_ms)
         VALUES ($1, $2, $3, $4, $5, $6)",
        &[
            &r.key.as_slice(),
            &r.fingerprint.as_slice(),
            &r.game_id,
            &r.seat.map(|s| i16::from(s.0)),
            &r.started,
            &(r.at_ms as i64),
        ],
    )
    .await
    .map(|_| ())
}

/// A row of `requests` (key, fingerprint, game_id, seat, started, at_ms).
fn request_record(r: &tokio_postgres::Row) -> Result<RequestRecord, StoreError> {
    Ok(RequestRecord {
        key: bytes32(r.get(0), "requests.key")?,
        fingerprint: bytes32(r.get(1), "requests.fingerprint")?,
        game_id: r.get(2),
        seat: r.get::<_, Option<i16>>(3).map(|s| Seat(s as u8)),
        started: r.get(4),
        at_ms: r.get::<_, i64>(5) as u64,
    })
}

/// A 32-byte column.
fn bytes32(blob: Vec<u8>, column: &str) -> Result<[u8; 32], StoreError> {
    blob.try_into()
        .map_err(|_| StoreError::Corrupt(format!("{column} is not 32 bytes")))
}

impl Games for PostgresStore {
    fn create_game(&self, game: &GameRecord) -> Result<(), StoreError> {
        let options = game.options.encode_to_vec();
        self.retry("creating a game", |retrying| {
            self.wait(async {
                let mut client = self.pool.get().await?;
                let tx = client.transaction().await?;
                if retrying {
                    // The first attempt may have committed: the whole game then.
                    let row = tx
                        .query_opt(
                            "SELECT kind, seed, created_unix_ms, options FROM games WHERE id = $1",
                            &[&game.id],
                        )
                        .await?;
                    if let Some(row) = row {
                        let same = row.get::<_, i32>(0) == game.kind.number()
                            && row.get::<_, i64>(1) == game.seed as i64
                            && row.get::<_, i64>(2) == game.created_unix_ms as i64
                            && row.get::<_, Vec<u8>>(3) == options;
                        return if same {
                            Ok(())
                        } else {
                            Err(conflict("another game has this id"))
                        };
                    }
                }
                tx.execute(
                    "INSERT INTO games (id, kind, players, seed, seed_chosen, options, created_unix_ms)
                     VALUES ($1, $2, $3, $4, $5, $6, $7)",
                    &[
                        &game.id,
                        &game.kind.number(),
                        &(game.players as i32),
                        &(game.seed as i64),
                        &game.seed_chosen,
                        &options,
                        &(game.created_unix_ms as i64),
                    ],
                )
                .await?;
                for (i, (seat, name, hash)) in game.seats.iter().enumerate() {
                    tx.execute(
                        "INSERT INTO seats (game_id, seat, name, token_hash, at_create, claim_no)
                         VALUES ($1, $2, $3, $4, TRUE, $5)",
                        &[&game.id, &i16::from(seat.0), name, &hash.0.as_slice(), &(i as i32)],
                    )
                    .await?;
                }
                if let Some(r) = &game.request {
                    insert_request(&tx, r).await?;
                }
                tx.commit().await?;
                Ok(())
            })
        })
    }

    fn claim_seat(
        &self,
        game_id: &str,
        seat: Seat,
        name: &str,
        token: &TokenHash,
        request: Option<&RequestRecord>,
        epoch: Epoch,
    ) -> Result<(), StoreError> {
        self.retry("claiming a seat", |retrying| {
            self.wait(async {
                let mut client = self.pool.get().await?;
                let tx = client.transaction().await?;
                if epoch.is_fenced() {
                    let lease = tx.query_opt(commit::LOCK_LEASES, &[&vec![game_id]]).await?;
                    if lease.map(|r| r.get::<_, i64>(1)) != Some(epoch.0 as i64) {
                        return Err(Failure::Store(StoreError::Fenced {
                            game_id: game_id.to_owned(),
                            epoch: epoch.0,
                        }));
                    }
                }
                if retrying {
                    let row = tx
                        .query_opt(
                            "SELECT name, token_hash FROM seats WHERE game_id = $1 AND seat = $2",
                            &[&game_id, &i16::from(seat.0)],
                        )
                        .await?;
                    if let Some(row) = row {
                        return if row.get::<_, &str>(0) == name
                            && row.get::<_, &[u8]>(1) == token.0.as_slice()
                        {
                            Ok(())
                        } else {
                            Err(conflict("the seat is claimed already"))
                        };
                    }
                }
                tx.execute(
                    "INSERT INTO seats (game_id, seat, name, token_hash, at_create, claim_no)
                     VALUES ($1, $2, $3, $4, FALSE,
                             (SELECT COUNT(*) FROM seats WHERE game_id = $1)::INTEGER)",
                    &[&game_id, &i16::from(seat.0), &name, &token.0.as_slice()],
                )
                .await?;
                if let Some(r) = request {
                    insert_request(&tx, r).await?;
                }
                tx.commit().await?;
                Ok(())
            })
        })
    }

    fn append_action(&self, game_id: &str, action: &ActionRecord) -> Result<(), StoreError> {
        self.append(game_id, action)
    }

    fn finish(
        &self,
        game_id: &str,
        version: u64,
        outcome: &pb::Outcome,
        at_ms: u64,
    ) -> Result<(), StoreError> {
        let outcome = encode_outcome(outcome);
        // Idempotent: a retry finds the game ended and changes nothing.
        self.retry("recording the end of a game", |_| {
            self.wait(async {
                self.pool
                    .get()
                    .await?
                    .execute(
                        "UPDATE games SET ended_unix_ms = $3, version = $2, outcome = $4
                          WHERE id = $1 AND ended_unix_ms IS NULL",
                        &[&game_id, &(version as i64), &(at_ms as i64), &outcome],
                    )
                    .await?;
                Ok(())
            })
        })
    }

    fn abandon(&self, game_id: &str, reason: &str, at_ms: u64) -> Result<(), StoreError> {
        self.retry("abandoning a game", |_| {
            self.wait(async {
                self.pool
                    .get()
                    .await?
                    .execute(
                        "UPDATE games SET abandoned = $2, ended_unix_ms = $3,
                                version = (SELECT COUNT(*) FROM actions WHERE game_id = $1)
                          WHERE id = $1 AND ended_unix_ms IS NULL",
                        &[&game_id, &reason, &(at_ms as i64)],
                    )
                    .await?;
                Ok(())
            })
        })
    }
}

impl Requests for PostgresStore {
    fn requests_since(&self, since_ms: u64) -> Result<Vec<RequestRecord>, StoreError> {
        let rows = self.retry("reading request ids", |_| {
            self.wait(async {
                let client = self.pool.get().await?;
                client
                    .execute(
                        "DELETE FROM requests WHERE at_ms < $1",
                        &[&(since_ms as i64)],
                    )
                    .await?;
                Ok(client
                    .query(
                        "SELECT key, fingerprint, game_id, seat, started, at_ms FROM requests",
                        &[],
                    )
                    .await?)
            })
        })?;
        rows.iter().map(request_record).collect()
    }

    fn request(&self, key: &[u8; 32]) -> Result<Option<RequestRecord>, StoreError> {
        let row = self.retry("reading a request id", |_| {
            self.wait(async {
                Ok(self
                    .pool
                    .get()
                    .await?
                    .query_opt(
                        "SELECT key, fingerprint, game_id, seat, started, at_ms FROM requests
                          WHERE key = $1",
                        &[&key.as_slice()],
                    )
                    .await?)
            })
        })?;
        row.map(|r| request_record(&r)).transpose()
    }

    fn secret(&self) -> Result<[u8; 32], StoreError> {
        let stored = self.retry("reading the server secret", |_| {
            self.wait(async {
                let client = self.pool.get().await?;
                let select = "SELECT value FROM meta WHERE key = 'token_secret'";
                // Read first, so that a read-only database still starts.
                if let Some(row) = client.query_opt(select, &[]).await? {
                    return Ok(row.get::<_, Vec<u8>>(0));
                }
                // The first server stores a fresh secret; every later call reads it.
                let fresh: [u8; 32] = rand::random();
                client
                    .execute(
                        "INSERT INTO meta (key, value) VALUES ('token_secret', $1)
                         ON CONFLICT (key) DO NOTHING",
                        &[&fresh.as_slice()],
                    )
                    .await?;
                Ok(client.query_one(select, &[]).await?.get::<_, Vec<u8>>(0))
            })
        })?;
        bytes32(stored, "meta.token_secret")
    }
}

impl Lifecycle for PostgresStore {
    fn load_in_play(&self) -> Result<Vec<StoredGame>, StoreError> {
        self.retry("loading the games in play", |_| {
            self.wait(read::in_play(&self.pool))
        })
    }

    fn load_game(&self, game_id: &str) -> Result<Option<StoredGame>, StoreError> {
        self.retry("loading a game", |_| {
            self.wait(read::one(&self.pool, game_id))
        })
    }

    fn list_ended(&self, query: &EndedQuery) -> Result<Vec<pb::GameSummary>, StoreError> {
        self.retry("listing ended games", |_| {
            self.wait(read::ended_page(&self.pool, query))
        })
    }

    fn ended_ids(&self, after_id: &str, limit: usize) -> Result<Vec<String>, StoreError> {
        self.retry("listing ended games", |_| {
            self.wait(read::ended_ids(&self.pool, after_id, limit))
        })
    }

    fn delete_ended_before(&self, before_ms: u64, limit: usize) -> Result<usize, StoreError> {
        // Idempotent: a retry deletes what is left of the same old games.
        self.retry("deleting old games", |_| {
            self.wait(async {
                let mut client = self.pool.get().await?;
                let tx = client.transaction().await?;
                let ids: Vec<String> = tx
                    .query(
                        "SELECT id FROM games
                          WHERE ended_unix_ms IS NOT NULL AND ended_unix_ms < $1 LIMIT $2",
                        &[&(before_ms as i64), &(limit as i64)],
                    )
                    .await?
                    .into_iter()
                    .map(|r| r.get(0))
                    .collect();
                for table in ["requests", "actions", "seats", "leases"] {
                    tx.execute(
                        &format!("DELETE FROM {table} WHERE game_id = ANY($1)"),
                        &[&ids],
                    )
                    .await?;
                }
                tx.execute("DELETE FROM games WHERE id = ANY($1)", &[&ids])
                    .await?;
                tx.commit().await?;
                Ok(ids.len())
            })
        })
    }
}

impl Store for PostgresStore {
    fn is_durable(&self) -> bool {
        true
    }

    fn database_errors(&self) -> u64 {
        self.outage.errors()
    }
}

impl std::fmt::Debug for PostgresStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PostgresStore").finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_are_recognised_and_redacted() {
        assert!(is_url("postgres://u@h/db"));
        assert!(is_url("postgresql://h/db"));
        assert!(!is_url("druids-data/druids.db"));
        assert_eq!(
            redacted("postgres://druids:s3cret@db.example:5432/games"),
            "postgres://druids:***@db.example:5432/games"
        );
        assert_eq!(
            redacted("postgres://druids@db.example/games"),
            "postgres://druids@db.example/games"
        );
        assert_eq!(redacted("postgres://h/db?x=a@b"), "postgres://h/db?x=a@b");
    }

    #[test]
    fn a_conflict_is_a_database_error() {
        let e = retry::database("x", conflict("y"));
        assert!(matches!(e, StoreError::Database { .. }));
        let _: &dyn std::error::Error = &retry::Conflict("z".into());
    }
}
