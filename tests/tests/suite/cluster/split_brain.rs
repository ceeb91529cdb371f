//! Split brain: a game's owner paused past its lease is taken over, and
//! when it wakes the database refuses its write under the old lease.

use std::time::Duration;

use druids_contract::pb;
use druids_store::postgres::PostgresStore;
use druids_store::{ActionRecord, Epoch, Games, Lifecycle, Origin, StoreError, Sync};
use tonic::Code;

use super::{Nodes, check_history, retryable, submit, wait_until};

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_paused_owner_cannot_write_after_its_game_was_taken_over() {
    let nodes = Nodes::start("cluster_split", 2);
    let mut a = nodes.client(0);
    let created = a
        .create_game(pb::CreateGameRequest {
            kind: pb::GameKind::Meduris as i32,
            players: 2,
            ..Default::default()
        })
        .await
        .expect("create on A")
        .into_inner();
    let id = created.game_id.clone();
    let tokens: Vec<String> = created.seats.into_iter().map(|s| s.token).collect();
    let mut acks = Vec::new();
    // A owns the game (it created it): a few actions through A.
    for _ in 0..3 {
        acks.push(
            submit(&mut a, &id, &tokens, &format!("a{}", acks.len()))
                .await
                .unwrap(),
        );
    }
    nodes.node(0).signal("STOP");
    // Past the lease: B takes the game over (its upkeep finds the lapsed
    // lease) and play goes on there.
    wait_until("B takes over the game of the paused A", || {
        nodes.metric(1, "druids_node_takeovers_total") >= 1.0
    })
    .await;
    let mut b = nodes.client(1);
    for _ in 0..3 {
        acks.push(
            submit(&mut b, &id, &tokens, &format!("b{}", acks.len()))
                .await
                .unwrap(),
        );
    }
    // A submission sent to A while it is paused, in flight when A resumes:
    // its bytes wait in A's socket (the kernel's receive queue grows).
    let a_port = port_of(&nodes.node(0).url());
    let queued_before = bytes_waiting_at(a_port);
    let in_flight = {
        let (mut a, id, tokens) = (a.clone(), id.clone(), tokens.clone());
        tokio::spawn(async move { submit(&mut a, &id, &tokens, "in-flight").await })
    };
    wait_until("the request reaches the paused A's socket", || {
        bytes_waiting_at(a_port) > queued_before
    })
    .await;
    nodes.node(0).signal("CONT");
    // A counts the lapse of its leases; B's log names whose game it took.
    wait_until("A counts its lapsed leases", || {
        nodes.metric(0, "druids_node_lease_lapses_total") >= 1.0
    })
    .await;
    let b_log = std::fs::read_to_string(nodes.log(1)).unwrap();
    assert!(
        b_log
            .lines()
            .any(|l| l.contains("game taken over") && l.contains("node-0")),
        "the takeover names the node it took the game from: {b_log}"
    );
    let answered = tokio::time::timeout(Duration::from_secs(20), in_flight)
        .await
        .expect("the in-flight submission is answered")
        .unwrap();
    match answered {
        Ok(ack) => acks.push(ack),
        Err(s) => assert!(
            matches!(s.code(), Code::Unavailable | Code::Aborted),
            "refused as moved or stale: {s:?}"
        ),
    }
    // Play on through both nodes to the end.
    let mut c = [a, b];
    let mut turn = 0;
    loop {
        let state = c[turn % 2]
            .get_state(pb::GetStateRequest {
                game_id: id.clone(),
            })
            .await
            .expect("state")
            .into_inner()
            .state
            .unwrap();
        if state.to_act.is_none() {
            break;
        }
        match submit(&mut c[turn % 2], &id, &tokens, &format!("c{}", acks.len())).await {
            Ok(ack) => acks.push(ack),
            Err(s) if retryable(&s) => tokio::time::sleep(Duration::from_millis(100)).await,
            Err(s) => panic!("{s:?}"),
        }
        turn += 1;
    }
    let mut picker = nodes.picker(7);
    let mut watcher = picker.pick();
    let seen: Vec<u64> = {
        let mut stream = watcher
            .stream_events(pb::StreamEventsRequest {
                game_id: id.clone(),
                from_seq: 1,
            })
            .await
            .expect("stream")
            .into_inner();
        let mut seqs = Vec::new();
        while let Some(e) = stream.message().await.expect("event") {
            seqs.push(e.seq);
        }
        seqs
    };
    check_history(&mut picker, &id, &acks, &seen).await;
    // And the database itself refuses a write under A's old lease.
    let store = PostgresStore::open(&nodes.db, Sync::Normal).unwrap();
    let next = acks.len() as u64 + 1;
    let refused = store.append_action(
        &id,
        &ActionRecord {
            version: next,
            seat: druids_contract::engine::Seat(0),
            origin: Origin::Seat,
            action: pb::Action::default(),
            key: None,
            epoch: Epoch::FIRST,
            at_ms: 0,
        },
    );
    assert!(
        matches!(refused, Err(StoreError::Fenced { .. })),
        "a write under the first lease is refused: {refused:?}"
    );
    assert_eq!(
        store.load_game(&id).unwrap().unwrap().actions.len(),
        acks.len()
    );
}

/// The port of a `http://host:port` URL.
fn port_of(url: &str) -> u16 {
    url.rsplit(':')
        .next()
        .and_then(|p| p.parse().ok())
        .expect("a port")
}

/// The bytes received but not yet read by the process, over every TCP
/// connection of local port `port` on 127.0.0.1 (Linux: /proc/net/tcp).
fn bytes_waiting_at(port: u16) -> u64 {
    let table = std::fs::read_to_string("/proc/net/tcp").expect("/proc/net/tcp");
    let local = format!("0100007F:{port:04X}");
    table
        .lines()
        .skip(1)
        .filter_map(|line| {
            let fields: Vec<&str> = line.split_whitespace().collect();
            // local_address rem_address st tx_queue:rx_queue ...
            (fields.get(1) == Some(&local.as_str()))
                .then(|| fields.get(4)?.split(':').nth(1))
                .flatten()
                .and_then(|rx| u64::from_str_radix(rx, 16).ok())
        })
        .sum()
}
