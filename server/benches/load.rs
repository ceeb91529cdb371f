//! Load generator: N concurrent bot games against a server on loopback, in one
//! process, measuring RPCs per second and p50/p99 latencies, next to the
//! framework's ceiling measured the same way.
//!
//! (a) ceiling: the gRPC health `Check` (a trivial unary handler on the same
//!     tonic stack), N concurrent callers;
//! (b) druids-server, in-memory storage; (c) druids-server, SQLite with fsync
//!     per action. A game's driver loops GetLegalActions + SubmitAction (2
//!     RPCs per action) and a spectator stream per game measures event delivery
//!     (submit sent → its DecisionNeeded event received).
//! Also: resident memory per active game.
//!
//! Run: `cargo bench -p druids-server --bench load` (`LOAD_SECONDS`, default 3,
//! sets each run's length; `LOAD_GAMES`, default `1,10,100,1000`, the sizes). The table it prints goes into BENCHMARKS.md.

use std::sync::Arc;
use std::time::{Duration, Instant};

use druids::pb;
use druids::pb::druids_client::DruidsClient;
use druids_server::sqlite::{SqliteStore, Sync};
use druids_server::{Limits, MemoryStore, Service, Store, SystemClock};
use tokio_stream::StreamExt;
use tonic::Request;
use tonic::transport::Channel;

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
    rpc_ms: Vec<f64>,
    event_ms: Vec<f64>,
}

async fn start(store: Arc<dyn Store>) -> (String, Arc<Service>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let limits = Limits {
        max_submits_per_second: 0,
        max_streams_per_game: 1_000_000,
        ..Limits::default()
    };
    let service = Arc::new(Service::new(store, limits, Arc::new(SystemClock)));
    let s = Arc::clone(&service);
    tokio::spawn(async move {
        druids_server::serve_service(listener, s, None, std::future::pending()).await
    });
    (url, service)
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
    let (url, _service) = start(Arc::new(MemoryStore)).await;
    let chans = channels(&url, callers).await;
    let deadline = Instant::now() + seconds();
    let started = Instant::now();
    let mut tasks = Vec::new();
    for i in 0..callers {
        let mut health = tonic_health::pb::health_client::HealthClient::new(chans[i / 16].clone());
        tasks.push(tokio::spawn(async move {
            let mut lat = Vec::new();
            while Instant::now() < deadline {
                let t = Instant::now();
                health
                    .check(tonic_health::pb::HealthCheckRequest {
                        service: String::new(),
                    })
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
    Run {
        rpcs: rpc_ms.len() as u64,
        secs: started.elapsed().as_secs_f64(),
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

/// Drives one game until the deadline, starting new games as games end.
async fn drive(chan: Channel, seed: u64, deadline: Instant) -> (Vec<f64>, Vec<f64>) {
    let mut client = DruidsClient::new(chan);
    let (mut rpc_ms, mut event_ms) = (Vec::new(), Vec::new());
    let mut game = 0;
    while Instant::now() < deadline {
        let created = client
            .create_game(pb::CreateGameRequest {
                kind: pb::GameKind::Meduris as i32,
                players: 4,
                seed: Some(seed * 1000 + game),
                ..Default::default()
            })
            .await
            .unwrap()
            .into_inner();
        game += 1;
        let id = created.game_id;
        let tokens: Vec<String> = created.seats.into_iter().map(|s| s.token).collect();
        let mut events = client
            .stream_events(pb::StreamEventsRequest {
                game_id: id.clone(),
                from_seq: 0,
            })
            .await
            .unwrap()
            .into_inner();
        let mut to_act = created.state.and_then(|s| s.to_act);
        let mut rng = seed | 1;
        while let (Some(seat), true) = (to_act, Instant::now() < deadline) {
            let token = &tokens[seat as usize];
            let t = Instant::now();
            let legal = client
                .get_legal_actions(authed(
                    token,
                    pb::GetLegalActionsRequest {
                        game_id: id.clone(),
                        all_payments: false,
                    },
                ))
                .await
                .unwrap()
                .into_inner();
            rpc_ms.push(t.elapsed().as_secs_f64() * 1e3);
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            let pick = (rng % legal.actions.len() as u64) as u32;
            let t = Instant::now();
            let reply = client
                .submit_action(authed(
                    token,
                    pb::SubmitActionRequest {
                        game_id: id.clone(),
                        choice: Some(pb::submit_action_request::Choice::LegalActionId(pick)),
                        expected_version: Some(legal.version),
                        idempotency_key: String::new(),
                    },
                ))
                .await
                .unwrap()
                .into_inner();
            rpc_ms.push(t.elapsed().as_secs_f64() * 1e3);
            // Event delivery: until the spectator stream shows this version's
            // last event (who decides next, or the end).
            to_act = None;
            while let Some(Ok(e)) = events.next().await {
                if e.version < reply.version {
                    continue;
                }
                match e.body {
                    Some(pb::game_event::Body::DecisionNeeded(d)) => {
                        to_act = Some(d.seat);
                        break;
                    }
                    Some(pb::game_event::Body::GameFinished(_)) => break,
                    _ => {}
                }
            }
            event_ms.push(t.elapsed().as_secs_f64() * 1e3);
        }
    }
    (rpc_ms, event_ms)
}

async fn druids(store: Arc<dyn Store>, games: usize) -> Run {
    let (url, _service) = start(store).await;
    let chans = channels(&url, games).await;
    let deadline = Instant::now() + seconds();
    let started = Instant::now();
    let tasks: Vec<_> = (0..games)
        .map(|i| tokio::spawn(drive(chans[i / 16].clone(), i as u64 + 1, deadline)))
        .collect();
    let (mut rpc_ms, mut event_ms) = (Vec::new(), Vec::new());
    for t in tasks {
        let (r, e) = t.await.unwrap();
        rpc_ms.extend(r);
        event_ms.extend(e);
    }
    Run {
        rpcs: rpc_ms.len() as u64,
        secs: started.elapsed().as_secs_f64(),
        rpc_ms,
        event_ms,
    }
}

fn rss_bytes() -> u64 {
    let statm = std::fs::read_to_string("/proc/self/statm").unwrap_or_default();
    let pages: u64 = statm
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    pages * 4096
}

fn row(name: &str, n: usize, run: &mut Run, ceiling: f64) -> f64 {
    run.rpc_ms.sort_by(f64::total_cmp);
    run.event_ms.sort_by(f64::total_cmp);
    let rate = run.rpcs as f64 / run.secs;
    println!(
        "| {name} | {n} | {rate:.0} | {:.2} | {:.2} | {:.2} | {:.2} | {:.2} |",
        rate / ceiling,
        percentile(&run.rpc_ms, 0.5),
        percentile(&run.rpc_ms, 0.99),
        percentile(&run.event_ms, 0.5),
        percentile(&run.event_ms, 0.99),
    );
    rate
}

fn main() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let dir = std::env::temp_dir().join(format!("druids-load-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    println!(
        "| server | concurrent games (callers) | RPCs/s | vs (a) | RPC p50 ms | RPC p99 ms | event p50 ms | event p99 ms |"
    );
    println!("|---|---|---|---|---|---|---|---|");
    let sizes: Vec<usize> = std::env::var("LOAD_GAMES")
        .unwrap_or_else(|_| "1,10,100,1000".into())
        .split(',')
        .filter_map(|s| s.trim().parse().ok())
        .collect();
    for n in sizes {
        let mut a = rt.block_on(ceiling(n));
        let ceiling_rate = a.rpcs as f64 / a.secs;
        row("(a) tonic ceiling (health Check)", n, &mut a, ceiling_rate);
        let mut b = rt.block_on(druids(Arc::new(MemoryStore), n));
        row("(b) druids, in memory", n, &mut b, ceiling_rate);
        let store = SqliteStore::open(&dir.join(format!("{n}.db")), Sync::Full).unwrap();
        let mut c = rt.block_on(druids(Arc::new(store), n));
        row(
            "(c) druids, SQLite fsync per action",
            n,
            &mut c,
            ceiling_rate,
        );
    }
    // Memory per active game: 2,000 games, 20 actions into each.
    let before = rss_bytes();
    let games = rt.block_on(async {
        let (url, service) = start(Arc::new(MemoryStore)).await;
        let mut client = DruidsClient::connect(url).await.unwrap();
        for g in 0..2000u64 {
            let created = client
                .create_game(pb::CreateGameRequest {
                    kind: pb::GameKind::Meduris as i32,
                    players: 4,
                    seed: Some(g),
                    ..Default::default()
                })
                .await
                .unwrap()
                .into_inner();
            let tokens: Vec<String> = created.seats.into_iter().map(|s| s.token).collect();
            let mut to_act = created.state.and_then(|s| s.to_act);
            let mut version = 0;
            for _ in 0..20 {
                let Some(seat) = to_act else { break };
                let reply = client
                    .submit_action(authed(
                        &tokens[seat as usize],
                        pb::SubmitActionRequest {
                            game_id: created.game_id.clone(),
                            choice: Some(pb::submit_action_request::Choice::LegalActionId(0)),
                            expected_version: Some(version),
                            idempotency_key: String::new(),
                        },
                    ))
                    .await
                    .unwrap()
                    .into_inner();
                version = reply.version;
                to_act = reply.events.iter().rev().find_map(|e| match &e.body {
                    Some(pb::game_event::Body::DecisionNeeded(d)) => Some(d.seat),
                    _ => None,
                });
            }
        }
        service.census().iter().map(|c| c.2).sum::<usize>()
    });
    let after = rss_bytes();
    println!(
        "\nmemory: {games} active games (20 actions each) add {:.1} MiB resident = {:.1} KiB per game",
        (after.saturating_sub(before)) as f64 / 1048576.0,
        (after.saturating_sub(before)) as f64 / 1024.0 / games as f64
    );
    let _ = std::fs::remove_dir_all(&dir);
}
