//! The arena through the kits, end to end against a real server over TCP:
//! the `druids` CLI registers bots (`druids register`), plays rated ladder
//! matches with them (`druids bot --key … --seek meduris:2`) as separate
//! processes, and reads the leaderboard and a bot's profile back
//! (`druids leaderboard`, `druids bot-info`); and a Python bot of the kit
//! (`examples/ladder_bot.py`: `register_bot` then `run_ladder`) plays a match
//! against a CLI bot; and ladder bots keep several matches going at once
//! under the server's default rate limits, one through the bridge (`--exec`).
//!
//! The `druids` binary is built once per run with this build's profile (a
//! binary of another crate has no `CARGO_BIN_EXE_` here). The Python kit is
//! the cross-language tests' venv, installed as its README says.
#![cfg(unix)]

use std::path::PathBuf;
use std::process::Command;
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use druids_server::{Limits, MemoryStore};
use druids_tests::TestServer;

use crate::cross_language::{Finished, repo_root, run_with_timeout, venv_bin};

/// One ladder match, seeking included (a rated Meduris match of two players
/// is two games).
const MATCH_TIMEOUT: Duration = Duration::from_secs(240);
/// How long the leaderboard may take to show a finished match.
const LEADERBOARD_WAIT: Duration = Duration::from_secs(20);

/// The `druids` binary of this build's profile, built once per run.
fn cli_binary() -> Result<PathBuf, String> {
    static BINARY: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    BINARY
        .get_or_init(|| druids_tests::process::cargo_binary("druids-cli", "druids"))
        .clone()
}

/// `druids --server URL args…`, with no key or server from the environment.
pub(crate) fn druids(url: &str, args: &[&str]) -> Command {
    let mut cmd = Command::new(cli_binary().unwrap_or_else(|e| panic!("{e}")));
    cmd.env_remove("DRUIDS_BOT_KEY")
        .env_remove("DRUIDS_TOKEN")
        .env_remove("DRUIDS_SERVER")
        .env("NO_COLOR", "1")
        .args(["--server", url])
        .args(args);
    cmd
}

/// Runs `cmd` off the async workers (the server runs on them).
pub(crate) async fn run(cmd: Command, timeout: Duration) -> Finished {
    tokio::task::spawn_blocking(move || run_with_timeout(cmd, timeout))
        .await
        .expect("runner task")
        .unwrap_or_else(|e| panic!("{e}"))
}

/// Fails with everything `done` printed unless it exited 0.
pub(crate) fn assert_ok(what: &str, done: &Finished) {
    assert!(
        done.status.success(),
        "{what} failed ({}):\nstdout:\n{}\nstderr:\n{}",
        done.status,
        done.stdout,
        done.stderr
    );
}

/// A registered bot.
pub(crate) struct Bot {
    pub(crate) id: String,
    pub(crate) name: String,
    pub(crate) key: String,
}

/// `druids register --name NAME --json`.
pub(crate) async fn register(url: &str, name: &str) -> Bot {
    let done = run(
        druids(
            url,
            &[
                "register",
                "--name",
                name,
                "--description",
                "a test bot",
                "--json",
            ],
        ),
        Duration::from_secs(30),
    )
    .await;
    assert_ok("druids register", &done);
    assert!(
        done.stderr.contains("shown only this once"),
        "no warning about the key: {}",
        done.stderr
    );
    let v: serde_json::Value = serde_json::from_str(done.stdout.trim())
        .unwrap_or_else(|e| panic!("not one JSON object ({e}): {}", done.stdout));
    let field = |k: &str| {
        v[k].as_str()
            .filter(|s| !s.is_empty())
            .unwrap_or_else(|| panic!("no {k} in {v}"))
            .to_owned()
    };
    Bot {
        id: field("bot_id"),
        name: name.to_owned(),
        key: field("api_key"),
    }
}

/// `druids bot --seek meduris:2 --rated --games 1 [extra]` with the bot's key
/// in `DRUIDS_BOT_KEY`: plays one rated match (`extra` may say
/// `--games N` instead).
fn ladder_bot(url: &str, bot: &Bot, extra: &[&str]) -> Command {
    let mut cmd = druids(url, &["bot", "--seek", "meduris:2", "--rated"]);
    if !extra.contains(&"--games") {
        cmd.args(["--games", "1"]);
    }
    cmd.args(extra).env("DRUIDS_BOT_KEY", &bot.key);
    cmd
}

/// The JSON lines of a ladder bot's stdout: (game lines, match lines).
fn ladder_lines(stdout: &str) -> (Vec<serde_json::Value>, Vec<serde_json::Value>) {
    let lines: Vec<serde_json::Value> = stdout
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}")))
        .collect();
    lines.into_iter().partition(|v| v.get("game_id").is_some())
}

/// Checks one bot's output of one finished match against both bots.
fn assert_played_match(who: &str, stdout: &str, bots: &[&str]) -> String {
    let (games, matches) = ladder_lines(stdout);
    assert_eq!(
        matches.len(),
        1,
        "{who}: one match line expected:\n{stdout}"
    );
    let m = &matches[0];
    let names: Vec<&str> = m["placements"]
        .as_array()
        .unwrap_or_else(|| panic!("{who}: no placements: {m}"))
        .iter()
        .map(|p| p["name"].as_str().unwrap_or_default())
        .collect();
    for bot in bots {
        assert!(names.contains(bot), "{who}: {bot} not placed in {m}");
    }
    // A rated two-player Meduris match is a duplicate match: a game per seat.
    assert!(!games.is_empty(), "{who}: no game line:\n{stdout}");
    for g in &games {
        assert!(
            g["outcome"].is_object(),
            "{who}: a game without an outcome: {g}"
        );
        assert_eq!(g["match_id"], m["match_id"], "{who}: {g}");
    }
    let seats: std::collections::BTreeSet<u64> =
        games.iter().filter_map(|g| g["seat"].as_u64()).collect();
    if games.len() > 1 {
        assert!(
            seats.len() > 1,
            "{who}: the same seat in every game: {games:?}"
        );
    }
    m["match_id"].as_str().unwrap_or_default().to_owned()
}

/// `druids leaderboard meduris:2` until it lists every bot of `names`.
async fn leaderboard_lists(url: &str, names: &[&str]) -> String {
    let deadline = Instant::now() + LEADERBOARD_WAIT;
    loop {
        let done = run(
            druids(url, &["leaderboard", "meduris:2"]),
            Duration::from_secs(30),
        )
        .await;
        assert_ok("druids leaderboard", &done);
        if names.iter().all(|n| done.stdout.contains(n)) {
            return done.stdout;
        }
        assert!(
            Instant::now() < deadline,
            "the leaderboard lists not every bot of {names:?} after {LEADERBOARD_WAIT:?}:\n{}",
            done.stdout
        );
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
}

/// Two `druids bot --seek` processes register, find each other, play a rated
/// match to the end and show up on the leaderboard and in their profiles.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cli_bots_register_play_a_rated_match_and_reach_the_leaderboard() {
    tokio::task::spawn_blocking(cli_binary)
        .await
        .expect("build task")
        .unwrap_or_else(|e| panic!("{e}"));
    let server = TestServer::start().await;
    let url = server.url();
    let alpha = register(&url, "alpha").await;
    let beta = register(&url, "beta").await;
    assert_ne!(alpha.id, beta.id);

    // A taken name and a wrong key are refused, with exit code 1.
    let taken = run(
        druids(&url, &["register", "--name", "alpha"]),
        Duration::from_secs(30),
    )
    .await;
    assert_eq!(taken.status.code(), Some(1), "{}", taken.stderr);
    assert!(taken.stderr.contains("ALREADY_EXISTS"), "{}", taken.stderr);
    let wrong = Bot {
        id: String::new(),
        name: "nobody".into(),
        key: "not-a-key".into(),
    };
    let refused = run(ladder_bot(&url, &wrong, &[]), Duration::from_secs(30)).await;
    assert_eq!(refused.status.code(), Some(1), "{}", refused.stderr);
    assert!(
        refused.stderr.contains("UNAUTHENTICATED"),
        "{}",
        refused.stderr
    );

    // Both at once: each seek waits in the pool for the other.
    let a = run(
        ladder_bot(&url, &alpha, &["--strategy", "random", "--seed", "1"]),
        MATCH_TIMEOUT,
    );
    let b = run(
        ladder_bot(&url, &beta, &["--strategy", "greedy"]),
        MATCH_TIMEOUT,
    );
    let (a, b) = tokio::join!(a, b);
    assert_ok("alpha's druids bot --seek", &a);
    assert_ok("beta's druids bot --seek", &b);
    let match_a = assert_played_match("alpha", &a.stdout, &["alpha", "beta"]);
    let match_b = assert_played_match("beta", &b.stdout, &["alpha", "beta"]);
    assert_eq!(match_a, match_b, "the two bots played different matches");

    let board = leaderboard_lists(&url, &[&alpha.name, &beta.name]).await;
    assert!(board.contains(&alpha.id), "{board}");
    assert!(board.contains("±"), "no mu ± sigma: {board}");
    // One rated match each: neither is established yet.
    for name in [&alpha.name, &beta.name] {
        assert!(
            board.contains(&format!("{name} (provisional)")),
            "{name} not marked provisional: {board}"
        );
    }

    let json = run(
        druids(&url, &["leaderboard", "meduris:2", "--json"]),
        Duration::from_secs(30),
    )
    .await;
    assert_ok("druids leaderboard --json", &json);
    let entries: Vec<serde_json::Value> = json
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).expect("one LeaderboardEntry per line"))
        .collect();
    assert_eq!(entries.len(), 2, "{}", json.stdout);
    for e in &entries {
        assert_eq!(e["matches"], 1, "{e}");
    }

    let info = run(
        druids(&url, &["bot-info", &alpha.id]),
        Duration::from_secs(30),
    )
    .await;
    assert_ok("druids bot-info", &info);
    assert!(info.stdout.contains("alpha"), "{}", info.stdout);
    assert!(info.stdout.contains("meduris:2"), "{}", info.stdout);
    assert!(info.stdout.contains(&match_a), "{}", info.stdout);
}

/// A Python bot of the kit (`register_bot`, then `run_ladder` with the kit's
/// decision callback) plays a rated match against a CLI bot.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_python_ladder_bot_plays_a_cli_bot() {
    let (bin, cli) = tokio::join!(
        tokio::task::spawn_blocking(venv_bin),
        tokio::task::spawn_blocking(cli_binary)
    );
    let bin = bin.expect("setup task").unwrap_or_else(|e| {
        panic!("cannot install the Python kit (Python 3.10+ and, the first time, PyPI): {e}")
    });
    cli.expect("build task").unwrap_or_else(|e| panic!("{e}"));
    let server = TestServer::start().await;
    let url = server.url();
    let rust = register(&url, "rusty").await;

    let mut python = Command::new(bin.join("python"));
    python
        .arg(
            repo_root()
                .join("bots")
                .join("python")
                .join("examples")
                .join("ladder_bot.py"),
        )
        .args(["--server", &url, "--register", "pythonic"])
        .args(["--seek", "meduris:2", "--matches", "1", "--concurrent", "1"])
        .args(["--seed", "7"])
        .env_remove("DRUIDS_BOT_KEY");
    let py = run(python, MATCH_TIMEOUT);
    let cli = run(
        ladder_bot(&url, &rust, &["--strategy", "random"]),
        MATCH_TIMEOUT,
    );
    let (py, cli) = tokio::join!(py, cli);
    assert_ok("examples/ladder_bot.py", &py);
    assert_ok("druids bot --seek", &cli);
    // The Python bot's first line is its registration.
    let mut lines = py.stdout.lines();
    let registered: serde_json::Value =
        serde_json::from_str(lines.next().unwrap_or_default()).expect("the registration line");
    assert_eq!(registered["name"], "pythonic", "{registered}");
    assert!(
        registered["api_key"]
            .as_str()
            .is_some_and(|k| !k.is_empty())
    );
    let rest: Vec<&str> = lines.collect();
    let match_py = assert_played_match("python", &rest.join("\n"), &["pythonic", "rusty"]);
    let match_cli = assert_played_match("cli", &cli.stdout, &["pythonic", "rusty"]);
    assert_eq!(match_py, match_cli);
    leaderboard_lists(&url, &["pythonic", "rusty"]).await;
}

/// With the server's default rate limits (a bot's API key is one token for
/// all its games, so concurrent games share its read budget), two ladder
/// bots keep two matches going at once, one of them a program behind the
/// bridge (`--exec`), and every game of every match is played to the end.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ladder_bots_play_concurrent_matches_under_the_default_limits() {
    tokio::task::spawn_blocking(cli_binary)
        .await
        .expect("build task")
        .unwrap_or_else(|e| panic!("{e}"));
    let server = TestServer::with(Arc::new(MemoryStore::default()), Limits::default()).await;
    let url = server.url();
    let greedy = register(&url, "greedy").await;
    let exec = register(&url, "exec").await;
    let program = format!(
        "python3 {}",
        repo_root()
            .join("bots")
            .join("exec")
            .join("random_bot.py")
            .display()
    );
    let concurrently = ["--games", "2", "--concurrent", "2"];
    let a = ladder_bot(
        &url,
        &greedy,
        &[&concurrently[..], &["--strategy", "greedy"]].concat(),
    );
    let b = ladder_bot(
        &url,
        &exec,
        &[&concurrently[..], &["--exec", &program]].concat(),
    );
    let (a, b) = tokio::join!(run(a, MATCH_TIMEOUT), run(b, MATCH_TIMEOUT));
    assert_ok("the greedy ladder bot", &a);
    assert_ok("the --exec ladder bot", &b);
    for (who, done) in [("greedy", &a), ("exec", &b)] {
        let (games, matches) = ladder_lines(&done.stdout);
        assert_eq!(matches.len(), 2, "{who}: two matches:\n{}", done.stdout);
        let ids: std::collections::BTreeSet<&str> = matches
            .iter()
            .filter_map(|m| m["match_id"].as_str())
            .collect();
        assert_eq!(ids.len(), 2, "{who}: two different matches: {ids:?}");
        // Rated two-player Meduris: two games per match, each finished.
        assert_eq!(games.len(), 4, "{who}:\n{}", done.stdout);
        for g in &games {
            assert!(g["outcome"].is_object(), "{who}: {g}\n{}", done.stderr);
        }
    }
}
