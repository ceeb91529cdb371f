//! A request id's window (README, "Play a game"): the same `CreateGame` with
//! the same `request_id` within 24 hours returns the same game and tokens and
//! creates nothing; after the window the id is forgotten and a new game is
//! made. Time is a manual clock's.

use std::sync::Arc;

use druids_contract::pb;
use druids_server::lobby::REQUEST_WINDOW_MS;
use druids_server::{Clock, Limits, ManualClock, MemoryStore};
use druids_tests::TestServer;

const DAY_MS: u64 = 24 * 60 * 60 * 1000;

#[tokio::test]
async fn a_request_id_is_answered_again_for_24_hours_and_then_forgotten() {
    assert_eq!(REQUEST_WINDOW_MS, DAY_MS, "the README's 24 hours");
    let clock = Arc::new(ManualClock::at(1_000_000));
    let server = TestServer::with_clock(
        Arc::new(MemoryStore::default()),
        Limits::unthrottled(),
        Arc::clone(&clock) as Arc<dyn Clock>,
    )
    .await;
    let client = server.client().await;
    let again = || {
        let mut c = client.clone();
        async move {
            c.create_game(pb::CreateGameRequest {
                kind: pb::GameKind::Meduris as i32,
                players: 2,
                request_id: "lost-answer".to_owned(),
                ..Default::default()
            })
            .await
            .expect("create")
            .into_inner()
        }
    };
    let listed = || {
        let mut c = client.clone();
        async move {
            c.list_games(pb::ListGamesRequest::default())
                .await
                .expect("list")
                .into_inner()
                .games
                .len()
        }
    };
    let first = again().await;
    // A moment before the window closes (the sweep run): the same answer.
    clock.advance(DAY_MS - 1);
    server.service.expire_due();
    let retried = again().await;
    assert_eq!(retried, first, "the same game and tokens within 24 h");
    assert_eq!(listed().await, 1, "and nothing new was created");
    // Past it: the id is forgotten, the call makes a new game.
    clock.advance(2);
    server.service.expire_due();
    let late = again().await;
    assert_ne!(late.game_id, first.game_id, "after 24 h a new game");
    assert_eq!(listed().await, 2);
    server.stop().await;
}
