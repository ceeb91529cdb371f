//! How late turn clocks fire while other games play on autopilot (issue 25,
//! "the turn-clock referee can be starved").
//!
//! A server over a SQLite store (`--sync full`, the default: every action
//! fsynced) runs victim games, 2-player Meduris with `decision_ms` 200 and no
//! autopilot, where nobody ever moves, so every decision times out. A
//! spectator stream per victim notes each `DecisionNeeded`'s deadline and
//! the time its `TimedOut` arrives: the lateness a client sees. The same
//! victims are measured twice in one run: alone, then under the attack of the
//! issue, `REFEREE_ATTACKERS` anonymous 4-player Meduris games with
//! `decision_ms` 1 and `autopilot_after` 1 kept running (a finished one is
//! replaced at once), whose seats never move, so the server plays them on
//! autopilot as fast as the referee lets it.
//!
//! Run: `cargo bench -p druids-server --bench referee`. Environment:
//! `REFEREE_ATTACKERS` (default 60), `REFEREE_VICTIMS` (default 10),
//! `REFEREE_DEADLINES` (timeouts measured per phase, default 400),
//! `REFEREE_STORE` (`sqlite`, the default, or `memory`).

use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use druids_contract::pb;
use druids_contract::pb::druids_service_client::DruidsServiceClient;
use druids_contract::pb::game_event::Body;
use druids_server::Limits;
use druids_store::sqlite::SqliteStore;
use druids_store::{MemoryStore, Store, Sync};
use druids_tests::TestServer;
use tokio::sync::mpsc;
use tokio_stream::StreamExt;
use tonic::transport::Channel;

const VICTIM_DECISION_MS: u32 = 200;

fn env(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

/// Creates a game nobody plays; its id.
async fn silent_game(
    client: &mut DruidsServiceClient<Channel>,
    players: u32,
    decision_ms: u32,
    autopilot_after: u32,
) -> String {
    client
        .create_game(pb::CreateGameRequest {
            kind: pb::GameKind::Meduris as i32,
            players,
            options: Some(pb::GameOptions {
                decision_ms: Some(decision_ms),
                autopilot_after: Some(autopilot_after),
                ..Default::default()
            }),
            ..Default::default()
        })
        .await
        .expect("create")
        .into_inner()
        .game_id
}

/// Follows a victim game: sends the lateness (ms) of each timeout.
async fn watch(mut client: DruidsServiceClient<Channel>, id: String, out: mpsc::Sender<i64>) {
    let mut stream = client
        .stream_events(pb::StreamEventsRequest {
            game_id: id,
            from_seq: 0,
        })
        .await
        .expect("stream")
        .into_inner();
    let mut deadline = None;
    while let Some(Ok(event)) = stream.next().await {
        match event.body {
            Some(Body::DecisionNeeded(d)) => deadline = d.deadline_unix_ms,
            Some(Body::TimedOut(_)) => {
                if let Some(d) = deadline.take() {
                    let late = now_ms() as i64 - d as i64;
                    if out.send(late).await.is_err() {
                        return;
                    }
                }
            }
            _ => {}
        }
    }
}

/// Keeps `n` attacker games running until told to stop.
async fn attack(
    server_url: String,
    n: usize,
    ready: tokio::sync::oneshot::Sender<()>,
    mut stop: tokio::sync::watch::Receiver<bool>,
) {
    let mut client = DruidsServiceClient::connect(server_url).await.unwrap();
    let mut games = Vec::new();
    for _ in 0..n {
        games.push(silent_game(&mut client, 4, 1, 1).await);
    }
    let _ = ready.send(());
    let mut tick = tokio::time::interval(Duration::from_millis(50));
    loop {
        tokio::select! {
            _ = tick.tick() => {}
            _ = stop.changed() => return,
        }
        for g in games.iter_mut() {
            let st = client
                .get_state(pb::GetStateRequest { game_id: g.clone() })
                .await
                .unwrap()
                .into_inner()
                .state
                .unwrap();
            if st.status == pb::GameStatus::Finished as i32 {
                *g = silent_game(&mut client, 4, 1, 1).await;
            }
        }
    }
}

/// The lateness of `count` timeouts of `victims` fresh victim games.
async fn measure(server: &TestServer, victims: usize, count: usize) -> Vec<i64> {
    let mut client = server.client().await;
    let (tx, mut rx) = mpsc::channel(1024);
    let mut watchers = Vec::new();
    for _ in 0..victims {
        let id = silent_game(&mut client, 2, VICTIM_DECISION_MS, 0).await;
        watchers.push(tokio::spawn(watch(server.client().await, id, tx.clone())));
    }
    let mut late = Vec::with_capacity(count);
    while late.len() < count {
        late.push(rx.recv().await.expect("timeouts keep coming"));
    }
    for w in watchers {
        w.abort();
    }
    late.sort_unstable();
    late
}

fn row(label: &str, late: &[i64]) {
    let q = |p: f64| late[((late.len() as f64 - 1.0) * p).round() as usize];
    println!(
        "| {label} | {} | {} | {} | {} | {} |",
        late.len(),
        q(0.5),
        q(0.9),
        q(0.99),
        late[late.len() - 1]
    );
}

fn main() {
    let attackers = env("REFEREE_ATTACKERS", 60);
    let victims = env("REFEREE_VICTIMS", 10);
    let count = env("REFEREE_DEADLINES", 400);
    let dir = std::env::temp_dir().join(format!("druids-referee-bench-{}", std::process::id()));
    let store: Arc<dyn Store> = match std::env::var("REFEREE_STORE").as_deref() {
        Ok("memory") => Arc::new(MemoryStore::default()),
        _ => Arc::new(SqliteStore::open(&dir.join("druids.db"), Sync::Full).expect("store")),
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async move {
        let server = TestServer::with(store, Limits::unthrottled()).await;
        println!("| phase | timeouts | p50 ms late | p90 | p99 | max |\n|---|---|---|---|---|---|");
        let quiet = measure(&server, victims, count).await;
        row(&format!("{victims} victims alone"), &quiet);
        let (stop, stopped) = tokio::sync::watch::channel(false);
        let (ready, under_way) = tokio::sync::oneshot::channel();
        let attack = tokio::spawn(attack(server.url(), attackers, ready, stopped));
        under_way.await.expect("the attack starts");
        let loud = measure(&server, victims, count).await;
        row(
            &format!("{victims} victims, {attackers} games on autopilot"),
            &loud,
        );
        let _ = stop.send(true);
        let _ = attack.await;
        server.stop().await;
    });
    let _ = std::fs::remove_dir_all(&dir);
}
