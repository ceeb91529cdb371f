//! Every error code the game RPCs answer, provoked on a live game, and the
//! proof that a rejected request changes nothing any viewer can observe.

use super::{MEDURIS, assert_code, place_worker, submit};
use druids_contract::pb;
use druids_contract::pb::druids_service_client::DruidsServiceClient;
use druids_tests::{Lcg, TestServer, authed, create, play_random, state};
use tonic::transport::Channel;
use tonic::{Code, Request};

fn take_good(good: pb::MedurisGood) -> pb::Action {
    pb::Action {
        game: Some(pb::action::Game::Meduris(pb::MedurisAction {
            kind: Some(pb::meduris_action::Kind::TakeGood(
                pb::meduris_action::TakeGood { good: good as i32 },
            )),
        })),
    }
}

/// Everything every viewer can observe of a game: compared before and after a
/// rejected request to show it changed nothing.
async fn observe(
    client: &mut DruidsServiceClient<Channel>,
    id: &str,
    tokens: &[String],
) -> Vec<String> {
    let mut seen = vec![format!("{:?}", state(client, id, None).await)];
    for t in tokens {
        seen.push(format!("{:?}", state(client, id, Some(t)).await));
        let legal = druids_tests::legal(client, id, t, true).await.unwrap();
        seen.push(format!("{legal:?}"));
    }
    seen
}

#[tokio::test]
async fn every_error_code_leaves_the_game_unchanged() {
    let server = TestServer::start().await;
    let mut client = server.client().await;
    let (id, tokens) = create(&mut client, MEDURIS, 3, 7).await;
    let (other_id, other_tokens) = create(&mut client, MEDURIS, 2, 8).await;
    play_random(&mut client, &id, &tokens, &mut Lcg(1), 5)
        .await
        .unwrap();
    let before = observe(&mut client, &id, &tokens).await;
    let st = state(&mut client, &id, None).await;
    let to_act = st.to_act.unwrap() as usize;
    let waiting = tokens[(to_act + 1) % 3].clone();
    let actor = tokens[to_act].clone();
    let version = st.version;

    // INVALID_ARGUMENT: malformed requests.
    assert_code(
        client
            .submit_action(authed(
                &actor,
                submit("", take_good(pb::MedurisGood::Wood), Some(version), ""),
            ))
            .await,
        Code::InvalidArgument,
        "game_id",
    );
    let mut bad = take_good(pb::MedurisGood::Wood);
    if let Some(pb::action::Game::Meduris(m)) = &mut bad.game
        && let Some(pb::meduris_action::Kind::TakeGood(t)) = &mut m.kind
    {
        t.good = 9;
    }
    assert_code(
        client
            .submit_action(authed(&actor, submit(&id, bad, Some(version), "")))
            .await,
        Code::InvalidArgument,
        "take_good.good",
    );
    assert_code(
        client
            .submit_action(authed(
                &actor,
                submit(&id, pb::Action { game: None }, Some(version), ""),
            ))
            .await,
        Code::InvalidArgument,
        "action.game",
    );
    let dolmen = pb::Action {
        game: Some(pb::action::Game::Dolmen(Default::default())),
    };
    assert_code(
        client
            .submit_action(authed(&actor, submit(&id, dolmen, Some(version), "")))
            .await,
        Code::InvalidArgument,
        "meduris",
    );
    assert_code(
        client
            .submit_action(authed(
                &actor,
                submit(&id, take_good(pb::MedurisGood::Wood), None, ""),
            ))
            .await,
        Code::InvalidArgument,
        "expected_version",
    );
    let by_id = pb::SubmitActionRequest {
        game_id: id.clone(),
        choice: Some(pb::submit_action_request::Choice::LegalActionId(9999)),
        expected_version: Some(version),
        idempotency_key: String::new(),
    };
    assert_code(
        client.submit_action(authed(&actor, by_id)).await,
        Code::InvalidArgument,
        "9999",
    );
    let no_choice = pb::SubmitActionRequest {
        game_id: id.clone(),
        choice: None,
        expected_version: Some(version),
        idempotency_key: String::new(),
    };
    assert_code(
        client.submit_action(authed(&actor, no_choice)).await,
        Code::InvalidArgument,
        "choice",
    );
    let long_key = "k".repeat(200);
    assert_code(
        client
            .submit_action(authed(
                &actor,
                submit(
                    &id,
                    take_good(pb::MedurisGood::Wood),
                    Some(version),
                    &long_key,
                ),
            ))
            .await,
        Code::InvalidArgument,
        "idempotency_key",
    );

    // FAILED_PRECONDITION: not this seat's decision; an action the rules forbid now.
    assert_code(
        client
            .submit_action(authed(
                &waiting,
                submit(&id, place_worker(pb::MedurisGood::Wood), Some(version), ""),
            ))
            .await,
        Code::FailedPrecondition,
        "not your decision",
    );
    let hut_now = pb::Action {
        game: Some(pb::action::Game::Meduris(pb::MedurisAction {
            kind: Some(pb::meduris_action::Kind::BuildHut(
                pb::meduris_action::BuildHut {
                    field: 0,
                    payment: None,
                },
            )),
        })),
    };
    assert_code(
        client
            .submit_action(authed(&actor, submit(&id, hut_now, Some(version), "")))
            .await,
        Code::FailedPrecondition,
        "pending decision",
    );

    // ABORTED: a stale expected_version.
    assert_code(
        client
            .submit_action(authed(
                &actor,
                submit(
                    &id,
                    place_worker(pb::MedurisGood::Wood),
                    Some(version - 1),
                    "",
                ),
            ))
            .await,
        Code::Aborted,
        "stale",
    );

    // NOT_FOUND: no such game.
    assert_code(
        client
            .get_state(pb::GetStateRequest {
                game_id: "nope".into(),
            })
            .await,
        Code::NotFound,
        "nope",
    );
    assert_code(
        client
            .submit_action(authed(
                &actor,
                submit("nope", take_good(pb::MedurisGood::Wood), Some(0), ""),
            ))
            .await,
        Code::NotFound,
        "nope",
    );

    // UNAUTHENTICATED: no token, a forged token.
    assert_code(
        client
            .submit_action(Request::new(submit(
                &id,
                place_worker(pb::MedurisGood::Wood),
                Some(version),
                "",
            )))
            .await,
        Code::Unauthenticated,
        "authorization",
    );
    assert_code(
        client
            .get_legal_actions(authed(
                "forged",
                pb::GetLegalActionsRequest {
                    game_id: id.clone(),
                    all_payments: false,
                    ..Default::default()
                },
            ))
            .await,
        Code::Unauthenticated,
        "not a seat token",
    );
    assert_code(
        client
            .get_state(authed(
                "forged",
                pb::GetStateRequest {
                    game_id: id.clone(),
                },
            ))
            .await,
        Code::Unauthenticated,
        "not a seat token",
    );

    // PERMISSION_DENIED: a real token, of another game.
    assert_code(
        client
            .submit_action(authed(
                &other_tokens[0],
                submit(&id, place_worker(pb::MedurisGood::Wood), Some(version), ""),
            ))
            .await,
        Code::PermissionDenied,
        "another game",
    );

    // All of the above changed nothing that any viewer can see.
    assert_eq!(observe(&mut client, &id, &tokens).await, before);

    // ALREADY_EXISTS: one idempotency key for two different actions.
    let legal = druids_tests::legal(&mut client, &id, &actor, false)
        .await
        .unwrap();
    assert!(legal.actions.len() >= 2);
    let first = legal.actions[0].action.clone().unwrap();
    let second = legal.actions[1].action.clone().unwrap();
    let ok = client
        .submit_action(authed(
            &actor,
            submit(&id, first, Some(version), "same-key"),
        ))
        .await
        .unwrap();
    let accepted = observe(&mut client, &id, &tokens).await;
    assert_code(
        client
            .submit_action(authed(
                &actor,
                submit(&id, second, Some(version), "same-key"),
            ))
            .await,
        Code::AlreadyExists,
        "same-key",
    );
    assert_eq!(ok.into_inner().version, version + 1);
    assert_eq!(observe(&mut client, &id, &tokens).await, accepted);
    assert_eq!(state(&mut client, &id, None).await.version, version + 1);
    assert_eq!(
        state(&mut client, &other_id, None).await.version,
        0,
        "the other game is untouched"
    );
    server.stop().await;
}

#[tokio::test]
async fn rejected_requests_change_nothing_at_all() {
    let server = TestServer::start().await;
    let mut client = server.client().await;
    let (id, tokens) = create(&mut client, MEDURIS, 2, 11).await;
    play_random(&mut client, &id, &tokens, &mut Lcg(3), 12)
        .await
        .unwrap();
    let st = state(&mut client, &id, None).await;
    let version = st.version;
    let actor = tokens[st.to_act.unwrap() as usize].clone();
    let waiting = tokens[1 - st.to_act.unwrap() as usize].clone();
    let before = observe(&mut client, &id, &tokens).await;
    let attempts = [
        (
            actor.clone(),
            submit(
                &id,
                place_worker(pb::MedurisGood::Stone),
                Some(version + 5),
                "",
            ),
        ),
        (
            waiting.clone(),
            submit(&id, take_good(pb::MedurisGood::Wool), Some(version), ""),
        ),
        (
            actor.clone(),
            submit(&id, pb::Action { game: None }, Some(version), ""),
        ),
        (
            "forged".to_owned(),
            submit(&id, take_good(pb::MedurisGood::Wool), Some(version), ""),
        ),
    ];
    for (token, req) in attempts {
        assert!(client.submit_action(authed(&token, req)).await.is_err());
    }
    // Every illegal action of every kind the contract can express.
    for g in [
        pb::MedurisGood::Wood,
        pb::MedurisGood::Wool,
        pb::MedurisGood::Copper,
        pb::MedurisGood::Stone,
    ] {
        for action in [place_worker(g), take_good(g)] {
            let legal = druids_tests::legal(&mut client, &id, &actor, true)
                .await
                .unwrap();
            if legal
                .actions
                .iter()
                .any(|a| a.action.as_ref() == Some(&action))
            {
                continue;
            }
            let r = client
                .submit_action(authed(&actor, submit(&id, action, Some(version), "")))
                .await;
            assert_eq!(r.unwrap_err().code(), Code::FailedPrecondition);
        }
    }
    assert_eq!(observe(&mut client, &id, &tokens).await, before);
    server.stop().await;
}
