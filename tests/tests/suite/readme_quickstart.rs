//! The README's "Quick start" run as written (issue 29): its server command,
//! then every command of its client block, in order, against the real
//! binaries, with what a person copies in by hand put in place of the
//! placeholders — the game id and tokens `druids create` printed for `<ID>`
//! and `<TOKENn>`, the test server's address for the README's
//! `http://127.0.0.1:50051` (tests run side by side on ephemeral ports).
//!
//! A command ending in `&` runs alongside the next ones, as the shell runs
//! it; `druids watch` runs alongside too (the page says it ends when the
//! game does: in a terminal of its own); `druids play` gets a person who
//! always types `a`. The game must end for every one of them, and each
//! self-play line must complete its games.

use std::io::Write;
use std::process::{Child, Output, Stdio};

use druids_tests::docs::{self, shell};
use druids_tests::process::ServerProcess;

const HEADING: &str = "## Quick start (5 minutes)";
/// The server address the README's commands name.
const README_SERVER: &str = "http://127.0.0.1:50051";

fn text(out: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The game id and the seats' tokens in `druids create`'s answer.
fn created(stdout: &str) -> (String, Vec<String>) {
    let id = stdout
        .lines()
        .find_map(|l| l.strip_prefix("game "))
        .unwrap_or_else(|| panic!("no game id in {stdout}"))
        .trim()
        .to_owned();
    let tokens = stdout
        .lines()
        .filter_map(|l| l.split_once(": token ").map(|(_, t)| t.trim().to_owned()))
        .collect();
    (id, tokens)
}

#[test]
fn the_readme_quick_start_runs_as_written() {
    let blocks = docs::section_blocks("README.md", HEADING);
    let sh: Vec<_> = blocks.iter().filter(|b| b.lang == "sh").collect();
    assert_eq!(
        docs::commands(sh[0]),
        ["cargo run --release -p druids-server"],
        "the quick start's server is the set-up's"
    );
    let lines = docs::commands(sh[1]);
    let dir = docs::druids_on_path("readme-quick");
    // The server the README starts, as this build's binary: its defaults but
    // in memory and on ephemeral ports.
    let server = ServerProcess::start(
        &[
            "--in-memory",
            "--listen",
            "127.0.0.1:0",
            "--http-listen",
            "127.0.0.1:0",
        ],
        &[],
        &dir.join("server.log"),
    );
    let url = server.url();

    let mut game: Option<(String, Vec<String>)> = None;
    let mut alongside: Vec<(String, Child)> = Vec::new();
    let mut ran = Vec::new();
    for line in &lines {
        let mut cmd_line = line.replace(README_SERVER, &url);
        if let Some((id, tokens)) = &game {
            cmd_line = cmd_line.replace("<ID>", id);
            for (seat, token) in tokens.iter().enumerate() {
                cmd_line = cmd_line.replace(&format!("<TOKEN{seat}>"), token);
            }
        }
        assert!(
            !cmd_line.contains('<'),
            "a placeholder the test does not know: {line}"
        );
        let words: Vec<&str> = cmd_line.split_whitespace().collect();
        let verb = words.get(1).copied().unwrap_or_default();
        ran.push(verb.to_owned());
        if let Some(background) = cmd_line.strip_suffix('&') {
            let child = shell(background.trim_end(), &dir, &url)
                .spawn()
                .expect("bash");
            alongside.push((cmd_line.clone(), child));
            continue;
        }
        match verb {
            "create" => {
                let out = shell(&cmd_line, &dir, &url).output().expect("bash");
                let (stdout, stderr) = text(&out);
                assert!(out.status.success(), "{cmd_line}: {stderr}");
                let (id, tokens) = created(&stdout);
                assert_eq!(tokens.len(), 4, "one token per seat: {stdout}");
                assert!(
                    stdout.contains(&format!("/games/{id}#token=")),
                    "each seat's page in the viewer: {stdout}"
                );
                game = Some((id, tokens));
            }
            "watch" => {
                let child = shell(&cmd_line, &dir, &url).spawn().expect("bash");
                alongside.push((cmd_line.clone(), child));
            }
            "play" => {
                let mut person = shell(&cmd_line, &dir, &url)
                    .stdin(Stdio::piped())
                    .spawn()
                    .expect("bash");
                let mut stdin = person.stdin.take().expect("stdin");
                // Types `a` whenever asked, until the game is over and the
                // command stops reading.
                std::thread::spawn(move || {
                    let typing = "a\n".repeat(1024);
                    while stdin.write_all(typing.as_bytes()).is_ok() {}
                });
                let out = person.wait_with_output().expect("play");
                let (screen, stderr) = text(&out);
                assert!(out.status.success(), "{cmd_line}: {stderr}");
                assert!(screen.contains("game over"), "the game ends: {screen}");
                // Everything alongside ends with the game.
                for (what, child) in alongside.drain(..) {
                    let out = child.wait_with_output().expect("wait");
                    let (stdout, stderr) = text(&out);
                    assert!(out.status.success(), "{what}: {stderr}");
                    if what.contains(" bot ") {
                        let end = stdout.lines().rev().find(|l| l.starts_with('{'));
                        let end: serde_json::Value =
                            serde_json::from_str(end.unwrap_or_else(|| panic!("{what}: {stdout}")))
                                .expect("the end-of-game line is JSON");
                        assert_eq!(end["game_id"], game.as_ref().unwrap().0.as_str(), "{end}");
                        assert_eq!(
                            end["outcome"]["ranking"].as_array().map(Vec::len),
                            Some(4),
                            "{end}"
                        );
                    } else {
                        assert!(!stdout.is_empty(), "{what} printed the game's events");
                    }
                }
            }
            "selfplay" => {
                let out = shell(&cmd_line, &dir, &url).output().expect("bash");
                let (stdout, stderr) = text(&out);
                assert!(out.status.success(), "{cmd_line}: {stderr}");
                let totals: serde_json::Value = stdout
                    .lines()
                    .rev()
                    .find_map(|l| serde_json::from_str(l).ok())
                    .unwrap_or_else(|| panic!("{cmd_line}: no JSON in {stdout}"));
                let games = words
                    .windows(2)
                    .find(|w| w[0] == "--games")
                    .map(|w| w[1].parse::<u64>().expect("a count"))
                    .expect("--games");
                assert_eq!(totals["completed"], games, "{cmd_line}: {totals}");
                assert_eq!(totals["errors"], 0, "{cmd_line}: {totals}");
            }
            other => panic!("a quick-start command the test does not know: {other} ({line})"),
        }
    }
    assert!(alongside.is_empty(), "commands left running: {ran:?}");
    assert_eq!(
        ran,
        [
            "create", "watch", "bot", "bot", "bot", "play", "selfplay", "selfplay"
        ],
        "every command of the quick start ran"
    );
    server.kill();
    let _ = std::fs::remove_dir_all(&dir);
}
