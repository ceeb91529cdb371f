//! Load generator: N concurrent bot games against a server on loopback, in one
//! process, measuring RPCs per second and p50/p99 latencies, next to the
//! framework's ceiling measured the same way.
//!
//! (a) ceiling: the gRPC health `Check` (a trivial unary handler on the same
//!     tonic stack), N concurrent callers;
//! (b) druids-server, in-memory storage; (c) druids-server, SQLite with fsync
//!     per action. A game's driver loops GetLegalActions + SubmitAction (2
//!     RPCs per action) and a spectator stream per game measures event delivery
//!     (submit sent → its DecisionNeeded event received). Each driver's first
//!     game is set up (created, stream open, snapshot read) before the clock
//!     starts; games started later count their CreateGame and StreamEvents.
//! Latencies: of `Check` for (a), of `SubmitAction` for (b) and (c). CPU
//! µs/RPC is the process's CPU time (clients and server) per RPC, which other
//! work on the machine disturbs less than RPCs/s.
//! Every step of every game is bounded ([`STALL`]): a game that stops
//! progressing ends the bench with an error naming it and what it awaited.
//! Memory per game is measured by `benches/memory.rs`.
//!
//! Run: `cargo bench -p druids-server --bench load` (`LOAD_SECONDS`, default 3,
//! sets each run's length; `LOAD_GAMES`, default `1,10,100,1000`, the sizes;
//! `LOAD_SERVERS`, default `abc`, which servers). The table it prints goes into
//! BENCHMARKS.md.

use std::sync::Arc;
use std::time::{Duration, Instant};

use druids::pb;
use druids::pb::druids_service_client::DruidsServiceClient;
use druids_server::sqlite::{SqliteStore, Sync};
use druids_server::{Limits, MemoryStore, Service, Store, SystemClock};
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
    secs: f64,
    /// CPU time the process (clients and server) used meanwhile, in seconds.
    cpu: f64,
    rpc_ms: Vec<f64>,
    event_ms: Vec<f64>,
}

/// A server on loopback, for one run.
struct Server {
    url: String,
    stop: tokio::sync::oneshot::Sender<()>,
    task: tokio::task::JoinHandle<Result<(), druids_server::ServeError>>,
}

async fn start(store: Arc<dyn Store>) -> Server {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let limits = Limits {
        max_spectator_streams_per_game: 1_000_000,
        max_streams_per_address: 1_000_000,
        max_open_streams: 1_000_000,
        max_calls_per_connection: 100_000,
        ..Limits::unthrottled()
    };
    let service = Arc::new(Service::new(store, limits, Arc::new(SystemClock)).unwrap());
    let (stop, stopped) = tokio::sync::oneshot::channel();
    let task = tokio::spawn(druids_server::serve_service(
        listener,
        service,
        None,
        async move {
            let _ = stopped.await;
        },
    ));
    Server { url, stop, task }
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
        secs,
        cpu,
        rpc_ms,
        event_ms: Vec::new(),
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

/// Creates a 4-player Meduris game and opens its spectator stream (2 RPCs).
async fn new_game(client: &mut DruidsServiceClient<Channel>, seed: u64) -> Game {
    let created = bounded(
        client.create_game(pb::CreateGameRequest {
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
        client.stream_events(pb::StreamEventsRequest {
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
    chan: Channel,
    seed: u64,
    ready: Arc<tokio::sync::Barrier>,
    mut go: tokio::sync::watch::Receiver<Option<Instant>>,
) -> Driven {
    let mut client = DruidsServiceClient::new(chan);
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
                client.get_legal_actions(authed(
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
                client.submit_action(authed(
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
async fn druids(store: Arc<dyn Store>, games: usize) -> Run {
    let server = start(store).await;
    let chans = channels(&server.url, games).await;
    let ready = Arc::new(tokio::sync::Barrier::new(games + 1));
    let (go, wait) = tokio::sync::watch::channel(None);
    let tasks: Vec<_> = (0..games)
        .map(|i| {
            let chan = chans[i / 16].clone();
            tokio::spawn(drive(chan, i as u64 + 1, Arc::clone(&ready), wait.clone()))
        })
        .collect();
    bounded(ready.wait(), || format!("setting up {games} games")).await;
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
    server.stop().await;
    Run {
        rpcs,
        secs,
        cpu,
        rpc_ms,
        event_ms,
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
    for n in sizes {
        let (mut a, mut b, mut c) = (Vec::new(), Vec::new(), Vec::new());
        for r in 0..repeat {
            if servers.contains('a') {
                a.push(rt.block_on(ceiling(n)));
            }
            if servers.contains('b') {
                b.push(rt.block_on(druids(Arc::new(MemoryStore::default()), n)));
            }
            if servers.contains('c') {
                let path = dir.join(format!("{n}-{r}.db"));
                let store = SqliteStore::open(&path, Sync::Full).unwrap();
                c.push(rt.block_on(druids(Arc::new(store), n)));
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
            row("(c) druids, SQLite fsync per action", n, c, ceiling_rate);
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}
