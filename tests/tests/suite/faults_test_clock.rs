//! The test clock from any language (docs/testing-clients.md, section 3):
//! `TestingService.AdvanceClock` moves a test game's turn clock as if time
//! had passed, so that the clock's default lands without waiting a day;
//! only with the game's test key, only on a `--test-faults` server.

use druids_contract::pb;
use druids_contract::pb::game_event::Body;
use druids_contract::pb::testing_service_client::TestingServiceClient;
use druids_tests::{authed, state};
use tokio_stream::StreamExt;
use tonic::Code;

use crate::faults::testing_server;

/// An hour (the longest turn clock): no test may wait for it.
const HOUR_MS: u32 = 3_600_000;

#[tokio::test]
async fn advancing_a_test_games_clock_lands_its_default_without_waiting() {
    let server = testing_server().await;
    let mut client = server.client().await;
    let mut testing = TestingServiceClient::connect(server.url()).await.unwrap();
    let made = testing
        .create_test_game(pb::CreateTestGameRequest {
            game: Some(pb::CreateGameRequest {
                kind: pb::GameKind::Meduris as i32,
                players: 2,
                seed: Some(5),
                options: Some(pb::GameOptions {
                    decision_ms: Some(HOUR_MS),
                    ..Default::default()
                }),
                ..Default::default()
            }),
            plan: None,
        })
        .await
        .expect("CreateTestGame")
        .into_inner();
    let key = made.test_key;
    let id = made.game.expect("the game").game_id;
    let before = state(&mut client, &id, None).await;
    let deadline = before.deadline_unix_ms.expect("a timed decision");
    let advance = |by_ms: u64, key: &str| {
        authed(
            key,
            pb::AdvanceClockRequest {
                game_id: id.clone(),
                by_ms,
            },
        )
    };

    // A part of the decision's time: the deadline comes that much earlier.
    let part = testing
        .advance_clock(advance(60_000, &key))
        .await
        .expect("AdvanceClock")
        .into_inner();
    assert!(!part.timed_out);
    assert_eq!(part.deadline_unix_ms, Some(deadline - 60_000));
    assert_eq!(state(&mut client, &id, None).await.version, before.version);

    // The rest: the clock's default is applied before the answer.
    let rest = testing
        .advance_clock(advance(u64::from(HOUR_MS), &key))
        .await
        .expect("AdvanceClock")
        .into_inner();
    assert!(rest.timed_out);
    let after = state(&mut client, &id, None).await;
    assert_eq!(after.version, before.version + 1, "one default applied");
    let log = client
        .stream_events(pb::StreamEventsRequest {
            game_id: id.clone(),
            from_seq: before.last_seq + 1,
        })
        .await
        .unwrap()
        .into_inner()
        .take((rest.last_seq - before.last_seq) as usize)
        .collect::<Vec<_>>()
        .await;
    assert!(
        log.iter()
            .any(|e| matches!(e.as_ref().unwrap().body, Some(Body::TimedOut(_)))),
        "{log:?}"
    );

    // Refused without the game's key, and for a count out of bounds.
    let stranger = testing
        .advance_clock(advance(1_000, "not-the-key"))
        .await
        .unwrap_err();
    assert_eq!(stranger.code(), Code::Unauthenticated, "{stranger:?}");
    let zero = testing.advance_clock(advance(0, &key)).await.unwrap_err();
    assert_eq!(zero.code(), Code::InvalidArgument, "{zero:?}");
    // A missing game id is a missing field, not a wrong key.
    let no_game = |key: &str| {
        authed(
            key,
            pb::AdvanceClockRequest {
                game_id: String::new(),
                by_ms: 1_000,
            },
        )
    };
    let unnamed = testing.advance_clock(no_game(&key)).await.unwrap_err();
    assert_eq!(unnamed.code(), Code::InvalidArgument, "{unnamed:?}");
    assert_eq!(
        unnamed.message(),
        "game_id is required: the game CreateTestGame made"
    );
    let ledger = testing
        .get_ledger(authed(&key, pb::GetLedgerRequest::default()))
        .await
        .unwrap_err();
    assert_eq!(ledger.code(), Code::InvalidArgument, "{ledger:?}");
    assert_eq!(
        state(&mut client, &id, None).await.version,
        after.version,
        "refusals change nothing"
    );
}
