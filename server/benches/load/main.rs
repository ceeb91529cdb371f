//! Load generator: N concurrent bot games against a server on loopback, in one
//! process, measuring RPCs per second and p50/p99 latencies, next to the
//! framework's ceiling measured the same way.
//!
//! (a) ceiling: the gRPC health `Check` (a trivial unary handler on the same
//!     tonic stack), N concurrent callers;
//! (b) druids-server, in-memory storage; (c) druids-server, SQLite with fsync
//!     per action; (d) druids-server, PostgreSQL with fsync per commit
//!     (`synchronous_commit = on`), on a private cluster started by the bench
//!     (`druids_tests::postgres::PgCluster`, as the tests do); (e) two nodes
//!     of a cluster (`--node-id`) on one PostgreSQL database, each on its own
//!     port, every call sent to a node picked at random, so that about half
//!     the calls are forwarded to the game's owner. A game's driver loops
//!     GetLegalActions + SubmitAction (2 RPCs per action) and a spectator
//!     stream per game measures event delivery (submit sent → its
//!     DecisionNeeded event received). Each driver's first
//!     game is set up (created, stream open, snapshot read) before the clock
//!     starts; games started later count their CreateGame and StreamEvents.
//! Latencies: of `Check` for (a), of `SubmitAction` for (b) to (e). CPU
//! µs/RPC is the process's CPU time (clients and server) per RPC, which other
//! work on the machine disturbs less than RPCs/s.
//! Every step of every game is bounded ([`STALL`]): a game that stops
//! progressing ends the bench with an error naming it and what it awaited.
//! Memory per game is measured by `benches/memory.rs`.
//!
//! For (c), (d) and (e) a second table gives what the database did per action
//! (SubmitAction acknowledged) over the timed run: on PostgreSQL, transactions
//! committed (`pg_stat_database.xact_commit`), WAL flushes
//! (`pg_stat_wal.wal_sync`), WAL bytes (`pg_current_wal_lsn()` delta) and the
//! database's growth (`pg_database_size`); on SQLite, the growth of the
//! database file, its WAL checkpointed before and after. Group commit makes
//! commits per action fall below 1 under load.
//!
//! Run: `cargo bench -p druids-server --bench load` (`LOAD_SECONDS`, default 3,
//! sets each run's length; `LOAD_GAMES`, default `1,10,100,1000`, the sizes;
//! `LOAD_SERVERS`, default `abc`, which servers: any of `abcde`). The tables
//! it prints go into BENCHMARKS.md.

use std::sync::Arc;
use std::time::{Duration, Instant};

use druids_server::{MemoryStore, Store};
use druids_store::postgres::PostgresStore;
use druids_store::{Sync, sqlite::SqliteStore};
use druids_tests::postgres::PgCluster;

mod database;
mod driver;
mod servers;

use database::{DbDelta, Probe};
use driver::{bounded, drive};
use servers::{Server, ceiling, channels, start, start_nodes};

/// The allocator `druids-server` runs with (its `main.rs`), for the bots and
/// the ceiling too: every row of the table gets the same one.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// How long each run lasts (`LOAD_SECONDS`, default 3).
pub(crate) fn seconds() -> Duration {
    Duration::from_secs_f64(
        std::env::var("LOAD_SECONDS")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(3.0),
    )
}

pub(crate) fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

/// What one run measured.
pub(crate) struct Run {
    pub(crate) rpcs: u64,
    /// Actions acknowledged (SubmitAction replies).
    pub(crate) actions: u64,
    pub(crate) secs: f64,
    /// CPU time the process (clients and server) used meanwhile, in seconds.
    pub(crate) cpu: f64,
    pub(crate) rpc_ms: Vec<f64>,
    pub(crate) event_ms: Vec<f64>,
    /// What the database did over the run, if measured.
    pub(crate) db: Option<DbDelta>,
    /// Calls forwarded between nodes (e).
    pub(crate) forwarded: u64,
}

/// `games` drivers against a fresh server over `store`: every first game is
/// set up (created, stream open, snapshot read) before the clock starts.
async fn druids(store: Arc<dyn Store>, games: usize, probe: Probe<'_>) -> Run {
    let server = start(store).await;
    play(vec![server], games, probe).await
}

/// `games` drivers against `servers` (every call to one picked at random).
async fn play(servers: Vec<Server>, games: usize, probe: Probe<'_>) -> Run {
    let mut chans = Vec::new();
    for s in &servers {
        chans.push(channels(&s.url, games).await);
    }
    let ready = Arc::new(tokio::sync::Barrier::new(games + 1));
    let (go, wait) = tokio::sync::watch::channel(None);
    let tasks: Vec<_> = (0..games)
        .map(|i| {
            let chan = chans.iter().map(|c| c[i / 16].clone()).collect();
            tokio::spawn(drive(chan, i as u64 + 1, Arc::clone(&ready), wait.clone()))
        })
        .collect();
    bounded(ready.wait(), || format!("setting up {games} games")).await;
    let before = tokio::task::block_in_place(|| probe.before());
    let started = Instant::now();
    let cpu = cpu_seconds();
    go.send_replace(Some(started + seconds()));
    let (mut rpcs, mut rpc_ms, mut event_ms) = (0, Vec::new(), Vec::new());
    for t in tasks {
        let d = t.await.unwrap();
        rpcs += d.rpcs;
        rpc_ms.extend(d.submit_ms);
        event_ms.extend(d.event_ms);
    }
    let secs = started.elapsed().as_secs_f64();
    let cpu = cpu_seconds() - cpu;
    drop(chans);
    let forwarded = servers.iter().map(Server::forwarded).sum();
    for s in servers {
        s.stop().await;
    }
    let db = tokio::task::block_in_place(|| probe.after(before));
    Run {
        rpcs,
        actions: rpc_ms.len() as u64,
        secs,
        cpu,
        rpc_ms,
        event_ms,
        db,
        forwarded,
    }
}

/// CPU time used by this process so far (user + system, every thread), in
/// seconds.
pub(crate) fn cpu_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    // The fields after the command name, which is in parentheses.
    let fields: Vec<&str> = stat
        .rsplit_once(')')
        .map(|(_, rest)| rest.split_whitespace().collect())
        .unwrap_or_default();
    // utime and stime, in clock ticks (100 per second on Linux).
    let ticks: u64 = [11, 12]
        .iter()
        .filter_map(|&i| fields.get(i)?.parse::<u64>().ok())
        .sum();
    ticks as f64 / 100.0
}

/// The run of median RPCs/s.
fn median(runs: &mut [Run]) -> Option<&mut Run> {
    runs.sort_by(|x, y| (x.rpcs as f64 / x.secs).total_cmp(&(y.rpcs as f64 / y.secs)));
    let mid = runs.len() / 2;
    runs.get_mut(mid)
}

fn row(name: &str, n: usize, run: &mut Run, ceiling: f64) {
    run.rpc_ms.sort_by(f64::total_cmp);
    run.event_ms.sort_by(f64::total_cmp);
    let rate = run.rpcs as f64 / run.secs;
    let ms = |sorted: &[f64], p: f64| match percentile(sorted, p) {
        x if x.is_nan() => "–".to_owned(),
        x => format!("{x:.2}"),
    };
    println!(
        "| {name} | {n} | {rate:.0} | {:.2} | {:.1} | {} | {} | {} | {} |",
        rate / ceiling,
        run.cpu * 1e6 / run.rpcs as f64,
        ms(&run.rpc_ms, 0.5),
        ms(&run.rpc_ms, 0.99),
        ms(&run.event_ms, 0.5),
        ms(&run.event_ms, 0.99),
    );
}

/// A row of the database table: what the database did per action.
fn db_row(name: &str, n: usize, run: &Run) -> String {
    let per = |x: Option<f64>, digits: usize| match x {
        Some(x) if run.actions > 0 => format!("{:.*}", digits, x / run.actions as f64),
        _ => "–".to_owned(),
    };
    let db = run.db.unwrap_or_default();
    let forwarded = if run.forwarded > 0 {
        format!("{:.0} %", 100.0 * run.forwarded as f64 / run.rpcs as f64)
    } else {
        "–".to_owned()
    };
    format!(
        "| {name} | {n} | {:.0} | {} | {} | {} | {} | {forwarded} |",
        run.actions as f64 / run.secs,
        per(db.commits, 3),
        per(db.wal_syncs, 3),
        per(db.wal_bytes, 0),
        per(Some(db.growth), 0),
    )
}

fn main() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let dir = std::env::temp_dir().join(format!("druids-load-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    // Which servers to run (`LOAD_SERVERS`, default `abc`; e.g. `b` to profile one).
    let servers = std::env::var("LOAD_SERVERS").unwrap_or_else(|_| "abc".into());
    println!(
        "| server | concurrent games (callers) | RPCs/s | vs (a) | CPU µs/RPC | call p50 ms | call p99 ms | event p50 ms | event p99 ms |"
    );
    println!("|---|---|---|---|---|---|---|---|---|");
    let sizes: Vec<usize> = std::env::var("LOAD_GAMES")
        .unwrap_or_else(|_| "1,10,100,1000".into())
        .split(',')
        .filter_map(|s| s.trim().parse().ok())
        .collect();
    // Each size is run `LOAD_REPEAT` times (default 3), the servers taking
    // turns so that other work on the machine hits them alike; each server's
    // row is its run of median RPCs/s.
    let repeat: usize = std::env::var("LOAD_REPEAT")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(3)
        .max(1);
    // A private PostgreSQL for (d) and (e), stopped when the bench exits.
    let pg = (servers.contains('d') || servers.contains('e')).then(PgCluster::shared);
    let mut db_rows = Vec::new();
    for n in sizes {
        let (mut a, mut b, mut c) = (Vec::new(), Vec::new(), Vec::new());
        let (mut d, mut e) = (Vec::new(), Vec::new());
        for r in 0..repeat {
            if servers.contains('a') {
                a.push(rt.block_on(ceiling(n)));
            }
            if servers.contains('b') {
                b.push(rt.block_on(druids(Arc::new(MemoryStore::default()), n, Probe::None)));
            }
            if servers.contains('c') {
                let path = dir.join(format!("{n}-{r}.db"));
                let store = SqliteStore::open(&path, Sync::Full).unwrap();
                c.push(rt.block_on(druids(Arc::new(store), n, Probe::Sqlite(&path))));
            }
            if let (true, Some(pg)) = (servers.contains('d'), pg) {
                let url = pg.database(&format!("load_d_{n}_{r}"));
                let store = PostgresStore::open(&url, Sync::Full).unwrap();
                d.push(rt.block_on(druids(Arc::new(store), n, Probe::Postgres(pg, &url))));
            }
            if let (true, Some(pg)) = (servers.contains('e'), pg) {
                let url = pg.database(&format!("load_e_{n}_{r}"));
                e.push(rt.block_on(async {
                    let nodes = start_nodes(&url, 2).await;
                    play(nodes, n, Probe::Postgres(pg, &url)).await
                }));
            }
        }
        let ceiling_rate = median(&mut a).map_or(f64::NAN, |a| {
            let rate = a.rpcs as f64 / a.secs;
            row("(a) tonic ceiling (health Check)", n, a, rate);
            rate
        });
        if let Some(b) = median(&mut b) {
            row("(b) druids, in memory", n, b, ceiling_rate);
        }
        if let Some(c) = median(&mut c) {
            let name = "(c) druids, SQLite fsync per action";
            row(name, n, c, ceiling_rate);
            db_rows.push(db_row(name, n, c));
        }
        if let Some(d) = median(&mut d) {
            let name = "(d) druids, PostgreSQL fsync per commit";
            row(name, n, d, ceiling_rate);
            db_rows.push(db_row(name, n, d));
        }
        if let Some(e) = median(&mut e) {
            let name = "(e) two druids nodes, one PostgreSQL";
            row(name, n, e, ceiling_rate);
            db_rows.push(db_row(name, n, e));
        }
    }
    if !db_rows.is_empty() {
        println!();
        println!(
            "| server | concurrent games | actions/s | commits/action | WAL flushes/action | WAL bytes/action | stored bytes/action | calls forwarded |"
        );
        println!("|---|---|---|---|---|---|---|---|");
        for r in db_rows {
            println!("{r}");
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}
