//! Seeks for five-player Die Dolmengötter are matched (the game's own
//! player bounds, not a fixed 2–4).

use std::sync::Arc;

use druids_contract::pb;
use druids_tests::{TestServer, authed};
use tonic::Code;

use super::{arena, limits, meduris_seek, register, seek_and_play};

/// The arena's player counts are each game's own (its descriptor's): five
/// Die Dolmengötter bots seeking five-player games are matched, rated and
/// ranked in the five-player pool, where Meduris refuses five.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn five_player_dolmen_seeks_are_matched() {
    let server = TestServer::with(Arc::new(druids_server::MemoryStore::default()), limits()).await;
    let mut a = arena(&server).await;
    let dolmen_seek = pb::SeekRequest {
        kind: pb::GameKind::Dolmen as i32,
        min_players: 5,
        max_players: 5,
        rated: true,
    };
    let mut keys = Vec::new();
    for name in ["d1", "d2", "d3", "d4", "d5"] {
        keys.push(register(&mut a, name).await.1);
    }
    let too_many = a
        .seek(authed(&keys[0], meduris_seek(5)))
        .await
        .expect_err("Meduris has at most 4 players");
    assert_eq!(too_many.code(), Code::InvalidArgument);
    assert!(
        too_many.message().contains("2 to 4"),
        "{}",
        too_many.message()
    );
    let six = a
        .seek(authed(
            &keys[0],
            pb::SeekRequest {
                max_players: 6,
                ..dolmen_seek
            },
        ))
        .await
        .expect_err("Die Dolmengötter has at most 5 players");
    assert_eq!(six.code(), Code::InvalidArgument);
    let players: Vec<_> = keys
        .iter()
        .enumerate()
        .map(|(i, key)| {
            tokio::spawn(seek_and_play(
                server.url(),
                key.clone(),
                dolmen_seek,
                40 + i as u64,
            ))
        })
        .collect();
    let mut results = Vec::new();
    for p in players {
        results.push(p.await.expect("the bot plays its match"));
    }
    let id = &results[0].match_id;
    for r in &results {
        assert_eq!(&r.match_id, id, "one match of all five");
        assert_eq!(r.placements.len(), 5, "{r:?}");
    }
    let board = a
        .get_leaderboard(pb::GetLeaderboardRequest {
            kind: pb::GameKind::Dolmen as i32,
            players: 5,
            ..Default::default()
        })
        .await
        .expect("the five-player pool's leaderboard")
        .into_inner();
    assert_eq!(board.entries.len(), 5, "{board:?}");
    assert!(board.entries.iter().all(|e| e.matches == 1), "{board:?}");
}
