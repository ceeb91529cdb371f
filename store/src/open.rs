//! Which store `--db` (`DRUIDS_DB`) names: a `postgres://` or `postgresql://`
//! URL is a PostgreSQL database ([`crate::postgres`]), anything else the path
//! of a SQLite file ([`crate::sqlite`]); and how hard their commits wait for
//! the disk ([`Sync`]). Kept here so that the server, tests and tools open
//! stores the same way.

use std::path::Path;
use std::sync::Arc;

use crate::postgres::{self, PostgresStore};
use crate::sqlite::SqliteStore;
use crate::{Store, StoreError};

/// How hard each commit waits for the disk.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
pub enum Sync {
    /// fsync every commit: nothing acknowledged is lost, even on power loss.
    Full,
    /// fsync at checkpoints only: survives a crashed or killed server, not a power cut.
    Normal,
}

/// Opens the store `db` names, creating it (or its schema) if needed.
pub fn open(db: &Path, sync: Sync) -> Result<Arc<dyn Store>, StoreError> {
    match db.to_str().filter(|s| postgres::is_url(s)) {
        Some(url) => Ok(Arc::new(PostgresStore::open(url, sync)?)),
        None => Ok(Arc::new(SqliteStore::open(db, sync)?)),
    }
}

/// `db` as logs may show it: a URL without its password.
pub fn describe(db: &Path) -> String {
    match db.to_str().filter(|s| postgres::is_url(s)) {
        Some(url) => postgres::redacted(url),
        None => db.display().to_string(),
    }
}
