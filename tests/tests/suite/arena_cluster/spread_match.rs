//! A rated duplicate Meduris match whose games end up on a node that does
//! not hold the arena (their owner, the holder, is SIGKILLed; one survivor
//! takes the arena, the other the games): its games still get their dice
//! and play to the end, and the match's result is recorded once. Before,
//! only the holder opened a match's dice gate, for the rooms in its own
//! memory, and such a match waited forever.

use std::time::Duration;

use druids_contract::pb;
use druids_store::Matches;
use druids_tests::postgres::PgCluster;
use druids_tests::{authed, retry_allowed};

use super::{Nodes, Picker, arena, game_client, play_seat, rated_seek, register};

const GAMES: usize = 2;

/// The games (id, seat) a bot's event log announced: the match's two.
async fn games_of(url: &str, key: &str) -> Vec<(String, u32)> {
    let mut stream = arena(url)
        .stream_bot_events(authed(key, pb::StreamBotEventsRequest { from_seq: 1 }))
        .await
        .expect("bot events")
        .into_inner();
    let mut games = Vec::new();
    while games.len() < GAMES {
        let event = druids_tests::heartbeats::next_event(&mut stream)
            .await
            .expect("bot events")
            .expect("the stream goes on");
        if let Some(pb::bot_event::Event::GameStarted(g)) = event.event {
            games.push((g.game_id, g.seat));
        }
    }
    games
}

/// Calls `node` until the call answers (at most 3,000 times, 10 ms apart:
/// a hang guard), retrying what the docs say to retry.
macro_rules! until_answered {
    ($call:expr) => {{
        let mut answered = None;
        for _ in 0..3000 {
            match $call {
                Ok(reply) => {
                    answered = Some(reply.into_inner());
                    break;
                }
                Err(s) if retry_allowed(&s) => tokio::time::sleep(Duration::from_millis(10)).await,
                Err(s) => panic!("{}: {s:?}", stringify!($call)),
            }
        }
        answered.expect(stringify!($call))
    }};
}

/// Where the nodes stand after the holder (node 0, owner of the match's
/// games) is killed: arena calls hammered on node 1 and the games' reads on
/// node 2, so that node 1 takes the arena and node 2 the games (each wins
/// its race unless the other's upkeep round falls in the same few ms).
/// Returns the owner of each game and the arena's holder.
async fn part(nodes: &mut Nodes, games: &[(String, u32)], key: &str) -> (Vec<String>, usize) {
    assert_eq!(nodes.holder(), 0, "the first node takes the arena");
    nodes.kill(0);
    let (one, two) = (nodes.url(1), nodes.url(2));
    let arena_calls = async {
        until_answered!(
            arena(&one)
                .list_pools(pb::ListPoolsRequest::default())
                .await
        );
    };
    let game_reads = async {
        for (game_id, _) in games {
            until_answered!(
                game_client(&two)
                    .get_state(authed(
                        key,
                        pb::GetStateRequest {
                            game_id: game_id.clone()
                        }
                    ))
                    .await
            );
        }
    };
    tokio::join!(arena_calls, game_reads);
    let ids: Vec<String> = games.iter().map(|(g, _)| format!("'{g}'")).collect();
    let owners = PgCluster::shared().sql(
        PgCluster::db_name(&nodes.db),
        &format!(
            "SELECT node_id FROM leases WHERE game_id IN ({}) ORDER BY game_id",
            ids.join(",")
        ),
    );
    (owners.lines().map(str::to_owned).collect(), nodes.holder())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_duplicate_match_whose_games_are_not_on_the_arenas_node_plays_to_its_end() {
    for attempt in 0..3 {
        let mut nodes = Nodes::start(&format!("arena_spread_{attempt}"), 3);
        let zero = Picker::new(&std::sync::Arc::new(vec![nodes.url(0)]), 1);
        let a = register(&zero, "spread-a").await;
        let b = register(&zero, "spread-b").await;
        // Both seek through node 0, which forms the match and holds its games.
        let mut seeks = Vec::new();
        for (_, key) in [&a, &b] {
            let stream = arena(&nodes.url(0))
                .seek(authed(key, rated_seek(pb::GameKind::Meduris)))
                .await
                .expect("seek")
                .into_inner();
            seeks.push(stream);
        }
        let games_a = games_of(&nodes.url(0), &a.1).await;
        let games_b = games_of(&nodes.url(0), &b.1).await;
        let (owners, holder) = part(&mut nodes, &games_a, &a.1).await;
        drop(seeks);
        if holder != 1 || owners.iter().any(|o| o != "node-2") {
            eprintln!("attempt {attempt}: arena on node {holder}, games on {owners:?}; again");
            continue;
        }
        // Node 1 holds the arena, node 2 the games: the bots play on.
        let survivors = std::sync::Arc::new(vec![nodes.url(1), nodes.url(2)]);
        let mut players = tokio::task::JoinSet::new();
        for (i, (game_id, seat)) in games_a.iter().enumerate() {
            players.spawn(play_seat(
                Picker::new(&survivors, 10 + i as u64),
                game_id.clone(),
                a.1.clone(),
                *seat,
                100 + i as u64,
            ));
        }
        for (i, (game_id, seat)) in games_b.iter().enumerate() {
            players.spawn(play_seat(
                Picker::new(&survivors, 20 + i as u64),
                game_id.clone(),
                b.1.clone(),
                *seat,
                200 + i as u64,
            ));
        }
        while let Some(played) = players.join_next().await {
            played.expect("a seat played to the end");
        }
        // The holder reads the ended games and records the match once.
        let store = nodes.store();
        for _ in 0..3000 {
            let matches = store.matches().expect("matches");
            assert_eq!(matches.len(), 1, "one match: {matches:?}");
            if matches[0].placements.is_some() {
                assert_eq!(matches[0].game_ids.len(), GAMES);
                return;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        panic!("the match's result was never recorded");
    }
    panic!("in 3 attempts the games never landed away from the arena's node");
}
