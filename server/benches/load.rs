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

use druids_contract::pb;
use druids_contract::pb::druids_service_client::DruidsServiceClient;
use druids_server::{Limits, MemoryStore, Service, Store, SystemClock};
use druids_store::postgres::PostgresStore;
use druids_store::{Sync, sqlite::SqliteStore};
use druids_tests::postgres::PgCluster;
use tonic::Request;
use tonic::transport::Channel;

/// The allocator `druids-server` runs with (its `main.rs`), for the bots and
/// the ceiling too: every row of the table gets the same one.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn seconds() -> Duration {
    Duration::from_secs_f64(
        std::env::var("LOAD_SECONDS")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(3.0),
    )
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

struct Run {
    rpcs: u64,
    /// Actions acknowledged (SubmitAction replies).
    actions: u64,
    secs: f64,
    /// CPU time the process (clients and server) used meanwhile, in seconds.
    cpu: f64,
    rpc_ms: Vec<f64>,
    event_ms: Vec<f64>,
    /// What the database did over the run, if measured.
    db: Option<DbDelta>,
    /// Calls forwarded between nodes (e).
    forwarded: u64,
}

/// What a database did over a run.
#[derive(Clone, Copy, Default)]
struct DbDelta {
    /// Transactions committed (PostgreSQL).
    commits: Option<f64>,
    /// WAL flushes to disk (PostgreSQL).
    wal_syncs: Option<f64>,
    /// WAL bytes written (PostgreSQL).
    wal_bytes: Option<f64>,
    /// Growth of the stored database, bytes (SQLite: its file, the WAL
    /// checkpointed).
    growth: f64,
}

/// Counters of a PostgreSQL database, read with psql.
#[derive(Clone, Copy)]
struct PgCounters {
    commits: f64,
    wal_syncs: f64,
    wal_bytes: f64,
    size: f64,
}

fn pg_counters(pg: &PgCluster, url: &str) -> PgCounters {
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
fn settle_stats() {
    std::thread::sleep(Duration::from_millis(1500));
}

impl PgCounters {
    fn since(self, before: PgCounters) -> DbDelta {
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
fn sqlite_bytes(path: &std::path::Path) -> f64 {
    let db = rusqlite::Connection::open(path).unwrap();
    db.busy_timeout(Duration::from_secs(10)).unwrap();
    db.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |_| Ok(()))
        .unwrap();
    drop(db);
    std::fs::metadata(path).map_or(0.0, |m| m.len() as f64)
}

/// How to read a database's counters before and after a run.
enum Probe<'a> {
    None,
    Sqlite(&'a std::path::Path),
    Postgres(&'a PgCluster, &'a str),
}

enum Before {
    None,
    Sqlite(f64),
    Postgres(PgCounters),
}

impl Probe<'_> {
    fn before(&self) -> Before {
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
    fn after(&self, before: Before) -> Option<DbDelta> {
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

/// A server on loopback, for one run.
struct Server {
    url: String,
    service: Arc<Service>,
    stop: tokio::sync::oneshot::Sender<()>,
    task: tokio::task::JoinHandle<Result<(), druids_server::ServeError>>,
}

fn limits() -> Limits {
    Limits {
        max_spectator_streams_per_game: 1_000_000,
        max_streams_per_address: 1_000_000,
        max_open_streams: 1_000_000,
        max_calls_per_connection: 100_000,
        ..Limits::unthrottled()
    }
}

async fn start(store: Arc<dyn Store>) -> Server {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let service = Arc::new(Service::new(store, limits(), Arc::new(SystemClock)).unwrap());
    serve(listener, service)
}

fn serve(listener: tokio::net::TcpListener, service: Arc<Service>) -> Server {
    let url = format!("http://{}", listener.local_addr().unwrap());
    let (stop, stopped) = tokio::sync::oneshot::channel();
    let task = tokio::spawn(druids_server::serve_service(
        listener,
        Arc::clone(&service),
        None,
        async move {
            let _ = stopped.await;
        },
    ));
    Server {
        url,
        service,
        stop,
        task,
    }
}

/// `nodes` nodes of a cluster on the PostgreSQL database `db`, each with a
/// store (a pool) of its own, as separate processes would have, set up as
/// `druids-server --node-id` does (`start_node`, `spawn_upkeep`).
async fn start_nodes(db: &str, nodes: usize) -> Vec<Server> {
    let mut out = Vec::new();
    for i in 0..nodes {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let node = druids_server::cluster::NodeConfig {
            id: format!("node-{i}"),
            advertise: format!("http://{}", listener.local_addr().unwrap()),
            lease_ms: druids_server::cluster::DEFAULT_LEASE_SECS * 1000,
        };
        let db = db.to_owned();
        let service = tokio::task::spawn_blocking(move || {
            let store = Arc::new(PostgresStore::open(&db, Sync::Full).unwrap());
            druids_server::start_node(store, node, limits()).unwrap()
        })
        .await
        .unwrap();
        druids_server::spawn_upkeep(&service);
        out.push(serve(listener, service));
    }
    out
}

impl Server {
    /// Shuts the server down (its games go with it), so that no run's server
    /// keeps working while the next run is measured.
    async fn stop(self) {
        let _ = self.stop.send(());
        bounded(self.task, || "stopping the server".into())
            .await
            .unwrap()
            .unwrap();
        druids_server::release_leases(&self.service).await;
    }

    /// Calls this node forwarded to the owners of their games.
    fn forwarded(&self) -> u64 {
        self.service
            .cluster()
            .map_or(0, |c| c.metrics().forwarded.get())
    }
}

/// Connections shared by the callers (HTTP/2 multiplexes; one per 16 callers).
async fn channels(url: &str, callers: usize) -> Vec<Channel> {
    let mut out = Vec::new();
    for _ in 0..callers.div_ceil(16) {
        out.push(
            tonic::transport::Endpoint::from_shared(url.to_owned())
                .unwrap()
                .connect()
                .await
                .unwrap(),
        );
    }
    out
}

async fn ceiling(callers: usize) -> Run {
    let server = start(Arc::new(MemoryStore::default())).await;
    let chans = channels(&server.url, callers).await;
    let deadline = Instant::now() + seconds();
    let started = Instant::now();
    let cpu = cpu_seconds();
    let mut tasks = Vec::new();
    for i in 0..callers {
        let mut health = tonic_health::pb::health_client::HealthClient::new(chans[i / 16].clone());
        tasks.push(tokio::spawn(async move {
            let mut lat = Vec::new();
            while Instant::now() < deadline {
                let t = Instant::now();
                bounded(
                    health.check(tonic_health::pb::HealthCheckRequest {
                        service: String::new(),
                    }),
                    || "a health Check".into(),
                )
                .await
                .unwrap();
                lat.push(t.elapsed().as_secs_f64() * 1e3);
            }
            lat
        }));
    }
    let mut rpc_ms = Vec::new();
    for t in tasks {
        rpc_ms.extend(t.await.unwrap());
    }
    let secs = started.elapsed().as_secs_f64();
    let cpu = cpu_seconds() - cpu;
    drop(chans);
    server.stop().await;
    Run {
        rpcs: rpc_ms.len() as u64,
        actions: 0,
        secs,
        cpu,
        rpc_ms,
        event_ms: Vec::new(),
        db: None,
        forwarded: 0,
    }
}

fn authed<T>(token: &str, m: T) -> Request<T> {
    let mut r = Request::new(m);
    r.metadata_mut()
        .insert("authorization", format!("Bearer {token}").parse().unwrap());
    r
}

/// How long one step of a game (an RPC, or waiting for an action's events)
/// may take before the bench stops with an error naming the game: a stalled
/// game must never pass for a slow run.
const STALL: Duration = Duration::from_secs(30);

/// Awaits `step`, or panics after [`STALL`] saying what was awaited.
async fn bounded<T>(step: impl std::future::Future<Output = T>, what: impl Fn() -> String) -> T {
    match tokio::time::timeout(STALL, step).await {
        Ok(v) => v,
        Err(_) => panic!("stalled for {} s: {}", STALL.as_secs(), what()),
    }
}

/// The next event of a game's stream; panics if the stream fails or ends.
async fn next_event(
    events: &mut tonic::Streaming<pb::GameEvent>,
    what: impl Fn() -> String,
) -> pb::GameEvent {
    match bounded(events.message(), &what).await {
        Ok(Some(e)) => e,
        Ok(None) => panic!("the stream ended while {}", what()),
        Err(s) => panic!("the stream failed ({s}) while {}", what()),
    }
}

/// A game being played by a driver.
struct Game {
    id: String,
    tokens: Vec<String>,
    events: tonic::Streaming<pb::GameEvent>,
    /// Who decides next (none: the game is over).
    to_act: Option<u32>,
}

/// The clients of a driver, one per node, and which one the next call goes
/// to: a node picked at random per call (always the same with one node).
struct Clients {
    nodes: Vec<DruidsServiceClient<Channel>>,
    rng: u64,
}

impl Clients {
    fn pick(&mut self) -> &mut DruidsServiceClient<Channel> {
        if self.nodes.len() > 1 {
            self.rng ^= self.rng << 13;
            self.rng ^= self.rng >> 7;
            self.rng ^= self.rng << 17;
        }
        let i = (self.rng % self.nodes.len() as u64) as usize;
        &mut self.nodes[i]
    }
}

/// Creates a 4-player Meduris game and opens its spectator stream (2 RPCs).
async fn new_game(clients: &mut Clients, seed: u64) -> Game {
    let created = bounded(
        clients.pick().create_game(pb::CreateGameRequest {
            kind: pb::GameKind::Meduris as i32,
            players: 4,
            seed: Some(seed),
            ..Default::default()
        }),
        || format!("creating the game of seed {seed}"),
    )
    .await
    .unwrap()
    .into_inner();
    let id = created.game_id;
    let tokens = created.seats.into_iter().map(|s| s.token).collect();
    let mut events = bounded(
        clients.pick().stream_events(pb::StreamEventsRequest {
            game_id: id.clone(),
            from_seq: 0,
        }),
        || format!("game {id}: opening its stream"),
    )
    .await
    .unwrap()
    .into_inner();
    // The stream opens with a snapshot of the game as it is when the server
    // gets to it, which may be after an action sent meanwhile: the events an
    // action's snapshot covers never come on the stream. So the driver acts
    // only once it has the snapshot (which says who decides); every later
    // decision then arrives as an event.
    let first = next_event(&mut events, || {
        format!("game {id}: waiting for its snapshot")
    })
    .await;
    let Some(pb::game_event::Body::Snapshot(snapshot)) = first.body else {
        panic!("game {id}: the stream did not open with a snapshot: {first:?}");
    };
    Game {
        to_act: snapshot.state.and_then(|s| s.to_act),
        id,
        tokens,
        events,
    }
}

/// What one driver measured.
#[derive(Default)]
struct Driven {
    rpcs: u64,
    submit_ms: Vec<f64>,
    event_ms: Vec<f64>,
}

/// Drives one game at a time: sets up the first one, waits for the start
/// (`go` carries the deadline), then plays until the deadline, starting a new
/// game whenever one ends (its CreateGame and StreamEvents count as RPCs).
async fn drive(
    chans: Vec<Channel>,
    seed: u64,
    ready: Arc<tokio::sync::Barrier>,
    mut go: tokio::sync::watch::Receiver<Option<Instant>>,
) -> Driven {
    let mut client = Clients {
        nodes: chans.into_iter().map(DruidsServiceClient::new).collect(),
        rng: seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1,
    };
    let mut out = Driven::default();
    let mut games = 0;
    let mut game = new_game(&mut client, seed * 1000).await;
    ready.wait().await;
    let deadline = go.wait_for(Option::is_some).await.unwrap().unwrap();
    let mut rng = seed | 1;
    while Instant::now() < deadline {
        if game.to_act.is_none() {
            games += 1;
            game = new_game(&mut client, seed * 1000 + games).await;
            out.rpcs += 2;
        }
        let id = &game.id;
        while let (Some(seat), true) = (game.to_act, Instant::now() < deadline) {
            let token = &game.tokens[seat as usize];
            let legal = bounded(
                client.pick().get_legal_actions(authed(
                    token,
                    pb::GetLegalActionsRequest {
                        game_id: id.clone(),
                        all_payments: false,
                        ..Default::default()
                    },
                )),
                || format!("game {id}: GetLegalActions for seat {seat}"),
            )
            .await
            .unwrap()
            .into_inner();
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            let pick = (rng % legal.actions.len() as u64) as u32;
            let t = Instant::now();
            let reply = bounded(
                client.pick().submit_action(authed(
                    token,
                    pb::SubmitActionRequest {
                        game_id: id.clone(),
                        choice: Some(pb::submit_action_request::Choice::LegalActionId(pick)),
                        expected_version: Some(legal.version),
                        idempotency_key: String::new(),
                    },
                )),
                || format!("game {id}: SubmitAction at version {}", legal.version),
            )
            .await
            .unwrap()
            .into_inner();
            out.submit_ms.push(t.elapsed().as_secs_f64() * 1e3);
            out.rpcs += 2;
            // Event delivery: until the spectator stream shows this version's
            // last event (who decides next, or the end).
            let waiting = || {
                format!(
                    "game {id}: waiting for the events of version {}",
                    reply.version
                )
            };
            game.to_act = loop {
                let e = next_event(&mut game.events, waiting).await;
                if e.version < reply.version {
                    continue;
                }
                match e.body {
                    Some(pb::game_event::Body::DecisionNeeded(d)) => break Some(d.seat),
                    Some(pb::game_event::Body::GameFinished(_)) => break None,
                    _ => {}
                }
            };
            out.event_ms.push(t.elapsed().as_secs_f64() * 1e3);
        }
    }
    out
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
fn cpu_seconds() -> f64 {
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
