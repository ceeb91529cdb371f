//! Three nodes, 20 games played by bots spread over them; one node is
//! SIGKILLed mid-play and restarted later, and nothing acknowledged is lost
//! or doubled.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use druids_contract::pb;

use super::{Nodes, Picker, check_history, create_game, play, retryable, wait_until};

/// Follows game `id`'s events as a spectator from seq 1 to its end,
/// resuming through another node after each failure; the seqs seen.
async fn watch(mut picker: Picker, id: String) -> Vec<u64> {
    let mut seqs = Vec::new();
    let mut next = 1;
    loop {
        let mut c = picker.pick();
        let opened = c
            .stream_events(pb::StreamEventsRequest {
                game_id: id.clone(),
                from_seq: next,
            })
            .await;
        match opened {
            Ok(stream) => {
                let mut stream = stream.into_inner();
                loop {
                    match stream.message().await {
                        Ok(Some(event)) => {
                            seqs.push(event.seq);
                            next = event.seq + 1;
                        }
                        Ok(None) => return seqs,
                        Err(s) if retryable(&s) => break,
                        Err(s) => panic!("stream of {id}: {s:?}"),
                    }
                }
            }
            Err(s) if retryable(&s) => {}
            Err(s) => panic!("stream of {id}: {s:?}"),
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn three_nodes_lose_nothing_when_one_is_killed_and_restarted() {
    let mut nodes = Nodes::start("cluster_kill", 3);
    let mut picker = nodes.picker(1);
    let progress = Arc::new(AtomicUsize::new(0));
    let mut games = Vec::new();
    for g in 0..20u32 {
        let kind = if g % 2 == 0 {
            pb::GameKind::Meduris
        } else {
            pb::GameKind::Dolmen
        };
        let (id, tokens) = create_game(&mut picker, kind, 2 + g % 3).await;
        let player = tokio::spawn(play(
            nodes.picker(100 + u64::from(g)),
            id.clone(),
            tokens,
            Arc::clone(&progress),
            Arc::default(),
        ));
        let watcher = tokio::spawn(watch(nodes.picker(200 + u64::from(g)), id.clone()));
        games.push((id, player, watcher));
    }
    // Kill a node once play is under way; restart it a little later.
    while progress.load(Ordering::Relaxed) < 200 {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    nodes.kill(1);
    let killed_at = progress.load(Ordering::Relaxed);
    // Play goes on while the node is down, its games taken over by the
    // others (after its leases lapse) before it comes back.
    let taken_over = |nodes: &Nodes| {
        nodes.metric(0, "druids_node_takeovers_total")
            + nodes.metric(2, "druids_node_takeovers_total")
    };
    wait_until(
        "play goes on and the dead node's games are taken over",
        || progress.load(Ordering::Relaxed) >= killed_at + 50 && taken_over(&nodes) >= 1.0,
    )
    .await;
    nodes.restart(1);
    for (id, player, watcher) in games {
        let acks = tokio::time::timeout(Duration::from_secs(300), player)
            .await
            .unwrap_or_else(|_| panic!("game {id} did not finish"))
            .expect("player");
        let seen = tokio::time::timeout(Duration::from_secs(60), watcher)
            .await
            .unwrap_or_else(|_| panic!("the stream of {id} did not end"))
            .expect("watcher");
        check_history(&mut picker, &id, &acks, &seen).await;
    }
    // Every node lists the same games.
    let mut pages = Vec::new();
    for i in 0..3 {
        let page = nodes
            .client(i)
            .list_games(pb::ListGamesRequest::default())
            .await
            .expect("list")
            .into_inner();
        pages.push(page);
    }
    assert_eq!(pages[0].games.len(), 20, "{:?}", pages[0]);
    assert!(
        pages.iter().all(|p| *p == pages[0]),
        "the same page from every node"
    );
    assert!(
        nodes.moved.load(Ordering::Relaxed) >= 1,
        "calls for the dead node's games were answered UNAVAILABLE / GAME_MOVED"
    );
    assert!(
        taken_over(&nodes) >= 1.0,
        "the killed node's games were taken over"
    );
    let forwarded: f64 = (0..3)
        .map(|i| nodes.metric(i, "druids_node_forwarded_total"))
        .sum();
    assert!(
        forwarded >= 1.0,
        "calls reached nodes not owning their game"
    );
}
