//! Start-up and memory with many stored games (issue #15): SQLite stores
//! holding 10k, 100k and 1M ended 4-player Meduris games plus 1,000 running
//! ones, each served by the real `druids-server` binary. Measured: the time
//! from spawning it to its ready line (it rebuilds games before serving), to
//! the first answered `GetState` of a running game, and its resident memory.
//! Only games in play should cost anything at start-up; this shows whether
//! they do.
//!
//! Games are real: each ended game's log is a complete game played by the
//! engine (seeded random legal actions); a small set of played games is stored
//! under many ids, so that the fill is a matter of writes. Running games are
//! 20 actions in. Stores are filled through the [`Store`] API (not over the
//! network) with `--sync normal` commits; the server opens them as usual.
//!
//! Run: `cargo bench -p druids-server --bench lifecycle`. Environment:
//! `LIFECYCLE_COUNTS` (ended games per store, default
//! `10000,100000,1000000`), `LIFECYCLE_RUNNING` (default 1000),
//! `LIFECYCLE_SPAWNS` (starts per store, medians reported; default 3),
//! `LIFECYCLE_MAX_ROWS` (action rows a store may hold before its ended games
//! get shortened logs, default 5M: the fill writes about 20k rows a second on
//! a small machine, and a row takes about 80 bytes; ended games' logs are not
//! read at start-up, so shortening them changes the fill, not what is
//! measured), `LIFECYCLE_KEEP=1` (keep the databases), `LIFECYCLE_DIR` (where
//! they go).

use std::io::BufRead;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use druids_contract::pb;
use druids_contract::pb::druids_service_client::DruidsServiceClient;
use druids_engine::Seat;
use druids_server::auth::TokenHash;
use druids_store::{ActionRecord, Epoch, GameRecord, Games, Origin};
use druids_store::{Sync, sqlite::SqliteStore};

/// Distinct played games, stored under many ids.
const DISTINCT: u64 = 64;
/// Actions into each running game.
const RUNNING_ACTIONS: usize = 20;
/// Threads filling a store: appends of many threads share commits.
const FILLERS: usize = 16;

/// One played game: its seed and its log.
struct Played {
    seed: u64,
    actions: Vec<ActionRecord>,
}

/// Plays a 4-player Meduris game of `seed` with seeded random legal actions,
/// at most `max` of them.
fn play(seed: u64, max: usize) -> Played {
    let options = pb::GameOptions::default();
    let mut game =
        druids_server::hosted_game::new_game(druids_contract::Kind::Meduris, 4, seed, &options)
            .unwrap();
    game.start();
    let mut rng = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    let mut actions = Vec::new();
    while let Some(seat) = game.to_act() {
        if actions.len() >= max {
            break;
        }
        let n = game.legal_actions(false).len() as u64;
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        let id = (rng % n) as u32;
        let choice = pb::submit_action_request::Choice::LegalActionId(id);
        let applied = game.apply(seat, &choice, None).unwrap();
        actions.push(ActionRecord {
            version: applied.version,
            seat,
            origin: Origin::Seat,
            action: applied.action,
            key: None,
            epoch: Epoch::NONE,
            at_ms: 0,
        });
    }
    assert!(max < usize::MAX || game.is_over(), "a played game ends");
    Played { seed, actions }
}

fn record(id: String, seed: u64, created_unix_ms: u64) -> GameRecord {
    GameRecord {
        id,
        kind: druids_contract::Kind::Meduris,
        players: 4,
        seed,
        seed_chosen: true,
        options: pb::GameOptions::default(),
        created_unix_ms,
        seats: (0..4)
            .map(|s| {
                (
                    Seat(s),
                    format!("seat {s}"),
                    TokenHash::of(&format!("t{s}")),
                )
            })
            .collect(),
        request: None,
    }
}

fn ended_id(i: usize) -> String {
    format!("{i:016x}")
}

fn running_id(i: usize) -> String {
    format!("f{i:015x}")
}

/// Stores `ended` ended games (logs cut to `keep` actions) and `running`
/// running games on `FILLERS` threads. Returns the action rows written.
fn fill(
    store: &Arc<SqliteStore>,
    ended: usize,
    running: usize,
    played: &[Played],
    keep: usize,
    live: &[Played],
) -> usize {
    let rows = Arc::new(AtomicUsize::new(0));
    let next = Arc::new(AtomicUsize::new(0));
    let total = ended + running;
    let now = 1_700_000_000_000u64;
    std::thread::scope(|scope| {
        for _ in 0..FILLERS {
            let (store, rows, next) = (Arc::clone(store), Arc::clone(&rows), Arc::clone(&next));
            scope.spawn(move || {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= total {
                        return;
                    }
                    let (id, game, log_len) = if i < ended {
                        let game = &played[i % played.len()];
                        (ended_id(i), game, game.actions.len().min(keep))
                    } else {
                        let game = &live[(i - ended) % live.len()];
                        (running_id(i - ended), game, game.actions.len())
                    };
                    store
                        .create_game(&record(id.clone(), game.seed, now + i as u64))
                        .unwrap();
                    for a in &game.actions[..log_len] {
                        store.append_action(&id, a).unwrap();
                    }
                    rows.fetch_add(log_len, Ordering::Relaxed);
                    if i < ended {
                        store
                            .finish(
                                &id,
                                log_len as u64,
                                &Default::default(),
                                now + i as u64 + 3_600_000,
                            )
                            .unwrap();
                    }
                }
            });
        }
    });
    rows.load(Ordering::Relaxed)
}

fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .map(|v| {
            v.replace('_', "")
                .parse()
                .unwrap_or_else(|e| panic!("{name}={v}: {e}"))
        })
        .unwrap_or(default)
}

/// Size of the database with its WAL, in MB.
fn db_mb(db: &Path) -> f64 {
    let mut bytes = 0;
    for suffix in ["", "-wal", "-shm"] {
        let mut p = db.as_os_str().to_owned();
        p.push(suffix);
        bytes += std::fs::metadata(&p).map(|m| m.len()).unwrap_or(0);
    }
    bytes as f64 / 1e6
}

/// VmRSS of `pid`, in MB.
fn rss_mb(pid: u32) -> f64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
        .map_or(f64::NAN, |kb| kb / 1e3)
}

/// What one served store measured.
struct Served {
    ready_ms: f64,
    first_state_ms: f64,
    rss_mb: f64,
    /// The server's own account of rebuilding the games in play (its log).
    rebuild_ms: f64,
}

/// The `ms` of the server's "stored games rebuilt" log line (JSON logs).
fn rebuild_ms(log: &Path) -> f64 {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .find(|l| l["fields"]["message"] == "stored games rebuilt")
        .and_then(|l| l["fields"]["ms"].as_f64())
        .unwrap_or(f64::NAN)
}

/// The median of `xs`.
fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs[xs.len() / 2]
}

/// Spawns the server on `db`, waits for its ready line and a `GetState` of
/// running game 0, reads its RSS, stops it.
fn serve(db: &Path) -> Served {
    let log = db.with_extension("log");
    let spawned = Instant::now();
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_druids-server"))
        .args([
            "--listen",
            "127.0.0.1:0",
            "--http-listen",
            "127.0.0.1:0",
            "--log-format",
            "json",
            "--db",
        ])
        .arg(db)
        .stdout(std::process::Stdio::piped())
        .stderr(std::fs::File::create(&log).unwrap())
        .spawn()
        .expect("druids-server starts");
    let mut line = String::new();
    std::io::BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let ready_ms = spawned.elapsed().as_secs_f64() * 1e3;
    let ready: serde_json::Value = serde_json::from_str(&line)
        .unwrap_or_else(|e| panic!("ready line {line:?}: {e}; see {}", log.display()));
    let grpc = ready["grpc"].as_str().expect("grpc address").to_owned();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let state = rt.block_on(async {
        let mut client = DruidsServiceClient::connect(format!("http://{grpc}"))
            .await
            .expect("connect");
        client
            .get_state(pb::GetStateRequest {
                game_id: running_id(0),
            })
            .await
            .expect("GetState of a running game")
            .into_inner()
    });
    let first_state_ms = spawned.elapsed().as_secs_f64() * 1e3;
    let state = state.state.expect("state");
    assert_eq!(state.status, pb::GameStatus::Running as i32);
    assert_eq!(state.version, RUNNING_ACTIONS as u64);
    // Settle: whatever start-up left behind is freed or touched by now.
    std::thread::sleep(Duration::from_millis(500));
    let rss_mb = rss_mb(child.id());
    let _ = child.kill();
    let _ = child.wait();
    let rebuild_ms = rebuild_ms(&log);
    if std::env::var_os("LIFECYCLE_KEEP").is_none() {
        let _ = std::fs::remove_file(&log);
    }
    Served {
        ready_ms,
        first_state_ms,
        rss_mb,
        rebuild_ms,
    }
}

fn main() {
    let counts: Vec<usize> = std::env::var("LIFECYCLE_COUNTS")
        .unwrap_or_else(|_| "10000,100000,1000000".into())
        .split(',')
        .map(|c| {
            c.trim()
                .replace('_', "")
                .parse()
                .expect("LIFECYCLE_COUNTS: numbers")
        })
        .collect();
    let running = env_usize("LIFECYCLE_RUNNING", 1000);
    let max_rows = env_usize("LIFECYCLE_MAX_ROWS", 5_000_000);
    let keep_dbs = std::env::var_os("LIFECYCLE_KEEP").is_some();
    let spawns = env_usize("LIFECYCLE_SPAWNS", 3).max(1);
    let dir = std::env::var_os("LIFECYCLE_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("lifecycle"));
    std::fs::create_dir_all(&dir).unwrap();

    let started = Instant::now();
    let played: Vec<Played> = (0..DISTINCT).map(|s| play(s, usize::MAX)).collect();
    let live: Vec<Played> = (0..DISTINCT)
        .map(|s| play(1_000 + s, RUNNING_ACTIONS))
        .collect();
    let full = played.iter().map(|p| p.actions.len()).sum::<usize>() as f64 / DISTINCT as f64;
    println!(
        "{DISTINCT} distinct 4-player Meduris games played to the end (seeded random legal actions, \
         {full:.0} actions on average) in {:.1} s, stored under many ids; {DISTINCT} running games \
         of {RUNNING_ACTIONS} actions likewise. Stores filled through the Store API, sync normal.\n",
        started.elapsed().as_secs_f64()
    );
    let mut table = vec![
        "| stored ended games | actions per ended game | running games | fill s | DB MB | start-to-serving ms | of which rebuild ms | first GetState ms | RSS MB |".to_owned(),
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|".to_owned(),
    ];
    for &ended in &counts {
        // Full logs while the store stays under LIFECYCLE_MAX_ROWS action rows
        // (about 100 bytes each); beyond, every ended game keeps its first
        // `keep` actions.
        let keep = if ended as f64 * full > max_rows as f64 {
            (max_rows / ended.max(1)).max(1)
        } else {
            usize::MAX
        };
        let per_game = if keep == usize::MAX {
            format!("all ({full:.0} avg)")
        } else {
            println!(
                "{ended} ended games: full logs would be about {:.0} M action rows, {:.1} GB \
                 (> LIFECYCLE_MAX_ROWS = {:.1} M): each ended game stores only its first {keep} \
                 actions (still marked finished)",
                ended as f64 * full / 1e6,
                ended as f64 * full * 80.0 / 1e9,
                max_rows as f64 / 1e6
            );
            format!("first {keep}")
        };
        let db = dir.join(format!("lifecycle-{ended}.db"));
        for suffix in ["", "-wal", "-shm"] {
            let mut p = db.as_os_str().to_owned();
            p.push(suffix);
            let _ = std::fs::remove_file(&p);
        }
        let fill_started = Instant::now();
        let store = Arc::new(SqliteStore::open(&db, Sync::Normal).unwrap());
        let rows = fill(&store, ended, running, &played, keep, &live);
        drop(store);
        let fill_s = fill_started.elapsed().as_secs_f64();
        let mb = db_mb(&db);
        eprintln!(
            "filled {ended} + {running} games ({rows} action rows) in {fill_s:.1} s, {mb:.0} MB"
        );
        // Several starts, each a fresh process on the same file: medians.
        let served: Vec<Served> = (0..spawns).map(|_| serve(&db)).collect();
        let med = |f: fn(&Served) -> f64| median(served.iter().map(f).collect());
        table.push(format!(
            "| {ended} | {per_game} | {running} | {fill_s:.1} | {mb:.0} | {:.0} | {:.0} | {:.0} | {:.1} |",
            med(|s| s.ready_ms),
            med(|s| s.rebuild_ms),
            med(|s| s.first_state_ms),
            med(|s| s.rss_mb)
        ));
        println!("{}", table.last().unwrap());
        if !keep_dbs {
            for suffix in ["", "-wal", "-shm"] {
                let mut p = db.as_os_str().to_owned();
                p.push(suffix);
                let _ = std::fs::remove_file(&p);
            }
        }
    }
    println!(
        "\nMedians of {spawns} starts per store. start-to-serving: spawn to the ready line; \
         rebuild: the server's own log of rebuilding the games in play; first GetState: spawn \
         to the answer for a running game; RSS: VmRSS half a second after that answer.\n"
    );
    println!("{}", table.join("\n"));
}
