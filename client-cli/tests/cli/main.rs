//! The `druids` binary end to end against a real server on an ephemeral port:
//! self-play (also with silent seats and turn clocks), create, list, state,
//! watch, a person playing through piped stdin (also choosing how to pay), a
//! bot, export and replay; server addresses, TLS and the environment; the
//! arena's challenges and tournaments played by `bot --events`; `druids
//! match` in-process.

mod arena;
mod matches;
mod play;
mod selfplay;
mod server;
mod terminal;

use std::process::{Command, Stdio};
use std::sync::Arc;

use druids_server::{Limits, MemoryStore, Service, SystemClock};

/// Starts a server on a runtime of its own thread; returns its URL.
/// The operator key of the servers these tests start: only the operator
/// names a tournament's entrants.
const OPERATOR: &str = "operator-key-of-the-cli-tests";

fn server() -> String {
    serve(None, "http")
}

/// Starts a server (TLS when `tls` is given) and returns its URL with `scheme`.
fn serve(tls: Option<druids_server::Tls>, scheme: &str) -> String {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let rt = tokio::runtime::Runtime::new().unwrap();
        rt.block_on(async move {
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            tx.send(listener.local_addr().unwrap()).unwrap();
            let mut limits = Limits::unthrottled();
            limits.arena.operator_key = Some(OPERATOR.into());
            let service = Arc::new(
                Service::new(
                    Arc::new(MemoryStore::default()),
                    limits,
                    Arc::new(SystemClock),
                )
                .unwrap(),
            );
            druids_server::serve_service(listener, service, tls, std::future::pending())
                .await
                .unwrap();
        });
    });
    let addr: std::net::SocketAddr = rx.recv().unwrap();
    if scheme == "https" {
        format!("https://localhost:{}", addr.port())
    } else {
        format!("{scheme}://{addr}")
    }
}

/// Runs `druids` with `args` and `env`, without `--server`; (success, stdout, stderr).
fn druids_env(args: &[&str], env: &[(&str, &str)]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_druids"))
        .args(args)
        .env_remove("DRUIDS_SERVER")
        .env_remove("DRUIDS_TOKEN")
        .envs(env.iter().copied())
        .output()
        .expect("run druids");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn druids(url: &str, args: &[&str]) -> (bool, String, String) {
    let mut all = vec!["--server", url];
    all.extend_from_slice(args);
    druids_env(&all, &[])
}

/// Creates a game; returns its id and the tokens.
fn create(url: &str, game: &str, players: &str, seed: &str) -> (String, Vec<String>) {
    let (ok, out, err) = druids(
        url,
        &[
            "create",
            "--game",
            game,
            "--players",
            players,
            "--seed",
            seed,
            "--json",
        ],
    );
    assert!(ok, "{err}");
    let created: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    let tokens = created["seats"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["token"].as_str().unwrap().to_owned())
        .collect();
    (created["game_id"].as_str().unwrap().to_owned(), tokens)
}

/// Plays a game to its end with random bots on every seat.
fn play_out(url: &str, id: &str, tokens: &[String]) {
    let bots: Vec<_> = tokens
        .iter()
        .map(|t| {
            Command::new(env!("CARGO_BIN_EXE_druids"))
                .args(["--server", url, "bot", "--game-id", id, "--token", t])
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for b in bots {
        assert!(b.wait_with_output().unwrap().status.success());
    }
}

fn last_json(stdout: &str) -> serde_json::Value {
    serde_json::from_str(stdout.lines().last().expect("output")).expect("JSON last line")
}

/// Every event of a game so far, as a spectator sees it, in proto3 JSON
/// (field names survive renames of the generated types).
fn events_json(url: &str, id: &str) -> Vec<serde_json::Value> {
    use druids_contract::pb;
    use tokio_stream::StreamExt;
    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(async {
        let mut client = pb::druids_service_client::DruidsServiceClient::connect(url.to_owned())
            .await
            .unwrap();
        let state = client
            .get_state(pb::GetStateRequest {
                game_id: id.to_owned(),
            })
            .await
            .unwrap()
            .into_inner()
            .state
            .unwrap();
        let mut stream = client
            .stream_events(pb::StreamEventsRequest {
                game_id: id.to_owned(),
                from_seq: 1,
            })
            .await
            .unwrap()
            .into_inner();
        let mut events = Vec::new();
        // A running game's stream stays open: stop at the last event logged.
        while let Some(e) = stream.next().await {
            let e = e.unwrap();
            let seq = e.seq;
            events.push(druids_contract::json::to_json(&e));
            if seq >= state.last_seq {
                break;
            }
        }
        events
    })
}
