//! A bot key rotated or revoked stops working at once, everywhere
//! (proto/druids/v1/arena.proto): on the streams it opened too. A game's
//! stream opened with the key (which shows the bot's seat, its secrets
//! included) and the bot's event stream end `UNAUTHENTICATED` before the
//! next event, while the other seat's stream and the new key go on. Through
//! the contract on a real server over TCP.

use std::sync::Arc;

use druids_contract::pb;
use druids_contract::pb::bot_event::Event;
use druids_contract::pb::druids_service_client::DruidsServiceClient;
use druids_tests::heartbeats::next_event;
use druids_tests::{TestServer, authed};
use tonic::Code;
use tonic::transport::Channel;

use crate::arena::{Arena, arena, bot_events_until, challenge_accepted, limits, register};
use crate::gated_store::GUARD;
use crate::trust::reason;

/// How the first bot's key stops working.
#[derive(Clone, Copy, Debug)]
enum KeyLoss {
    Rotated,
    Revoked,
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rotated_key_ends_the_streams_it_opened() {
    streams_end_when_the_key_stops_working(KeyLoss::Rotated).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_revoked_key_ends_the_streams_it_opened() {
    streams_end_when_the_key_stops_working(KeyLoss::Revoked).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_seek_ends_when_its_key_stops_working() {
    for loss in [KeyLoss::Rotated, KeyLoss::Revoked] {
        let server =
            TestServer::with(Arc::new(druids_server::MemoryStore::default()), limits()).await;
        let mut a = arena(&server).await;
        let (_, key) = register(&mut a, "seeker").await;
        // Alone in a pool of four-player games: it waits.
        let seek = pb::SeekRequest {
            kind: pb::GameKind::Dolmen as i32,
            min_players: 4,
            max_players: 4,
            rated: false,
        };
        let mut seeking = a.seek(authed(&key, seek)).await.expect("seek").into_inner();
        let first = next_event(&mut seeking)
            .await
            .expect("open")
            .expect("an event");
        assert!(
            matches!(first.event, Some(pb::seek_event::Event::Seeking(_))),
            "{first:?}"
        );
        lose_key(&mut a, &key, loss).await;
        // What the seek was told before (that it waits) may still be on
        // its way; nothing after.
        let next = async {
            loop {
                match next_event(&mut seeking).await {
                    Ok(Some(e)) if matches!(e.event, Some(pb::seek_event::Event::Waiting(_))) => {}
                    other => break other,
                }
            }
        };
        let next = tokio::time::timeout(GUARD, next)
            .await
            .unwrap_or_else(|_| panic!("{loss:?}: the seek stays open"));
        assert_refused(next, "the seek");
        server.stop().await;
    }
}

/// Makes bot key `key` stop working as `loss` says; the new key if any.
async fn lose_key(a: &mut Arena, key: &str, loss: KeyLoss) -> Option<String> {
    match loss {
        KeyLoss::Rotated => Some(
            a.rotate_bot_key(authed(key, pb::RotateBotKeyRequest::default()))
                .await
                .expect("rotate")
                .into_inner()
                .api_key,
        ),
        KeyLoss::Revoked => {
            a.revoke_bot(authed(key, pb::RevokeBotRequest::default()))
                .await
                .expect("revoke");
            None
        }
    }
}

/// The game of an unrated Die Dolmengötter challenge between two new bots:
/// (game id, the bots' keys).
async fn a_match(a: &mut Arena) -> (String, [String; 2]) {
    let (_, key_a) = register(a, "keeper").await;
    let (id_b, key_b) = register(a, "other").await;
    let challenge = pb::ChallengeRequest {
        kind: pb::GameKind::Dolmen as i32,
        opponents: vec![id_b],
        rated: false,
        expires_in_secs: 600,
        time_control: None,
    };
    challenge_accepted(a, &key_a, &key_b, challenge).await;
    let started = bot_events_until(a, &key_a, |e| {
        e.iter()
            .any(|e| matches!(e.event, Some(Event::GameStarted(_))))
    })
    .await;
    let game = started
        .into_iter()
        .find_map(|e| match e.event {
            Some(Event::GameStarted(g)) => Some(g.game_id),
            _ => None,
        })
        .expect("a game started");
    (game, [key_a, key_b])
}

/// A game's stream opened with `key`, past what it opens with: the snapshot
/// and the decision pending (sent together, before the key changes).
async fn game_stream(
    games: &mut DruidsServiceClient<Channel>,
    game: &str,
    key: &str,
) -> tonic::Streaming<pb::GameEvent> {
    let req = pb::StreamEventsRequest {
        game_id: game.to_owned(),
        from_seq: 0,
    };
    let mut stream = games
        .stream_events(authed(key, req))
        .await
        .expect("the game's stream")
        .into_inner();
    let first = next_event(&mut stream).await.expect("the snapshot");
    assert!(
        matches!(
            first.and_then(|e| e.body),
            Some(pb::game_event::Body::Snapshot(_))
        ),
        "the stream opens with a snapshot"
    );
    let pending = next_event(&mut stream).await.expect("the pending decision");
    assert!(
        matches!(
            pending.and_then(|e| e.body),
            Some(pb::game_event::Body::DecisionNeeded(_))
        ),
        "then the decision pending"
    );
    stream
}

/// The next item of a stream opened with a key that no longer works: the
/// refusal, never an event.
fn assert_refused<T: std::fmt::Debug>(next: Result<Option<T>, tonic::Status>, stream: &str) {
    match next {
        Err(status) => {
            assert_eq!(status.code(), Code::Unauthenticated, "{stream}: {status:?}");
            assert_eq!(reason(&status), "BOT_KEY_UNKNOWN", "{stream}");
        }
        Ok(item) => panic!("{stream} went on after its key stopped working: {item:?}"),
    }
}

async fn streams_end_when_the_key_stops_working(loss: KeyLoss) {
    let server = TestServer::with(Arc::new(druids_server::MemoryStore::default()), limits()).await;
    let mut a = arena(&server).await;
    let (game, [key_a, key_b]) = a_match(&mut a).await;
    let mut games = DruidsServiceClient::connect(server.url())
        .await
        .expect("connect");

    // The first bot watches its game (its own seat: its dolmens' values)
    // and its event log with its key; the second bot watches the game too.
    let mut seat_a = game_stream(&mut games, &game, &key_a).await;
    let mut seat_b = game_stream(&mut games, &game, &key_b).await;
    let mut log_a = a
        .stream_bot_events(authed(&key_a, pb::StreamBotEventsRequest { from_seq: 1 }))
        .await
        .expect("the bot's events")
        .into_inner();
    loop {
        let e = next_event(&mut log_a)
            .await
            .expect("an event")
            .expect("open");
        if matches!(e.event, Some(Event::GameStarted(_))) {
            break;
        }
    }

    // The key stops working; then the game moves on (the second bot
    // resigns), which the game's streams and the first bot's log are told.
    let new_key = lose_key(&mut a, &key_a, loss).await;
    let resign = pb::ResignRequest {
        game_id: game.clone(),
        idempotency_key: String::new(),
    };
    games.resign(authed(&key_b, resign)).await.expect("resign");

    // The streams the old key opened end before telling anything more.
    assert_refused(next_event(&mut seat_a).await, "the game's stream");
    assert_refused(next_event(&mut log_a).await, "the bot's event stream");

    // The other seat's stream goes on to the game's end.
    loop {
        let e = next_event(&mut seat_b)
            .await
            .expect("the other seat's stream goes on")
            .expect("open until the end");
        if matches!(e.body, Some(pb::game_event::Body::GameFinished(_))) {
            break;
        }
    }
    // A rotated key's successor reads the game as the seat.
    if let Some(new_key) = new_key {
        let state = games
            .get_state(authed(
                &new_key,
                pb::GetStateRequest {
                    game_id: game.clone(),
                },
            ))
            .await
            .expect("the new key reads the game")
            .into_inner();
        assert!(state.state.is_some(), "{loss:?}");
    }
    server.stop().await;
}
