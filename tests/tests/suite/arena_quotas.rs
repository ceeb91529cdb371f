//! The arena's quotas and its closed registration, as the README's flag table
//! promises them: registrations per address and hour, seeks open at once,
//! matches at once and challenges per hour each answer `RESOURCE_EXHAUSTED`
//! with reason `RATE_LIMITED` and a `google.rpc.RetryInfo`; with
//! `--registration closed` only the operator key registers a bot.

use std::sync::Arc;

use druids_contract::pb;
use druids_server::config::Registration;
use druids_server::{Limits, MemoryStore};
use druids_tests::{TestServer, authed};
use tonic::Code;
use tonic_types::StatusExt;

use crate::arena::{arena, register};
use crate::trust::refused;

/// A quota refusal: the status, its reason and a retry delay.
fn over_quota<T: std::fmt::Debug>(result: Result<T, tonic::Status>, what: &str) {
    let status = refused(result, Code::ResourceExhausted, "RATE_LIMITED");
    let delay = status
        .get_details_retry_info()
        .and_then(|r| r.retry_delay)
        .unwrap_or_else(|| panic!("{what}: a RetryInfo with a delay: {status:?}"));
    assert!(!delay.is_zero(), "{what}: a delay to wait: {delay:?}");
}

/// An unrated Die Dolmengötter challenge of `opponent`.
fn challenge(opponent: &str) -> pb::ChallengeRequest {
    pb::ChallengeRequest {
        kind: pb::GameKind::Dolmen as i32,
        opponents: vec![opponent.to_owned()],
        rated: false,
        expires_in_secs: 600,
        time_control: None,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_arenas_quotas_answer_with_a_retry_delay() {
    let mut limits = Limits::unthrottled();
    limits.arena.registrations_per_hour = 3;
    limits.arena.bot_max_seeks = 1;
    limits.arena.bot_max_games = 1;
    limits.arena.bot_challenges_per_hour = 1;
    let server = TestServer::with(Arc::new(MemoryStore::default()), limits).await;
    let mut a = arena(&server).await;

    // Registrations: three an hour from this address.
    let (id_a, key_a) = register(&mut a, "quota-a").await;
    let (id_b, key_b) = register(&mut a, "quota-b").await;
    let (_, key_c) = register(&mut a, "quota-c").await;
    over_quota(
        a.register_bot(pb::RegisterBotRequest {
            name: "quota-d".into(),
            ..Default::default()
        })
        .await,
        "a fourth registration",
    );

    // Seeks: one open at once (the first stays open while its stream does).
    let seek = || pb::SeekRequest {
        kind: pb::GameKind::Meduris as i32,
        min_players: 4,
        max_players: 4,
        rated: false,
    };
    let open = a
        .seek(authed(&key_c, seek()))
        .await
        .expect("a first seek")
        .into_inner();
    over_quota(a.seek(authed(&key_c, seek())).await, "a second open seek");
    drop(open);

    // Challenges: one an hour per bot; matches: one at once per bot.
    let first = a
        .challenge(authed(&key_a, challenge(&id_b)))
        .await
        .expect("a first challenge")
        .into_inner()
        .challenge
        .expect("the challenge");
    over_quota(
        a.challenge(authed(&key_a, challenge(&id_b))).await,
        "a second challenge within the hour",
    );
    let accepted = a
        .answer_challenge(authed(
            &key_b,
            pb::AnswerChallengeRequest {
                challenge_id: first.challenge_id,
                accept: true,
                ..Default::default()
            },
        ))
        .await
        .expect("accepted")
        .into_inner();
    assert!(!accepted.match_id.is_empty(), "a match started");
    // b plays one match now: another challenge it accepts is one too many.
    let second = a
        .challenge(authed(&key_c, challenge(&id_b)))
        .await
        .expect("c's challenge")
        .into_inner()
        .challenge
        .expect("the challenge");
    over_quota(
        a.answer_challenge(authed(
            &key_b,
            pb::AnswerChallengeRequest {
                challenge_id: second.challenge_id,
                accept: true,
                ..Default::default()
            },
        ))
        .await,
        "a second match at once",
    );
    // And a seek of a bot playing its one match.
    over_quota(
        a.seek(authed(&key_a, seek())).await,
        "a seek while at the match limit",
    );
    let _ = id_a;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_challenge_starts_only_if_its_challenger_has_room_for_the_match() {
    let mut limits = crate::arena::limits();
    limits.arena.bot_max_games = 1;
    let server = TestServer::with(Arc::new(MemoryStore::default()), limits).await;
    let mut a = arena(&server).await;
    let (id_a, key_a) = register(&mut a, "busy-a").await;
    let (id_b, key_b) = register(&mut a, "busy-b").await;
    let (id_c, key_c) = register(&mut a, "busy-c").await;
    // a plays its one match, with b.
    crate::arena::challenge_accepted(&mut a, &key_a, &key_b, challenge(&id_b)).await;
    // a may still send a challenge; c's acceptance would start a second
    // match of a's: refused, naming a, and the challenge waits.
    let second = a
        .challenge(authed(&key_a, challenge(&id_c)))
        .await
        .expect("a challenge sent while playing")
        .into_inner()
        .challenge
        .expect("the challenge");
    let accept = pb::AnswerChallengeRequest {
        challenge_id: second.challenge_id.clone(),
        accept: true,
        ..Default::default()
    };
    let status = refused(
        a.answer_challenge(authed(&key_c, accept)).await,
        Code::ResourceExhausted,
        "RATE_LIMITED",
    );
    assert!(status.message().contains("busy-a"), "{status:?}");
    let mut client = server.client().await;
    let games = client
        .list_games(pb::ListGamesRequest {
            bot_id: id_a,
            ..Default::default()
        })
        .await
        .expect("a's games")
        .into_inner()
        .games;
    assert_eq!(games.len(), 1, "a plays one match: {games:?}");
    // The challenge still waits for c's answer.
    let decline = pb::AnswerChallengeRequest {
        challenge_id: second.challenge_id,
        accept: false,
        ..Default::default()
    };
    a.answer_challenge(authed(&key_c, decline))
        .await
        .expect("the challenge is still pending");
    server.stop().await;
}

#[tokio::test]
async fn a_closed_registration_takes_only_the_operator_key() {
    let mut limits = Limits::unthrottled();
    limits.arena.registration = Registration::Closed;
    limits.arena.operator_key = Some("the-operator-key".into());
    let server = TestServer::with(Arc::new(MemoryStore::default()), limits).await;
    let mut a = arena(&server).await;
    let request = |name: &str| pb::RegisterBotRequest {
        name: name.to_owned(),
        ..Default::default()
    };
    refused(
        a.register_bot(request("anyone")).await,
        Code::PermissionDenied,
        "REGISTRATION_CLOSED",
    );
    refused(
        a.register_bot(authed("not-the-key", request("guesser")))
            .await,
        Code::PermissionDenied,
        "REGISTRATION_CLOSED",
    );
    let registered = a
        .register_bot(authed("the-operator-key", request("admitted")))
        .await
        .expect("the operator registers a bot")
        .into_inner();
    assert!(!registered.api_key.is_empty());
    // The new bot's key works as a bot's key.
    a.stream_bot_events(authed(
        &registered.api_key,
        pb::StreamBotEventsRequest { from_seq: 1 },
    ))
    .await
    .expect("the registered bot's key is a key");
    server.stop().await;
}

/// With open registration, a bearer is read as the operator key or refused:
/// a bot's key or a mistyped operator key is `UNAUTHENTICATED`
/// `NOT_OPERATOR_KEY`, registers nothing and spends none of the address's
/// quota; no bearer registers as anyone.
#[tokio::test]
async fn an_open_registration_refuses_a_bearer_that_is_not_the_operator_key() {
    let mut limits = Limits::unthrottled();
    limits.arena.registrations_per_hour = 2;
    limits.arena.operator_key = Some("the-operator-key".into());
    let server = TestServer::with(Arc::new(MemoryStore::default()), limits).await;
    let mut a = arena(&server).await;
    let request = |name: &str| pb::RegisterBotRequest {
        name: name.to_owned(),
        ..Default::default()
    };
    let (_, bot_key) = register(&mut a, "first").await;
    for bearer in [bot_key.as_str(), "the-operator-kee"] {
        let status = refused(
            a.register_bot(authed(bearer, request("second"))).await,
            Code::Unauthenticated,
            "NOT_OPERATOR_KEY",
        );
        assert!(
            status.message().contains("send no bearer"),
            "says what to do: {status:?}"
        );
    }
    // Nothing was registered and no quota spent: the name is free, and the
    // address's second registration of the hour is still open.
    a.register_bot(request("second"))
        .await
        .expect("the name is free and the quota unspent");
    over_quota(
        a.register_bot(request("third")).await,
        "a third registration",
    );
    a.register_bot(authed("the-operator-key", request("by-the-operator")))
        .await
        .expect("the operator key registers past the quota");
    server.stop().await;
}

/// A challenge's bounds (arena.proto): 1 to 3 opponents for Meduris, 1 to 4
/// for Die Dolmengötter; an answer within 600 s; a decision clock of 100 ms
/// to 600 s and a bank of at most an hour. Just inside each bound is taken,
/// just outside is refused as `INVALID_ARGUMENT`, and a refused challenge
/// reaches nobody.
#[tokio::test]
async fn a_challenges_bounds_are_kept() {
    let mut limits = Limits::unthrottled();
    limits.arena.bot_challenges_per_hour = 1000;
    let server = TestServer::with(Arc::new(MemoryStore::default()), limits).await;
    let mut a = arena(&server).await;
    let (_, key) = register(&mut a, "bounds-challenger").await;
    let mut opponents = Vec::new();
    let mut keys = Vec::new();
    for i in 0..5 {
        let (id, key) = register(&mut a, &format!("bounds-{i}")).await;
        opponents.push(id);
        keys.push(key);
    }
    let request =
        |kind: pb::GameKind, n: usize, secs: u32, clock: Option<(u32, u32)>| pb::ChallengeRequest {
            kind: kind as i32,
            opponents: opponents[..n].to_vec(),
            rated: false,
            expires_in_secs: secs,
            time_control: clock.map(|(decision_ms, time_bank_ms)| pb::TimeControl {
                decision_ms,
                time_bank_ms,
            }),
        };
    use pb::GameKind::{Dolmen, Meduris};
    let inside = [
        request(Meduris, 3, 600, None),
        request(Dolmen, 4, 60, None),
        request(Dolmen, 1, 0, Some((100, 0))),
        request(Dolmen, 1, 0, Some((600_000, 3_600_000))),
    ];
    // A bot has one pending challenge from another at most: each accepted
    // request comes from a challenger of its own.
    for (i, req) in inside.into_iter().enumerate() {
        let (_, own) = register(&mut a, &format!("bounds-challenger-{i}")).await;
        a.challenge(authed(&own, req.clone()))
            .await
            .unwrap_or_else(|e| panic!("{req:?} is within the bounds: {e:?}"));
    }
    let outside = [
        request(Meduris, 4, 60, None),
        request(Dolmen, 5, 60, None),
        request(Dolmen, 0, 60, None),
        request(Dolmen, 1, 601, None),
        request(Dolmen, 1, 60, Some((99, 0))),
        request(Dolmen, 1, 60, Some((600_001, 0))),
        request(Dolmen, 1, 60, Some((1000, 3_600_001))),
    ];
    for req in outside {
        let refused = a
            .challenge(authed(&key, req.clone()))
            .await
            .expect_err("outside the bounds");
        assert_eq!(
            refused.code(),
            Code::InvalidArgument,
            "{req:?}: {refused:?}"
        );
        assert!(
            refused.get_details_error_info().is_some(),
            "{req:?}: a reason: {refused:?}"
        );
    }
    // Only the refused five-opponent challenge named the fifth bot: it was
    // told nothing (the refusal came before anything was sent). A challenge
    // within the bounds then reaches it as its first event.
    let (_, last) = register(&mut a, "bounds-challenger-last").await;
    a.challenge(authed(
        &last,
        pb::ChallengeRequest {
            opponents: vec![opponents[4].clone()],
            ..request(Dolmen, 1, 60, None)
        },
    ))
    .await
    .expect("within the bounds");
    let told = crate::arena::bot_events_until(&mut a, &keys[4], |told| !told.is_empty()).await;
    assert!(
        matches!(
            &told[0].event,
            Some(pb::bot_event::Event::ChallengeReceived(_))
        ),
        "a refused challenge reaches nobody: {told:?}"
    );
    server.stop().await;
}
