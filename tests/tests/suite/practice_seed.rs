//! A practice game (`POST /web/v1/practice`) with a seed the person chose is
//! reproducible against the random and greedy bots: the bots' own seeds are
//! drawn from the game's, so the same request, played the same way by the
//! person, gives the same game action for action.

use druids_contract::pb;
use druids_contract::pb::game_event::Body;
use druids_tests::{TestServer, authed, http_face};
use tokio_stream::StreamExt;

use crate::web::practice;

/// Starts a practice game of `strategy` bots and plays the person's seat
/// with the first legal action each time; returns the finished game's
/// actions (seat, action) from its replay.
async fn practice_game(server: &TestServer, base: &str, strategy: &str) -> Vec<(u32, pb::Action)> {
    let body =
        serde_json::json!({"kind": "dolmen", "players": 3, "strategy": strategy, "seed": "77"});
    let (id, token, seat) = practice(base, body).await;
    let mut client = server.client().await;
    let mut events = client
        .stream_events(authed(
            &token,
            pb::StreamEventsRequest {
                game_id: id.clone(),
                from_seq: 0,
            },
        ))
        .await
        .expect("stream")
        .into_inner();
    let mut last_seen = 0;
    loop {
        let event = tokio::time::timeout(std::time::Duration::from_secs(120), events.next())
            .await
            .expect("deadlock guard: no event for 120 s")
            .expect("the game ends with GameFinished")
            .expect("event");
        if event.seq <= last_seen {
            continue;
        }
        last_seen = event.seq;
        match event.body {
            Some(Body::DecisionNeeded(d)) if d.seat == seat => {
                client
                    .submit_action(authed(
                        &token,
                        pb::SubmitActionRequest {
                            game_id: id.clone(),
                            choice: Some(pb::submit_action_request::Choice::LegalActionId(0)),
                            expected_version: Some(event.version),
                            idempotency_key: format!("v{}", event.version),
                        },
                    ))
                    .await
                    .expect("the person's action");
            }
            Some(Body::GameFinished(_)) => break,
            _ => {}
        }
    }
    let replay = client
        .export_replay(authed(&token, pb::ExportReplayRequest { game_id: id }))
        .await
        .expect("replay")
        .into_inner();
    replay
        .actions
        .into_iter()
        .map(|a| (a.seat, a.action.expect("an action")))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_chosen_seed_makes_a_practice_game_reproducible() {
    let server = TestServer::start().await;
    let base = http_face(&server).await;
    for strategy in ["random", "greedy"] {
        let first = practice_game(&server, &base, strategy).await;
        let second = practice_game(&server, &base, strategy).await;
        assert!(!first.is_empty());
        assert_eq!(first, second, "{strategy}: the same seed, another game");
    }
    server.stop().await;
}
