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

use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use druids_contract::pb;
use druids_contract::pb::arena_service_client::ArenaServiceClient;
use druids_contract::pb::druids_service_client::DruidsServiceClient;
use druids_store::postgres::PostgresStore;
use druids_store::{EventLog, EventLogs, Matches, Sync};
use druids_tests::postgres::PgCluster;
use druids_tests::process::ServerProcess;
use druids_tests::{Lcg, authed, retry_allowed};
use prost::Message;
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
        let db = PgCluster::shared().database(name);
        let dir = std::env::temp_dir().join(format!("druids-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let mut running = Vec::new();
        for i in 0..n {
            // One after another: the first takes the arena's lease.
            running.push(Some(spawn(&db, &dir.join(format!("node-{i}.log")), i)));
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

fn spawn(db: &str, log: &std::path::Path, i: usize) -> ServerProcess {
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
/// any node.
async fn play_seat(picker: Picker, game_id: String, key: String, seat: u32, seed: u64) {
    let mut rng = Lcg(seed);
    loop {
        let state = on_any_node!(picker, game_client, c => c
            .get_state(authed(&key, pb::GetStateRequest { game_id: game_id.clone() }))
            .await)
        .state
        .unwrap();
        assert_eq!(state.viewer_seat, Some(seat), "the key acts for its seat");
        match state.to_act {
            None => return,
            Some(s) if s != seat => {
                tokio::time::sleep(Duration::from_millis(5)).await;
                continue;
            }
            Some(_) => {}
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
}

/// Plays every game the bot's event log announces, resuming the log from
/// its next seq on any node whenever its stream breaks; runs until aborted.
async fn play_everything(picker: Picker, key: String, seed: u64) {
    let mut games = tokio::task::JoinSet::new();
    let mut next = 1;
    loop {
        let opened = arena(&picker.url())
            .stream_bot_events(authed(&key, pb::StreamBotEventsRequest { from_seq: next }))
            .await;
        let mut stream = match opened {
            Ok(s) => s.into_inner(),
            Err(s) if retry_allowed(&s) => {
                tokio::time::sleep(Duration::from_millis(100)).await;
                continue;
            }
            Err(s) => panic!("bot events: {s:?}"),
        };
        loop {
            match stream.message().await {
                Ok(Some(event)) => {
                    assert_eq!(event.seq, next, "the log resumes where it broke");
                    next = event.seq + 1;
                    if let Some(pb::bot_event::Event::GameStarted(g)) = event.event {
                        games.spawn(play_seat(
                            picker.clone(),
                            g.game_id,
                            key.clone(),
                            g.seat,
                            seed + event.seq,
                        ));
                    }
                }
                Ok(None) => panic!("a bot's event stream ends only on errors"),
                Err(s) if retry_allowed(&s) => {
                    if s.code() == Code::Unavailable {
                        assert!(
                            tonic_types::StatusExt::get_details_error_info(&s)
                                .is_none_or(|i| i.reason == "GAME_MOVED"),
                            "{s:?}"
                        );
                    }
                    break;
                }
                Err(s) => panic!("bot events: {s:?}"),
            }
        }
    }
}

fn dolmen_seek() -> pb::SeekRequest {
    pb::SeekRequest {
        kind: pb::GameKind::Dolmen as i32,
        min_players: 2,
        max_players: 2,
        rated: true,
    }
}

/// Keeps a rated seek open through any node until `stop`: seeks again after
/// each match and after each broken stream (seeks live in the holder's
/// memory: a takeover ends them). Counts the matches its streams saw finish.
async fn keep_seeking(
    picker: Picker,
    key: String,
    stop: Arc<AtomicBool>,
    finished: Arc<Mutex<u32>>,
) {
    while !stop.load(Ordering::Relaxed) {
        let opened = arena(&picker.url()).seek(authed(&key, dolmen_seek())).await;
        let mut stream = match opened {
            Ok(s) => s.into_inner(),
            // Too many matches at once (a quota), or a node down: later.
            Err(s) if retry_allowed(&s) || s.code() == Code::ResourceExhausted => {
                tokio::time::sleep(Duration::from_millis(100)).await;
                continue;
            }
            Err(s) => panic!("seek: {s:?}"),
        };
        loop {
            match stream.message().await {
                Ok(Some(pb::SeekEvent {
                    event: Some(pb::seek_event::Event::MatchFinished(_)),
                })) => {
                    *finished.lock().unwrap() += 1;
                }
                Ok(Some(_)) => {}
                Ok(None) => break,
                Err(s) if retry_allowed(&s) => break,
                Err(s) => panic!("seek stream: {s:?}"),
            }
        }
    }
}

fn leaderboard_request() -> pb::GetLeaderboardRequest {
    pb::GetLeaderboardRequest {
        kind: pb::GameKind::Dolmen as i32,
        players: 2,
        page_size: 100,
        page_token: String::new(),
    }
}

/// The live ratings of the 2-player Dolmen pool, by bot: (mu, sigma, matches).
fn ratings(board: &pb::GetLeaderboardResponse) -> BTreeMap<String, (f64, f64, u32)> {
    board
        .entries
        .iter()
        .map(|e| {
            let r = e.rating.unwrap();
            (
                e.bot.as_ref().unwrap().bot_id.clone(),
                (r.mu, r.sigma, e.matches),
            )
        })
        .collect()
}

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
                let event = tokio::time::timeout(Duration::from_secs(120), stream.message())
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

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn killing_the_arena_holder_mid_round_loses_and_doubles_no_result() {
    let mut nodes = Nodes::start("arena_cluster_kill", 3);
    let picker = Picker::new(&nodes.urls, 27);
    let mut bots = Vec::new();
    for i in 0..12 {
        bots.push(register(&picker, &format!("k{i}")).await);
    }
    let players: Vec<_> = bots
        .iter()
        .enumerate()
        .map(|(i, (_, key))| {
            tokio::spawn(play_everything(
                Picker::new(&nodes.urls, 100 + i as u64),
                key.clone(),
                10_000 * i as u64,
            ))
        })
        .collect();
    // Six bots play a Swiss tournament, six seek rated matches meanwhile.
    let swiss = on_any_node!(picker, arena, a => a
        .create_tournament(authed(OPERATOR, pb::CreateTournamentRequest {
            name: "failover cup".into(),
            kind: pb::GameKind::Dolmen as i32,
            players: 2,
            entrants: bots[..6].iter().map(|(id, _)| id.clone()).collect(),
            format: Some(pb::create_tournament_request::Format::Swiss(pb::Swiss { rounds: 3 })),
            rated: true,
            ..Default::default()
        }))
        .await)
    .tournament
    .unwrap();
    let id = swiss.tournament_id.clone();
    let stop = Arc::new(AtomicBool::new(false));
    let seen = Arc::new(Mutex::new(0u32));
    let seekers: Vec<_> = bots[6..]
        .iter()
        .enumerate()
        .map(|(i, (_, key))| {
            tokio::spawn(keep_seeking(
                Picker::new(&nodes.urls, 200 + i as u64),
                key.clone(),
                Arc::clone(&stop),
                Arc::clone(&seen),
            ))
        })
        .collect();
    let tournament = |picker: Picker, id: String| async move {
        on_any_node!(picker, arena, a => a
            .get_tournament(pb::GetTournamentRequest { tournament_id: id.clone() })
            .await)
        .tournament
        .unwrap()
    };
    // Mid-round: some of the tournament's matches are over, not all of a
    // round's, and rated matches are being played.
    until("a round half played", 3000, async || {
        let t = tournament(picker.clone(), id.clone()).await;
        t.results.len() % 3 != 0 && t.status == pb::TournamentStatus::Running as i32
    })
    .await;
    let holder = nodes.holder();
    let killed = Instant::now();
    nodes.kill(holder);
    // The arena-work failover: kill to the first arena call a survivor answers.
    let survivors: Vec<usize> = (0..3).filter(|&i| i != holder).collect();
    let mut failover = None;
    for attempt in 0..6000 {
        let url = nodes.url(survivors[attempt % 2]);
        match arena(&url).get_leaderboard(leaderboard_request()).await {
            Ok(_) => {
                failover = Some(killed.elapsed());
                break;
            }
            Err(s) if retry_allowed(&s) => {
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
            Err(s) => panic!("leaderboard during the failover: {s:?}"),
        }
    }
    let failover = failover.expect("a survivor took the arena over");
    let new_holder = nodes.holder();
    assert!(
        survivors.contains(&new_holder),
        "a survivor holds the arena"
    );
    eprintln!(
        "arena failover: {} ms from SIGKILL to the first arena call answered (node-{holder} -> node-{new_holder})",
        failover.as_millis()
    );
    // After the takeover: the tournament completes and more rated matches
    // are played.
    let rated_before = *seen.lock().unwrap();
    until("the tournament finished", 6000, async || {
        let t = tournament(picker.clone(), id.clone()).await;
        t.status == pb::TournamentStatus::Finished as i32
    })
    .await;
    until("rated matches after the takeover", 6000, async || {
        *seen.lock().unwrap() >= rated_before + 2
    })
    .await;
    stop.store(true, Ordering::Relaxed);
    for s in seekers {
        s.abort();
    }
    // Every match formed finishes (its games are played out).
    let store = nodes.store();
    until("every match finished", 6000, async || {
        store
            .matches()
            .unwrap()
            .iter()
            .all(|m| m.finished_unix_ms.is_some())
    })
    .await;
    let done = tournament(picker.clone(), id.clone()).await;
    assert_eq!(done.results.len(), 9, "3 rounds of 3 matches: {done:?}");
    let points: f64 = done.standings.iter().map(|s| s.points).sum();
    assert_eq!(points, 9.0, "one point per match, each counted once");
    // Every match finished once: each bot's log tells each of its matches'
    // ends once, the tournament's log each of its matches once.
    let matches = store.matches().unwrap();
    let mut ends: HashMap<String, Vec<String>> = HashMap::new();
    for (bot, _) in &bots {
        for e in store.events(EventLog::Bot, bot, 1, 100_000).unwrap() {
            let e = pb::BotEvent::decode(e.1.as_slice()).unwrap();
            if let Some(pb::bot_event::Event::MatchFinished(f)) = e.event {
                ends.entry(bot.clone()).or_default().push(f.match_id);
            }
        }
    }
    for m in &matches {
        for bot in &m.record.bots {
            let told = ends
                .get(bot)
                .map_or(0, |e| e.iter().filter(|id| **id == m.record.id).count());
            assert_eq!(
                told, 1,
                "bot {bot} told of match {}'s end once",
                m.record.id
            );
        }
    }
    let mut in_tournament = HashMap::new();
    for e in store.events(EventLog::Tournament, &id, 1, 100_000).unwrap() {
        let e = pb::TournamentEvent::decode(e.1.as_slice()).unwrap();
        if let Some(pb::tournament_event::Event::MatchFinished(f)) = e.event {
            *in_tournament.entry(f.result.unwrap().match_id).or_insert(0) += 1;
        }
    }
    assert_eq!(in_tournament.len(), 9);
    assert!(in_tournament.values().all(|&n| n == 1), "{in_tournament:?}");
    // Every result counts once: a bot's rated matches in the pool are its
    // finished rated matches.
    let board = on_any_node!(picker, arena, a => a.get_leaderboard(leaderboard_request()).await);
    let live = ratings(&board);
    for (bot, _) in &bots {
        let stored = matches
            .iter()
            .filter(|m| m.record.rated && m.record.bots.contains(bot))
            .filter(|m| m.placements.as_ref().is_some_and(|p| !p.is_empty()))
            .count() as u32;
        let counted = live.get(bot).map_or(0, |r| r.2);
        assert_eq!(counted, stored, "bot {bot}'s rated matches");
    }
    assert!(
        live.len() >= 8,
        "the tournament's and the seekers' bots are rated"
    );
    // The ratings after recovery equal a recomputation from the stored
    // results: kill the new holder too; the last node replays them all.
    nodes.kill(new_holder);
    let last: Vec<usize> = survivors.into_iter().filter(|&i| i != new_holder).collect();
    let last = Picker::new(&Arc::new(vec![nodes.url(last[0])]), 1);
    let recomputed = ratings(&on_any_node!(last, arena, a => a
        .get_leaderboard(leaderboard_request())
        .await));
    assert_eq!(
        live, recomputed,
        "live ratings = ratings replayed from the results"
    );
    for p in players {
        p.abort();
    }
}

fn bot_record(name: &str) -> druids_store::BotRecord {
    druids_store::BotRecord {
        id: format!("id-{name}"),
        name: name.to_owned(),
        description: String::new(),
        owner_contact: String::new(),
        key_hash: druids_store::TokenHash::of(name),
        registered_unix_ms: 1,
        revoked_unix_ms: None,
    }
}

/// Fencing, on the database itself: once another node took the arena over,
/// a write of the old holder is refused and changes nothing.
#[test]
fn a_deposed_holders_arena_writes_are_refused() {
    use druids_store::{Accounts, ArenaLease, Leases, StoreError};
    let db = PgCluster::shared().database("arena_cluster_fence");
    let (one, two) = (
        PostgresStore::open(&db, Sync::Full).unwrap(),
        PostgresStore::open(&db, Sync::Full).unwrap(),
    );
    one.renew("n1", "http://n1", 60_000).unwrap();
    two.renew("n2", "http://n2", 60_000).unwrap();
    let free = one.arena_holder().unwrap();
    assert_eq!(free.node, None, "no node held the arena yet");
    let first = one
        .claim_arena("n1", free.epoch)
        .unwrap()
        .expect("a free arena");
    one.fence_arena(Some(("n1", first)));
    one.register_bot(&bot_record("before")).unwrap();
    assert_eq!(
        two.claim_arena("n2", first).unwrap(),
        None,
        "a live holder keeps the arena"
    );
    // The holder's lease runs out (as when it stalls or dies): n2 takes over.
    one.release("n1").unwrap();
    let second = two.claim_arena("n2", first).unwrap().expect("a takeover");
    assert!(second > first);
    two.fence_arena(Some(("n2", second)));
    let refused = one
        .register_bot(&bot_record("late"))
        .expect_err("the deposed holder's write");
    assert!(matches!(refused, StoreError::Fenced { .. }), "{refused:?}");
    two.register_bot(&bot_record("after")).unwrap();
    let names: Vec<String> = two.bots().unwrap().into_iter().map(|b| b.name).collect();
    assert_eq!(names, ["before", "after"]);
    let holder = two.arena_holder().unwrap();
    assert_eq!((holder.node.as_deref(), holder.epoch), (Some("n2"), second));
}
