//! The lifecycle of games through the contract: an ended game leaves memory
//! after its grace period and is read back from the store with the same
//! answers, byte for byte; a retry whose answer is no longer kept is refused
//! and applies nothing; a restart rebuilds only the games in play; the limit
//! on games in play ignores ended and read-back games.

use std::sync::Arc;

use druids_contract::pb;
use druids_contract::pb::druids_service_client::DruidsServiceClient;
use druids_server::{Limits, ManualClock, MemoryStore, Store};
use druids_tests::{Lcg, TestServer, all_events, authed, create, legal, play_random, state};
use prost::Message;
use tokio_stream::StreamExt;
use tonic::Code;
use tonic::transport::Channel;

use crate::stores::{Backend, TestDb, on_each_store};
use crate::trust::reason;

on_each_store!(
    ended_games_leave_memory,
    a_restart_rebuilds_only_the_games_in_play,
    the_answer_grace_survives_a_restart
);

const T0: u64 = 1_700_000_000_000;
const GRACE_SECS: u64 = 60;

fn limits() -> Limits {
    Limits {
        evict_after_secs: GRACE_SECS,
        ..Limits::unthrottled()
    }
}

/// Games in the server's memory (read-back games not counted).
fn in_memory(server: &TestServer) -> usize {
    server.service.census().iter().map(|c| c.2).sum()
}

/// Everything a client can read of a finished game, encoded: its state and
/// its whole event stream as every seat and a spectator see them, the stream
/// from seq 0 (snapshot), its replay and its `ListGames` row.
async fn every_answer(
    client: &mut DruidsServiceClient<Channel>,
    id: &str,
    tokens: &[String],
) -> Vec<Vec<u8>> {
    let viewers: Vec<Option<&str>> = std::iter::once(None)
        .chain(tokens.iter().map(|t| Some(t.as_str())))
        .collect();
    let mut out = Vec::new();
    for viewer in viewers {
        out.push(state(client, id, viewer).await.encode_to_vec());
        for e in all_events(client, id, viewer).await {
            out.push(e.encode_to_vec());
        }
    }
    let mut from_zero = client
        .stream_events(pb::StreamEventsRequest {
            game_id: id.to_owned(),
            from_seq: 0,
        })
        .await
        .unwrap()
        .into_inner();
    while let Some(e) = from_zero.next().await {
        out.push(e.unwrap().encode_to_vec());
    }
    let replay = client
        .export_replay(pb::ExportReplayRequest {
            game_id: id.to_owned(),
        })
        .await
        .unwrap()
        .into_inner();
    out.push(replay.encode_to_vec());
    let listed = client
        .list_games(pb::ListGamesRequest::default())
        .await
        .unwrap()
        .into_inner();
    let row = listed
        .games
        .iter()
        .find(|g| g.game_id == id)
        .expect("listed");
    out.push(row.encode_to_vec());
    out
}

/// Plays game `id` to its end with keyed submissions; returns the last
/// submission (its seat token and request) and its answer.
async fn play_to_end(
    client: &mut DruidsServiceClient<Channel>,
    id: &str,
    tokens: &[String],
) -> (String, pb::SubmitActionRequest, pb::SubmitActionResponse) {
    let mut last = None;
    while let Some(seat) = state(client, id, None).await.to_act {
        let token = &tokens[seat as usize];
        let listing = legal(client, id, token, false).await.unwrap();
        let req = pb::SubmitActionRequest {
            game_id: id.to_owned(),
            choice: Some(pb::submit_action_request::Choice::LegalActionId(
                (listing.version % listing.actions.len() as u64) as u32,
            )),
            expected_version: Some(listing.version),
            idempotency_key: format!("key-{}", listing.version),
        };
        let reply = client
            .submit_action(authed(token, req.clone()))
            .await
            .unwrap()
            .into_inner();
        last = Some((token.clone(), req, reply));
    }
    last.expect("the game had actions")
}

async fn ended_games_leave_memory_and_answer_the_same(store: Arc<dyn Store>) {
    let clock = Arc::new(ManualClock::at(T0));
    let server = TestServer::with_clock(store, limits(), clock.clone()).await;
    let mut client = server.client().await;
    let (id, tokens) = create(&mut client, pb::GameKind::Dolmen, 2, 31).await;
    let (token, last, answer) = play_to_end(&mut client, &id, &tokens).await;
    assert_eq!(in_memory(&server), 1);
    let before = every_answer(&mut client, &id, &tokens).await;
    // Within the grace period a retry gets the first answer again.
    let again = client
        .submit_action(authed(&token, last.clone()))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(again, answer);

    clock.advance(GRACE_SECS * 1000 - 1);
    server.service.expire_due();
    assert_eq!(
        in_memory(&server),
        1,
        "evicted before its grace period ended"
    );
    clock.advance(1);
    server.service.expire_due();
    assert_eq!(
        in_memory(&server),
        0,
        "still in memory after its grace period"
    );

    let after = every_answer(&mut client, &id, &tokens).await;
    assert_eq!(before.len(), after.len());
    for (i, (b, a)) in before.iter().zip(&after).enumerate() {
        assert_eq!(b, a, "answer {i} changed when the game left memory");
    }
    // After the window, a retry is refused and applies nothing.
    let version = state(&mut client, &id, None).await.version;
    let refused = client
        .submit_action(authed(&token, last))
        .await
        .unwrap_err();
    assert_eq!(refused.code(), Code::FailedPrecondition, "{refused:?}");
    assert_eq!(reason(&refused), "ANSWER_EXPIRED");
    assert!(
        refused.message().contains("no longer kept"),
        "{}",
        refused.message()
    );
    // A keyed resignation by a seat that never resigned is no retry: the
    // game is over, whatever the key.
    let resign = client
        .resign(authed(
            &tokens[0],
            pb::ResignRequest {
                game_id: id.clone(),
                idempotency_key: "never-used".into(),
            },
        ))
        .await
        .unwrap_err();
    assert_eq!(resign.code(), Code::FailedPrecondition, "{resign:?}");
    assert_eq!(reason(&resign), "GAME_OVER", "{resign:?}");
    assert_eq!(state(&mut client, &id, None).await.version, version);
    assert_eq!(
        in_memory(&server),
        0,
        "read-back games are not games in memory"
    );
    server.stop().await;
}

async fn ended_games_leave_memory(backend: Backend) {
    let db = TestDb::new(backend, "evict");
    ended_games_leave_memory_and_answer_the_same(db.open()).await;
}

#[tokio::test]
async fn ended_games_leave_memory_and_answer_the_same_in_memory() {
    ended_games_leave_memory_and_answer_the_same(Arc::new(MemoryStore::default())).await;
}

/// A game that ended just before the server stopped still answers retries
/// for its whole grace period after a restart (the store holds its end and
/// its keys), and refuses them from then on, applying nothing.
async fn the_answer_grace_survives_a_restart(backend: Backend) {
    let db = TestDb::new(backend, "grace_restart");
    let clock = Arc::new(ManualClock::at(T0));
    let server = TestServer::with_clock(db.open(), limits(), clock.clone()).await;
    let mut client = server.client().await;
    let (id, tokens) = create(&mut client, pb::GameKind::Dolmen, 2, 37).await;
    let (token, last, answer) = play_to_end(&mut client, &id, &tokens).await;
    server.stop().await;

    // The server comes back on the same database within the grace period.
    clock.advance(GRACE_SECS * 1000 / 2);
    let server = TestServer::with_clock(db.open(), limits(), clock.clone()).await;
    let mut client = server.client().await;
    let again = client
        .submit_action(authed(&token, last.clone()))
        .await
        .expect("a retry within the grace period is answered again")
        .into_inner();
    assert_eq!(again.version, answer.version);
    assert_eq!(again.events.len(), answer.events.len());
    // Once the grace period (counted from the game's end) is over: refused.
    clock.advance(GRACE_SECS * 1000 / 2);
    let version = state(&mut client, &id, None).await.version;
    let refused = client
        .submit_action(authed(&token, last))
        .await
        .unwrap_err();
    assert_eq!(refused.code(), Code::FailedPrecondition, "{refused:?}");
    assert_eq!(reason(&refused), "ANSWER_EXPIRED");
    assert_eq!(state(&mut client, &id, None).await.version, version);
    server.stop().await;
}

async fn a_restart_rebuilds_only_the_games_in_play(backend: Backend) {
    let db = TestDb::new(backend, "life_restart");
    let store = db.open();
    let server = TestServer::with(store.clone(), limits()).await;
    let mut client = server.client().await;
    let mut finished = Vec::new();
    for seed in 0..6 {
        let (id, tokens) = create(&mut client, pb::GameKind::Dolmen, 2, seed).await;
        play_random(&mut client, &id, &tokens, &mut Lcg(seed), usize::MAX)
            .await
            .unwrap();
        finished.push(id);
    }
    let mut running = Vec::new();
    for seed in 0..2 {
        let (id, tokens) = create(&mut client, pb::GameKind::Meduris, 3, seed).await;
        play_random(&mut client, &id, &tokens, &mut Lcg(seed), 5)
            .await
            .unwrap();
        running.push((id, tokens));
    }
    let last_finished = state(&mut client, &finished[0], None).await;
    server.stop().await;
    drop(client);

    // The store says which games are in play: only those are rebuilt.
    assert_eq!(store.load_in_play().unwrap().len(), running.len());
    assert_eq!(store.ended_ids("", 100).unwrap().len(), finished.len());
    let server = TestServer::with(store.clone(), limits()).await;
    assert_eq!(in_memory(&server), running.len());
    let mut client = server.client().await;
    // An ended game is read back on demand, as it was.
    assert_eq!(state(&mut client, &finished[0], None).await, last_finished);
    assert_eq!(in_memory(&server), running.len());
    // A running game plays on where it stood.
    let (id, tokens) = &running[0];
    let before = state(&mut client, id, None).await.version;
    play_random(&mut client, id, tokens, &mut Lcg(9), 3)
        .await
        .unwrap();
    assert_eq!(state(&mut client, id, None).await.version, before + 3);
    // Every game is listed, ended ones from the store.
    let listed = client
        .list_games(pb::ListGamesRequest::default())
        .await
        .unwrap()
        .into_inner();
    assert_eq!(listed.games.len(), finished.len() + running.len());
    let ended = client
        .list_games(pb::ListGamesRequest {
            status: pb::GameStatus::Finished as i32,
            page_size: 4,
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(ended.games.len(), 4);
    let rest = client
        .list_games(pb::ListGamesRequest {
            status: pb::GameStatus::Finished as i32,
            page_size: 4,
            page_token: ended.next_page_token,
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    let mut seen: Vec<String> = ended
        .games
        .iter()
        .chain(&rest.games)
        .map(|g| g.game_id.clone())
        .collect();
    seen.sort();
    let mut want = finished.clone();
    want.sort();
    assert_eq!(seen, want);
    assert!(rest.next_page_token.is_empty());
    server.stop().await;
}

#[tokio::test]
async fn the_limit_counts_games_in_play_only_with_eviction() {
    let clock = Arc::new(ManualClock::at(T0));
    let limits = Limits {
        max_games: 2,
        ..limits()
    };
    let server =
        TestServer::with_clock(Arc::new(MemoryStore::default()), limits, clock.clone()).await;
    let mut client = server.client().await;
    let (first, tokens) = create(&mut client, pb::GameKind::Dolmen, 2, 1).await;
    create(&mut client, pb::GameKind::Dolmen, 2, 2).await;
    let full = client
        .create_game(pb::CreateGameRequest {
            kind: pb::GameKind::Dolmen as i32,
            players: 2,
            ..Default::default()
        })
        .await
        .unwrap_err();
    assert_eq!(full.code(), Code::ResourceExhausted);
    play_random(&mut client, &first, &tokens, &mut Lcg(3), usize::MAX)
        .await
        .unwrap();
    clock.advance(GRACE_SECS * 1000);
    server.service.expire_due();
    // Reading the evicted game back takes no place in play.
    state(&mut client, &first, None).await;
    create(&mut client, pb::GameKind::Dolmen, 2, 3).await;
    assert_eq!(server.service.games_in_play(), 2);
    server.stop().await;
}
