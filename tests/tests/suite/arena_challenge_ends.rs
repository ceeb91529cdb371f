//! How a challenge ends without a match, as its bots learn it (issue 29):
//! its challenger withdraws it (`CancelChallenge`) and every bot of it is
//! told `challenge_ended` with cause CANCELLED and who; an opponent declines
//! with a reason of its own, which the challenger reads; a reason is bounded
//! and only a decline's; no bot cancels another's challenge; a withdrawn
//! challenge stays withdrawn across a restart (the store forgot it). Over
//! gRPC and over the HTTP face, on a real server.

use std::sync::Arc;

use druids_contract::pb;
use druids_contract::pb::bot_event::Event;
use druids_store::{Sync, sqlite::SqliteStore};
use druids_tests::{TestServer, authed};
use tonic::Code;

use crate::arena::{Arena, arena, bot_events_until, limits, register};
use crate::trust::refused;

fn challenge(opponents: &[&str]) -> pb::ChallengeRequest {
    pb::ChallengeRequest {
        kind: pb::GameKind::Dolmen as i32,
        opponents: opponents.iter().map(|&o| o.to_owned()).collect(),
        rated: false,
        expires_in_secs: 600,
        time_control: None,
    }
}

async fn send(a: &mut Arena, key: &str, opponents: &[&str]) -> String {
    a.challenge(authed(key, challenge(opponents)))
        .await
        .expect("challenge")
        .into_inner()
        .challenge
        .expect("its info")
        .challenge_id
}

/// The `challenge_ended` of challenge `id` in bot `key`'s log, once it is there.
async fn ended(a: &mut Arena, key: &str, id: &str) -> pb::ChallengeEnded {
    let is_it = |e: &pb::BotEvent| match &e.event {
        Some(Event::ChallengeEnded(c)) if c.challenge_id == id => Some(c.clone()),
        _ => None,
    };
    let events = bot_events_until(a, key, |es| es.iter().any(|e| is_it(e).is_some())).await;
    events.iter().find_map(is_it).expect("the end")
}

fn answer(id: &str, accept: bool, reason: &str) -> pb::AnswerChallengeRequest {
    pb::AnswerChallengeRequest {
        challenge_id: id.to_owned(),
        accept,
        reason: reason.to_owned(),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_challenger_cancels_and_a_decliner_says_why() {
    let dir = std::env::temp_dir().join(format!("druids-challenge-ends-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let db = dir.join("arena.db");
    let open = || Arc::new(SqliteStore::open(&db, Sync::Normal).unwrap());
    let server = TestServer::with(open(), limits()).await;
    let mut a = arena(&server).await;
    let (id_a, key_a) = register(&mut a, "asker").await;
    let (id_b, key_b) = register(&mut a, "first-guest").await;
    let (id_c, key_c) = register(&mut a, "second-guest").await;

    // Cancelled by its challenger: every bot of it is told so, and by whom.
    let id = send(&mut a, &key_a, &[&id_b, &id_c]).await;
    let not_mine = a
        .cancel_challenge(authed(
            &key_b,
            pb::CancelChallengeRequest {
                challenge_id: id.clone(),
            },
        ))
        .await;
    let not_mine = refused(not_mine, Code::NotFound, "CHALLENGE_NOT_FOUND");
    assert!(
        not_mine.message().contains("only its sender withdraws"),
        "{}",
        not_mine.message()
    );
    // Its sender does not answer it: the bots it challenges do.
    let own = a
        .answer_challenge(authed(&key_a, answer(&id, true, "")))
        .await;
    let own = refused(own, Code::NotFound, "CHALLENGE_NOT_FOUND");
    assert!(
        own.message().contains("answered by the bots it challenges"),
        "{}",
        own.message()
    );
    for malformed in ["", "nope"] {
        let bad = a
            .cancel_challenge(authed(
                &key_a,
                pb::CancelChallengeRequest {
                    challenge_id: malformed.into(),
                },
            ))
            .await;
        refused(bad, Code::InvalidArgument, "INVALID_ARGUMENT");
    }
    a.cancel_challenge(authed(
        &key_a,
        pb::CancelChallengeRequest {
            challenge_id: id.clone(),
        },
    ))
    .await
    .expect("its challenger withdraws it");
    for key in [&key_a, &key_b, &key_c] {
        let end = ended(&mut a, key, &id).await;
        assert_eq!(
            end.cause,
            pb::ChallengeEndCause::Cancelled as i32,
            "{end:?}"
        );
        assert_eq!(
            end.by.as_ref().map(|b| b.bot_id.as_str()),
            Some(id_a.as_str())
        );
        assert_eq!(end.reason, "cancelled by asker");
    }
    let late = a
        .answer_challenge(authed(&key_b, answer(&id, true, "")))
        .await;
    refused(late, Code::NotFound, "CHALLENGE_NOT_FOUND");
    let again = a
        .cancel_challenge(authed(
            &key_a,
            pb::CancelChallengeRequest {
                challenge_id: id.clone(),
            },
        ))
        .await;
    refused(again, Code::NotFound, "CHALLENGE_NOT_FOUND");

    // Declined with a reason: bounded, printable, a decline's only; a
    // refused answer changes nothing (the challenge is still pending).
    let id = send(&mut a, &key_a, &[&id_b]).await;
    for (accept, reason) in [
        (false, "x".repeat(141)),
        (false, "line\nbreak".to_owned()),
        (true, "gladly".to_owned()),
    ] {
        let bad = a
            .answer_challenge(authed(&key_b, answer(&id, accept, &reason)))
            .await;
        refused(bad, Code::InvalidArgument, "INVALID_ARGUMENT");
    }
    let why = "busy with a tournament until 18:00 UTC — try later";
    a.answer_challenge(authed(&key_b, answer(&id, false, why)))
        .await
        .expect("declined with a reason");
    let end = ended(&mut a, &key_a, &id).await;
    assert_eq!(end.cause, pb::ChallengeEndCause::Declined as i32, "{end:?}");
    assert_eq!(end.decline_reason, why);
    assert_eq!(
        end.by.as_ref().map(|b| b.bot_id.as_str()),
        Some(id_b.as_str())
    );
    assert_eq!(end.reason, format!("declined by first-guest: {why}"));

    // Over the HTTP face alike.
    let base = druids_tests::http_face(&server).await;
    let id = send(&mut a, &key_a, &[&id_c]).await;
    let (status, _, body) = crate::web::http(
        &base,
        "POST",
        "/api/v1/CancelChallenge",
        &[("authorization", &format!("Bearer {key_a}"))],
        &format!(r#"{{"challengeId": "{id}"}}"#),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        ended(&mut a, &key_c, &id).await.cause,
        pb::ChallengeEndCause::Cancelled as i32
    );

    // A withdrawn challenge stays withdrawn after a restart; one still
    // pending is there.
    let kept = send(&mut a, &key_a, &[&id_c]).await;
    let gone = send(&mut a, &key_a, &[&id_b]).await;
    a.cancel_challenge(authed(
        &key_a,
        pb::CancelChallengeRequest {
            challenge_id: gone.clone(),
        },
    ))
    .await
    .expect("withdrawn");
    server.stop().await;
    let server = TestServer::with(open(), limits()).await;
    let mut a = arena(&server).await;
    let after = a
        .answer_challenge(authed(&key_b, answer(&gone, true, "")))
        .await;
    refused(after, Code::NotFound, "CHALLENGE_NOT_FOUND");
    a.cancel_challenge(authed(
        &key_a,
        pb::CancelChallengeRequest {
            challenge_id: kept.clone(),
        },
    ))
    .await
    .expect("the pending one is still there to withdraw");
    assert_eq!(
        ended(&mut a, &key_c, &kept).await.cause,
        pb::ChallengeEndCause::Cancelled as i32
    );
    server.stop().await;
    let _ = std::fs::remove_dir_all(&dir);
}
