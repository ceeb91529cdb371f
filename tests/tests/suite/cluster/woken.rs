//! A node that wakes up after its games were taken over (outage 3 of issue
//! 27) serves none of them from memory until it has checked, against the
//! database, that it still owns them.
//!
//! That check is one database round trip after the node's lease renewal, a
//! window too short to hit by chance; the test widens it with a real lock:
//! its own session holds the `leases` table (`ACCESS EXCLUSIVE`) while the
//! woken node renews its lease (in the `nodes` table, not locked) and then
//! tries to read its games' leases. A read of the game sent to the node
//! then must not be answered from its memory at the old version.

use std::time::Duration;

use druids_contract::pb;
use tokio_postgres::{Client as Pg, NoTls};

use super::{Client, HANG, Nodes, retryable, submit, wait_until};

/// A owns a game and plays it to version 3, is SIGSTOPped until B has taken
/// the game over and played it on; the test locks `leases` and SIGCONTs A.
/// Once A has renewed its lapsed leases (its lapse counter moved), a
/// GetState sent to A is not answered with A's old version: it waits for
/// the lock (and is forwarded to B once the lock goes) or is refused as
/// retryable. Before the fix A counted its leases as held from the renewal
/// on and answered at once from memory.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_woken_node_serves_no_stale_game_before_checking_its_leases() {
    let nodes = Nodes::start("cluster_woken", 2);
    let mut a = nodes.client(0);
    let created = nodes.create_on(0).await;
    let id = created.game_id;
    let tokens: Vec<String> = created.seats.into_iter().map(|s| s.token).collect();
    for key in ["a0", "a1", "a2"] {
        submit(&mut a, &id, &tokens, key)
            .await
            .expect("played on A");
    }
    let stale = version(&mut a, &id).await.expect("state on A");
    let lapses = nodes.metric(0, "druids_node_lease_lapses_total");
    nodes.node(0).signal("STOP");
    wait_until("B takes over the game of the paused A", || {
        nodes.metric(1, "druids_node_takeovers_total") >= 1.0
    })
    .await;
    let mut b = nodes.client(1);
    for key in ["b0", "b1", "b2"] {
        submit(&mut b, &id, &tokens, key)
            .await
            .expect("played on B");
    }
    let fresh = version(&mut b, &id).await.expect("state on B");
    assert_eq!(fresh, stale + 3, "B played the game on");

    let locker = connect(&nodes.db).await;
    locker
        .batch_execute("BEGIN; LOCK TABLE leases IN ACCESS EXCLUSIVE MODE")
        .await
        .expect("lock the leases table");
    nodes.node(0).signal("CONT");
    // The counter moves after the renewal's write: A has renewed.
    wait_until("A wakes and renews its lapsed leases", || {
        nodes.metric(0, "druids_node_lease_lapses_total") > lapses
    })
    .await;
    let asked = {
        let (mut a, id) = (a.clone(), id.clone());
        tokio::spawn(async move { version(&mut a, &id).await })
    };
    // Hold the lock until A answered, or until the call waits on it.
    let watcher = connect(&nodes.db).await;
    let deadline = tokio::time::Instant::now() + HANG;
    while !asked.is_finished() && !looking_up_owner(&watcher, "node-0").await {
        assert!(
            tokio::time::Instant::now() < deadline,
            "A neither answers nor asks the database"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    locker.batch_execute("ROLLBACK").await.expect("unlock");
    let answered = tokio::time::timeout(HANG, asked)
        .await
        .expect("A answers once the lock is gone")
        .unwrap();
    match &answered {
        Ok(v) => assert_eq!(
            *v, fresh,
            "A, woken with its leases unchecked, answered at version {v}; the game is at {fresh} on B (A's old version: {stale})"
        ),
        Err(s) => assert!(retryable(s), "refused as retryable: {s:?}"),
    }
    eprintln!(
        "a woken node asked for a game taken from it (A at {stale}, B at {fresh}): {answered:?}"
    );
    // And once A has checked, it serves the game as it is (through B).
    let deadline = tokio::time::Instant::now() + HANG;
    loop {
        match version(&mut a, &id).await {
            Ok(v) => break assert_eq!(v, fresh, "A serves the game at B's version"),
            Err(s) if retryable(&s) && tokio::time::Instant::now() < deadline => {
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            Err(s) => panic!("GetState on A: {s:?}"),
        }
    }
}

/// The game's version as node `c` tells it.
async fn version(c: &mut Client, id: &str) -> Result<u64, tonic::Status> {
    Ok(c.get_state(pb::GetStateRequest {
        game_id: id.to_owned(),
    })
    .await?
    .into_inner()
    .state
    .expect("state")
    .version)
}

/// A session of the test's own on database `url`.
async fn connect(url: &str) -> Pg {
    let (client, connection) = tokio_postgres::connect(url, NoTls)
        .await
        .expect("connect to PostgreSQL");
    tokio::spawn(connection);
    client
}

/// Whether a session of node `node` waits on a lock while looking up one
/// game's owner (the lookup of `Leases::whereabouts`).
async fn looking_up_owner(pg: &Pg, node: &str) -> bool {
    let row = pg
        .query_one(
            "SELECT count(*) FROM pg_stat_activity
              WHERE datname = current_database() AND application_name = $1
                AND wait_event_type = 'Lock' AND query LIKE '%WHERE g.id = $1%'",
            &[&format!("druids-server {node}")],
        )
        .await
        .expect("pg_stat_activity");
    row.get::<_, i64>(0) > 0
}
