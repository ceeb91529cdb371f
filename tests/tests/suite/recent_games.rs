//! `--recent-games N` (README, "Configuration" and "Data"): the ended games
//! read back from the store that stay in memory are the N most recently
//! read. Seen from outside: once the store has lost the games (deleted
//! behind the server's back, as another node's retention would), exactly
//! the N games read last still answer, and the others are unknown.

use std::sync::Arc;

use druids_contract::pb;
use druids_server::{Limits, ManualClock, MemoryStore, store::Lifecycle};
use druids_tests::{Lcg, TestServer, create, play_random};
use tonic::Code;

const GRACE_SECS: u64 = 60;

#[tokio::test]
async fn the_most_recently_read_ended_games_stay_in_memory() {
    let store = Arc::new(MemoryStore::default());
    let clock = Arc::new(ManualClock::at(1_700_000_000_000));
    let limits = Limits {
        evict_after_secs: GRACE_SECS,
        recent_games: 2,
        ..Limits::unthrottled()
    };
    let server = TestServer::with_clock(store.clone(), limits, clock.clone()).await;
    let mut client = server.client().await;
    let mut games = Vec::new();
    for seed in 0..3 {
        let (id, tokens) = create(&mut client, pb::GameKind::Dolmen, 2, seed).await;
        play_random(&mut client, &id, &tokens, &mut Lcg(seed), usize::MAX)
            .await
            .unwrap();
        games.push(id);
    }
    // Their grace period over, the three leave memory.
    clock.advance(GRACE_SECS * 1000);
    server.service.expire_due();
    assert!(server.service.census().is_empty(), "all evicted");

    let read = |id: &String| {
        let mut client = client.clone();
        let id = id.clone();
        async move {
            client
                .get_state(pb::GetStateRequest { game_id: id })
                .await
                .map(|r| r.into_inner().state.unwrap().status)
        }
    };
    // Read back A, B, A, C: with room for two, B (the least recently read)
    // is the one dropped.
    let [a, b, c] = &games[..] else {
        unreachable!()
    };
    for id in [a, b, a, c] {
        assert_eq!(read(id).await.unwrap(), pb::GameStatus::Finished as i32);
    }
    let deleted = store.delete_ended_before(u64::MAX, 10).unwrap();
    assert_eq!(deleted, 3, "the store lost them all");
    for id in [a, c] {
        assert_eq!(
            read(id).await.expect("kept in memory"),
            pb::GameStatus::Finished as i32
        );
    }
    let gone = read(b).await.expect_err("B was not kept");
    assert_eq!(gone.code(), Code::NotFound, "{gone:?}");
    server.stop().await;
}
