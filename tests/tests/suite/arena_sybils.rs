//! The arena's rules against cheap identities (docs/ratings.md, "Cheap
//! identities"), through the contract with the server's default rules: fresh
//! bots cannot throw rated challenges to a target (the reproduction of issue
//! 25), a bot cannot enter bots that never agreed into a tournament nor run
//! rated ones, challenges and tournaments are bounded per bot and hour with
//! an honest `RetryInfo`, a refused call spends no quota, look-alike names
//! are one name, and no bot registers as a house bot.

use std::sync::Arc;
use std::time::Duration;

use druids_contract::pb;
use druids_server::Limits;
use druids_tests::{TestServer, authed};
use tonic::Code;
use tonic_types::StatusExt;

use crate::arena::{arena, register};
use crate::trust::refused;

fn dolmen_challenge(opponent: &str, rated: bool) -> pb::ChallengeRequest {
    pb::ChallengeRequest {
        kind: pb::GameKind::Dolmen as i32,
        opponents: vec![opponent.to_owned()],
        rated,
        expires_in_secs: 600,
        time_control: None,
    }
}

/// The delay a quota refusal asks for.
fn retry_after(status: &tonic::Status) -> Duration {
    status
        .get_error_details()
        .retry_info()
        .and_then(|r| r.retry_delay)
        .expect("a RetryInfo")
}

async fn leaderboard_len(a: &mut crate::arena::Arena) -> usize {
    a.get_leaderboard(pb::GetLeaderboardRequest {
        kind: pb::GameKind::Dolmen as i32,
        players: 2,
        ..Default::default()
    })
    .await
    .unwrap()
    .into_inner()
    .entries
    .len()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fresh_bots_cannot_throw_rated_challenges_to_a_target() {
    // The defaults of the rules; only the quotas that would stop the
    // attack before the rule does are lifted.
    let mut limits = Limits::unthrottled();
    limits.arena.bot_challenges_per_hour = 1_000;
    let server = TestServer::with(Arc::new(druids_server::MemoryStore::default()), limits).await;
    let mut a = arena(&server).await;
    let (target, target_key) = register(&mut a, "target").await;
    let mut sybils = Vec::new();
    for n in 0..4 {
        sybils.push(register(&mut a, &format!("sybil {n}")).await);
    }
    // Twelve rated challenges to the target, as in the issue: all refused,
    // and none reaches the target's event log.
    for round in 0..3 {
        for (_, key) in &sybils {
            let status = refused(
                a.challenge(authed(key, dolmen_challenge(&target, true)))
                    .await,
                Code::FailedPrecondition,
                "NOT_ESTABLISHED",
            );
            assert!(
                status.message().contains("not established"),
                "{round}: {status:?}"
            );
        }
    }
    // Nor can the target challenge its accomplices to rated matches.
    refused(
        a.challenge(authed(&target_key, dolmen_challenge(&sybils[0].0, true)))
            .await,
        Code::FailedPrecondition,
        "NOT_ESTABLISHED",
    );
    assert_eq!(leaderboard_len(&mut a).await, 0, "no rated result");
    // Unrated challenges stay open to anyone.
    a.challenge(authed(&sybils[0].1, dolmen_challenge(&target, false)))
        .await
        .expect("an unrated challenge");
    // A second pending challenge from the same challenger is refused.
    refused(
        a.challenge(authed(&sybils[0].1, dolmen_challenge(&target, false)))
            .await,
        Code::ResourceExhausted,
        "LIMIT_REACHED",
    );
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bot_enters_only_itself_and_its_tournaments_and_challenges_are_bounded() {
    let mut limits = Limits::unthrottled();
    limits.arena.bot_tournaments_per_hour = 2;
    limits.arena.bot_challenges_per_hour = 1;
    limits.arena.bot_max_pending_challenges = 1;
    let server = TestServer::with(Arc::new(druids_server::MemoryStore::default()), limits).await;
    let mut a = arena(&server).await;
    let (host, host_key) = register(&mut a, "host").await;
    let (guest, guest_key) = register(&mut a, "guest").await;
    let (_, third_key) = register(&mut a, "third").await;
    let cup = |entrants: Vec<String>, rated: bool| pb::CreateTournamentRequest {
        name: "cup".into(),
        kind: pb::GameKind::Dolmen as i32,
        players: 2,
        entrants,
        format: Some(pb::create_tournament_request::Format::RoundRobin(
            pb::RoundRobin { games_per_group: 1 },
        )),
        rated,
        open_entry: Some(pb::OpenEntry {
            closes_in_secs: 600,
            max_entrants: 4,
        }),
        ..Default::default()
    };
    // A bot that never agreed cannot be entered; a bot's tournament is not
    // rated. Neither refusal spends the hourly quota.
    refused(
        a.create_tournament(authed(
            &host_key,
            cup(vec![host.clone(), guest.clone()], false),
        ))
        .await,
        Code::PermissionDenied,
        "OPERATOR_KEY_REQUIRED",
    );
    refused(
        a.create_tournament(authed(&host_key, cup(vec![host.clone()], true)))
            .await,
        Code::PermissionDenied,
        "OPERATOR_KEY_REQUIRED",
    );
    for _ in 0..2 {
        a.create_tournament(authed(&host_key, cup(vec![host.clone()], false)))
            .await
            .expect("a tournament of its own, others join");
    }
    let status = refused(
        a.create_tournament(authed(&host_key, cup(vec![host.clone()], false)))
            .await,
        Code::ResourceExhausted,
        "RATE_LIMITED",
    );
    assert!(
        retry_after(&status) > Duration::from_secs(3_500),
        "the oldest creation leaves the hour in about an hour: {status:?}"
    );
    // Challenges: a bot holds one pending challenge here, so a crowd cannot
    // flood its log; the hourly quota says when to retry.
    a.challenge(authed(&guest_key, dolmen_challenge(&host, false)))
        .await
        .expect("a challenge");
    refused(
        a.challenge(authed(&third_key, dolmen_challenge(&host, false)))
            .await,
        Code::ResourceExhausted,
        "LIMIT_REACHED",
    );
    // That refusal spent nothing: the third bot may still challenge another.
    a.challenge(authed(&third_key, dolmen_challenge(&guest, false)))
        .await
        .expect("the refused challenge spent no quota");
    let status = refused(
        a.challenge(authed(
            &guest_key,
            dolmen_challenge(&third_key_owner(&a).await, false),
        ))
        .await,
        Code::ResourceExhausted,
        "RATE_LIMITED",
    );
    assert!(
        retry_after(&status) > Duration::from_secs(3_500),
        "{status:?}"
    );
    server.stop().await;
}

/// Any bot id to challenge that is neither the challenger nor busy: a fresh
/// one.
async fn third_key_owner(a: &crate::arena::Arena) -> String {
    let mut a = a.clone();
    register(&mut a, "fresh").await.0
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn look_alike_names_are_one_name_and_a_refused_registration_spends_nothing() {
    let mut limits = Limits::unthrottled();
    limits.arena.registrations_per_hour = 2;
    let server = TestServer::with(Arc::new(druids_server::MemoryStore::default()), limits).await;
    let mut a = arena(&server).await;
    let attempt = |name: &str| pb::RegisterBotRequest {
        name: name.to_owned(),
        description: String::new(),
        owner_contact: String::new(),
    };
    a.register_bot(attempt("Alpha")).await.expect("the first");
    for look_alike in ["alpha", "ALPHA", "\u{ff21}lpha"] {
        refused(
            a.register_bot(attempt(look_alike)).await,
            Code::AlreadyExists,
            "BOT_NAME_TAKEN",
        );
    }
    for hidden in ["Al\u{200b}pha", "\u{202e}ahplA"] {
        refused(
            a.register_bot(attempt(hidden)).await,
            Code::InvalidArgument,
            "INVALID_ARGUMENT",
        );
    }
    // No bot passes for one of the server's own house bots.
    let house = pb::RegisterBotRequest {
        owner_contact: "druids-server (house bot)".into(),
        ..attempt("Delta")
    };
    refused(
        a.register_bot(house).await,
        Code::InvalidArgument,
        "INVALID_ARGUMENT",
    );
    // None of the refusals spent the quota of two: one more is taken.
    a.register_bot(attempt("Beta")).await.expect("the second");
    refused(
        a.register_bot(attempt("Gamma")).await,
        Code::ResourceExhausted,
        "RATE_LIMITED",
    );
    server.stop().await;
}
