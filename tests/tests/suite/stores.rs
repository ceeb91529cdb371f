//! The durable stores the persistence tests run against, SQLite and
//! PostgreSQL, so each such test is written once: [`on_each_store!`] makes one
//! `#[tokio::test]` per store of an `async fn(Backend)`, and [`TestDb`] is one
//! test's database, opened again for each restart.

use std::path::PathBuf;
use std::sync::Arc;

use druids_server::Store;
use druids_server::postgres::PostgresStore;
use druids_server::sqlite::{SqliteStore, Sync};
use druids_tests::postgres::PgCluster;

/// A kind of durable store.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    /// A SQLite file in a temporary folder.
    Sqlite,
    /// A database of its own in the test binary's PostgreSQL cluster.
    Postgres,
}

/// One test's database; removed when dropped.
pub struct TestDb {
    backend: Backend,
    /// SQLite: the file; PostgreSQL: the URL.
    location: String,
}

impl TestDb {
    /// A new, empty database named after `name`.
    pub fn new(backend: Backend, name: &str) -> TestDb {
        let location = match backend {
            Backend::Sqlite => {
                let dir = std::env::temp_dir()
                    .join(format!("druids-store-{name}-{}", std::process::id()));
                let _ = std::fs::remove_dir_all(&dir);
                std::fs::create_dir_all(&dir).unwrap();
                dir.join("games.db").display().to_string()
            }
            Backend::Postgres => PgCluster::shared().database(name),
        };
        TestDb { backend, location }
    }

    /// A store on this database, as a server starting on it opens it.
    pub fn open(&self) -> Arc<dyn Store> {
        match self.backend {
            Backend::Sqlite => Arc::new(self.sqlite()),
            Backend::Postgres => Arc::new(self.postgres()),
        }
    }

    /// The SQLite store (panics for PostgreSQL).
    pub fn sqlite(&self) -> SqliteStore {
        assert_eq!(self.backend, Backend::Sqlite);
        SqliteStore::open(&PathBuf::from(&self.location), Sync::Normal).unwrap()
    }

    /// The PostgreSQL store (panics for SQLite); commits wait for the disk.
    pub fn postgres(&self) -> PostgresStore {
        assert_eq!(self.backend, Backend::Postgres);
        PostgresStore::open(&self.location, Sync::Full).unwrap()
    }

    /// PostgreSQL: the database's name.
    pub fn pg_name(&self) -> &str {
        PgCluster::db_name(&self.location)
    }
}

impl Drop for TestDb {
    fn drop(&mut self) {
        match self.backend {
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

/// `on_each_store!(f, g)`: for each `async fn f(Backend)`, a module `f` with
/// the tests `f::sqlite` and `f::postgres`.
macro_rules! on_each_store {
    ($($test:ident),* $(,)?) => {$(
        mod $test {
            #[tokio::test]
            async fn sqlite() {
                super::$test($crate::stores::Backend::Sqlite).await
            }

            #[tokio::test]
            async fn postgres() {
                super::$test($crate::stores::Backend::Postgres).await
            }
        }
    )*};
}
pub(crate) use on_each_store;
