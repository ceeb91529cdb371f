//! The stores' conformance suite: every concern of `druids-store`
//! ([`druids_store::Games`], [`druids_store::Lifecycle`], the arena's
//! accounts, matches, tournaments and event logs) checked the same way on
//! each backend: in memory, a SQLite file and a real PostgreSQL database.
//! [`on_every_store!`] makes one `#[tokio::test]` per backend of an
//! `async fn(Backend)`; [`TestDb`] is one test's database, opened again for
//! each "restart" (the memory store is the same store again: it has nothing
//! to lose, so what a restart must keep it keeps trivially).
//!
//! The durable stores are also what the server-level persistence tests run
//! against: [`on_each_store!`] makes their tests for SQLite and PostgreSQL.

use std::path::PathBuf;
use std::sync::Arc;

use druids_contract::engine::Seat;
use druids_contract::pb;
use druids_store::postgres::PostgresStore;
use druids_store::sqlite::SqliteStore;
use druids_store::{
    ActionRecord, BotRecord, Epoch, GameRecord, MatchRecord, MemoryStore, Origin, Store,
    StoreError, Sync, TokenHash,
};
use druids_tests::postgres::PgCluster;

mod accounts;
mod event_logs;
mod games;
mod lifecycle;
mod matches;
mod tournaments;

/// A kind of store.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    /// The store of a server without a database.
    Memory,
    /// A SQLite file in a temporary folder.
    Sqlite,
    /// A database of its own in the test binary's PostgreSQL cluster.
    Postgres,
}

/// One test's database; removed when dropped.
pub struct TestDb {
    backend: Backend,
    /// SQLite: the file; PostgreSQL: the URL; memory: nothing.
    location: String,
    /// The memory store, "opened again" as itself.
    memory: Option<Arc<MemoryStore>>,
}

impl TestDb {
    /// A new, empty database named after `name`.
    pub fn new(backend: Backend, name: &str) -> TestDb {
        let location = match backend {
            Backend::Memory => String::new(),
            Backend::Sqlite => {
                let dir = std::env::temp_dir()
                    .join(format!("druids-store-{name}-{}", std::process::id()));
                let _ = std::fs::remove_dir_all(&dir);
                std::fs::create_dir_all(&dir).unwrap();
                dir.join("games.db").display().to_string()
            }
            Backend::Postgres => PgCluster::shared().database(name),
        };
        let memory = (backend == Backend::Memory).then(|| Arc::new(MemoryStore::default()));
        TestDb {
            backend,
            location,
            memory,
        }
    }

    /// A store on this database, as a server starting on it opens it.
    pub fn open(&self) -> Arc<dyn Store> {
        match self.backend {
            Backend::Memory => Arc::clone(self.memory.as_ref().expect("a memory store")) as _,
            Backend::Sqlite => Arc::new(self.sqlite()),
            Backend::Postgres => Arc::new(self.postgres()),
        }
    }

    /// The SQLite store (panics for the others).
    pub fn sqlite(&self) -> SqliteStore {
        assert_eq!(self.backend, Backend::Sqlite);
        SqliteStore::open(&PathBuf::from(&self.location), Sync::Normal).unwrap()
    }

    /// The SQLite file (panics for the others).
    pub fn sqlite_path(&self) -> PathBuf {
        assert_eq!(self.backend, Backend::Sqlite);
        PathBuf::from(&self.location)
    }

    /// The PostgreSQL store (panics for the others); commits wait for the disk.
    pub fn postgres(&self) -> PostgresStore {
        assert_eq!(self.backend, Backend::Postgres);
        PostgresStore::open(&self.location, Sync::Full).unwrap()
    }

    /// What `druids-server --db` takes for it: the SQLite file or the
    /// PostgreSQL URL (panics for memory).
    pub fn db_arg(&self) -> &str {
        assert_ne!(self.backend, Backend::Memory);
        &self.location
    }

    /// PostgreSQL: the database's URL.
    pub fn pg_url(&self) -> &str {
        assert_eq!(self.backend, Backend::Postgres);
        &self.location
    }

    /// PostgreSQL: the database's name.
    pub fn pg_name(&self) -> &str {
        PgCluster::db_name(&self.location)
    }
}

impl Drop for TestDb {
    fn drop(&mut self) {
        match self.backend {
            Backend::Memory => {}
            Backend::Sqlite => {
                if let Some(dir) = PathBuf::from(&self.location).parent() {
                    let _ = std::fs::remove_dir_all(dir);
                }
            }
            Backend::Postgres => {
                let name = self.pg_name().to_owned();
                // Best effort: the cluster goes when the tests end anyway.
                let _ = std::panic::catch_unwind(|| {
                    PgCluster::shared().sql(
                        "postgres",
                        &format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"),
                    )
                });
            }
        }
    }
}

/// `tests_on!([memory = Memory, …] f, g)`: for each `async fn f(Backend)`,
/// a module `f` with one `#[tokio::test]` per backend named.
macro_rules! tests_on {
    ($backends:tt $($test:ident),* $(,)?) => {$(
        $crate::stores::tests_on!(@one $backends $test);
    )*};
    (@one [$($backend:ident = $variant:ident),*] $test:ident) => {
        mod $test {$(
            #[tokio::test]
            async fn $backend() {
                super::$test($crate::stores::Backend::$variant).await
            }
        )*}
    };
}
pub(crate) use tests_on;

/// `on_each_store!(f, g)`: for each `async fn f(Backend)`, a module `f` with
/// the tests `f::sqlite` and `f::postgres` (the durable stores).
macro_rules! on_each_store {
    ($($test:tt)*) => {
        $crate::stores::tests_on!([sqlite = Sqlite, postgres = Postgres] $($test)*);
    };
}
pub(crate) use on_each_store;

/// `on_each_store_threaded!(f, g)`: as [`on_each_store!`], on a runtime of
/// four worker threads (tests whose bots play as tasks beside the server).
macro_rules! on_each_store_threaded {
    ($($test:ident),* $(,)?) => {$(
        mod $test {
            #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
            async fn sqlite() {
                super::$test($crate::stores::Backend::Sqlite).await
            }
            #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
            async fn postgres() {
                super::$test($crate::stores::Backend::Postgres).await
            }
        }
    )*};
}
pub(crate) use on_each_store_threaded;

/// `on_every_store!(f, g)`: for each `async fn f(Backend)`, a module `f` with
/// the tests `f::memory`, `f::sqlite` and `f::postgres`.
macro_rules! on_every_store {
    ($($test:tt)*) => {
        $crate::stores::tests_on!(
            [memory = Memory, sqlite = Sqlite, postgres = Postgres] $($test)*
        );
    };
}
pub(crate) use on_every_store;

/// Whether `result` is a refused write (nothing changed).
pub fn refused<T: std::fmt::Debug>(result: Result<T, StoreError>) -> bool {
    matches!(result, Err(StoreError::Database { .. }))
}

/// A two-player Meduris game `id` created at `created`, `seats` of them
/// claimed at creation.
pub fn game(id: &str, created: u64, seats: usize) -> GameRecord {
    GameRecord {
        id: id.to_owned(),
        kind: druids_contract::Kind::Meduris,
        players: 2,
        seed: u64::MAX - created,
        seed_chosen: true,
        request: None,
        options: pb::GameOptions::default(),
        created_unix_ms: created,
        seats: (0..seats)
            .map(|s| (Seat(s as u8), format!("p{s}"), TokenHash([s as u8; 32])))
            .collect(),
    }
}

/// The action of seat 0 that makes `version`.
pub fn action(version: u64) -> ActionRecord {
    ActionRecord {
        version,
        seat: Seat(0),
        origin: Origin::Seat,
        action: pb::Action::default(),
        key: None,
        epoch: Epoch::NONE,
        at_ms: 0,
    }
}

/// A bot registered with a key hash of bytes `key`.
pub fn bot(id: &str, name: &str, key: u8) -> BotRecord {
    BotRecord {
        id: id.to_owned(),
        name: name.to_owned(),
        description: format!("{name}, a bot"),
        owner_contact: format!("{name}@example.org"),
        key_hash: TokenHash([key; 32]),
        // The same instant for all: the order is registration's, not time's.
        registered_unix_ms: 1_700_000_000_000,
        revoked_unix_ms: None,
    }
}

/// A match of `games` games between `bots` (rated if its id ends in `r`).
pub fn record(id: &str, bots: &[&str], games: u32) -> MatchRecord {
    MatchRecord {
        id: id.to_owned(),
        kind: druids_contract::Kind::Meduris,
        rated: id.ends_with('r'),
        seed: u64::MAX - games as u64,
        options: pb::GameOptions {
            decision_ms: Some(2_500),
            ..Default::default()
        },
        bots: bots.iter().map(|b| (*b).to_owned()).collect(),
        games,
        created_unix_ms: 1_700_000_001_000,
        tournament: None,
    }
}
