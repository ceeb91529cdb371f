//! The ladder end to end, through the public contract only: eight built-in
//! bots (random, greedy and MCTS with an iteration budget, the same on a busy
//! machine as on an idle one) register with
//! `druids register` and play as `druids bot --seek … --rated` processes.
//! By matchmaking alone they play 200 rated four-player Meduris games (50
//! duplicate matches of four games) and 200 rated four-player Die
//! Dolmengötter games; the server restarts in the middle of the Meduris
//! phase and loses no result or rating; the Meduris leaderboard then ranks
//! every greedy and MCTS bot above every random one with non-overlapping
//! 95 % intervals; and a round-robin tournament among them, created, joined
//! and played through the CLI (`druids arena-tournament`, `druids bot
//! --events`), completes with standings.
#![cfg(unix)]

use std::process::{Child, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use druids_contract::pb;
use druids_contract::pb::arena_service_client::ArenaServiceClient;
use druids_server::{Limits, Service, SystemClock};
use druids_store::{Sync, sqlite::SqliteStore};
use tokio::net::TcpListener;
use tonic_types::StatusExt;

use crate::arena::{Arena, wait_tournament};
use crate::arena_kits::{Bot, druids, register};

/// The bots: name and `druids bot` strategy arguments.
const LINE_UP: [(&str, &[&str]); 8] = [
    ("random-1", &["--strategy", "random"]),
    ("random-2", &["--strategy", "random"]),
    ("random-3", &["--strategy", "random"]),
    ("greedy-1", &["--strategy", "greedy"]),
    ("greedy-2", &["--strategy", "greedy"]),
    ("greedy-3", &["--strategy", "greedy"]),
    ("mcts-1", &["--strategy", "mcts", "--iterations", "200"]),
    ("mcts-2", &["--strategy", "mcts", "--iterations", "200"]),
];

/// A server on a fixed port that can be restarted on the same database.
struct Ladder {
    db: std::path::PathBuf,
    port: std::net::SocketAddr,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    task: Option<tokio::task::JoinHandle<()>>,
}

fn limits() -> Limits {
    let mut limits = Limits::unthrottled();
    limits.arena.fit_secs = 0;
    // A bot cut off by the restart is replaced by the autopilot quickly.
    limits.arena.decision_ms = 3_000;
    limits.arena.time_bank_ms = 3_000;
    limits.arena.autopilot_after = 1;
    // Real bots only: no house bot joins a seek that waits.
    limits.arena.house_bots = druids_server::arena::house::Levels(Vec::new());
    limits
}

impl Ladder {
    async fn start(db: std::path::PathBuf, port: Option<std::net::SocketAddr>) -> Ladder {
        let listener = loop {
            match TcpListener::bind(port.unwrap_or_else(|| "127.0.0.1:0".parse().unwrap())).await {
                Ok(l) => break l,
                Err(_) => tokio::time::sleep(Duration::from_millis(20)).await,
            }
        };
        let port = listener.local_addr().unwrap();
        let store = Arc::new(SqliteStore::open(&db, Sync::Normal).unwrap());
        let service = Arc::new(Service::new(store, limits(), Arc::new(SystemClock)).unwrap());
        service.recover_all().unwrap();
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let task = tokio::spawn(async move {
            druids_server::serve_service(listener, service, None, async {
                let _ = stopped.await;
            })
            .await
            .expect("server");
        });
        Ladder {
            db,
            port,
            stop: Some(stop),
            task: Some(task),
        }
    }

    fn url(&self) -> String {
        format!("http://{}", self.port)
    }

    async fn restart(&mut self) {
        let _ = self.stop.take().unwrap().send(());
        self.task.take().unwrap().await.unwrap();
        *self = Ladder::start(self.db.clone(), Some(self.port)).await;
    }
}

/// `druids bot --seek POOL --rated …` for every bot, running until killed.
fn spawn_bots(url: &str, bots: &[Bot], pool: &str) -> Vec<Child> {
    bots.iter()
        .zip(LINE_UP)
        .enumerate()
        .map(|(i, (bot, (_, strategy)))| {
            let seed = format!("{}", 7 + i);
            let mut cmd = druids(
                url,
                &[
                    "bot",
                    "--seek",
                    pool,
                    "--rated",
                    "--concurrent",
                    "2",
                    "--seed",
                    &seed,
                ],
            );
            cmd.args(strategy)
                .env("DRUIDS_BOT_KEY", &bot.key)
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::null());
            cmd.spawn().expect("druids bot starts")
        })
        .collect()
}

/// `druids bot --events …` for every bot: it plays the games its event log
/// names (tournaments), running until killed.
fn spawn_event_bots(url: &str, bots: &[Bot]) -> Vec<Child> {
    bots.iter()
        .zip(LINE_UP)
        .map(|(bot, (_, strategy))| {
            let mut cmd = druids(url, &["bot", "--events"]);
            cmd.args(strategy)
                .env("DRUIDS_BOT_KEY", &bot.key)
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::null());
            cmd.spawn().expect("druids bot --events starts")
        })
        .collect()
}

fn stop_bots(bots: Vec<Child>) {
    for mut b in bots {
        let _ = b.kill();
        let _ = b.wait();
    }
}

async fn leaderboard(arena: &mut Arena, kind: pb::GameKind) -> pb::GetLeaderboardResponse {
    arena
        .get_leaderboard(pb::GetLeaderboardRequest {
            kind: kind as i32,
            players: 4,
            ..Default::default()
        })
        .await
        .expect("leaderboard")
        .into_inner()
}

/// Rated matches of the pool so far (each counted once per bot).
fn matches(board: &pb::GetLeaderboardResponse) -> u32 {
    board.entries.iter().map(|e| e.matches).sum::<u32>() / 4
}

/// Waits until the pool has `n` rated matches (at most `limit`).
async fn wait_matches(
    url: &str,
    kind: pb::GameKind,
    n: u32,
    limit: Duration,
) -> pb::GetLeaderboardResponse {
    let deadline = Instant::now() + limit;
    loop {
        if let Ok(mut arena) = ArenaServiceClient::connect(url.to_owned()).await
            && let Ok(board) = arena
                .get_leaderboard(pb::GetLeaderboardRequest {
                    kind: kind as i32,
                    players: 4,
                    ..Default::default()
                })
                .await
        {
            let board = board.into_inner();
            if matches(&board) >= n {
                return board;
            }
            assert!(
                Instant::now() < deadline,
                "{kind:?}: {} of {n} matches after {limit:?}: {board:?}",
                matches(&board)
            );
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
}

fn live(board: &pb::GetLeaderboardResponse) -> Vec<(String, u32, f64, f64)> {
    let mut rows: Vec<_> = board
        .entries
        .iter()
        .map(|e| {
            let r = e.rating.unwrap();
            (e.bot.clone().unwrap().bot_id, e.matches, r.mu, r.sigma)
        })
        .collect();
    rows.sort_by(|a, b| a.0.cmp(&b.0));
    rows
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn eight_built_in_bots_climb_the_ladder() {
    let dir = std::env::temp_dir().join(format!("druids-ladder-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let mut server = Ladder::start(dir.join("ladder.db"), None).await;
    let url = server.url();
    let mut bots = Vec::new();
    for (name, _) in LINE_UP {
        bots.push(register(&url, name).await);
    }

    // Meduris: 50 rated duplicate matches (200 games), a restart on the way.
    let players = spawn_bots(&url, &bots, "meduris:4");
    let before = wait_matches(&url, pb::GameKind::Meduris, 15, Duration::from_secs(600)).await;
    server.restart().await;
    let mut arena = ArenaServiceClient::connect(url.clone()).await.unwrap();
    let after = leaderboard(&mut arena, pb::GameKind::Meduris).await;
    // Results recorded after `before` was read are in `after` too: compare
    // the bots that played no match since.
    assert!(
        matches(&after) >= matches(&before),
        "no result lost: {before:?} / {after:?}"
    );
    let unchanged: Vec<_> = live(&before)
        .into_iter()
        .filter(|b| live(&after).iter().any(|a| a.0 == b.0 && a.1 == b.1))
        .collect();
    for b in &unchanged {
        assert!(
            live(&after).contains(b),
            "the same rating after the restart: {b:?}"
        );
    }
    wait_matches(&url, pb::GameKind::Meduris, 50, Duration::from_secs(1200)).await;
    stop_bots(players);
    // Wait for the fit of every bot (a deadline only guards a hang).
    let deadline = Instant::now() + Duration::from_secs(300);
    let board = loop {
        let b = leaderboard(&mut arena, pb::GameKind::Meduris).await;
        if b.entries.len() == 8 && b.entries.iter().all(|e| e.fit.is_some()) {
            break b;
        }
        assert!(Instant::now() < deadline, "no fit of every bot: {b:?}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert_eq!(board.entries.len(), 8, "{board:?}");
    let fit = |prefix: &str| -> Vec<pb::FittedStrength> {
        board
            .entries
            .iter()
            .filter(|e| e.bot.as_ref().unwrap().name.starts_with(prefix))
            .map(|e| e.fit.expect("every bot is in the fit"))
            .collect()
    };
    let randoms = fit("random");
    for strong in fit("greedy").into_iter().chain(fit("mcts")) {
        for weak in &randoms {
            assert!(
                strong.low > weak.high,
                "a greedy or MCTS bot's interval lies above every random bot's: {strong:?} vs {weak:?}\n{board:?}"
            );
        }
    }
    assert!(board.fitted_unix_ms > 0);

    // Die Dolmengötter: 200 rated four-player games.
    let players = spawn_bots(&url, &bots, "dolmen:4");
    pages_go_stale_when_a_result_is_rated(&mut arena, &url).await;
    wait_matches(&url, pb::GameKind::Dolmen, 200, Duration::from_secs(1200)).await;
    stop_bots(players);

    // A round-robin tournament among the eight, two-player Dolmengötter,
    // through the CLI alone: created with open entry by `druids
    // arena-tournament create`, joined by each bot, played by `druids bot
    // --events` processes.
    let players = spawn_event_bots(&url, &bots);
    let created = druids(
        &url,
        &[
            "arena-tournament",
            "create",
            "--name",
            "the ladder's cup",
            "--game",
            "dolmen",
            "--players",
            "2",
            "--round-robin",
            "--open-for",
            "600",
            "--max-entrants",
            "8",
            "--decision-ms",
            "3000",
            "--time-bank-ms",
            "3000",
            "--json",
        ],
    )
    .env("DRUIDS_BOT_KEY", &bots[0].key)
    .output()
    .expect("druids arena-tournament create");
    assert!(created.status.success(), "{created:?}");
    let created: serde_json::Value =
        serde_json::from_slice(&created.stdout).expect("one JSON object");
    let id = created["tournamentId"]
        .as_str()
        .expect("the tournament's id")
        .to_owned();
    for bot in &bots {
        let joined = druids(&url, &["arena-tournament", "join", &id])
            .env("DRUIDS_BOT_KEY", &bot.key)
            .output()
            .expect("druids arena-tournament join");
        assert!(joined.status.success(), "{joined:?}");
    }
    let done = wait_tournament(&mut arena, &id, |t| {
        t.status == pb::TournamentStatus::Finished as i32
    })
    .await;
    assert_eq!(done.results.len(), 28, "every pair of eight met once");
    assert_eq!(done.standings.len(), 8);
    assert!(
        done.standings
            .iter()
            .all(|s| s.matches == 7 && s.strength.is_some())
    );
    let shown = druids(&url, &["arena-tournament", "show", &id, "--json"])
        .output()
        .expect("druids arena-tournament show");
    let shown: serde_json::Value = serde_json::from_slice(&shown.stdout).expect("JSON");
    assert_eq!(
        shown["tournament"]["results"].as_array().map(Vec::len),
        Some(28),
        "the exported results"
    );
    stop_bots(players);
    let _ = std::fs::remove_dir_all(&dir);
}

/// A reader walking the leaderboard's pages while results are rated is told
/// to start again (`ABORTED`, `STALE_PAGE_TOKEN`); until then each page goes
/// on where the last ended, never showing a bot twice.
async fn pages_go_stale_when_a_result_is_rated(arena: &mut Arena, url: &str) {
    let page = |page_token: String| pb::GetLeaderboardRequest {
        kind: pb::GameKind::Dolmen as i32,
        players: 4,
        page_size: 3,
        page_token,
    };
    let limit = Duration::from_secs(600);
    // Once a match is rated, four bots: a second page.
    wait_matches(url, pb::GameKind::Dolmen, 1, limit).await;
    let first = arena.get_leaderboard(page(String::new())).await.unwrap();
    let first = first.into_inner();
    assert!(
        !first.next_page_token.is_empty(),
        "a second page: {first:?}"
    );
    // Read after the first page: at least the results it showed.
    let rated = matches(&leaderboard(arena, pb::GameKind::Dolmen).await);
    let stale = |status: tonic::Status| {
        assert_eq!(status.code(), tonic::Code::Aborted, "{status:?}");
        assert_eq!(
            status.get_details_error_info().unwrap().reason,
            "STALE_PAGE_TOKEN",
            "{status:?}"
        );
        assert!(status.message().contains("first page"), "{status:?}");
    };
    let bot = |e: &pb::LeaderboardEntry| e.bot.as_ref().unwrap().bot_id.clone();
    match arena
        .get_leaderboard(page(first.next_page_token.clone()))
        .await
    {
        // The board as it was: the next page goes on where the first ended.
        Ok(next) => {
            let next = next.into_inner();
            assert!(
                next.entries
                    .iter()
                    .all(|e| !first.entries.iter().any(|f| bot(f) == bot(e))),
                "a bot on two pages: {first:?} then {next:?}"
            );
            assert_eq!(next.entries[0].rank, 4, "{next:?}");
        }
        // A result was rated in between already.
        Err(status) => stale(status),
    }
    // One more result rated since: the token is stale.
    wait_matches(url, pb::GameKind::Dolmen, rated + 1, limit).await;
    let status = arena
        .get_leaderboard(page(first.next_page_token.clone()))
        .await
        .expect_err("a token of a board that changed since");
    stale(status);
}
