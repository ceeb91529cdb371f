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

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use druids_contract::pb;
use druids_contract::pb::druids_service_client::DruidsServiceClient;
use druids_store::postgres::PostgresStore;
use druids_store::{ActionRecord, Epoch, Games, Lifecycle, Origin, StoreError, Sync};
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
}

impl Nodes {
    fn start(name: &str, n: usize) -> Nodes {
        Nodes::start_with(name, n, &[])
    }

    /// `n` nodes with environment `envs` over the defaults.
    fn start_with(name: &str, n: usize, envs: &[(&'static str, &'static str)]) -> Nodes {
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
        let args = [
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
            "--lease-secs",
            LEASE_SECS,
        ];
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
        body.lines()
            .find_map(|l| l.strip_prefix(name)?.trim().parse().ok())
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
    let deadline = tokio::time::Instant::now() + HANG;
    while progress.load(Ordering::Relaxed) < killed_at + 50 || taken_over(&nodes) < 1.0 {
        assert!(
            tokio::time::Instant::now() < deadline,
            "play goes on and the dead node's games are taken over"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
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

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_paused_owner_cannot_write_after_its_game_was_taken_over() {
    let nodes = Nodes::start("cluster_split", 2);
    // The arena runs on single-node servers only: a node says so.
    let mut arena = druids_contract::pb::arena_service_client::ArenaServiceClient::new(
        Channel::from_shared(nodes.node(0).url())
            .unwrap()
            .connect_lazy(),
    );
    let refused = arena
        .register_bot(pb::RegisterBotRequest {
            name: "on-a-node".into(),
            ..Default::default()
        })
        .await
        .expect_err("no arena on a node");
    assert_eq!(refused.code(), Code::FailedPrecondition, "{refused:?}");
    assert_eq!(
        refused.get_details_error_info().map(|i| i.reason),
        Some("ARENA_UNAVAILABLE".to_owned()),
        "{refused:?}"
    );
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
    let deadline = tokio::time::Instant::now() + HANG;
    while nodes.metric(1, "druids_node_takeovers_total") < 1.0 {
        assert!(
            tokio::time::Instant::now() < deadline,
            "B takes over the game of the paused A"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
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
    let deadline = tokio::time::Instant::now() + HANG;
    while bytes_waiting_at(a_port) <= queued_before {
        assert!(
            tokio::time::Instant::now() < deadline,
            "the request reaches the paused A's socket"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    nodes.node(0).signal("CONT");
    // A counts the lapse of its leases; B's log names whose game it took.
    let deadline = tokio::time::Instant::now() + HANG;
    while nodes.metric(0, "druids_node_lease_lapses_total") < 1.0 {
        assert!(
            tokio::time::Instant::now() < deadline,
            "A counts its lapsed leases"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
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

/// How long a wait on a condition may last before the test calls it a hang
/// (generous: it guards a hang, it does not time anything).
const HANG: Duration = Duration::from_secs(120);

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

/// CreateGame and JoinGame with a `request_id` are retry-safe across nodes:
/// the same request sent to A twice, then to B, gets A's answer every time
/// (the same game, the same tokens); after A is killed, B (having taken the
/// game over) answers retries of A's create and join as A did; one game was
/// created.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_keyed_create_or_join_retried_on_another_node_gets_the_first_answer() {
    let mut nodes = Nodes::start("cluster_request_ids", 2);
    let (mut a, mut b) = (nodes.client(0), nodes.client(1));
    let create = pb::CreateGameRequest {
        kind: pb::GameKind::Meduris as i32,
        players: 3,
        open_seats: vec![2],
        request_id: "create-once".into(),
        ..Default::default()
    };
    let first = a.create_game(create.clone()).await.expect("A").into_inner();
    let again = a
        .create_game(create.clone())
        .await
        .expect("A again")
        .into_inner();
    let on_b = b.create_game(create.clone()).await.expect("B").into_inner();
    for reply in [&again, &on_b] {
        assert_eq!(reply.game_id, first.game_id);
        assert_eq!(reply.seats, first.seats, "the same tokens");
    }
    let join = pb::JoinGameRequest {
        game_id: first.game_id.clone(),
        seat: Some(2),
        name: "late".into(),
        request_id: "join-once".into(),
    };
    let joined = a
        .join_game(join.clone())
        .await
        .expect("join on A")
        .into_inner();

    // A dies: the retries reach B, which answers as A did once it has taken
    // the game over.
    nodes.kill(0);
    let mut picker = nodes.picker(3);
    let joined_again = on_some_node!(picker, b => b.join_game(join.clone()).await);
    assert_eq!(joined_again, joined, "the same seat and token");
    let created_again = on_some_node!(picker, b => b.create_game(create.clone()).await);
    assert_eq!(created_again.game_id, first.game_id);
    assert_eq!(created_again.seats, first.seats, "the same tokens");
    let listed = nodes
        .client(1)
        .list_games(pb::ListGamesRequest::default())
        .await
        .expect("list")
        .into_inner();
    assert_eq!(listed.games.len(), 1, "one game created: {listed:?}");
}

/// Reads forwarded to the owner of their game (`GetState`, `ExportReplay`,
/// `GetLegalActions`) are charged to the caller's quotas on the node they
/// reached: at one read a second, a burst through a node that does not own
/// the game is refused `RESOURCE_EXHAUSTED` / `RATE_LIMITED` with a retry
/// delay, as it would be on the owner.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn forwarded_reads_are_charged_where_they_arrive() {
    let nodes = Nodes::start_with(
        "cluster_read_quota",
        2,
        &[
            ("DRUIDS_MAX_READS_PER_SECOND", "1"),
            ("DRUIDS_MAX_ANONYMOUS_READS_PER_SECOND", "1"),
        ],
    );
    let created = nodes.create_on(0).await;
    let id = created.game_id;
    let token = created.seats[0].token.clone();
    let mut b = nodes.client(1);
    /// Calls `$call` until it is refused (at most 100 times): the refusal.
    macro_rules! until_refused {
        ($call:expr) => {{
            let mut refused = None;
            for _ in 0..100 {
                if let Err(s) = $call.await {
                    refused = Some(s);
                    break;
                }
            }
            refused.expect("a burst of forwarded reads is refused")
        }};
    }
    let refusals = [
        until_refused!(b.get_state(pb::GetStateRequest {
            game_id: id.clone()
        })),
        until_refused!(b.export_replay(pb::ExportReplayRequest {
            game_id: id.clone()
        })),
        until_refused!(b.get_legal_actions(authed(
            &token,
            pb::GetLegalActionsRequest {
                game_id: id.clone(),
                ..Default::default()
            }
        ))),
    ];
    for refused in refusals {
        assert_eq!(refused.code(), Code::ResourceExhausted, "{refused:?}");
        assert_eq!(
            refused.get_details_error_info().map(|i| i.reason),
            Some("RATE_LIMITED".to_owned()),
            "{refused:?}"
        );
    }
    assert!(
        nodes.metric(1, "druids_node_forwarded_total") >= 1.0,
        "B forwarded the reads to A"
    );
}

/// A stream forwarded to the owner of its game ends with `UNAVAILABLE` /
/// `GAME_MOVED` when the owner stops answering (SIGSTOP): the entry node
/// pings the owner's connection and gives up on it within about a lease, so
/// the client resumes elsewhere without a watchdog of its own.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_forwarded_stream_to_a_paused_owner_ends_with_game_moved() {
    let nodes = Nodes::start("cluster_paused_stream", 2);
    let created = nodes.create_on(0).await;
    let mut stream = nodes
        .client(1)
        .stream_events(pb::StreamEventsRequest {
            game_id: created.game_id.clone(),
            from_seq: 0,
        })
        .await
        .expect("a stream through B")
        .into_inner();
    let first = stream
        .message()
        .await
        .expect("an event")
        .expect("a snapshot");
    assert!(first.seq > 0, "{first:?}");
    nodes.node(0).signal("STOP");
    let ended = tokio::time::timeout(HANG, async {
        loop {
            match stream.message().await {
                Ok(Some(_)) => continue,
                Ok(None) => panic!("the stream ended without an error"),
                Err(s) => break s,
            }
        }
    })
    .await;
    nodes.node(0).signal("CONT");
    let ended = ended.expect("the stream to a paused owner ends");
    assert_eq!(ended.code(), Code::Unavailable, "{ended:?}");
    assert_eq!(
        ended.get_details_error_info().map(|i| i.reason),
        Some("GAME_MOVED".to_owned()),
        "{ended:?}"
    );
}
