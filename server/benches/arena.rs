//! The arena's matchmaking through the server: N registered bots open a
//! `Seek` each at once (four-player Meduris, unrated, so each match is one
//! game), and the bench measures how long until every bot has been told the
//! game it plays — the pool's rounds, the games' creation and the streams'
//! delivery included. Games formed per second = games / that time. The
//! pool's own cost, a live rating update and the full refit over 100,000
//! results are measured by `cargo bench -p druids-arena` (criterion).
//!
//! Run: `cargo bench -p druids-server --bench arena` (`ARENA_SEEKERS`,
//! default `1000,4000`, the sizes). The table goes into BENCHMARKS.md.

use std::sync::Arc;
use std::time::{Duration, Instant};

use druids_contract::pb;
use druids_contract::pb::arena_service_client::ArenaServiceClient;
use druids_server::{Limits, MemoryStore, Service, SystemClock};
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

async fn run(seekers: usize) -> (usize, Duration) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let mut limits = Limits {
        max_games: 1_000_000,
        max_calls_per_connection: 100_000,
        ..Limits::unthrottled()
    };
    limits.arena.registrations_per_hour = u32::MAX;
    let service = Arc::new(
        Service::new(
            Arc::new(MemoryStore::default()),
            limits,
            Arc::new(SystemClock),
        )
        .unwrap(),
    );
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let task = tokio::spawn(druids_server::serve_service(
        listener,
        service,
        None,
        async {
            let _ = stopped.await;
        },
    ));
    // One connection per 64 bots, as many bots would have their own.
    let mut channels: Vec<Channel> = Vec::new();
    for _ in 0..seekers.div_ceil(64) {
        channels.push(
            tonic::transport::Endpoint::from_shared(url.clone())
                .unwrap()
                .connect()
                .await
                .unwrap(),
        );
    }
    let mut arena = ArenaServiceClient::new(channels[0].clone());
    let mut keys = Vec::with_capacity(seekers);
    for i in 0..seekers {
        let reply = arena
            .register_bot(pb::RegisterBotRequest {
                name: format!("bench-{i}"),
                ..Default::default()
            })
            .await
            .unwrap()
            .into_inner();
        keys.push(reply.api_key);
    }
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
                    return;
                }
            }
            panic!("the seek ended without a game");
        }));
    }
    for w in waiting {
        w.await.unwrap();
    }
    let elapsed = started.elapsed();
    let _ = stop.send(());
    let _ = task.await;
    (seekers / 4, elapsed)
}

fn main() {
    let sizes: Vec<usize> = std::env::var("ARENA_SEEKERS")
        .unwrap_or_else(|_| "1000,4000".into())
        .split(',')
        .filter_map(|s| s.trim().parse().ok())
        .collect();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    println!("| seeking bots | games formed | time to the last bot's game | games formed / s |");
    println!("|---:|---:|---:|---:|");
    for n in sizes {
        let (games, elapsed) = runtime.block_on(run(n));
        println!(
            "| {n} | {games} | {:.0} ms | {:.0} |",
            elapsed.as_secs_f64() * 1000.0,
            games as f64 / elapsed.as_secs_f64()
        );
    }
}
