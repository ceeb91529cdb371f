//! What an operator reads in `/metrics` after a failure, scraped from real
//! `druids-server` processes on one PostgreSQL (issue 27): a node paused
//! past its lease (a lapse on it, the arena's work and a game taken over by
//! the other), and a database out of reach (`druids_database_errors_total`).

use std::path::{Path, PathBuf};
use std::time::Duration;

use druids_contract::pb;
use druids_contract::pb::arena_service_client::ArenaServiceClient;
use druids_contract::pb::druids_service_client::DruidsServiceClient;
use druids_tests::pg_relay::PgRelay;
use druids_tests::postgres::PgCluster;
use druids_tests::process::ServerProcess;
use druids_tests::{create, state};
use tonic::Code;
use tonic::transport::Channel;

/// A scratch folder for the nodes' logs, removed when the test passes.
struct Logs(PathBuf);

impl Logs {
    fn new(name: &str) -> Logs {
        let dir = std::env::temp_dir().join(format!("druids-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Logs(dir)
    }

    fn of(&self, node: &str) -> PathBuf {
        self.0.join(format!("{node}.log"))
    }
}

impl Drop for Logs {
    fn drop(&mut self) {
        if !std::thread::panicking() {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
}

/// Node `id` of a cluster on database `db`, leases of `lease_secs`.
fn node(db: &str, id: &str, lease_secs: &str, log: &Path) -> ServerProcess {
    ServerProcess::start(
        &[
            "--listen",
            "127.0.0.1:0",
            "--metrics-listen",
            "127.0.0.1:0",
            "--http-listen",
            "off",
            "--db",
            db,
            "--node-id",
            id,
            "--lease-secs",
            lease_secs,
        ],
        &[
            ("DRUIDS_MAX_READS_PER_SECOND", "0"),
            ("DRUIDS_MAX_SETUPS_PER_SECOND", "0"),
            ("DRUIDS_MAX_SUBMITS_PER_SECOND", "0"),
        ],
        log,
    )
}

fn client(node: &ServerProcess) -> DruidsServiceClient<Channel> {
    DruidsServiceClient::new(Channel::from_shared(node.url()).unwrap().connect_lazy())
}

/// Node `node`'s `/metrics`.
fn scrape(node: &ServerProcess) -> String {
    use std::io::{Read, Write};
    let addr = node.metrics.as_deref().expect("metrics address");
    let mut s = std::net::TcpStream::connect(addr).expect("metrics port");
    write!(
        s,
        "GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut out = String::new();
    s.read_to_string(&mut out).unwrap();
    out
}

/// The value of counter `name` (whatever its labels) in `text`.
fn counter(text: &str, name: &str) -> f64 {
    text.lines()
        .find(|l| {
            l.strip_prefix(name)
                .is_some_and(|rest| rest.starts_with(' ') || rest.starts_with('{'))
        })
        .and_then(|l| l.rsplit(' ').next()?.parse().ok())
        .unwrap_or_else(|| panic!("no {name} in\n{text}"))
}

/// Every per-node series in `text` (eight metrics) carries the label
/// `node="<id>"`, so series scraped from several nodes stay apart.
fn labelled_with_its_id(text: &str, id: &str) {
    let series: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("druids_node_"))
        .collect();
    let names: std::collections::BTreeSet<&str> = series
        .iter()
        .filter_map(|l| l.split(['{', ' ']).next())
        .map(|n| {
            n.trim_end_matches("_bucket")
                .trim_end_matches("_sum")
                .trim_end_matches("_count")
        })
        .collect();
    assert_eq!(names.len(), 8, "per-node metrics: {names:?}\n{text}");
    let label = format!("node=\"{id}\"");
    for line in series {
        assert!(line.contains(&label), "{line} lacks {label}");
    }
}

/// Node `node`'s counter `name`.
fn metric(node: &ServerProcess, name: &str) -> f64 {
    counter(&scrape(node), name)
}

/// The node holding the arena's work is paused (SIGSTOP) until the database
/// sees its lease run out; an arena call on the other node takes the arena's
/// work over and a game's call takes the game over, each counted there. The
/// paused node, continued, counts its lapsed lease.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_paused_node_counts_a_lapse_and_the_other_its_takeovers() {
    let db = PgCluster::shared().database("node_metrics_lapse");
    let logs = Logs::new("node-metrics-lapse");
    let nodes = [
        node(&db, "node-a", "2", &logs.of("a")),
        node(&db, "node-b", "2", &logs.of("b")),
    ];
    let cluster = PgCluster::shared();
    let name = PgCluster::db_name(&db).to_owned();
    // The arena's work goes to the first node whose upkeep finds it free.
    let mut holder = String::new();
    for _ in 0..600 {
        holder = cluster.sql(
            &name,
            "SELECT coalesce(node_id, '') FROM arena_lease WHERE id = 1",
        );
        if !holder.is_empty() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let (paused, other) = match holder.as_str() {
        "node-a" => (&nodes[0], &nodes[1]),
        "node-b" => (&nodes[1], &nodes[0]),
        h => panic!("a node holds the arena: {h:?}"),
    };
    for (node, id) in [(&nodes[0], "node-a"), (&nodes[1], "node-b")] {
        labelled_with_its_id(&scrape(node), id);
    }
    let (id, _) = create(&mut client(paused), pb::GameKind::Meduris, 2, 7).await;
    let (takeovers, arena_takeovers) = (
        metric(other, "druids_node_takeovers_total"),
        metric(other, "druids_node_arena_takeovers_total"),
    );
    assert_eq!(metric(paused, "druids_node_lease_lapses_total"), 0.0);

    paused.signal("STOP");
    let sql = format!("SELECT expires_at < now() FROM nodes WHERE node_id = '{holder}'");
    let mut expired = false;
    for _ in 0..1200 {
        if cluster.sql(&name, &sql) == "t" {
            expired = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(expired, "the paused node's lease runs out");
    let mut arena =
        ArenaServiceClient::new(Channel::from_shared(other.url()).unwrap().connect_lazy());
    let leaderboard = pb::GetLeaderboardRequest {
        kind: pb::GameKind::Dolmen as i32,
        players: 2,
        page_size: 10,
        page_token: String::new(),
    };
    let mut answered = false;
    for _ in 0..600 {
        match arena.get_leaderboard(leaderboard.clone()).await {
            Ok(_) => {
                answered = true;
                break;
            }
            Err(s) if druids_tests::retry_allowed(&s) => {
                tokio::time::sleep(Duration::from_millis(100)).await
            }
            Err(s) => panic!("{s:?}"),
        }
    }
    assert!(answered, "the other node answers for the arena");
    let mut to_other = client(other);
    state(&mut to_other, &id, None).await;
    assert_eq!(
        metric(other, "druids_node_arena_takeovers_total"),
        arena_takeovers + 1.0
    );
    assert!(metric(other, "druids_node_takeovers_total") >= takeovers + 1.0);

    paused.signal("CONT");
    let mut lapsed = false;
    for _ in 0..600 {
        if metric(paused, "druids_node_lease_lapses_total") >= 1.0 {
            lapsed = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(lapsed, "the continued node counts its lapsed lease");
}

/// A database out of reach (every connection dropped by a relay in front of
/// PostgreSQL) is counted in `druids_database_errors_total` once a call
/// tried it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_lost_database_is_counted_in_database_errors() {
    let db = PgCluster::shared().database("node_metrics_db_errors");
    let relay = PgRelay::new(&db);
    let logs = Logs::new("node-metrics-db");
    let server = ServerProcess::start(
        &[
            "--listen",
            "127.0.0.1:0",
            "--metrics-listen",
            "127.0.0.1:0",
            "--http-listen",
            "off",
            "--db",
            relay.url(),
        ],
        &[("DRUIDS_MAX_SETUPS_PER_SECOND", "0")],
        &logs.of("server"),
    );
    let mut to_server = client(&server);
    create(&mut to_server, pb::GameKind::Meduris, 2, 1).await;
    let before = metric(&server, "druids_database_errors_total");
    relay.cut_off();
    let mut request = tonic::Request::new(pb::CreateGameRequest {
        kind: pb::GameKind::Meduris as i32,
        players: 2,
        ..Default::default()
    });
    request.set_timeout(Duration::from_secs(3));
    let refused = to_server
        .create_game(request)
        .await
        .expect_err("no database");
    assert_eq!(refused.code(), Code::Unavailable, "{refused:?}");
    assert!(metric(&server, "druids_database_errors_total") > before);
    relay.restore();
}
