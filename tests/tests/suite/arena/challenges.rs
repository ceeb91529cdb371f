//! Direct challenges: accepted ones start matches, others end declined or
//! expired, and each side's event log says so.

use std::sync::Arc;

use druids_contract::pb;
use druids_tests::{TestServer, authed};
use tonic::Code;

use super::{
    arena, bot_events, bot_events_until, challenge, follow_events, limits, meduris_challenge,
    register,
};

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn challenges_start_matches_or_end_declined_or_expired() {
    let server = TestServer::with(Arc::new(druids_server::MemoryStore::default()), limits()).await;
    let mut a = arena(&server).await;
    let (_, key_a) = register(&mut a, "challenger").await;
    let (id_b, key_b) = register(&mut a, "challenged").await;
    let challenge = |rated: bool, secs: u32| pb::ChallengeRequest {
        kind: pb::GameKind::Dolmen as i32,
        opponents: vec![id_b.clone()],
        rated,
        expires_in_secs: secs,
        time_control: None,
    };
    // Declined.
    let first = a
        .challenge(authed(&key_a, challenge(false, 60)))
        .await
        .expect("challenge")
        .into_inner()
        .challenge
        .unwrap();
    let received = bot_events(&mut a, &key_b, 1, |e| !e.is_empty()).await;
    assert!(matches!(
        received.last().and_then(|e| e.event.clone()),
        Some(pb::bot_event::Event::ChallengeReceived(c)) if c.challenge_id == first.challenge_id
    ));
    let wrong = a
        .answer_challenge(authed(
            &key_a,
            pb::AnswerChallengeRequest {
                challenge_id: first.challenge_id.clone(),
                accept: true,
                ..Default::default()
            },
        ))
        .await
        .expect_err("the challenger cannot answer its own challenge");
    assert_eq!(wrong.code(), Code::NotFound);
    a.answer_challenge(authed(
        &key_b,
        pb::AnswerChallengeRequest {
            challenge_id: first.challenge_id.clone(),
            accept: false,
            ..Default::default()
        },
    ))
    .await
    .expect("decline");
    let ended = |reason: &'static str| {
        move |e: &[pb::BotEvent]| {
            e.iter().any(|e| {
                matches!(&e.event, Some(pb::bot_event::Event::ChallengeEnded(c)) if c.reason == reason)
            })
        }
    };
    let told = bot_events(&mut a, &key_a, 1, ended("declined by challenged")).await;
    assert!(
        matches!(
            told.last().and_then(|e| e.event.clone()),
            Some(pb::bot_event::Event::ChallengeEnded(e)) if e.reason == "declined by challenged"
        ),
        "{told:?}"
    );
    // Expired.
    a.challenge(authed(&key_a, challenge(false, 1)))
        .await
        .expect("challenge");
    // Its second runs out on the server's clock: the end comes as an event.
    let told = bot_events(&mut a, &key_a, 1, ended("expired")).await;
    assert!(matches!(
        told.last().and_then(|e| e.event.clone()),
        Some(pb::bot_event::Event::ChallengeEnded(e)) if e.reason == "expired"
    ));
    // Accepted: the match is played and finished.
    let players = [
        tokio::spawn(follow_events(server.url(), key_a.clone(), 1)),
        tokio::spawn(follow_events(server.url(), key_b.clone(), 2)),
    ];
    let third = a
        .challenge(authed(&key_a, challenge(true, 60)))
        .await
        .expect("challenge")
        .into_inner()
        .challenge
        .unwrap();
    let accepted = a
        .answer_challenge(authed(
            &key_b,
            pb::AnswerChallengeRequest {
                challenge_id: third.challenge_id,
                accept: true,
                ..Default::default()
            },
        ))
        .await
        .expect("accept")
        .into_inner();
    assert!(!accepted.match_id.is_empty());
    bot_events_until(&mut a, &key_a, |events| {
        events.iter().any(|e| matches!(&e.event, Some(pb::bot_event::Event::MatchFinished(f)) if f.match_id == accepted.match_id))
    })
    .await;
    for p in players {
        p.abort();
    }
}

/// A rated challenge of a pair that started its rated matches of the day
/// together already says, when sent, that it will be played unrated
/// (`ChallengeInfo.rated`), as its match then is.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_challenge_the_pair_rule_makes_unrated_says_so_when_sent() {
    let mut l = limits();
    l.arena.pair_matches_per_day = 1;
    let server = TestServer::with(Arc::new(druids_server::MemoryStore::default()), l).await;
    let mut a = arena(&server).await;
    let (_, challenger) = register(&mut a, "challenger").await;
    let (opponent, opponent_key) = register(&mut a, "opponent").await;
    let rated = pb::ChallengeRequest {
        rated: true,
        ..meduris_challenge(vec![opponent])
    };
    let first = challenge(&mut a, &challenger, rated.clone()).await;
    assert!(first.rated, "{first:?}");
    a.answer_challenge(authed(
        &opponent_key,
        pb::AnswerChallengeRequest {
            challenge_id: first.challenge_id,
            accept: true,
            reason: String::new(),
        },
    ))
    .await
    .expect("accept");
    let second = challenge(&mut a, &challenger, rated).await;
    assert!(
        !second.rated,
        "the pair's second rated match today: {second:?}"
    );
    server.stop().await;
}
