//! `druids bot --exec` end to end: a real server over TCP, the real `druids`
//! binary as the bridge, and real child processes as bots. The example bots of
//! `bots/exec/` (Python, JavaScript, C compiled here with `cc`) finish games of
//! both games; bots that answer too late, answer garbage, exit, or flood their
//! output still see their games finish, the bridge's stderr names the problem,
//! and the server's action log holds only the bots' valid choices (and the
//! turn clock's defaults).

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use druids_contract::json::to_json;
use druids_contract::pb;
use druids_server::{Limits, MemoryStore, Service, SystemClock};
use prost::Message;

#[path = "bridge/faulty_bots.rs"]
mod faulty_bots;
#[path = "bridge/protocol_doc.rs"]
mod protocol_doc;

use faulty_bots::FAULTY_BOT;

/// Longest a game of these tests may take before it counts as hung.
const GAME_LIMIT: Duration = Duration::from_secs(180);

/// Starts a server on a runtime of its own thread; returns its URL.
fn server() -> String {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let rt = tokio::runtime::Runtime::new().unwrap();
        rt.block_on(async move {
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            tx.send(listener.local_addr().unwrap()).unwrap();
            // The default limits, rate limits included: a bridge must live
            // with them.
            let service = Arc::new(
                Service::new(
                    Arc::new(MemoryStore::default()),
                    Limits::default(),
                    Arc::new(SystemClock),
                )
                .unwrap(),
            );
            druids_server::serve_service(listener, service, None, std::future::pending())
                .await
                .unwrap();
        });
    });
    format!("http://{}", rx.recv().unwrap())
}

/// A TCP proxy to `upstream` (host:port) on a runtime of its own thread;
/// returns its URL and a switch: each `send_modify` cuts every connection
/// open through it at that moment (new ones are accepted as before).
fn proxy(upstream: &str) -> (String, tokio::sync::watch::Sender<u32>) {
    let upstream = upstream.to_owned();
    let (tx, rx) = std::sync::mpsc::channel();
    let (cut_tx, cut_rx) = tokio::sync::watch::channel(0u32);
    std::thread::spawn(move || {
        let rt = tokio::runtime::Runtime::new().unwrap();
        rt.block_on(async move {
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            tx.send(listener.local_addr().unwrap()).unwrap();
            loop {
                let (mut inbound, _) = listener.accept().await.unwrap();
                let upstream = upstream.clone();
                let mut cut = cut_rx.clone();
                cut.borrow_and_update();
                tokio::spawn(async move {
                    let Ok(mut outbound) = tokio::net::TcpStream::connect(&upstream).await else {
                        return;
                    };
                    // As tonic does: without it, every small message waits
                    // for the peer's delayed acknowledgement.
                    let _ = inbound.set_nodelay(true);
                    let _ = outbound.set_nodelay(true);
                    // Whichever comes first; dropping both sockets cuts them.
                    // (A dropped switch cuts nothing more.)
                    let cut = async {
                        if cut.changed().await.is_err() {
                            std::future::pending::<()>().await;
                        }
                    };
                    tokio::select! {
                        _ = tokio::io::copy_bidirectional(&mut inbound, &mut outbound) => {}
                        _ = cut => {}
                    }
                });
            }
        });
    });
    (format!("http://{}", rx.recv().unwrap()), cut_tx)
}

/// A scratch directory of one test, removed when dropped.
struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Scratch {
        let dir = std::env::temp_dir().join(format!("druids-bridge-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Scratch(dir)
    }

    fn path(&self, file: &str) -> PathBuf {
        self.0.join(file)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn druids(url: &str) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_druids"));
    c.arg("--server").arg(url);
    c
}

/// Creates a 2-player game of `game` (with `extra` options); its id and tokens.
fn create(url: &str, game: &str, extra: &[&str]) -> (String, Vec<String>) {
    let out = druids(url)
        .args(["create", "--game", game, "--players", "2", "--json"])
        .args(extra)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let j: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let tokens = j["seats"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["token"].as_str().unwrap().to_owned())
        .collect();
    (j["game_id"].as_str().unwrap().to_owned(), tokens)
}

/// A process whose stdout and stderr go to files of `dir`.
struct Run {
    child: Child,
    stdout: PathBuf,
    stderr: PathBuf,
}

impl Run {
    fn start(mut cmd: Command, dir: &Scratch, name: &str) -> Run {
        let (stdout, stderr) = (
            dir.path(&format!("{name}.out")),
            dir.path(&format!("{name}.err")),
        );
        let child = cmd
            .stdin(Stdio::null())
            .stdout(std::fs::File::create(&stdout).unwrap())
            .stderr(std::fs::File::create(&stderr).unwrap())
            .spawn()
            .unwrap();
        Run {
            child,
            stdout,
            stderr,
        }
    }

    /// Waits for the end (at most [`GAME_LIMIT`]); its last stdout line as
    /// JSON and its stderr.
    fn finish(mut self) -> (serde_json::Value, String) {
        let start = Instant::now();
        let status = loop {
            if let Some(s) = self.child.try_wait().unwrap() {
                break s;
            }
            if start.elapsed() > GAME_LIMIT {
                let _ = self.child.kill();
                panic!(
                    "hung; stderr so far:\n{}",
                    std::fs::read_to_string(&self.stderr).unwrap_or_default()
                );
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        let out = std::fs::read_to_string(&self.stdout).unwrap();
        let err = std::fs::read_to_string(&self.stderr).unwrap();
        assert!(status.success(), "exit {status}; stderr:\n{err}");
        let last = out
            .lines()
            .last()
            .unwrap_or_else(|| panic!("no output; stderr:\n{err}"));
        (serde_json::from_str(last).unwrap(), err)
    }
}

/// The bridge on `token`'s seat with the bot `exec`.
fn bridge(url: &str, id: &str, token: &str, exec: &str, dir: &Scratch, name: &str) -> Run {
    let mut cmd = druids(url);
    cmd.args(["bot", "--game-id", id, "--token", token, "--exec", exec]);
    Run::start(cmd, dir, name)
}

/// The built-in random bot on `token`'s seat.
fn random_bot(url: &str, id: &str, token: &str, dir: &Scratch, name: &str) -> Run {
    let mut cmd = druids(url);
    cmd.args([
        "bot",
        "--game-id",
        id,
        "--token",
        token,
        "--strategy",
        "random",
    ]);
    Run::start(cmd, dir, name)
}

/// The finished game's action log.
fn replay(url: &str, id: &str, dir: &Scratch) -> pb::Replay {
    let file = dir.path(&format!("{id}.replay"));
    let out = druids(url)
        .args(["export", "--game-id", id, "--out"])
        .arg(&file)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    pb::Replay::decode(std::fs::read(&file).unwrap().as_slice()).unwrap()
}

/// Checks a game the bridge played on seat 0: it finished with the outcome the
/// bridge reported, and every action of seat 0 not decided by the clock is
/// one the bridge counted as the bot's.
fn check_finished(summary: &serde_json::Value, replay: &pb::Replay) {
    assert_eq!(replay.status, pb::GameStatus::Finished as i32);
    // A result line shows the outcome's result, not its tie-break keys nor
    // who resigned (the ranking has them last).
    let outcome = pb::Outcome {
        tie_breaks: Vec::new(),
        tie_break_names: Vec::new(),
        ..replay.outcome.clone().unwrap()
    };
    let mut want = to_json(&outcome);
    want.as_object_mut()
        .unwrap()
        .retain(|k, _| !k.starts_with("tieBreak") && k != "resigned");
    assert_eq!(summary["outcome"], want);
    let chosen = replay
        .actions
        .iter()
        .filter(|a| a.seat == 0 && !a.timeout && !a.autopilot)
        .count() as u64;
    assert!(chosen > 0, "the bot played");
    assert_eq!(summary["actions"], chosen, "{summary}");
}

/// Checks that every action of seat 0 that the clock did not decide is one
/// the bot logged as its valid choice (`chose VERSION ACTION-JSON` on its
/// stderr, which the bridge passes through) for exactly that version.
///
/// Also checks that no decision was asked twice as new (the snapshot and the
/// DecisionNeeded the server re-sends after it announce the same one): every
/// `asked VERSION ATTEMPT` line the bot logs is different.
fn check_only_valid_choices(stderr: &str, replay: &pb::Replay) {
    let mut asked: Vec<&str> = stderr
        .lines()
        .filter_map(|l| l.strip_prefix("[bot seat 0] asked "))
        .collect();
    assert!(!asked.is_empty());
    asked.sort_unstable();
    let before = asked.len();
    asked.dedup();
    assert_eq!(asked.len(), before, "a decision was asked twice:\n{stderr}");

    let chose: Vec<(u64, serde_json::Value)> = stderr
        .lines()
        .filter_map(|l| l.split_once("[bot seat 0] chose "))
        .map(|(_, rest)| {
            let (v, action) = rest.split_once(' ').unwrap();
            (v.parse().unwrap(), serde_json::from_str(action).unwrap())
        })
        .collect();
    for (version, a) in replay.actions.iter().enumerate() {
        if a.seat != 0 || a.timeout || a.autopilot {
            continue;
        }
        let action = to_json(a.action.as_ref().unwrap());
        assert!(
            chose.contains(&(version as u64, action.clone())),
            "version {version}: {action} was not chosen by the bot"
        );
    }
}

fn have(program: &str) -> bool {
    Command::new(program)
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

fn example(file: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../bots/exec")
        .join(file)
        .to_str()
        .unwrap()
        .to_owned()
}

/// Each example bot plays seat 0 of one game of each game against the
/// built-in random bot, all twelve processes at once.
#[test]
fn example_bots_finish_a_game_of_each_game() {
    let url = server();
    let dir = Scratch::new("examples");
    let mut bots = Vec::new();
    for tool in ["python3", "node", "cc"] {
        assert!(have(tool), "{tool} is needed to run the example bots");
    }
    let c_bot = dir.path("random_bot");
    let cc = Command::new("cc")
        .args(["-std=c99", "-Wall", "-Wextra", "-Werror", "-O2", "-o"])
        .arg(&c_bot)
        .arg(example("random_bot.c"))
        .output()
        .unwrap();
    assert!(
        cc.status.success(),
        "{}",
        String::from_utf8_lossy(&cc.stderr)
    );
    bots.push(("python", format!("python3 {}", example("random_bot.py"))));
    bots.push(("node", format!("node {}", example("random_bot.js"))));
    bots.push(("c", c_bot.to_str().unwrap().to_owned()));

    let mut games = Vec::new();
    for game in ["meduris", "dolmen"] {
        for (name, exec) in &bots {
            let (id, tokens) = create(&url, game, &[]);
            let tag = format!("{game}-{name}");
            let opponent = random_bot(&url, &id, &tokens[1], &dir, &format!("{tag}-random"));
            let run = bridge(&url, &id, &tokens[0], exec, &dir, &tag);
            games.push((tag, id, run, opponent));
        }
    }
    for (tag, id, run, opponent) in games {
        let (summary, err) = run.finish();
        opponent.finish();
        check_finished(&summary, &replay(&url, &id, &dir));
        assert_eq!(summary["restarts"], 0, "{tag}: {err}");
        assert!(
            !err.contains("unusable") && !err.contains("dropped"),
            "{tag}: the example bot follows the protocol:\n{err}"
        );
    }
}

/// The bridge's connection to the server is cut four times during a game: it resumes the event stream from the last event seen, retries its
/// calls, and the game finishes with every action of the bot applied once.
#[test]
fn the_bridge_resumes_after_its_connection_breaks() {
    assert!(have("python3"), "python3 is needed for the faulty bots");
    let url = server();
    let (via, cut) = proxy(url.trim_start_matches("http://"));
    let dir = Scratch::new("resume");
    let script = dir.path("faulty_bot.py");
    std::fs::write(&script, FAULTY_BOT).unwrap();
    let exec = format!("python3 {} slow -", script.display());
    let (id, tokens) = create(&url, "meduris", &[]);
    let opponent = random_bot(&url, &id, &tokens[1], &dir, "random");
    let run = bridge(&via, &id, &tokens[0], &exec, &dir, "bridge");
    let done = Arc::new(AtomicBool::new(false));
    let cutter = {
        let done = Arc::clone(&done);
        std::thread::spawn(move || {
            for _ in 0..4 {
                std::thread::sleep(Duration::from_millis(400));
                if done.load(Ordering::Relaxed) {
                    break;
                }
                cut.send_modify(|n| *n += 1);
            }
        })
    };
    let (summary, err) = run.finish();
    done.store(true, Ordering::Relaxed);
    cutter.join().unwrap();
    opponent.finish();
    let replay = replay(&url, &id, &dir);
    check_finished(&summary, &replay);
    check_only_valid_choices(&err, &replay);
    assert!(err.contains("event stream interrupted"), "{err}");
    assert!(err.contains("; resuming from #"), "{err}");
}
