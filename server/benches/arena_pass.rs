//! One large matchmaking pass on a real PostgreSQL (issue 27): N registered
//! bots open a `Seek` each at once (four-player Meduris, unrated: one game a
//! match, N/4 games, each a durable write), and a client reads
//! `GetLeaderboard` over and over, one call after another, until every bot
//! has been told its game. Reported: seekers placed per second (N over the
//! time from the first seek sent to the last bot told its game), the median
//! bot's wait, and the leaderboard's latency (p50/p99/max) meanwhile.
//!
//! Run: `cargo bench -p druids-server --bench arena_pass` (`ARENA_SEEKERS`,
//! default `500,1000`; `ARENA_PASS_LABEL` names the code measured in the
//! table's first column). The PostgreSQL is the tests' private one
//! (`druids_tests::postgres::PgCluster`), started and stopped by the bench.

use std::sync::Arc;
use std::time::{Duration, Instant};

use druids_contract::pb;
use druids_contract::pb::arena_service_client::ArenaServiceClient;
use druids_server::{Limits, Service, SystemClock};
use druids_store::Sync;
use druids_store::postgres::PostgresStore;
use druids_tests::postgres::PgCluster;
use tokio::sync::watch;
use tonic::Request;
use tonic::transport::Channel;

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn authed<T>(key: &str, message: T) -> Request<T> {
    let mut req = Request::new(message);
    req.metadata_mut()
        .insert("authorization", format!("Bearer {key}").parse().unwrap());
    req
}

/// What one run measured.
struct Pass {
    games: usize,
    /// Each bot's wait for its game, sorted.
    placed: Vec<Duration>,
    /// Each `GetLeaderboard` call's latency while bots waited, sorted.
    leaderboard: Vec<Duration>,
}

fn quantile(sorted: &[Duration], q: f64) -> Duration {
    let i = ((sorted.len() as f64 - 1.0) * q).round() as usize;
    sorted.get(i).copied().unwrap_or_default()
}

async fn run(url_db: &str, seekers: usize) -> Pass {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let mut limits = Limits {
        max_games: 1_000_000,
        max_calls_per_connection: 100_000,
        ..Limits::unthrottled()
    };
    limits.arena.registrations_per_hour = u32::MAX;
    let store = Arc::new(PostgresStore::open(url_db, Sync::Full).unwrap());
    let service = Arc::new(Service::new(store, limits, Arc::new(SystemClock)).unwrap());
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let task = tokio::spawn(druids_server::serve_service(
        listener,
        service,
        None,
        async {
            let _ = stopped.await;
        },
    ));
    // One connection per 64 bots, as many bots would have their own; the
    // leaderboard's reader has its own.
    let connect = || async {
        tonic::transport::Endpoint::from_shared(url.clone())
            .unwrap()
            .connect()
            .await
            .unwrap()
    };
    let mut channels: Vec<Channel> = Vec::new();
    for _ in 0..seekers.div_ceil(64) {
        channels.push(connect().await);
    }
    let mut arena = ArenaServiceClient::new(channels[0].clone());
    let mut keys = Vec::with_capacity(seekers);
    for i in 0..seekers {
        let reply = arena
            .register_bot(pb::RegisterBotRequest {
                name: format!("pass-{i}"),
                ..Default::default()
            })
            .await
            .unwrap()
            .into_inner();
        keys.push(reply.api_key);
    }
    let (done, all_placed) = watch::channel(false);
    let mut reader = ArenaServiceClient::new(connect().await);
    let leaderboard = tokio::spawn(async move {
        let mut latencies = Vec::new();
        while !*all_placed.borrow() {
            let asked = Instant::now();
            reader
                .get_leaderboard(pb::GetLeaderboardRequest {
                    kind: pb::GameKind::Meduris as i32,
                    players: 4,
                    ..Default::default()
                })
                .await
                .unwrap();
            latencies.push(asked.elapsed());
        }
        latencies
    });
    let started = Instant::now();
    let mut waiting = Vec::with_capacity(seekers);
    for (i, key) in keys.into_iter().enumerate() {
        let mut client = ArenaServiceClient::new(channels[i / 64].clone());
        waiting.push(tokio::spawn(async move {
            let mut stream = client
                .seek(authed(
                    &key,
                    pb::SeekRequest {
                        kind: pb::GameKind::Meduris as i32,
                        min_players: 4,
                        max_players: 4,
                        rated: false,
                    },
                ))
                .await
                .unwrap()
                .into_inner();
            while let Some(event) = stream.message().await.unwrap() {
                if let Some(pb::seek_event::Event::GameStarted(_)) = event.event {
                    return started.elapsed();
                }
            }
            panic!("the seek ended without a game");
        }));
    }
    let mut placed = Vec::with_capacity(seekers);
    for w in waiting {
        placed.push(w.await.unwrap());
    }
    done.send_replace(true);
    let mut leaderboard = leaderboard.await.unwrap();
    let _ = stop.send(());
    let _ = task.await;
    placed.sort();
    leaderboard.sort();
    Pass {
        games: seekers / 4,
        placed,
        leaderboard,
    }
}

fn main() {
    let sizes: Vec<usize> = std::env::var("ARENA_SEEKERS")
        .unwrap_or_else(|_| "500,1000".into())
        .split(',')
        .filter_map(|s| s.trim().parse().ok())
        .collect();
    let label = std::env::var("ARENA_PASS_LABEL").unwrap_or_else(|_| "this tree".into());
    let pg = PgCluster::start();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    println!(
        "| code | seekers | games | last bot placed | median bot placed | seekers placed / s | \
         GetLeaderboard calls | p50 | p99 | max |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    for n in sizes {
        let db = pg.database(&format!("arena_pass_{n}"));
        let pass = runtime.block_on(run(&db, n));
        let last = *pass.placed.last().unwrap();
        let lb = &pass.leaderboard;
        println!(
            "| {label} | {n} | {} | {:.0} ms | {:.0} ms | {:.0} | {} | {:.2} ms | {:.2} ms | {:.1} ms |",
            pass.games,
            ms(last),
            ms(quantile(&pass.placed, 0.5)),
            n as f64 / last.as_secs_f64(),
            lb.len(),
            ms(quantile(lb, 0.5)),
            ms(quantile(lb, 0.99)),
            ms(lb.last().copied().unwrap_or_default()),
        );
    }
    drop(runtime);
    drop(pg);
}
