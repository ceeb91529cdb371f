//! The README's "Run a ladder" example, run as written with one bot on a
//! fresh server (issue 29): the commands of its first block, in order, with
//! the key the first one prints in place of `KEY`. Nothing else seeks, so
//! the server's house bots fill the bot's four-player game: it gets a rated
//! match, finishes it, and the leaderboard lists it beside house bots.
//!
//! The server is the real binary, started as the README's set-up starts it
//! but in memory and on ephemeral ports (tests run side by side); `druids`
//! is the real client, on the `PATH` of the shell that runs the commands.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use druids_tests::docs::{self, shell};
use druids_tests::process::ServerProcess;

/// How long the test waits for the bot's next line before it gives up: a
/// guard against hanging, not a measure (the match took 44 s in a debug
/// build on a 2-core machine at load 20).
const HANG_GUARD: Duration = Duration::from_secs(900);

/// The command lines of the first `sh` block under `heading` of the README.
fn readme_block(heading: &str) -> Vec<String> {
    let blocks = docs::section_blocks("README.md", heading);
    let block = blocks.iter().find(|b| b.lang == "sh").expect("a sh block");
    docs::commands(block)
}

#[test]
fn the_readme_ladder_example_gets_one_bot_a_rated_game_against_house_bots() {
    let lines = readme_block("## Run a ladder");
    let [register, play, leaderboard] = &lines[..] else {
        panic!("the example is three commands: {lines:?}");
    };
    assert!(play.contains("--seek meduris:4 --rated"), "{play}");
    let dir = docs::druids_on_path("readme-ladder");
    let server = ServerProcess::start(
        &[
            "--in-memory",
            "--listen",
            "127.0.0.1:0",
            "--http-listen",
            "off",
        ],
        &[],
        &dir.join("server.log"),
    );
    let url = server.url();

    // 1. Register: the key is on the line `api key …`.
    let out = shell(register, &dir, &url).output().expect("bash");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{register}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let key = stdout
        .lines()
        .find_map(|l| l.strip_prefix("api key "))
        .unwrap_or_else(|| panic!("no key in {stdout}"))
        .trim()
        .to_owned();

    // 2. The bot, alone on the server, until its first match is over.
    let started = Instant::now();
    let mut bot = shell(&play.replace("KEY", &key), &dir, &url)
        .stdout(Stdio::piped())
        .stderr(std::fs::File::create(dir.join("bot.err")).expect("log"))
        .spawn()
        .expect("the bot starts");
    // Its stdout's lines, read on a thread so that a bot that never plays
    // fails the test (after a guard far beyond any machine's pace) instead
    // of hanging it.
    let (lines_tx, lines) = std::sync::mpsc::channel();
    let stdout = bot.stdout.take().expect("stdout");
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if lines_tx.send(line).is_err() {
                return;
            }
        }
    });
    let mut finished = None;
    while let Ok(line) = lines.recv_timeout(HANG_GUARD) {
        let v: serde_json::Value = serde_json::from_str(&line).expect("JSON lines");
        if v.get("placements").is_some() {
            finished = Some(v);
            break;
        }
    }
    let took = started.elapsed();
    // Stops it (and bash, its parent) as Ctrl-C would.
    let _ = Command::new("pkill")
        .args(["-INT", "-P", &bot.id().to_string()])
        .status();
    let _ = bot.kill();
    let _ = bot.wait();
    let log = std::fs::read_to_string(dir.join("bot.err")).unwrap_or_default();
    let m = finished.unwrap_or_else(|| panic!("the bot's match never ended:\n{log}"));
    let names: Vec<&str> = m["placements"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert_eq!(names.len(), 4, "{m}");
    assert!(names.contains(&"my-bot"), "{m}");
    assert_eq!(
        names.iter().filter(|n| n.starts_with("house-")).count(),
        3,
        "three house bots filled the game: {m}"
    );
    eprintln!("the bot's first match was over {took:?} after it started (debug build)");

    // 3. The leaderboard: the bot, rated, beside house bots marked as such.
    let out = shell(leaderboard, &dir, &url).output().expect("bash");
    let board = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(board.contains("my-bot"), "{board}");
    assert_eq!(board.matches("(house)").count(), 3, "{board}");
    server.kill();
    let _ = std::fs::remove_dir_all(&dir);
}
