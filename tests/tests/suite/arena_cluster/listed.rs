//! `ListGames` lists a running match's games alike on every node, with
//! their match and the arena's filters: the database says which match a
//! game in play belongs to, not the memory of the node holding the arena
//! (the other nodes listed them as no match's, unrated).

use std::sync::Arc;

use druids_contract::pb;
use druids_tests::authed;

use super::{Nodes, Picker, arena, dolmen_seek, game_client, register};

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_running_matchs_games_are_listed_alike_on_every_node() {
    let nodes = Nodes::start("arena_cluster_listed", 2);
    let picker = Picker::new(&Arc::new(vec![nodes.url(0), nodes.url(1)]), 7);
    let mut started = Vec::new();
    for name in ["lister-a", "lister-b"] {
        let (_, key) = register(&picker, name).await;
        let stream = arena(&nodes.url(1 - nodes.holder()))
            .seek(authed(&key, dolmen_seek()))
            .await
            .expect("seek")
            .into_inner();
        started.push(stream);
    }
    // The match's game, as its seek tells it (its bots do not play: the
    // game stays in play, its decisions on a 5 s clock).
    let mut game = None;
    for stream in &mut started {
        loop {
            let event = druids_tests::heartbeats::next_event(stream)
                .await
                .expect("seek event")
                .expect("the seek goes on");
            if let Some(pb::seek_event::Event::GameStarted(g)) = event.event {
                game = Some((g.match_id, g.game_id));
                break;
            }
        }
    }
    let (match_id, game_id) = game.unwrap();
    for node in 0..2 {
        let mut client = game_client(&nodes.url(node));
        for rated in [None, Some(true)] {
            let listed = client
                .list_games(pb::ListGamesRequest {
                    rated,
                    status: pb::GameStatus::Running as i32,
                    ..Default::default()
                })
                .await
                .expect("list")
                .into_inner();
            let summary = listed
                .games
                .iter()
                .find(|g| g.game_id == game_id)
                .unwrap_or_else(|| panic!("node {node}, rated {rated:?}: {listed:?}"));
            assert_eq!(summary.match_id, match_id, "node {node}");
            assert!(summary.rated, "node {node}");
        }
        let unrated = client
            .list_games(pb::ListGamesRequest {
                rated: Some(false),
                ..Default::default()
            })
            .await
            .expect("list")
            .into_inner();
        assert!(
            unrated.games.iter().all(|g| g.game_id != game_id),
            "node {node}: {unrated:?}"
        );
    }
}
