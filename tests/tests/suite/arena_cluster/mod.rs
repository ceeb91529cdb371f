//! The arena on several nodes (server/src/arena_work/): real `druids-server`
//! processes on one PostgreSQL database.
//!
//! * Every arena call answers on every node: the node holding the arena's
//!   lease serves it, the others forward it (streams too), and a bot's key
//!   plays its seat of an arena game through any node.
//! * The arena's holder is SIGKILLed in the middle of a Swiss tournament's
//!   round while 12 bots seek and play: another node takes the arena over,
//!   every match finishes once, every result counts once, the tournament
//!   completes, and the ratings equal a recomputation from the stored
//!   results (a second takeover, which replays them from scratch). The
//!   failover time (kill to the first arena call answered) is printed.
//! * A node started with `--registration closed` refuses an anonymous
//!   RegisterBot, though the arena's holder is open.
//! * A rated duplicate match whose games land on a node that does not hold
//!   the arena plays to its end and is recorded once.
//!
//! The scenarios are submodules; the nodes, clients and bots they share
//! live here.

/// `$call` (an expression using the client `$c`, made by `$make` for a
/// picked node) until it succeeds, on another node after each failure the
/// docs say to retry (at most 600 times: a deadlock guard).
macro_rules! on_any_node {
    ($picker:expr, $make:path, $c:ident => $call:expr) => {{
        let mut attempts = 0u32;
        loop {
            let mut $c = $make(&$picker.url());
            match $call {
                Ok(reply) => break reply.into_inner(),
                Err(s) if retry_allowed(&s) && attempts < 600 => {
                    attempts += 1;
                    tokio::time::sleep(Duration::from_millis(100)).await;
                }
                Err(s) => panic!("{}: {s:?}", stringify!($call)),
            }
        }
    }};
}

mod any_node;
mod deposed_holder;
mod holder_killed;
mod listed;
mod registration;
mod spread_match;

use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use druids_contract::pb;
use druids_contract::pb::arena_service_client::ArenaServiceClient;
use druids_contract::pb::druids_service_client::DruidsServiceClient;
use druids_store::Sync;
use druids_store::postgres::PostgresStore;
use druids_tests::postgres::PgCluster;
use druids_tests::process::ServerProcess;
use druids_tests::{Lcg, authed, retry_allowed};
use tonic::Code;
use tonic::transport::Channel;

/// Lease time of the test nodes: a dead holder's arena moves within ~2 s.
const LEASE_SECS: &str = "2";

const OPERATOR: &str = "operator-key-of-the-arena-cluster-tests";

type Arena = ArenaServiceClient<Channel>;

/// Nodes of one cluster on one database.
struct Nodes {
    db: String,
    dir: PathBuf,
    running: Vec<Option<ServerProcess>>,
    /// Each node's URL; clients pick from these (a dead node's stays, as a
    /// client would keep trying it).
    urls: Arc<Vec<String>>,
}

impl Nodes {
    fn start(name: &str, n: usize) -> Nodes {
        Nodes::start_with(name, n, |_| Vec::new())
    }

    /// `n` nodes, node `i` also given the environment `extra(i)`.
    fn start_with(
        name: &str,
        n: usize,
        extra: impl Fn(usize) -> Vec<(&'static str, &'static str)>,
    ) -> Nodes {
        let db = PgCluster::shared().database(name);
        let dir = std::env::temp_dir().join(format!("druids-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let mut running = Vec::new();
        for i in 0..n {
            // One after another: the first takes the arena's lease.
            let log = dir.join(format!("node-{i}.log"));
            running.push(Some(spawn(&db, &log, i, &extra(i))));
        }
        let urls = Arc::new(running.iter().map(|n| n.as_ref().unwrap().url()).collect());
        Nodes {
            db,
            dir,
            running,
            urls,
        }
    }

    fn url(&self, i: usize) -> String {
        self.urls[i].clone()
    }

    /// The node holding the arena's lease, as the database says.
    fn holder(&self) -> usize {
        let node = PgCluster::shared().sql(
            PgCluster::db_name(&self.db),
            "SELECT node_id FROM arena_lease",
        );
        node.strip_prefix("node-")
            .and_then(|i| i.parse().ok())
            .unwrap_or_else(|| panic!("no node holds the arena: {node:?}"))
    }

    fn kill(&mut self, i: usize) {
        self.running[i].take().expect("node running").kill();
    }

    /// The shared store, as a test reads it.
    fn store(&self) -> PostgresStore {
        PostgresStore::open(&self.db, Sync::Full).expect("open the database")
    }
}

impl Drop for Nodes {
    fn drop(&mut self) {
        self.running.clear();
        if !std::thread::panicking() {
            let _ = std::fs::remove_dir_all(&self.dir);
        } else {
            eprintln!("node logs kept in {}", self.dir.display());
        }
    }
}

fn spawn(
    db: &str,
    log: &std::path::Path,
    i: usize,
    extra: &[(&'static str, &'static str)],
) -> ServerProcess {
    let id = format!("node-{i}");
    let args = [
        "--listen",
        "127.0.0.1:0",
        "--http-listen",
        "off",
        "--db",
        db,
        "--node-id",
        &id,
        "--lease-secs",
        LEASE_SECS,
    ];
    let envs = [
        ("DRUIDS_MAX_READS_PER_SECOND", "0"),
        ("DRUIDS_MAX_ANONYMOUS_READS_PER_SECOND", "0"),
        ("DRUIDS_MAX_SETUPS_PER_SECOND", "0"),
        ("DRUIDS_MAX_SUBMITS_PER_SECOND", "0"),
        ("DRUIDS_OPERATOR_KEY", OPERATOR),
        ("DRUIDS_HOUSE_BOTS", "none"),
        ("DRUIDS_REGISTRATIONS_PER_HOUR", "1000"),
        ("DRUIDS_ARENA_FIT_SECS", "0"),
        ("DRUIDS_ARENA_ESTABLISHED_MATCHES", "0"),
        ("DRUIDS_ARENA_ESTABLISHED_OPPONENTS", "0"),
        ("DRUIDS_ARENA_PAIR_MATCHES_PER_DAY", "100000"),
        // A player cut off by a kill loses at most this per decision.
        ("DRUIDS_ARENA_DECISION_MS", "5000"),
        ("DRUIDS_ARENA_TIME_BANK_MS", "0"),
    ];
    let envs: Vec<_> = envs.iter().chain(extra).copied().collect();
    ServerProcess::start(&args, &envs, log)
}

fn arena(url: &str) -> Arena {
    ArenaServiceClient::new(Channel::from_shared(url.to_owned()).unwrap().connect_lazy())
}

/// A node picked at random for each call.
#[derive(Clone)]
struct Picker {
    urls: Arc<Vec<String>>,
    rng: Arc<Mutex<Lcg>>,
}

impl Picker {
    fn new(urls: &Arc<Vec<String>>, seed: u64) -> Picker {
        Picker {
            urls: Arc::clone(urls),
            rng: Arc::new(Mutex::new(Lcg(seed))),
        }
    }

    fn url(&self) -> String {
        let i = self.rng.lock().unwrap().below(self.urls.len());
        self.urls[i].clone()
    }
}

fn game_client(url: &str) -> DruidsServiceClient<Channel> {
    DruidsServiceClient::new(Channel::from_shared(url.to_owned()).unwrap().connect_lazy())
}

async fn register(picker: &Picker, name: &str) -> (String, String) {
    let reply = on_any_node!(picker, arena, a => a
        .register_bot(pb::RegisterBotRequest {
            name: name.to_owned(),
            description: format!("{name}, a random bot"),
            owner_contact: "tests@druids.dev".into(),
        })
        .await);
    (reply.bot_id, reply.api_key)
}

/// Plays the key's seat of `game_id` at random until the game ends, through
/// any node (at most 60,000 looks: a hang guard; a game waiting at its
/// match's dice gate has nobody to act, and is not over).
async fn play_seat(picker: Picker, game_id: String, key: String, seat: u32, seed: u64) {
    let mut rng = Lcg(seed);
    for _ in 0..60_000 {
        let state = on_any_node!(picker, game_client, c => c
            .get_state(authed(&key, pb::GetStateRequest { game_id: game_id.clone() }))
            .await)
        .state
        .unwrap();
        assert_eq!(state.viewer_seat, Some(seat), "the key acts for its seat");
        if state.status != pb::GameStatus::Running as i32 {
            assert_eq!(state.status, pb::GameStatus::Finished as i32, "{game_id}");
            return;
        }
        if state.to_act != Some(seat) {
            tokio::time::sleep(Duration::from_millis(5)).await;
            continue;
        }
        let legal = on_any_node!(picker, game_client, c => c
            .get_legal_actions(authed(&key, pb::GetLegalActionsRequest {
                game_id: game_id.clone(),
                ..Default::default()
            }))
            .await);
        if legal.actions.is_empty() {
            continue;
        }
        let pick = rng.below(legal.actions.len()) as u32;
        let submitted = game_client(&picker.url())
            .submit_action(authed(
                &key,
                pb::SubmitActionRequest {
                    game_id: game_id.clone(),
                    choice: Some(pb::submit_action_request::Choice::LegalActionId(pick)),
                    expected_version: Some(legal.version),
                    idempotency_key: format!("v{}", legal.version),
                },
            ))
            .await;
        if let Err(s) = submitted {
            // The clock may have decided first, or a node died.
            assert!(
                retry_allowed(&s) || matches!(s.code(), Code::Aborted | Code::FailedPrecondition),
                "{s:?}"
            );
        }
    }
    panic!("game {game_id}: seat {seat} never saw it end");
}

/// A rated seek of a 2-player game of `kind`.
fn rated_seek(kind: pb::GameKind) -> pb::SeekRequest {
    pb::SeekRequest {
        kind: kind as i32,
        min_players: 2,
        max_players: 2,
        rated: true,
    }
}

fn dolmen_seek() -> pb::SeekRequest {
    rated_seek(pb::GameKind::Dolmen)
}

fn leaderboard_request() -> pb::GetLeaderboardRequest {
    pb::GetLeaderboardRequest {
        kind: pb::GameKind::Dolmen as i32,
        players: 2,
        page_size: 100,
        page_token: String::new(),
    }
}

/// Polls `done` (up to `tries` times, 100 ms apart: a deadlock guard) until
/// it says yes.
async fn until(what: &str, tries: u32, mut done: impl AsyncFnMut() -> bool) {
    for _ in 0..tries {
        if done().await {
            return;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("{what}: not reached");
}
