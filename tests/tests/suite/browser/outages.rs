//! A seat's game page in a real browser rides out faults on cue
//! (docs/testing-clients.md), served to the page as to any client:
//! - a restart of the game's server while the seat's choices are shown: a
//!   click meanwhile is refused, the page says so and that the server cannot
//!   be reached, and once the server is back the choices come back by
//!   themselves (a game waiting on this seat sends no event that would bring
//!   them) and the next click is played;
//! - the seat's event stream ended cleanly twice before its second decision,
//!   the second time before any event: the page keeps following the game
//!   (a clean end is not the game's end) and plays on.

use druids_contract::pb;
use druids_contract::pb::druids_service_client::DruidsServiceClient;
use druids_contract::pb::testing_service_client::TestingServiceClient;
use druids_tests::{authed, http_face, state};
use serde_json::{Value, json};

use super::tools;
use crate::faults::{fired, ledger, test_game, testing_server};
use crate::web::target_dir;

/// How long the restart keeps the game down: long enough for the page to
/// be clicked while it is, whatever the machine's load.
const DOWN_MS: u32 = 20_000;

/// The seat's decisions the page plays in the stream-end game.
const DECISIONS: u64 = 3;

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_seat_page_rides_out_a_restart_and_clean_stream_ends() {
    let (chromium, dir) = tokio::task::spawn_blocking(tools::install)
        .await
        .expect("install task");
    let server = testing_server().await;
    let base = http_face(&server).await;
    let mut client = server.client().await;
    let mut testing = TestingServiceClient::connect(server.url())
        .await
        .expect("connect");

    // The restart fires right after the seat's stream sent the last event
    // the game had when the page opened, so after the page drew its choices.
    let (restart_id, restart_tokens, restart_key) = test_game(&mut testing, vec![]).await;
    let before = state(&mut client, &restart_id, None).await;
    assert_eq!(before.to_act, Some(0), "seat 0 decides first");
    let restart = pb::Fault {
        seat: 0,
        kind: Some(pb::fault::Kind::Restart(pb::RestartFault {
            at: Some(pb::StreamPoint {
                point: Some(pb::stream_point::Point::AfterSeq(before.last_seq)),
            }),
            down_ms: DOWN_MS,
        })),
    };
    let attach = pb::AttachFaultPlanRequest {
        game_id: restart_id.clone(),
        plan: Some(pb::FaultPlan {
            faults: vec![restart],
        }),
    };
    testing
        .attach_fault_plan(authed(&restart_key, attach))
        .await
        .expect("AttachFaultPlan");

    let clean_end = || pb::Fault {
        seat: 0,
        kind: Some(pb::fault::Kind::EndStream(pb::EndStreamFault {
            at: Some(pb::StreamPoint {
                point: Some(pb::stream_point::Point::BeforeDecision(2)),
            }),
            how: pb::StreamEnd::Clean as i32,
        })),
    };
    let (ends_id, ends_tokens, ends_key) =
        test_game(&mut testing, vec![clean_end(), clean_end()]).await;

    let user_data = tools::tempdir("druids-chromium-faults");
    let plan = json!({
        "base": base,
        "chromium": chromium,
        "screenshots": target_dir().join("screenshots"),
        "userDataDir": user_data,
        "widths": [1280],
        "faults": {
            "restart": {"gameId": restart_id, "token": restart_tokens[0]},
            "cleanEnds": {"gameId": ends_id, "token": ends_tokens[0], "other": ends_tokens[1], "decisions": DECISIONS},
        },
    });
    let results = tools::run(dir, &plan, user_data.with_extension("json")).await;
    assert!(results["error"].is_null(), "browser: {}", results["error"]);
    assert_eq!(results["problems"], json!([]), "page problems");
    let shown = &results["faults"];

    restart_ridden_out(&shown["restart"], &before, &mut client, &restart_id).await;
    let entries = ledger(&mut testing, &restart_id, &restart_key).await;
    assert_eq!(fired(&entries), vec![0], "the restart fired: {entries:#?}");

    let ends = &shown["cleanEnds"];
    assert_eq!(ends["played"], json!(DECISIONS), "{ends}");
    assert_eq!(ends["replayLink"], json!(0), "no replay offered: {ends}");
    let after = state(&mut client, &ends_id, None).await;
    assert_eq!(after.status, pb::GameStatus::Running as i32, "{after:?}");
    let entries = ledger(&mut testing, &ends_id, &ends_key).await;
    assert_eq!(
        fired(&entries),
        vec![0, 1],
        "both clean ends fired: {entries:#?}"
    );

    let _ = std::fs::remove_dir_all(&user_data);
    server.stop().await;
}

/// What the page showed around the restart, against the server's state.
async fn restart_ridden_out(
    shown: &Value,
    before: &pb::StateView,
    client: &mut DruidsServiceClient<tonic::transport::Channel>,
    id: &str,
) {
    let refused = shown["refused"].as_str().unwrap_or_default();
    assert!(
        refused.starts_with("Your choice was not played") && refused.contains("SHUTTING_DOWN"),
        "the click while down was refused, and the page said so: {shown}"
    );
    let trouble = shown["troubleWhileDown"].as_str().unwrap_or_default();
    assert!(
        !trouble.is_empty(),
        "the page said the server was out of reach: {shown}"
    );
    assert_eq!(
        shown["troubleAfter"],
        json!(""),
        "no trouble shown once back: {shown}"
    );
    assert_eq!(
        shown["errorAfter"],
        json!(""),
        "the refusal went once the game moved on: {shown}"
    );
    let now = state(client, id, None).await;
    assert_eq!(
        now.version,
        before.version + 1,
        "the click after the restart was played, the one during it was not"
    );
    assert_eq!(
        shown["versionAfter"],
        json!(now.version.to_string()),
        "{shown}"
    );
}
