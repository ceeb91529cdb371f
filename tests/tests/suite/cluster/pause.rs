//! A node paused (SIGSTOP) in the middle of its work, among three on one
//! database: what the others and the node itself do.
//!
//! * Paused mid-commit, its transaction holding the lease rows of its games
//!   (`FOR SHARE`, [`druids_store::postgres`]'s group commit): the other
//!   nodes go on renewing their own leases, and take the paused node's games
//!   over, while it is still paused.

use std::sync::atomic::{AtomicBool, AtomicUsize};

use druids_store::postgres::PostgresStore;
use druids_tests::postgres::PgCluster;

use super::*;

/// Games in play whose lease node `node` holds, as the database says.
fn games_leased_to(db_url: &str, node: &str) -> usize {
    PgCluster::shared()
        .sql(
            PgCluster::db_name(db_url),
            &format!(
                "SELECT count(*) FROM leases l JOIN games g ON g.id = l.game_id
                  WHERE g.ended_unix_ms IS NULL AND l.node_id = '{node}'"
            ),
        )
        .parse()
        .expect("a count")
}

/// Whether a session of node `node` sits idle in a transaction that has
/// locked rows of the leases table: the node stopped mid-commit.
fn mid_commit(db_url: &str, node: &str) -> bool {
    let db = PgCluster::db_name(db_url);
    let n: u32 = PgCluster::shared()
        .sql(
            db,
            &format!(
                "SELECT count(*) FROM pg_stat_activity a JOIN pg_locks l ON l.pid = a.pid
                  WHERE a.datname = '{db}' AND a.application_name = 'druids-server {node}'
                    AND a.state = 'idle in transaction'
                    AND l.relation = 'leases'::regclass"
            ),
        )
        .parse()
        .expect("a count");
    n > 0
}

/// Node 0 (A) owns games played through it alone, so that its commits are
/// always under way; it is SIGSTOPped until the stop lands in the middle of
/// one (its session idle in a transaction holding lease rows, as a real
/// pause does by chance). While it stays paused, B and C take all its games
/// over, and neither lets its own leases lapse. After A wakes, play goes on
/// through it, and each acknowledged action is logged once.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_node_paused_mid_commit_delays_neither_renewal_nor_takeover() {
    let nodes = Nodes::start("cluster_pause_commit", 3);
    let only_a = || Picker {
        urls: Arc::new(Mutex::new(vec![nodes.node(0).url()])),
        rng: Lcg(3),
        moved: Arc::clone(&nodes.moved),
    };
    let progress = Arc::new(AtomicUsize::new(0));
    let stop = Arc::new(AtomicBool::new(false));
    let mut players = Vec::new();
    for _ in 0..6 {
        let created = nodes.create_on(0).await;
        let tokens: Vec<String> = created.seats.into_iter().map(|s| s.token).collect();
        let id = created.game_id;
        let play = play(
            only_a(),
            id.clone(),
            tokens,
            Arc::clone(&progress),
            Arc::clone(&stop),
        );
        players.push((id, tokio::spawn(play)));
    }
    let mut tries = 0;
    loop {
        tries += 1;
        assert!(tries <= 300, "a SIGSTOP never landed mid-commit");
        let before = progress.load(Ordering::Relaxed);
        nodes.node(0).signal("STOP");
        if mid_commit(&nodes.db, "node-0") {
            break;
        }
        nodes.node(0).signal("CONT");
        // Polled often: the next SIGSTOP should land soon after play resumes.
        let deadline = tokio::time::Instant::now() + HANG;
        while progress.load(Ordering::Relaxed) <= before {
            assert!(tokio::time::Instant::now() < deadline, "play goes on");
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    }
    let paused = std::time::Instant::now();
    let owned = games_leased_to(&nodes.db, "node-0");
    assert!(owned > 0, "A owns games when paused");
    wait_until(
        "the games of A, paused mid-commit, are taken over while it is paused",
        || games_leased_to(&nodes.db, "node-0") == 0,
    )
    .await;
    eprintln!(
        "{owned} games of a node paused mid-commit (at try {tries}) taken over {:.2} s after the pause (lease {LEASE_SECS} s)",
        paused.elapsed().as_secs_f64()
    );
    for i in [1, 2] {
        assert_eq!(
            nodes.metric(i, "druids_node_lease_lapses_total"),
            0.0,
            "node-{i}'s leases never lapsed while A was paused mid-commit"
        );
    }
    nodes.node(0).signal("CONT");
    // Play on through the woken A (forwarded now) for a while.
    let resumed = progress.load(Ordering::Relaxed);
    wait_until("play goes on", || {
        progress.load(Ordering::Relaxed) >= resumed + 12
    })
    .await;
    stop.store(true, Ordering::Relaxed);
    let store = PostgresStore::open(&nodes.db, Sync::Normal).unwrap();
    for (id, player) in players {
        let acks = tokio::time::timeout(HANG, player)
            .await
            .expect("the player stops")
            .expect("the player");
        // Logged: the acknowledged actions, each once, at its version.
        let logged: Vec<(u64, u32)> = store
            .load_game(&id)
            .unwrap()
            .expect("the game")
            .actions
            .iter()
            .map(|a| (a.version, u32::from(a.seat.0)))
            .collect();
        let acked: Vec<(u64, u32)> = acks.iter().map(|a| (a.version, a.seat)).collect();
        assert_eq!(logged, acked, "game {id}: the log is what was acknowledged");
    }
}
