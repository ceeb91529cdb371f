//! Every arena call answers on every node: the lease holder serves it, the
//! others forward it (streams too), and a bot's key plays through any node.

use std::sync::Arc;
use std::time::Duration;

use druids_contract::pb;
use druids_tests::authed;
use tonic::Code;

use super::{Nodes, Picker, arena, dolmen_seek, leaderboard_request, play_seat};

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn every_arena_call_answers_on_every_node() {
    let nodes = Nodes::start("arena_cluster_calls", 3);
    let holder = nodes.holder();
    let mut bots = Vec::new();
    for i in 0..3 {
        // Each registered through another node.
        let mut a = arena(&nodes.url(i));
        let reply = a
            .register_bot(pb::RegisterBotRequest {
                name: format!("everywhere-{i}"),
                description: "a bot".into(),
                owner_contact: "tests@druids.dev".into(),
            })
            .await
            .unwrap_or_else(|s| panic!("register on node {i}: {s:?}"))
            .into_inner();
        bots.push((reply.bot_id, reply.api_key));
    }
    for i in 0..3 {
        let mut a = arena(&nodes.url(i));
        let board = a
            .get_leaderboard(leaderboard_request())
            .await
            .unwrap_or_else(|s| panic!("leaderboard on node {i}: {s:?}"))
            .into_inner();
        assert!(board.entries.is_empty(), "nothing rated yet");
        let own = a
            .get_bot(authed(&bots[i].1, pb::GetBotRequest::default()))
            .await
            .unwrap_or_else(|s| panic!("own profile on node {i}: {s:?}"))
            .into_inner();
        assert_eq!(own.bot.unwrap().bot_id, bots[i].0, "the key names its bot");
        let other = a
            .get_bot(pb::GetBotRequest {
                bot_id: bots[(i + 1) % 3].0.clone(),
            })
            .await
            .unwrap_or_else(|s| panic!("profile on node {i}: {s:?}"))
            .into_inner();
        assert_eq!(other.bot.unwrap().bot_id, bots[(i + 1) % 3].0);
        a.list_pools(pb::ListPoolsRequest::default())
            .await
            .unwrap_or_else(|s| panic!("pools on node {i}: {s:?}"));
        a.list_tournaments(pb::ListTournamentsRequest::default())
            .await
            .unwrap_or_else(|s| panic!("tournaments on node {i}: {s:?}"));
        // The holder's own errors come back unchanged through the others.
        let refused = a
            .get_bot(authed("not-a-key", pb::GetBotRequest::default()))
            .await
            .expect_err("an unknown key");
        assert_eq!(
            refused.code(),
            Code::Unauthenticated,
            "node {i}: {refused:?}"
        );
        assert_eq!(
            tonic_types::StatusExt::get_details_error_info(&refused).map(|i| i.reason),
            Some("BOT_KEY_UNKNOWN".to_owned()),
            "node {i}"
        );
    }
    // Two bots seek through the two nodes not holding the arena, a third
    // follows its events through the holder; the match's game is played
    // with the bots' keys through the non-holders.
    let others: Vec<usize> = (0..3).filter(|&i| i != holder).collect();
    let mut seeks = Vec::new();
    for (b, &node) in others.iter().enumerate() {
        let stream = arena(&nodes.url(node))
            .seek(authed(&bots[b].1, dolmen_seek()))
            .await
            .unwrap_or_else(|s| panic!("seek on node {node}: {s:?}"))
            .into_inner();
        seeks.push(stream);
    }
    let mut events = arena(&nodes.url(holder))
        .stream_bot_events(authed(
            &bots[0].1,
            pb::StreamBotEventsRequest { from_seq: 1 },
        ))
        .await
        .expect("bot events on the holder")
        .into_inner();
    let mut seekers = Vec::new();
    for (b, mut stream) in seeks.into_iter().enumerate() {
        let picker = Picker::new(&Arc::new(vec![nodes.url(others[b])]), b as u64);
        let key = bots[b].1.clone();
        seekers.push(tokio::spawn(async move {
            let mut players = Vec::new();
            let finished = loop {
                let event = tokio::time::timeout(
                    Duration::from_secs(120),
                    druids_tests::heartbeats::next_event(&mut stream),
                )
                .await
                .expect("a seek event within two minutes (deadlock guard)")
                .expect("seek event")
                .expect("the seek stream lasts until its match is over");
                match event.event.unwrap() {
                    pb::seek_event::Event::GameStarted(g) => {
                        players.push(tokio::spawn(play_seat(
                            picker.clone(),
                            g.game_id,
                            key.clone(),
                            g.seat,
                            b as u64 * 1000,
                        )));
                    }
                    pb::seek_event::Event::MatchFinished(f) => break f,
                    _ => {}
                }
            };
            for p in players {
                p.await.unwrap();
            }
            finished
        }));
    }
    let mut results = Vec::new();
    for s in seekers {
        results.push(s.await.expect("a seeker"));
    }
    assert_eq!(
        results[0].match_id, results[1].match_id,
        "one match of the two"
    );
    let first = tokio::time::timeout(Duration::from_secs(60), events.message())
        .await
        .expect("an event (deadlock guard)")
        .expect("event")
        .expect("the stream lasts");
    assert_eq!(first.seq, 1);
    for i in 0..3 {
        let board = arena(&nodes.url(i))
            .get_leaderboard(leaderboard_request())
            .await
            .unwrap()
            .into_inner();
        assert_eq!(board.entries.len(), 2, "node {i}: the two bots are rated");
    }
}
