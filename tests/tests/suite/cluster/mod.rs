//! Several nodes on one PostgreSQL database (the multi-node mode), as real
//! `druids-server` processes on 127.0.0.1 sharing the test binary's cluster:
//!
//! * three nodes, 20 games of both kinds played by bots whose every seat
//!   talks to a node of its own (another one after each failure); one node is
//!   SIGKILLed in the middle and restarted later. Every game finishes, every
//!   acknowledged action is in the log exactly once at the version it was
//!   acknowledged with, nothing else is, and a spectator stream per game,
//!   resumed through other nodes, sees every event once, in order.
//! * split brain: the owner of a game is SIGSTOPped past its lease, another
//!   node takes the game over and play goes on; the old owner is SIGCONTed
//!   with a submission in flight. The log stays one history, and the
//!   database refuses a write under the old lease.
//! * a node paused in the middle of its work ([`pause`]).
//! * a node woken after its games were taken over serves none of them stale
//!   ([`woken`]).
//!
//! The scenarios are submodules; the nodes, clients and checks they share
//! live here.

/// `$call` (an expression using the client `$client`) until it succeeds,
/// moving `$client` to another node after each retryable failure.
macro_rules! on_some_node {
    ($picker:expr, $client:ident => $call:expr) => {{
        let mut attempts = 0u32;
        loop {
            match $call {
                Ok(reply) => break reply.into_inner(),
                Err(s) if retryable(&s) && attempts < 300 => {
                    attempts += 1;
                    $picker.note(&s);
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    $client = $picker.pick();
                }
                Err(s) => panic!("{}: {s:?}", stringify!($call)),
            }
        }
    }};
}

mod creating;
mod default_lease;
mod failover;
mod forwarding;
mod keyed_retries;
mod killed_node;
mod split_brain;
mod woken;

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use druids_contract::pb;
use druids_contract::pb::druids_service_client::DruidsServiceClient;
use druids_store::{Lifecycle, Sync};
use druids_tests::postgres::PgCluster;
use druids_tests::process::ServerProcess;
use druids_tests::{Lcg, authed};
use tonic::transport::Channel;
use tonic::{Code, Status};
use tonic_types::StatusExt;

mod pause;

/// Lease time of the test nodes: a dead node's games move within ~2 s.
const LEASE_SECS: &str = "2";

/// Nodes of one cluster on one database.
struct Nodes {
    db: String,
    dir: PathBuf,
    running: Vec<Option<ServerProcess>>,
    /// Each node's URL; clients pick from these (a dead node's stays, as a
    /// client would keep trying it).
    urls: Arc<Mutex<Vec<String>>>,
    /// `UNAVAILABLE` / `GAME_MOVED` answers the clients got.
    moved: Arc<AtomicUsize>,
    /// Environment of every node, over the defaults (no rate limits).
    envs: Vec<(&'static str, &'static str)>,
    /// `--lease-secs` of every node (None: the server's default).
    lease_secs: Option<&'static str>,
}

impl Nodes {
    fn start(name: &str, n: usize) -> Nodes {
        Nodes::start_with(name, n, &[])
    }

    /// `n` nodes with environment `envs` over the defaults.
    fn start_with(name: &str, n: usize, envs: &[(&'static str, &'static str)]) -> Nodes {
        Nodes::start_leased(name, n, envs, Some(LEASE_SECS))
    }

    /// `n` nodes with environment `envs` and `--lease-secs` `lease_secs`
    /// (None: the server's default).
    fn start_leased(
        name: &str,
        n: usize,
        envs: &[(&'static str, &'static str)],
        lease_secs: Option<&'static str>,
    ) -> Nodes {
        let db = PgCluster::shared().database(name);
        let dir = std::env::temp_dir().join(format!("druids-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let mut nodes = Nodes {
            db,
            dir,
            running: Vec::new(),
            urls: Arc::new(Mutex::new(Vec::new())),
            moved: Arc::new(AtomicUsize::new(0)),
            envs: envs.to_vec(),
            lease_secs,
        };
        for i in 0..n {
            let node = nodes.spawn(i);
            nodes.urls.lock().unwrap().push(node.url());
            nodes.running.push(Some(node));
        }
        nodes
    }

    fn spawn(&self, i: usize) -> ServerProcess {
        let id = format!("node-{i}");
        let mut args = vec![
            "--listen",
            "127.0.0.1:0",
            "--metrics-listen",
            "127.0.0.1:0",
            "--http-listen",
            "off",
            "--db",
            &self.db,
            "--node-id",
            &id,
        ];
        if let Some(lease) = self.lease_secs {
            args.extend(["--lease-secs", lease]);
        }
        let mut envs = vec![
            ("DRUIDS_MAX_READS_PER_SECOND", "0"),
            ("DRUIDS_MAX_ANONYMOUS_READS_PER_SECOND", "0"),
            ("DRUIDS_MAX_SETUPS_PER_SECOND", "0"),
            ("DRUIDS_MAX_SUBMITS_PER_SECOND", "0"),
        ];
        envs.extend(self.envs.iter().copied());
        ServerProcess::start(&args, &envs, &self.log(i))
    }

    fn log(&self, i: usize) -> PathBuf {
        self.dir.join(format!("node-{i}.log"))
    }

    fn node(&self, i: usize) -> &ServerProcess {
        self.running[i].as_ref().expect("node running")
    }

    fn kill(&mut self, i: usize) {
        self.running[i].take().expect("node running").kill();
    }

    fn restart(&mut self, i: usize) {
        let node = self.spawn(i);
        self.urls.lock().unwrap()[i] = node.url();
        self.running[i] = Some(node);
    }

    fn client(&self, i: usize) -> Client {
        client(&self.node(i).url())
    }

    fn picker(&self, seed: u64) -> Picker {
        Picker {
            urls: Arc::clone(&self.urls),
            rng: Lcg(seed),
            moved: Arc::clone(&self.moved),
        }
    }

    /// A two-player Meduris game created on node `i` (its owner).
    async fn create_on(&self, i: usize) -> pb::CreateGameResponse {
        self.client(i)
            .create_game(pb::CreateGameRequest {
                kind: pb::GameKind::Meduris as i32,
                players: 2,
                ..Default::default()
            })
            .await
            .expect("create")
            .into_inner()
    }

    /// A counter of node `i`'s metrics.
    fn metric(&self, i: usize, name: &str) -> f64 {
        let addr = self.node(i).metrics.clone().expect("metrics address");
        let body = http_get(&addr, "/metrics");
        // `name value` or `name{labels} value`.
        body.lines()
            .filter(|l| {
                l.strip_prefix(name)
                    .is_some_and(|rest| rest.starts_with(' ') || rest.starts_with('{'))
            })
            .find_map(|l| l.rsplit(' ').next()?.parse().ok())
            .unwrap_or_else(|| panic!("no metric {name} in:\n{body}"))
    }
}

impl Drop for Nodes {
    fn drop(&mut self) {
        self.running.clear();
        if !std::thread::panicking() && std::env::var_os("DRUIDS_KEEP_NODE_LOGS").is_none() {
            let _ = std::fs::remove_dir_all(&self.dir);
        } else {
            eprintln!("node logs kept in {}", self.dir.display());
        }
    }
}

fn http_get(addr: &str, path: &str) -> String {
    use std::io::{Read, Write};
    let mut s = std::net::TcpStream::connect(addr).expect("metrics port");
    write!(
        s,
        "GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut out = String::new();
    s.read_to_string(&mut out).unwrap();
    out
}

type Client = DruidsServiceClient<Channel>;

fn client(url: &str) -> Client {
    DruidsServiceClient::new(Channel::from_shared(url.to_owned()).unwrap().connect_lazy())
}

/// Picks a random node for a client.
struct Picker {
    urls: Arc<Mutex<Vec<String>>>,
    rng: Lcg,
    moved: Arc<AtomicUsize>,
}

impl Picker {
    fn pick(&mut self) -> Client {
        let urls = self.urls.lock().unwrap().clone();
        client(&urls[self.rng.below(urls.len())])
    }

    /// Notes a retried failure: a game moving between nodes is said as the
    /// guide says, `UNAVAILABLE` with reason `GAME_MOVED` and a `RetryInfo`.
    fn note(&self, s: &Status) {
        let moved = s
            .get_details_error_info()
            .is_some_and(|i| i.reason == "GAME_MOVED");
        if moved {
            assert_eq!(s.code(), Code::Unavailable, "{s:?}");
            assert!(
                s.get_details_retry_info()
                    .is_some_and(|r| r.retry_delay.is_some()),
                "GAME_MOVED with a RetryInfo: {s:?}"
            );
            self.moved.fetch_add(1, Ordering::Relaxed);
        }
    }
}

/// Whether a failed call may succeed on another node or a moment later: the
/// node died, or the game is moving; nothing else ([`druids_tests::retry_allowed`]).
fn retryable(s: &Status) -> bool {
    druids_tests::retry_allowed(s)
}

/// An acknowledged submission: its key, the version it was answered with,
/// the seat.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Ack {
    key: String,
    version: u64,
    seat: u32,
}

/// Creates a game through a random node; its id and seat tokens.
async fn create_game(
    picker: &mut Picker,
    kind: pb::GameKind,
    players: u32,
) -> (String, Vec<String>) {
    let mut c = picker.pick();
    let reply = on_some_node!(picker, c => c
        .create_game(pb::CreateGameRequest {
            kind: kind as i32,
            players,
            ..Default::default()
        })
        .await);
    (
        reply.game_id,
        reply.seats.into_iter().map(|s| s.token).collect(),
    )
}

/// Plays game `id` at random, each seat through a node of its own, to its
/// end or until `stop` is set; returns the acknowledged submissions.
async fn play(
    mut picker: Picker,
    id: String,
    tokens: Vec<String>,
    progress: Arc<AtomicUsize>,
    stop: Arc<AtomicBool>,
) -> Vec<Ack> {
    let mut acks = Vec::new();
    let mut viewer = picker.pick();
    let mut seats: Vec<Client> = tokens.iter().map(|_| picker.pick()).collect();
    loop {
        if stop.load(Ordering::Relaxed) {
            return acks;
        }
        let state = on_some_node!(picker, viewer => viewer
            .get_state(pb::GetStateRequest { game_id: id.clone() })
            .await)
        .state
        .expect("state");
        let Some(seat) = state.to_act else {
            assert_eq!(
                state.status,
                pb::GameStatus::Finished as i32,
                "game {id} ended"
            );
            return acks;
        };
        let token = &tokens[seat as usize];
        let mut c = seats[seat as usize].clone();
        let legal = on_some_node!(picker, c => c
            .get_legal_actions(authed(token, pb::GetLegalActionsRequest {
                game_id: id.clone(),
                ..Default::default()
            }))
            .await);
        let key = format!("v{}", legal.version);
        let pick = picker.rng.below(legal.actions.len()) as u32;
        let request = pb::SubmitActionRequest {
            game_id: id.clone(),
            choice: Some(pb::submit_action_request::Choice::LegalActionId(pick)),
            expected_version: Some(legal.version),
            idempotency_key: key.clone(),
        };
        // The same keyed request until it is answered: a retry of one that
        // was applied gets the first answer, wherever it lands.
        let reply = on_some_node!(picker, c => c
            .submit_action(authed(token, request.clone()))
            .await);
        seats[seat as usize] = c;
        acks.push(Ack {
            key,
            version: reply.version,
            seat,
        });
        progress.fetch_add(1, Ordering::Relaxed);
    }
}

/// Submits legal action 0 for the seat to act, with idempotency key `key`.
async fn submit(c: &mut Client, id: &str, tokens: &[String], key: &str) -> Result<Ack, Status> {
    let state = c
        .get_state(pb::GetStateRequest {
            game_id: id.to_owned(),
        })
        .await?
        .into_inner()
        .state
        .expect("state");
    let seat = state.to_act.expect("a seat to act");
    let token = &tokens[seat as usize];
    let reply = c
        .submit_action(authed(
            token,
            pb::SubmitActionRequest {
                game_id: id.to_owned(),
                choice: Some(pb::submit_action_request::Choice::LegalActionId(0)),
                expected_version: Some(state.version),
                idempotency_key: key.to_owned(),
            },
        ))
        .await?
        .into_inner();
    Ok(Ack {
        key: key.to_owned(),
        version: reply.version,
        seat,
    })
}

/// Checks game `id`'s stored history against what its players were told.
async fn check_history(picker: &mut Picker, id: &str, acks: &[Ack], seen: &[u64]) {
    check_acks(picker, id, acks).await;
    let mut c = picker.pick();
    let state = on_some_node!(picker, c => c
        .get_state(pb::GetStateRequest { game_id: id.to_owned() })
        .await)
    .state
    .expect("state");
    let all: Vec<u64> = (1..=state.last_seq).collect();
    assert_eq!(
        seen, all,
        "game {id}: the stream saw every event once, in order"
    );
}

/// Checks game `id`'s log against the acknowledged submissions: each logged
/// once, at the version it was acknowledged with, and nothing else logged.
async fn check_acks(picker: &mut Picker, id: &str, acks: &[Ack]) {
    let mut c = picker.pick();
    let replay = on_some_node!(picker, c => c
        .export_replay(pb::ExportReplayRequest { game_id: id.to_owned() })
        .await);
    let versions: Vec<u64> = acks.iter().map(|a| a.version).collect();
    let expected: Vec<u64> = (1..=replay.actions.len() as u64).collect();
    assert_eq!(
        versions, expected,
        "game {id}: every logged action was acknowledged once, in order, and no acknowledged one is missing"
    );
    for a in acks {
        assert_eq!(
            replay.actions[a.version as usize - 1].seat,
            a.seat,
            "game {id}: version {} is the acknowledged seat's action",
            a.version
        );
    }
}

/// How long a wait on a condition may last before the test calls it a hang
/// (generous: it guards a hang, it does not time anything).
const HANG: Duration = Duration::from_secs(120);

/// Waits, polling, until `cond` holds (a hang fails after [`HANG`], naming
/// `what`).
async fn wait_until(what: &str, mut cond: impl FnMut() -> bool) {
    let deadline = tokio::time::Instant::now() + HANG;
    while !cond() {
        assert!(tokio::time::Instant::now() < deadline, "{what}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}
