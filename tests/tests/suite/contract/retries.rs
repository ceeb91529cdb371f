//! Idempotency: a submission retried with the same key is applied once and
//! answered the same way each time.

use super::MEDURIS;
use druids_contract::pb;
use druids_tests::{TestServer, authed, create, state};

#[tokio::test]
async fn a_retry_with_the_same_key_applies_nothing_twice() {
    let server = TestServer::start().await;
    let mut client = server.client().await;
    let (id, tokens) = create(&mut client, MEDURIS, 2, 5).await;
    let legal = druids_tests::legal(&mut client, &id, &tokens[0], false)
        .await
        .unwrap();
    let req = pb::SubmitActionRequest {
        game_id: id.clone(),
        choice: Some(pb::submit_action_request::Choice::LegalActionId(0)),
        expected_version: Some(legal.version),
        idempotency_key: "retry-me".into(),
    };
    let first = client
        .submit_action(authed(&tokens[0], req.clone()))
        .await
        .unwrap()
        .into_inner();
    let second = client
        .submit_action(authed(&tokens[0], req.clone()))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(first, second);
    assert_eq!(first.version, 1);
    assert!(!first.events.is_empty());
    let st = state(&mut client, &id, None).await;
    assert_eq!(st.version, 1, "the retry applied nothing");
    let workers: usize = match st.game {
        Some(pb::state_view::Game::Meduris(m)) => m.plateaus.iter().map(|p| p.workers.len()).sum(),
        _ => unreachable!(),
    };
    assert_eq!(workers, 1, "exactly one worker placed");
    // The same key from another seat is another key.
    let other = pb::SubmitActionRequest {
        expected_version: Some(1),
        ..req
    };
    client
        .submit_action(authed(&tokens[1], other))
        .await
        .unwrap();
    assert_eq!(state(&mut client, &id, None).await.version, 2);
    server.stop().await;
}
