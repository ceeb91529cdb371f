//! Retrying what a lost connection interrupted, and turning what cannot be
//! retried into [`StoreError`]s.
//!
//! A connection that breaks (the database restarted, a proxy dropped it, the
//! network blinked) fails a call with no SQLSTATE or with one of class 08; so
//! does a database still starting or shutting down (57P0x). Those are tried
//! again, on a fresh connection, with doubling pauses, for a few seconds.
//! Anything else, a refused write above all (read-only database, full disk,
//! constraint violated), fails at once: the server answers `UNAVAILABLE` and
//! nothing was changed.
//!
//! An operator reads an outage as two lines, not one per retry: "database
//! lost" at the first failure that is retried, "database back" (with how long
//! it lasted) at the next success ([`Outage`]); the retries themselves are
//! logged at debug level. Every failed attempt is counted
//! ([`crate::Store::database_errors`]), for the operator's metrics.

use std::time::Duration;

use tokio_postgres::error::SqlState;

use super::PostgresStore;
use crate::StoreError;

/// Pauses between attempts: 50 ms doubling, about 6 s of waiting in all.
const PAUSES: [u64; 7] = [50, 100, 200, 400, 800, 1600, 3200];

/// Why one attempt failed.
#[derive(Debug)]
pub(super) enum Failure {
    /// The database or the connection to it.
    Pg(tokio_postgres::Error),
    /// No connection could be had from the pool.
    Pool(deadpool_postgres::PoolError),
    /// Setting the store up.
    Io(std::io::Error),
    /// What the database holds contradicts what a retry was writing.
    Conflict(Conflict),
    /// Anything else, described.
    Other(String),
    /// A stored value that does not decode.
    Store(StoreError),
}

/// A retried write found a different row where its own should be.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct Conflict(pub String);

/// A [`Failure::Conflict`].
pub(super) fn conflict(what: &str) -> Failure {
    Failure::Conflict(Conflict(what.to_owned()))
}

impl From<tokio_postgres::Error> for Failure {
    fn from(e: tokio_postgres::Error) -> Self {
        Failure::Pg(e)
    }
}

impl From<deadpool_postgres::PoolError> for Failure {
    fn from(e: deadpool_postgres::PoolError) -> Self {
        Failure::Pool(e)
    }
}

impl From<StoreError> for Failure {
    fn from(e: StoreError) -> Self {
        Failure::Store(e)
    }
}

/// Whether `e` broke the connection (or found the database not ready) rather
/// than being the database's answer to the statement.
pub(super) fn transient(e: &tokio_postgres::Error) -> bool {
    if e.is_closed() {
        return true;
    }
    match e.code() {
        None => true,
        Some(code) => {
            code.code().starts_with("08")
                || [
                    SqlState::ADMIN_SHUTDOWN,
                    SqlState::CRASH_SHUTDOWN,
                    SqlState::CANNOT_CONNECT_NOW,
                    SqlState::T_R_SERIALIZATION_FAILURE,
                    SqlState::T_R_DEADLOCK_DETECTED,
                ]
                .contains(code)
        }
    }
}

impl Failure {
    /// Whether another attempt may succeed.
    fn transient(&self) -> bool {
        match self {
            Failure::Pg(e) => transient(e),
            Failure::Pool(deadpool_postgres::PoolError::Backend(e)) => transient(e),
            Failure::Pool(deadpool_postgres::PoolError::Timeout(_)) => true,
            _ => false,
        }
    }
}

/// The [`StoreError`] for `failure` while doing `op`.
pub(super) fn database(op: &'static str, failure: Failure) -> StoreError {
    let source: std::sync::Arc<dyn std::error::Error + Send + Sync> = match failure {
        Failure::Store(e) => return e,
        Failure::Pg(e) => match fenced_epoch(&e) {
            // The arena's lease moved on: this node no longer does its work.
            Some(epoch) => {
                return StoreError::Fenced {
                    game_id: "(the arena)".into(),
                    epoch,
                };
            }
            None => std::sync::Arc::new(PgError(e)),
        },
        Failure::Pool(deadpool_postgres::PoolError::Backend(e)) => std::sync::Arc::new(PgError(e)),
        Failure::Pool(e) => std::sync::Arc::new(e),
        Failure::Io(e) => std::sync::Arc::new(e),
        Failure::Conflict(e) => std::sync::Arc::new(e),
        Failure::Other(e) => std::sync::Arc::new(Conflict(e)),
    };
    StoreError::Database { op, source }
}

/// A PostgreSQL error that says which refusal it was: tokio-postgres words
/// every error the database answered as just "db error". The SQLSTATE (e.g.
/// 25006, a read-only transaction; 53100, a full disk; 55P03, a lock timeout)
/// names the reason; the database's message is left out, since it can name
/// the server's own files, users and relations and this text reaches clients.
#[derive(Debug)]
struct PgError(tokio_postgres::Error);

impl std::fmt::Display for PgError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.0.code() {
            Some(code) => write!(f, "{} (SQLSTATE {})", self.0, code.code()),
            None => self.0.fmt(f),
        }
    }
}

impl std::error::Error for PgError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.0)
    }
}

/// Since when the database has been out of reach, if it is, and how many
/// attempts the database or the connection to it failed.
#[derive(Default)]
pub(super) struct Outage {
    since: std::sync::Mutex<Option<std::time::Instant>>,
    errors: std::sync::atomic::AtomicU64,
}

impl Outage {
    fn since(&self) -> std::sync::MutexGuard<'_, Option<std::time::Instant>> {
        self.since.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Counts `failure` if the database or the connection to it failed (a
    /// fenced write is the database's answer, counted by the server).
    fn count(&self, failure: &Failure) {
        let counted = match failure {
            Failure::Pg(e) => fenced_epoch(e).is_none(),
            Failure::Pool(_) | Failure::Io(_) => true,
            Failure::Conflict(_) | Failure::Other(_) | Failure::Store(_) => false,
        };
        if counted {
            self.errors
                .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        }
    }

    /// Attempts the database or the connection to it failed so far.
    pub(super) fn errors(&self) -> u64 {
        self.errors.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// A retried failure: the first of an outage is logged.
    fn failed(&self, op: &str, e: &Failure) {
        let mut since = self.since();
        if since.is_none() {
            *since = Some(std::time::Instant::now());
            tracing::warn!("PostgreSQL: database lost ({op}: {e:?}); retrying");
        }
    }

    /// A success: the end of an outage is logged, with its length.
    fn answered(&self) {
        if let Some(started) = self.since().take() {
            tracing::warn!(
                "PostgreSQL: database back after {:.1} s",
                started.elapsed().as_secs_f64()
            );
        }
    }
}

impl PostgresStore {
    /// Calls `attempt` until it succeeds, fails for good, or the pauses run
    /// out; `attempt` is told whether an earlier attempt may have committed.
    pub(super) fn retry<T>(
        &self,
        op: &'static str,
        mut attempt: impl FnMut(bool) -> Result<T, Failure>,
    ) -> Result<T, StoreError> {
        let mut pauses = PAUSES.iter();
        let mut retrying = false;
        loop {
            match attempt(retrying) {
                Ok(out) => {
                    self.outage.answered();
                    return Ok(out);
                }
                Err(e) => {
                    self.outage.count(&e);
                    match pauses.next() {
                        Some(&pause) if e.transient() => {
                            self.outage.failed(op, &e);
                            tracing::debug!("PostgreSQL: {op}: {e:?}; trying again in {pause} ms");
                            std::thread::sleep(Duration::from_millis(pause));
                            retrying = true;
                        }
                        _ => return Err(database(op, e)),
                    }
                }
            }
        }
    }
}

/// The SQLSTATE of a write refused by the arena's fence.
pub(super) const FENCED: &str = "DRA01";

/// Whether `e` is a write refused by the arena's fence; then the epoch the
/// write was made under.
pub(super) fn fenced_epoch(e: &tokio_postgres::Error) -> Option<u64> {
    let db = e.as_db_error()?;
    if *db.code() != SqlState::from_code(FENCED) {
        return None;
    }
    Some(
        db.message()
            .rsplit(':')
            .next()
            .and_then(|n| n.trim().parse().ok())
            .unwrap_or(0),
    )
}
