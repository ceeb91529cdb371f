//! What a database did over a run: counters read before and after it
//! (PostgreSQL's statistics views, an SQLite file's size once checkpointed).

use std::time::Duration;

use druids_tests::postgres::PgCluster;

/// What a database did over a run.
#[derive(Clone, Copy, Default)]
pub(crate) struct DbDelta {
    /// Transactions committed (PostgreSQL).
    pub(crate) commits: Option<f64>,
    /// WAL flushes to disk (PostgreSQL).
    pub(crate) wal_syncs: Option<f64>,
    /// WAL bytes written (PostgreSQL).
    pub(crate) wal_bytes: Option<f64>,
    /// Growth of the stored database, bytes (SQLite: its file, the WAL
    /// checkpointed).
    pub(crate) growth: f64,
}

/// Counters of a PostgreSQL database, read with psql.
#[derive(Clone, Copy)]
pub(crate) struct PgCounters {
    pub(crate) commits: f64,
    pub(crate) wal_syncs: f64,
    pub(crate) wal_bytes: f64,
    pub(crate) size: f64,
}

pub(crate) fn pg_counters(pg: &PgCluster, url: &str) -> PgCounters {
    let db = PgCluster::db_name(url);
    let out = pg.sql(
        db,
        "SELECT (SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()), \
         (SELECT wal_sync FROM pg_stat_wal), \
         pg_current_wal_lsn() - '0/0'::pg_lsn, \
         pg_database_size(current_database())",
    );
    let v: Vec<f64> = out.split('|').map(|x| x.trim().parse().unwrap()).collect();
    PgCounters {
        commits: v[0],
        wal_syncs: v[1],
        wal_bytes: v[2],
        size: v[3],
    }
}

/// Backends report their statistics at most once a second (and when they
/// exit): wait that long before reading counters.
pub(crate) fn settle_stats() {
    std::thread::sleep(Duration::from_millis(1500));
}

impl PgCounters {
    pub(crate) fn since(self, before: PgCounters) -> DbDelta {
        DbDelta {
            commits: Some(self.commits - before.commits),
            wal_syncs: Some(self.wal_syncs - before.wal_syncs),
            wal_bytes: Some(self.wal_bytes - before.wal_bytes),
            growth: self.size - before.size,
        }
    }
}

/// Bytes of an SQLite database once its WAL is checkpointed into it (from a
/// connection of our own: the WAL file keeps its size when it is reused, so
/// only the database file tells how much is stored).
pub(crate) fn sqlite_bytes(path: &std::path::Path) -> f64 {
    let db = rusqlite::Connection::open(path).unwrap();
    db.busy_timeout(Duration::from_secs(10)).unwrap();
    db.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |_| Ok(()))
        .unwrap();
    drop(db);
    std::fs::metadata(path).map_or(0.0, |m| m.len() as f64)
}

/// How to read a database's counters before and after a run.
pub(crate) enum Probe<'a> {
    None,
    Sqlite(&'a std::path::Path),
    Postgres(&'a PgCluster, &'a str),
}

pub(crate) enum Before {
    None,
    Sqlite(f64),
    Postgres(PgCounters),
}

impl Probe<'_> {
    pub(crate) fn before(&self) -> Before {
        match self {
            Probe::None => Before::None,
            Probe::Sqlite(p) => Before::Sqlite(sqlite_bytes(p)),
            Probe::Postgres(pg, url) => {
                settle_stats();
                Before::Postgres(pg_counters(pg, url))
            }
        }
    }

    /// After the servers stopped (their connections closed).
    pub(crate) fn after(&self, before: Before) -> Option<DbDelta> {
        match (self, before) {
            (Probe::Sqlite(p), Before::Sqlite(b)) => Some(DbDelta {
                growth: sqlite_bytes(p) - b,
                ..DbDelta::default()
            }),
            (Probe::Postgres(pg, url), Before::Postgres(b)) => {
                settle_stats();
                Some(pg_counters(pg, url).since(b))
            }
            _ => None,
        }
    }
}
