//! A practice game's bots play on after the server is SIGKILLed and started
//! again on the same database, or on the node that takes the game over: the
//! real `druids-server` process, killed while a bot's decision is pending
//! (the bots pause 5 s before each action); the person plays on through
//! gRPC and the game finishes,
//! every bot action after the restart played by the bot itself (not by a
//! turn clock's autopilot, which would take the person's 10 minutes a turn).
//! Bots started again play without the pause (it is not stored), so the
//! rest of the game is quick.

use std::time::Duration;

use druids_contract::pb;
use druids_contract::pb::game_event::Body;
use druids_tests::authed;
use druids_tests::process::ServerProcess;
use pb::druids_service_client::DruidsServiceClient;
use tokio_stream::StreamExt;

use druids_tests::postgres::PgCluster;

use crate::stores::{Backend, TestDb, on_each_store_threaded};

type Client = DruidsServiceClient<tonic::transport::Channel>;
use crate::web::practice;

on_each_store_threaded!(a_practice_game_s_bots_play_on_after_a_sigkill);

fn start(db: &TestDb, listen: &str, log: &std::path::Path) -> ServerProcess {
    ServerProcess::start(
        &[
            "--db",
            db.db_arg(),
            "--listen",
            listen,
            "--http-listen",
            "127.0.0.1:0",
        ],
        &[("DRUIDS_MAX_SUBMITS_PER_SECOND", "0")],
        log,
    )
}

/// The person's first legal action at `version`, submitted with a key (a
/// retry after a lost answer is safe).
async fn play_first(client: &mut Client, id: &str, token: &str, version: u64) {
    client
        .submit_action(authed(
            token,
            pb::SubmitActionRequest {
                game_id: id.to_owned(),
                choice: Some(pb::submit_action_request::Choice::LegalActionId(0)),
                expected_version: Some(version),
                idempotency_key: format!("v{version}"),
            },
        ))
        .await
        .expect("the person's action");
}

/// The state of game `id` as `token`'s seat sees it.
async fn state_of(client: &mut Client, id: &str, token: &str) -> pb::StateView {
    client
        .get_state(authed(
            token,
            pb::GetStateRequest {
                game_id: id.to_owned(),
            },
        ))
        .await
        .expect("state")
        .into_inner()
        .state
        .expect("a state")
}

/// Starts a practice game on the HTTP face at `base` (three greedy bots'
/// seats pausing 5 s before each action) and plays the person's seat
/// through `client` until a bot's decision is pending; returns the game's
/// id, the person's token and the version then.
async fn until_a_bot_decides(base: &str, client: &mut Client) -> (String, String, u64) {
    let body = serde_json::json!({
        "kind": "meduris", "players": 3, "strategy": "greedy", "botDelayMs": 5000
    });
    let (id, token, seat) = practice(base, body).await;
    assert_eq!(seat, 0);
    let mut state = state_of(client, &id, &token).await;
    assert_eq!(state.to_act, Some(0), "the person starts");
    while state.to_act == Some(0) {
        play_first(client, &id, &token, state.version).await;
        state = state_of(client, &id, &token).await;
    }
    (id, token, state.version)
}

/// Plays the person's seat through `client` to the game's end, and checks
/// that every bot action after version `from` was the bot's own.
async fn play_on(client: &mut Client, id: &str, token: &str, from: u64) {
    let mut events = client
        .stream_events(authed(
            token,
            pb::StreamEventsRequest {
                game_id: id.to_owned(),
                from_seq: 0,
            },
        ))
        .await
        .expect("stream")
        .into_inner();
    loop {
        // Heartbeats are no progress: the guard spans them.
        let guard = tokio::time::Instant::now() + Duration::from_secs(120);
        let event = loop {
            let event = tokio::time::timeout_at(guard, events.next())
                .await
                .expect("deadlock guard: no game event for 120 s")
                .expect("the game ends with GameFinished")
                .expect("event");
            if !matches!(event.body, Some(Body::Heartbeat(_))) {
                break event;
            }
        };
        match event.body {
            Some(Body::DecisionNeeded(d)) if d.seat == 0 => {
                play_first(client, id, token, event.version).await;
            }
            Some(Body::Snapshot(s)) => {
                let s = s.state.expect("a state");
                if s.to_act == Some(0) {
                    play_first(client, id, token, s.version).await;
                }
            }
            Some(Body::GameFinished(_)) => break,
            _ => {}
        }
    }
    let replay = client
        .export_replay(authed(
            token,
            pb::ExportReplayRequest {
                game_id: id.to_owned(),
            },
        ))
        .await
        .expect("replay")
        .into_inner();
    let bots_after: Vec<_> = replay
        .actions
        .iter()
        .skip(from as usize)
        .filter(|a| a.seat != 0)
        .collect();
    assert!(!bots_after.is_empty(), "the bots acted after the restart");
    for a in bots_after {
        assert!(
            !a.timeout && !a.autopilot,
            "a bot's action after the restart was not its own: {a:?}"
        );
    }
}

async fn a_practice_game_s_bots_play_on_after_a_sigkill(backend: Backend) {
    let db = TestDb::new(backend, "practice_restart");
    let log = std::env::temp_dir().join(format!(
        "druids-practice-restart-{backend:?}-{}.log",
        std::process::id()
    ));
    let server = start(&db, "127.0.0.1:0", &log);
    let addr = server.addr.clone();
    let base = format!("http://{}", server.http.clone().expect("an HTTP face"));
    let mut client = Client::connect(server.url()).await.unwrap();
    let (id, token, killed_at) = until_a_bot_decides(&base, &mut client).await;
    server.kill();

    let server = start(&db, &addr, &log);
    let mut client = Client::connect(server.url()).await.unwrap();
    // (A bot may have acted already.)
    let state = state_of(&mut client, &id, &token).await;
    assert!(state.version >= killed_at, "an action was lost");
    play_on(&mut client, &id, &token, killed_at).await;
    server.kill();
}

/// A node of a cluster on PostgreSQL, its leases of 2 s.
fn node(db: &str, dir: &std::path::Path, i: usize) -> ServerProcess {
    let id = format!("node-{i}");
    ServerProcess::start(
        &[
            "--listen",
            "127.0.0.1:0",
            "--http-listen",
            "127.0.0.1:0",
            "--db",
            db,
            "--node-id",
            &id,
            "--lease-secs",
            "2",
        ],
        &[("DRUIDS_MAX_SUBMITS_PER_SECOND", "0")],
        &dir.join(format!("{id}.log")),
    )
}

/// The node that takes a practice game over from a SIGKILLed node plays its
/// bots on.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_practice_game_s_bots_play_on_where_it_is_taken_over() {
    let db = PgCluster::shared().database("practice_takeover");
    let dir = std::env::temp_dir().join(format!("druids-practice-takeover-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let a = node(&db, &dir, 0);
    let b = node(&db, &dir, 1);
    let base = format!("http://{}", a.http.clone().expect("an HTTP face"));
    let mut to_a = Client::connect(a.url()).await.unwrap();
    let (id, token, killed_at) = until_a_bot_decides(&base, &mut to_a).await;
    a.kill();

    // B answers once it has taken the game over (UNAVAILABLE until then:
    // the dead owner cannot answer; retried as the README says, after the
    // delay the refusal asks for).
    let mut to_b = Client::connect(b.url()).await.unwrap();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(120);
    loop {
        let asked = to_b
            .get_state(authed(
                &token,
                pb::GetStateRequest {
                    game_id: id.clone(),
                },
            ))
            .await;
        match asked {
            Ok(state) => {
                let state = state.into_inner().state.expect("a state");
                assert!(state.version >= killed_at, "an action was lost");
                break;
            }
            Err(s) if druids_tests::retry_allowed(&s) => {
                assert!(
                    tokio::time::Instant::now() < deadline,
                    "B takes the game over"
                );
                tokio::time::sleep(druids_tests::retry_delay(&s)).await;
            }
            Err(s) => panic!("GetState: {s:?}"),
        }
    }
    play_on(&mut to_b, &id, &token, killed_at).await;
    b.kill();
    let _ = std::fs::remove_dir_all(&dir);
}
