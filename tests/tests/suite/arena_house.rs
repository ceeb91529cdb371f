//! House bots answer challenges: a bot challenges one, the match starts at
//! once (the house bot accepted), the house bot plays its seat inside the
//! server, and the match ends with a result, through the contract only.

use std::sync::Arc;

use druids_contract::pb;
use druids_server::MemoryStore;
use druids_tests::{TestServer, authed};

use tonic::Code;

use crate::arena::{OPERATOR, arena, bot_events, follow_events, house_bots, limits, register};
use crate::trust::refused;

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_house_bot_accepts_a_challenge_at_once_and_plays_its_match() {
    let mut l = limits();
    l.arena.house_bots = "random".parse().expect("a level");
    let server = TestServer::with(Arc::new(MemoryStore::default()), l).await;
    let house_bot = house_bots(&server).await.pop().expect("a house bot");
    let mut a = arena(&server).await;
    let (_, key) = register(&mut a, "challenger").await;
    let player = tokio::spawn(follow_events(server.url(), key.clone(), 5));
    let sent = a
        .challenge(authed(
            &key,
            pb::ChallengeRequest {
                kind: pb::GameKind::Meduris as i32,
                opponents: vec![house_bot.clone()],
                rated: false,
                expires_in_secs: 60,
                time_control: None,
            },
        ))
        .await
        .expect("challenge")
        .into_inner()
        .challenge
        .expect("the challenge");
    let finished = |e: &pb::BotEvent| matches!(&e.event, Some(pb::bot_event::Event::MatchFinished(f)) if f.match_id == sent.challenge_id);
    let events = bot_events(&mut a, &key, 1, |es| es.iter().any(finished)).await;
    player.abort();
    let started = events.iter().find_map(|e| match &e.event {
        Some(pb::bot_event::Event::MatchStarted(m)) => Some(m.clone()),
        _ => None,
    });
    let started = started.expect("the match started without an answer from the challenger");
    assert_eq!(started.match_id, sent.challenge_id);
    assert!(
        !events
            .iter()
            .any(|e| matches!(e.event, Some(pb::bot_event::Event::ChallengeEnded(_)))),
        "the challenge was accepted, not ended: {events:?}"
    );
    let result = events.iter().find(|e| finished(e)).expect("finished");
    let Some(pb::bot_event::Event::MatchFinished(f)) = &result.event else {
        unreachable!()
    };
    let placed: Vec<&str> = f
        .placements
        .iter()
        .filter_map(|p| p.bot.as_ref().map(|b| b.bot_id.as_str()))
        .collect();
    assert!(placed.contains(&house_bot.as_str()), "{f:?}");
}

/// The server plays its house bots with keys it holds: the operator can
/// neither revoke one nor give it a new key (it would be called into games
/// it can no longer play), and the house bot stays as it was.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_house_bot_cannot_be_revoked_or_rekeyed() {
    let mut l = limits();
    l.arena.house_bots = "random".parse().expect("a level");
    let server = TestServer::with(Arc::new(MemoryStore::default()), l).await;
    let house_bot = house_bots(&server).await.pop().expect("a house bot");
    let mut a = arena(&server).await;
    let status = refused(
        a.revoke_bot(authed(
            OPERATOR,
            pb::RevokeBotRequest {
                bot_id: house_bot.clone(),
            },
        ))
        .await,
        Code::FailedPrecondition,
        "HOUSE_BOT",
    );
    assert!(status.message().contains("--house-bots"), "{status:?}");
    refused(
        a.rotate_bot_key(authed(
            OPERATOR,
            pb::RotateBotKeyRequest {
                bot_id: house_bot.clone(),
            },
        ))
        .await,
        Code::FailedPrecondition,
        "HOUSE_BOT",
    );
    let bot = a
        .get_bot(pb::GetBotRequest {
            bot_id: house_bot.clone(),
        })
        .await
        .expect("the house bot")
        .into_inner();
    assert!(!bot.revoked, "{bot:?}");
    server.stop().await;
}
