//! What practice games cost another player (issue 25, "practice games are a
//! CPU amplifier").
//!
//! An in-memory server with its HTTP face runs one victim game at a time,
//! 2-player Meduris played by this bench through gRPC as fast as it answers
//! (state, legal actions, a random legal action), and notes how long each
//! `SubmitAction` takes. The same victim is measured twice in one run:
//! alone, then while `PRACTICE_GAMES` five-player Die Dolmengötter practice
//! games with MCTS bots (`POST /web/v1/practice`) are kept in play, their
//! caller's seat played at once by this bench so that the server's bots
//! always have a decision to think about (a finished one is replaced).
//! The server's bots share `--bot-threads` (1, the default) off the async
//! workers: the figure says whether they still slow other games' calls.
//!
//! Run: `cargo bench -p druids-server --bench practice`. Environment:
//! `PRACTICE_GAMES` (default 12), `PRACTICE_SUBMITS` (victim submits
//! measured per phase, default 1,500).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use druids_contract::pb;
use druids_contract::pb::druids_service_client::DruidsServiceClient;
use druids_contract::pb::submit_action_request::Choice;
use druids_server::Limits;
use druids_store::MemoryStore;
use druids_tests::{Lcg, TestServer, authed, create, legal, state};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tonic::transport::Channel;

fn env(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// `POST path` with a JSON body over HTTP/1.1; the answer's body.
async fn post_json(base: &str, path: &str, body: &str) -> String {
    let host = base.trim_start_matches("http://");
    let mut conn = tokio::net::TcpStream::connect(host).await.expect("connect");
    let request = format!(
        "POST {path} HTTP/1.1\r\nhost: {host}\r\ncontent-type: application/json\r\n\
         content-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    );
    conn.write_all(request.as_bytes()).await.expect("send");
    let mut answer = String::new();
    conn.read_to_string(&mut answer).await.expect("answer");
    let (head, body) = answer.split_once("\r\n\r\n").unwrap_or((&answer, ""));
    assert!(head.starts_with("HTTP/1.1 200"), "practice refused: {head}");
    body.to_owned()
}

/// Submits legal action `id` for the seat holding `token`.
async fn submit(
    client: &mut DruidsServiceClient<Channel>,
    game: &str,
    token: &str,
    (version, id): (u64, u32),
) {
    client
        .submit_action(authed(
            token,
            pb::SubmitActionRequest {
                game_id: game.to_owned(),
                expected_version: Some(version),
                choice: Some(Choice::LegalActionId(id)),
                ..Default::default()
            },
        ))
        .await
        .expect("submit");
}

/// Keeps one practice game in play until `stop`: plays its caller's seat
/// (seat 0) as soon as it must decide, and starts another when it ends.
async fn practice_player(base: String, server: String, stop: Arc<AtomicBool>, n: usize) {
    let mut client = DruidsServiceClient::connect(server).await.expect("connect");
    let mut rng = Lcg(n as u64 + 1);
    while !stop.load(Ordering::Relaxed) {
        let body = r#"{"kind": "dolmen", "players": 5, "strategy": "mcts"}"#;
        let answer: serde_json::Value =
            serde_json::from_str(&post_json(&base, "/web/v1/practice", body).await).expect("JSON");
        let game = answer["gameId"].as_str().expect("gameId").to_owned();
        let token = answer["token"].as_str().expect("token").to_owned();
        while !stop.load(Ordering::Relaxed) {
            let st = state(&mut client, &game, Some(&token)).await;
            match st.to_act {
                None if st.outcome.is_some() => break,
                Some(0) => {
                    let legal = legal(&mut client, &game, &token, false)
                        .await
                        .expect("legal");
                    let id = rng.below(legal.actions.len().max(1)) as u32;
                    submit(&mut client, &game, &token, (legal.version, id)).await;
                }
                // The bots think: look again shortly (a poll, as a person's
                // page would, not a wait for a condition under test).
                _ => tokio::time::sleep(Duration::from_millis(20)).await,
            }
        }
    }
}

/// Plays victim games until `submits` submits are timed; their latencies (µs).
async fn victim(client: &mut DruidsServiceClient<Channel>, submits: usize, seed: u64) -> Vec<u64> {
    let mut rng = Lcg(seed);
    let mut took = Vec::with_capacity(submits);
    while took.len() < submits {
        let (game, tokens) =
            create(client, pb::GameKind::Meduris, 2, rng.below(1 << 30) as u64).await;
        while took.len() < submits {
            let Some(seat) = state(client, &game, None).await.to_act else {
                break;
            };
            let token = &tokens[seat as usize];
            let legal = legal(client, &game, token, false).await.expect("legal");
            let id = rng.below(legal.actions.len().max(1)) as u32;
            let t = Instant::now();
            submit(client, &game, token, (legal.version, id)).await;
            took.push(t.elapsed().as_micros() as u64);
        }
    }
    took
}

fn row(phase: &str, mut took: Vec<u64>) {
    took.sort_unstable();
    let at = |q: f64| took[((took.len() as f64 * q) as usize).min(took.len() - 1)] as f64 / 1000.0;
    println!(
        "| {phase} | {} | {:.2} | {:.2} | {:.2} | {:.2} |",
        took.len(),
        at(0.5),
        at(0.9),
        at(0.99),
        took[took.len() - 1] as f64 / 1000.0
    );
}

#[tokio::main]
async fn main() {
    let games = env("PRACTICE_GAMES", 12);
    let submits = env("PRACTICE_SUBMITS", 1_500);
    let limits = Limits {
        // One address stands for the issue's many: the per-address quota is
        // not what is measured here.
        practice_games_per_address: games,
        max_practice_games: games.max(32),
        ..Limits::unthrottled()
    };
    let server = TestServer::with(Arc::new(MemoryStore::default()), limits).await;
    let base = druids_tests::http_face(&server).await;
    let mut client = server.client().await;
    println!(
        "victim: 2-player Meduris, SubmitAction latency; attack: {games} five-player \
         Die Dolmengötter MCTS practice games; bot threads {}",
        Limits::default().bot_threads
    );
    println!("| phase | submits | p50 ms | p90 | p99 | max |\n|---|---|---|---|---|---|");
    row("victim alone", victim(&mut client, submits, 7).await);

    let stop = Arc::new(AtomicBool::new(false));
    let players: Vec<_> = (0..games)
        .map(|n| tokio::spawn(practice_player(base.clone(), server.url(), stop.clone(), n)))
        .collect();
    // The attack is on once every practice game exists and its bots think.
    let in_play = Arc::new(AtomicUsize::new(0));
    while in_play.load(Ordering::Relaxed) < games {
        let listed = client
            .list_games(pb::ListGamesRequest::default())
            .await
            .expect("ListGames")
            .into_inner()
            .games
            .iter()
            .filter(|g| g.players == 5 && g.outcome.is_none())
            .count();
        in_play.store(listed, Ordering::Relaxed);
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    row(
        &format!("{games} MCTS practice games in play"),
        victim(&mut client, submits, 8).await,
    );
    stop.store(true, Ordering::Relaxed);
    for p in players {
        p.abort();
    }
    server.stop().await;
}
