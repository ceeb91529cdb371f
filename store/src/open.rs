//! Which store `--db` (`DRUIDS_DB`) names: a `postgres://` or `postgresql://`
//! URL is a PostgreSQL database ([`crate::postgres`]), anything else the path
//! of a SQLite file ([`crate::sqlite`]). Kept apart from `main.rs` so that
//! tests and tools open stores the way the server does.

use std::path::Path;
use std::sync::Arc;

use crate::postgres::{self, PostgresStore};
use crate::sqlite::{SqliteStore, Sync};
use crate::store::{Store, StoreError};

/// Opens the store `db` names, creating it (or its schema) if needed.
pub fn open_store(db: &Path, sync: Sync) -> Result<Arc<dyn Store>, StoreError> {
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
