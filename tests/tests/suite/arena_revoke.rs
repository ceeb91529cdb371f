//! Revoking bots and keeping challenges, through the contract on a real
//! server over TCP: a revoked key stops working everywhere (its seek ends,
//! its challenges end, it leaves the leaderboard) until the operator issues a
//! new one; only the bot itself or the operator may revoke it. A pending
//! challenge, with its acceptances and its clock, survives a restart and
//! becomes a match with its id.

use std::sync::Arc;
use std::time::Duration;

use druids_contract::pb;
use druids_contract::pb::bot_event::Event;
use druids_server::Limits;
use druids_tests::{TestServer, authed};
use tonic::Code;

use crate::arena::{Arena, arena, bot_events_until, follow_events, limits, register};
use crate::stores::{Backend, TestDb, on_each_store_threaded};
use crate::trust::reason;

on_each_store_threaded!(a_pending_challenge_survives_a_restart_with_its_acceptances_and_clock);

pub(crate) const OPERATOR_KEY: &str = "operator-key-for-tests";

pub(crate) fn with_operator() -> Limits {
    let mut limits = limits();
    limits.arena.operator_key = Some(OPERATOR_KEY.into());
    limits
}

/// A server in memory with the operator key, its arena client and bots of
/// `names` registered (id, key).
pub(crate) async fn with_bots(names: &[&str]) -> (TestServer, Arena, Vec<(String, String)>) {
    with_bots_in(Arc::new(druids_server::MemoryStore::default()), names).await
}

/// [`with_bots`] on `store`.
pub(crate) async fn with_bots_in(
    store: Arc<dyn druids_server::Store>,
    names: &[&str],
) -> (TestServer, Arena, Vec<(String, String)>) {
    let server = TestServer::with(store, with_operator()).await;
    let mut a = arena(&server).await;
    let mut bots = Vec::new();
    for name in names {
        bots.push(register(&mut a, name).await);
    }
    (server, a, bots)
}

/// Creates tournament `create` with the operator key; its id.
pub(crate) async fn create_tournament(
    a: &mut Arena,
    create: pb::CreateTournamentRequest,
) -> String {
    a.create_tournament(authed(OPERATOR_KEY, create))
        .await
        .expect("create")
        .into_inner()
        .tournament
        .expect("the tournament")
        .tournament_id
}

pub(crate) fn revoke(bot_id: &str) -> pb::RevokeBotRequest {
    pb::RevokeBotRequest {
        bot_id: bot_id.to_owned(),
    }
}

fn dolmen_challenge(opponents: Vec<String>, rated: bool) -> pb::ChallengeRequest {
    pb::ChallengeRequest {
        kind: pb::GameKind::Dolmen as i32,
        opponents,
        rated,
        expires_in_secs: 600,
        time_control: None,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_revoked_bot_loses_its_key_everywhere_until_the_operator_issues_one() {
    let server = TestServer::with(
        Arc::new(druids_server::MemoryStore::default()),
        with_operator(),
    )
    .await;
    let mut a = arena(&server).await;
    let (id_a, key_a) = register(&mut a, "rogue").await;
    let (id_b, key_b) = register(&mut a, "honest").await;
    let (id_c, key_c) = register(&mut a, "banned").await;

    // A rated match between rogue and honest puts both on the leaderboard.
    let players = [
        tokio::spawn(follow_events(server.url(), key_a.clone(), 1)),
        tokio::spawn(follow_events(server.url(), key_b.clone(), 2)),
    ];
    let c = a
        .challenge(authed(&key_b, dolmen_challenge(vec![id_a.clone()], true)))
        .await
        .expect("challenge")
        .into_inner()
        .challenge
        .unwrap();
    a.answer_challenge(authed(
        &key_a,
        pb::AnswerChallengeRequest {
            challenge_id: c.challenge_id,
            accept: true,
            ..Default::default()
        },
    ))
    .await
    .expect("accept");
    let board = || pb::GetLeaderboardRequest {
        kind: pb::GameKind::Dolmen as i32,
        players: 2,
        ..Default::default()
    };
    let mut rated = false;
    for _ in 0..600 {
        let b = a
            .get_leaderboard(board())
            .await
            .expect("board")
            .into_inner();
        if b.entries.len() == 2 {
            rated = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(rated, "the rated match was played");
    for p in players {
        p.abort();
    }

    // Only the bot itself or the operator may revoke it.
    let other = a
        .revoke_bot(authed(&key_b, revoke(&id_a)))
        .await
        .expect_err("another bot's key");
    assert_eq!(other.code(), Code::PermissionDenied);
    assert_eq!(reason(&other), "OPERATOR_KEY_REQUIRED");
    let anonymous = a.revoke_bot(revoke(&id_a)).await.expect_err("no key");
    assert_eq!(anonymous.code(), Code::Unauthenticated);
    assert!(
        anonymous.message().contains("none was sent"),
        "{anonymous:?}"
    );
    // A mistyped operator key is told what the call needs.
    let mistyped = a
        .revoke_bot(authed("operator-key-mistyped", revoke(&id_a)))
        .await
        .expect_err("not the operator key");
    assert_eq!(mistyped.code(), Code::Unauthenticated);
    assert_eq!(reason(&mistyped), "BOT_KEY_UNKNOWN");
    assert_eq!(
        mistyped.message(),
        "RevokeBot of another bot needs the operator key (or that bot's own key) as its bearer \
         token: the one sent is neither (a mistyped operator key, or a bot's key since rotated or \
         revoked)"
    );
    let malformed = a
        .revoke_bot(authed(OPERATOR_KEY, revoke("not-an-id")))
        .await
        .expect_err("not an id");
    assert_eq!(malformed.code(), Code::InvalidArgument);
    let unknown = a
        .revoke_bot(authed(OPERATOR_KEY, revoke("0123456789abcdef")))
        .await
        .expect_err("no such bot");
    assert_eq!(unknown.code(), Code::NotFound);

    // Rogue seeks and is challenged; then it revokes its own key.
    let mut seek = a
        .seek(authed(
            &key_a,
            pb::SeekRequest {
                kind: pb::GameKind::Meduris as i32,
                min_players: 4,
                ..Default::default()
            },
        ))
        .await
        .expect("seek")
        .into_inner();
    let first = druids_tests::heartbeats::next_event(&mut seek)
        .await
        .expect("seeking")
        .expect("an event");
    assert!(matches!(
        first.event,
        Some(pb::seek_event::Event::Seeking(_))
    ));
    a.challenge(authed(&key_b, dolmen_challenge(vec![id_a.clone()], false)))
        .await
        .expect("challenge");
    let revoked = a
        .revoke_bot(authed(&key_a, revoke("")))
        .await
        .expect("a bot revokes itself")
        .into_inner();
    assert!(revoked.revoked_unix_ms > 0);
    // The seek ends. A `waiting` the round sent before the revocation may
    // come first (it says why the seek waits); nothing is formed.
    let ended = tokio::time::timeout(Duration::from_secs(60), async {
        loop {
            match druids_tests::heartbeats::next_event(&mut seek).await {
                Ok(Some(pb::SeekEvent {
                    event: Some(pb::seek_event::Event::Waiting(_)),
                })) => continue,
                other => break other,
            }
        }
    })
    .await
    .expect("the seek ends at once");
    match ended {
        Err(s) => assert_eq!(s.code(), Code::Unauthenticated),
        Ok(None) => {}
        Ok(Some(e)) => panic!("nothing more is formed for a revoked bot: {e:?}"),
    }
    // The challenger is told why its challenge ended.
    bot_events_until(&mut a, &key_b, |told| {
        told.iter().any(|e| {
            matches!(&e.event, Some(Event::ChallengeEnded(e)) if e.reason == "rogue was revoked")
        })
    })
    .await;
    let gone = a
        .stream_bot_events(authed(&key_a, pb::StreamBotEventsRequest { from_seq: 1 }))
        .await
        .expect_err("the key no longer works");
    assert_eq!(gone.code(), Code::Unauthenticated);
    let profile = a
        .get_bot(pb::GetBotRequest {
            bot_id: id_a.clone(),
        })
        .await
        .expect("profile")
        .into_inner();
    assert!(profile.revoked);
    let b = a
        .get_leaderboard(board())
        .await
        .expect("board")
        .into_inner();
    let names: Vec<String> = b
        .entries
        .iter()
        .map(|e| e.bot.clone().unwrap().name)
        .collect();
    assert_eq!(names, ["honest"], "a revoked bot leaves the leaderboard");
    assert_eq!(b.entries[0].rank, 1);
    let again = a
        .revoke_bot(authed(OPERATOR_KEY, revoke(&id_a)))
        .await
        .expect("revoking again is no change")
        .into_inner();
    assert_eq!(again.revoked_unix_ms, revoked.revoked_unix_ms);
    let challenged = a
        .challenge(authed(&key_b, dolmen_challenge(vec![id_a.clone()], false)))
        .await
        .expect_err("a revoked bot cannot be challenged");
    assert_eq!(challenged.code(), Code::InvalidArgument);
    assert!(
        challenged.message().contains("revoked"),
        "{}",
        challenged.message()
    );

    // The operator bans another bot.
    a.revoke_bot(authed(OPERATOR_KEY, revoke(&id_c)))
        .await
        .expect("a ban");
    let banned = a
        .seek(authed(&key_c, pb::SeekRequest::default()))
        .await
        .expect_err("banned");
    assert_eq!(banned.code(), Code::Unauthenticated);

    // A new key only from the operator; then the bot is back.
    let by_bot = a
        .rotate_bot_key(authed(
            &key_b,
            pb::RotateBotKeyRequest {
                bot_id: id_a.clone(),
            },
        ))
        .await
        .expect_err("not the operator");
    assert_eq!(reason(&by_bot), "OPERATOR_KEY_REQUIRED");
    let fresh = a
        .rotate_bot_key(authed(
            OPERATOR_KEY,
            pb::RotateBotKeyRequest {
                bot_id: id_a.clone(),
            },
        ))
        .await
        .expect("the operator issues a key")
        .into_inner();
    // The new key reads the bot's log (waits for its first event).
    bot_events_until(&mut a, &fresh.api_key, |events| !events.is_empty()).await;
    let profile = a
        .get_bot(pb::GetBotRequest { bot_id: id_a })
        .await
        .expect("profile")
        .into_inner();
    assert!(!profile.revoked);
    let b = a
        .get_leaderboard(board())
        .await
        .expect("board")
        .into_inner();
    assert_eq!(b.entries.len(), 2, "back on the leaderboard");
    let _ = id_b;
    server.stop().await;
}

async fn a_pending_challenge_survives_a_restart_with_its_acceptances_and_clock(backend: Backend) {
    let db = TestDb::new(backend, "challenge_restart");
    let open = || db.open();
    let server = TestServer::with(open(), limits()).await;
    let mut a = arena(&server).await;
    let (_, key_a) = register(&mut a, "host").await;
    let (id_b, key_b) = register(&mut a, "guest-1").await;
    let (id_c, key_c) = register(&mut a, "guest-2").await;
    let too_fast = a
        .challenge(authed(
            &key_a,
            pb::ChallengeRequest {
                time_control: Some(pb::TimeControl {
                    decision_ms: 50,
                    time_bank_ms: 0,
                }),
                ..dolmen_challenge(vec![id_b.clone()], false)
            },
        ))
        .await
        .expect_err("a clock too fast");
    assert_eq!(too_fast.code(), Code::InvalidArgument);
    let clock = pb::TimeControl {
        decision_ms: 4_000,
        time_bank_ms: 500,
    };
    let c = a
        .challenge(authed(
            &key_a,
            pb::ChallengeRequest {
                time_control: Some(clock),
                ..dolmen_challenge(vec![id_b.clone(), id_c.clone()], false)
            },
        ))
        .await
        .expect("challenge")
        .into_inner()
        .challenge
        .unwrap();
    assert_eq!(c.time_control, Some(clock));
    let half = a
        .answer_challenge(authed(
            &key_b,
            pb::AnswerChallengeRequest {
                challenge_id: c.challenge_id.clone(),
                accept: true,
                ..Default::default()
            },
        ))
        .await
        .expect("accept")
        .into_inner();
    assert!(half.match_id.is_empty(), "one of two accepted");

    server.stop().await;
    let server = TestServer::with(open(), limits()).await;
    let mut a = arena(&server).await;
    let last = a
        .answer_challenge(authed(
            &key_c,
            pb::AnswerChallengeRequest {
                challenge_id: c.challenge_id.clone(),
                accept: true,
                ..Default::default()
            },
        ))
        .await
        .expect("the challenge is still pending after the restart")
        .into_inner();
    assert_eq!(
        last.match_id, c.challenge_id,
        "the match has the challenge's id"
    );
    let started = |e: &pb::BotEvent| matches!(&e.event, Some(Event::GameStarted(g)) if g.match_id == c.challenge_id);
    let told = bot_events_until(&mut a, &key_a, |told| told.iter().any(started)).await;
    let game = told
        .iter()
        .find_map(|e| match &e.event {
            Some(Event::GameStarted(g)) if g.match_id == c.challenge_id => Some(g.clone()),
            _ => None,
        })
        .expect("the match's game started");
    assert_eq!(game.options.as_ref().unwrap().decision_ms, Some(4_000));
    assert_eq!(game.options.as_ref().unwrap().time_bank_ms, Some(500));

    // Restarted again: the challenge became a match, so it is gone.
    server.stop().await;
    let server = TestServer::with(open(), limits()).await;
    let mut a = arena(&server).await;
    let gone = a
        .answer_challenge(authed(
            &key_b,
            pb::AnswerChallengeRequest {
                challenge_id: c.challenge_id.clone(),
                accept: false,
                ..Default::default()
            },
        ))
        .await
        .expect_err("no longer pending");
    assert_eq!(gone.code(), Code::NotFound);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bot_revoked_during_open_entry_leaves_the_tournament() {
    let (server, mut a, bots) = with_bots(&["stays-1", "revoked", "stays-2"]).await;
    let create = pb::CreateTournamentRequest {
        name: "open cup".into(),
        kind: pb::GameKind::Dolmen as i32,
        players: 2,
        format: Some(pb::create_tournament_request::Format::Swiss(pb::Swiss {
            rounds: 1,
        })),
        open_entry: Some(pb::OpenEntry {
            closes_in_secs: 1,
            max_entrants: 8,
        }),
        ..Default::default()
    };
    let id = create_tournament(&mut a, create).await;
    for (_, key) in &bots {
        let join = pb::JoinTournamentRequest {
            tournament_id: id.clone(),
        };
        a.join_tournament(authed(key, join)).await.expect("join");
    }
    a.revoke_bot(authed(OPERATOR_KEY, revoke(&bots[1].0)))
        .await
        .expect("revoke");
    let entrants = |t: &pb::Tournament| -> Vec<String> {
        t.entrants.iter().map(|b| b.bot_id.clone()).collect()
    };
    let open = crate::arena::wait_tournament(&mut a, &id, |_| true).await;
    assert!(!entrants(&open).contains(&bots[1].0), "{open:?}");
    // Entry closes: the revoked bot is in no standing and no match.
    let started = crate::arena::wait_tournament(&mut a, &id, |t| {
        t.status != pb::TournamentStatus::Open as i32
    })
    .await;
    assert_eq!(
        started.status,
        pb::TournamentStatus::Running as i32,
        "{started:?}"
    );
    let standing: Vec<&str> = started
        .standings
        .iter()
        .filter_map(|s| s.bot.as_ref().map(|b| b.bot_id.as_str()))
        .collect();
    assert_eq!(standing.len(), 2, "{started:?}");
    assert!(!standing.contains(&bots[1].0.as_str()), "{started:?}");
    server.stop().await;
}
