//! A retried CreateTestGame (testing.proto): the same request id, game and
//! plan get the same game, tokens and test key, and the plan's ledger stays
//! as it stands; a request id used with another plan, or by CreateGame, is
//! refused and changes nothing.

use druids_contract::pb;
use druids_contract::pb::testing_service_client::TestingServiceClient;
use druids_tests::legal;
use tonic::Code;

use crate::faults::{calls, ledger, reason, testing_server};

fn game(request_id: &str) -> pb::CreateGameRequest {
    pb::CreateGameRequest {
        kind: pb::GameKind::Meduris as i32,
        players: 2,
        seed: Some(11),
        request_id: request_id.to_owned(),
        ..Default::default()
    }
}

/// A plan refusing seat `seat`'s `nth` SubmitAction.
fn plan(seat: u32, nth: u32) -> pb::FaultPlan {
    pb::FaultPlan {
        faults: vec![pb::Fault {
            seat,
            kind: Some(pb::fault::Kind::RefuseSubmit(pb::RefuseSubmitFault {
                nth,
                retry_after_ms: 100,
            })),
        }],
    }
}

fn test_request(request_id: &str, plan: pb::FaultPlan) -> pb::CreateTestGameRequest {
    pb::CreateTestGameRequest {
        game: Some(game(request_id)),
        plan: Some(plan),
    }
}

#[tokio::test]
async fn a_retried_create_test_game_answers_again_and_another_plan_is_refused() {
    let server = testing_server().await;
    let mut client = server.client().await;
    let mut testing = TestingServiceClient::connect(server.url()).await.unwrap();
    let id = "retried-test-game-3f9c2a71d04b";

    let first = testing
        .create_test_game(test_request(id, plan(0, 1)))
        .await
        .expect("CreateTestGame")
        .into_inner();
    let made = first.game.clone().expect("the game");
    let tokens: Vec<String> = made.seats.iter().map(|s| s.token.clone()).collect();
    legal(&mut client, &made.game_id, &tokens[0], false)
        .await
        .expect("GetLegalActions");
    let before = ledger(&mut testing, &made.game_id, &first.test_key).await;
    assert_eq!(calls(&before, "GetLegalActions").len(), 1, "{before:?}");

    // The true retry: the same game, tokens and key; the ledger kept.
    let again = testing
        .create_test_game(test_request(id, plan(0, 1)))
        .await
        .expect("the retried CreateTestGame")
        .into_inner();
    let again_game = again.game.expect("the game");
    assert_eq!(again_game.game_id, made.game_id);
    assert_eq!(again.test_key, first.test_key, "the retry's test key");
    let again_tokens: Vec<String> = again_game.seats.iter().map(|s| s.token.clone()).collect();
    assert_eq!(again_tokens, tokens, "the retry's seat tokens");
    assert_eq!(
        ledger(&mut testing, &made.game_id, &first.test_key).await,
        before,
        "a retry leaves the plan's ledger as it stands"
    );

    // The same request id with another plan: refused, nothing changed.
    let other_plan = testing
        .create_test_game(test_request(id, plan(1, 2)))
        .await
        .expect_err("the same request id with another plan");
    assert_eq!(other_plan.code(), Code::AlreadyExists, "{other_plan:?}");
    assert_eq!(reason(&other_plan), "KEY_REUSED", "{other_plan:?}");
    assert_eq!(
        ledger(&mut testing, &made.game_id, &first.test_key).await,
        before,
        "the refused retry left the plan as it was"
    );

    // CreateGame with the test game's request id: refused.
    let plain = client
        .create_game(game(id))
        .await
        .expect_err("CreateGame with a CreateTestGame's request id");
    assert_eq!(plain.code(), Code::AlreadyExists, "{plain:?}");

    // CreateTestGame with a CreateGame's request id: refused, so that no
    // plan or test key is ever attached to a game CreateGame made.
    let other_id = "plain-game-9b1e77c2a5d3";
    client
        .create_game(game(other_id))
        .await
        .expect("CreateGame");
    let taken = testing
        .create_test_game(test_request(other_id, plan(0, 1)))
        .await
        .expect_err("CreateTestGame with a CreateGame's request id");
    assert_eq!(taken.code(), Code::AlreadyExists, "{taken:?}");
    assert_eq!(reason(&taken), "KEY_REUSED", "{taken:?}");
}
