//! House bots answer challenges: a bot challenges one, the match starts at
//! once (the house bot accepted), the house bot plays its seat inside the
//! server, and the match ends with a result, through the contract only.

use std::sync::Arc;
use std::time::Duration;

use druids_contract::pb;
use druids_contract::pb::druids_service_client::DruidsServiceClient;
use druids_server::MemoryStore;
use druids_tests::{TestServer, authed};

use tonic::Code;

use crate::arena::{
    OPERATOR, arena, bot_events, follow_events, house_bots, limits, register, submit_pick,
};
use crate::stores::{Backend, TestDb};
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

/// A restart puts a house bot's match back into play, and the house bot
/// plays its seat on at once. Real bots come back through their event logs;
/// house bots read none, and their seats used to wait for the turn clock
/// and then play on autopilot.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_house_bot_plays_on_after_a_restart() {
    let db = TestDb::new(Backend::Sqlite, "house_restart");
    let mut l = limits();
    l.arena.house_bots = "greedy".parse().expect("a level");
    let server = TestServer::with(db.open(), l.clone()).await;
    let house_bot = house_bots(&server).await.pop().expect("a house bot");
    let mut a = arena(&server).await;
    let (_, key) = register(&mut a, "patient").await;
    // Die Dolmengötter (no dice gate), 10 minutes a decision: within the
    // test nothing but the house bot moves its seat.
    a.challenge(authed(
        &key,
        pb::ChallengeRequest {
            kind: pb::GameKind::Dolmen as i32,
            opponents: vec![house_bot],
            rated: false,
            expires_in_secs: 60,
            time_control: Some(pb::TimeControl {
                decision_ms: 600_000,
                time_bank_ms: 0,
            }),
        },
    ))
    .await
    .expect("challenge");
    let game_started = |e: &pb::BotEvent| match &e.event {
        Some(pb::bot_event::Event::GameStarted(g)) => Some(g.clone()),
        _ => None,
    };
    let events = bot_events(&mut a, &key, 1, |es| {
        es.iter().any(|e| game_started(e).is_some())
    })
    .await;
    let game = events.iter().find_map(game_started).expect("a game");
    // Whoever began, the house bot answers until it is this seat's turn.
    let mut client = server.client().await;
    seat_decides(&mut client, &game.game_id, game.seat, 0).await;
    server.stop().await;

    let server = TestServer::with(db.open(), l).await;
    house_bots(&server).await;
    let mut client = server.client().await;
    let legal = client
        .get_legal_actions(authed(
            &key,
            pb::GetLegalActionsRequest {
                game_id: game.game_id.clone(),
                ..Default::default()
            },
        ))
        .await
        .expect("the seat's actions")
        .into_inner();
    submit_pick(&mut client, &key, &game.game_id, 0, legal.version)
        .await
        .expect("the seat's move");
    // The house bot moves at once: this seat decides again.
    seat_decides(&mut client, &game.game_id, game.seat, legal.version + 1).await;
    server.stop().await;
}

/// Waits on game `id`'s stream until `seat` must decide at version `from`
/// or later (bounded: the turn clock's 10 minutes would be a failure).
async fn seat_decides(
    client: &mut DruidsServiceClient<tonic::transport::Channel>,
    id: &str,
    seat: u32,
    from: u64,
) {
    let mut events = client
        .stream_events(pb::StreamEventsRequest {
            game_id: id.to_owned(),
            from_seq: 0,
        })
        .await
        .expect("the game's stream")
        .into_inner();
    tokio::time::timeout(
        Duration::from_secs(120),
        druids_tests::seat_asked(&mut events, seat, from),
    )
    .await
    .unwrap_or_else(|_| panic!("seat {seat} was never asked from version {from} on"));
}
