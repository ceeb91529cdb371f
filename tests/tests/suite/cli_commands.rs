//! The `druids` commands the README promises and no other test runs end to
//! end (issue 31): `join`, `rotate-key`, `revoke-bot`, `answer-challenge`
//! and `arena-tournament follow`, each the real client binary against a real
//! `druids-server` process, asserting what the command did on the server
//! (a seat's token that plays, a key that stops or starts working, a match
//! that starts, a tournament's events to its end), not only its exit status.

use std::io::Read;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use druids_tests::process::{ServerProcess, cargo_binary};
use serde_json::Value;

/// The operator key of the servers these tests start.
const OPERATOR: &str = "operator-key-of-the-cli-commands-test";

/// A guard against a hang, not a measure: a 2-player Die Dolmengötter
/// tournament between greedy bots takes seconds even at load 20.
const HANG_GUARD: Duration = Duration::from_secs(300);

/// The `druids` binary, built once per run.
fn druids_binary() -> &'static PathBuf {
    static BINARY: OnceLock<PathBuf> = OnceLock::new();
    BINARY.get_or_init(|| cargo_binary("druids-cli", "druids").unwrap_or_else(|e| panic!("{e}")))
}

/// A server process in memory on ephemeral ports, with an operator key.
fn server(name: &str) -> ServerProcess {
    let log = std::env::temp_dir().join(format!("druids-cli-{name}-{}.log", std::process::id()));
    ServerProcess::start(
        &[
            "--in-memory",
            "--listen",
            "127.0.0.1:0",
            "--http-listen",
            "off",
            "--operator-key",
            OPERATOR,
        ],
        &[],
        &log,
    )
}

/// `druids --server URL ARGS` with no `DRUIDS_*` from the environment.
fn command(url: &str, args: &[&str]) -> Command {
    let mut cmd = Command::new(druids_binary());
    cmd.arg("--server").arg(url).args(args);
    for var in [
        "DRUIDS_SERVER",
        "DRUIDS_TOKEN",
        "DRUIDS_BOT_KEY",
        "DRUIDS_OPERATOR_KEY",
    ] {
        cmd.env_remove(var);
    }
    cmd.env("NO_COLOR", "1");
    cmd
}

/// Runs `druids ARGS`; (success, stdout, stderr).
pub(crate) fn druids(url: &str, args: &[&str]) -> (bool, String, String) {
    let out = command(url, args).output().expect("run druids");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Runs `druids ARGS`, which must succeed; its stdout.
pub(crate) fn ok(url: &str, args: &[&str]) -> String {
    let (ok, out, err) = druids(url, args);
    assert!(ok, "druids {args:?} failed: {err}");
    out
}

/// Runs `druids ARGS`, which must fail; its stderr.
fn refused(url: &str, args: &[&str]) -> String {
    let (ok, out, err) = druids(url, args);
    assert!(!ok, "druids {args:?} should fail: {out}");
    err
}

fn json(out: &str) -> Value {
    serde_json::from_str(out.lines().last().expect("a line")).expect("a JSON line")
}

/// A 2-player Die Dolmengötter game without a clock: `druids create`'s
/// JSON answer.
fn two_seat_game(url: &str) -> Value {
    json(&ok(
        url,
        &[
            "create",
            "--game",
            "dolmen",
            "--players",
            "2",
            "--decision-ms",
            "0",
            "--json",
        ],
    ))
}

/// Registers a bot; its (id, API key).
fn register(url: &str, name: &str) -> (String, String) {
    let j = json(&ok(url, &["register", "--name", name, "--json"]));
    (
        j["bot_id"].as_str().unwrap().to_owned(),
        j["api_key"].as_str().unwrap().to_owned(),
    )
}

/// `druids challenge` from `key` to `opponent` (unrated Die Dolmengötter);
/// the challenge's id.
fn challenge(url: &str, key: &str, opponent: &str) -> String {
    let out = ok(
        url,
        &[
            "challenge",
            "--key",
            key,
            "--game",
            "dolmen",
            "--opponent",
            opponent,
        ],
    );
    out.trim()
        .strip_prefix("challenge ")
        .unwrap_or_else(|| panic!("no id in {out}"))
        .to_owned()
}

/// A child process, killed when dropped.
struct Running(Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Waits for `child` to exit on its own (the guard only catches a hang).
fn wait_exit(child: &mut Child, what: &str) -> std::process::ExitStatus {
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().expect("the child") {
            return status;
        }
        assert!(start.elapsed() < HANG_GUARD, "{what} never ended");
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// `druids join` claims the open seat (the lowest, or the one named), the
/// game starts with it, and the token it prints plays that seat; a full
/// game refuses another join.
#[test]
fn join_claims_an_open_seat_whose_token_plays_it() {
    let server = server("join");
    let url = server.url();
    let created = json(&ok(
        &url,
        &[
            "create",
            "--game",
            "dolmen",
            "--players",
            "3",
            "--open-seat",
            "1",
            "--open-seat",
            "2",
            "--decision-ms",
            "0",
            "--json",
        ],
    ));
    let id = created["game_id"].as_str().unwrap().to_owned();
    let seat0 = created["seats"][0]["token"].as_str().unwrap().to_owned();
    assert!(
        ok(&url, &["state", "--game-id", &id]).contains("waiting"),
        "two seats open: the game waits"
    );

    // The named seat first, then the lowest open one.
    let out = ok(
        &url,
        &["join", "--game-id", &id, "--seat", "2", "--name", "zed"],
    );
    let token_of = |out: &str, seat: &str| {
        out.lines()
            .find_map(|l| l.strip_prefix(&format!("{seat}: token ")))
            .unwrap_or_else(|| panic!("no token for {seat}: {out}"))
            .trim()
            .to_owned()
    };
    let seat2 = token_of(&out, "seat 2 (zed)");
    assert!(!out.contains("has started"), "seat 1 is still open: {out}");
    let out = ok(&url, &["join", "--game-id", &id]);
    let seat1 = token_of(&out, "seat 1");
    assert!(
        out.contains("every seat is claimed: the game has started"),
        "{out}"
    );
    let err = refused(&url, &["join", "--game-id", &id]);
    assert!(
        err.contains("FAILED_PRECONDITION") || err.contains("open"),
        "{err}"
    );

    // Each joined token is its seat's.
    let state = ok(&url, &["state", "--game-id", &id, "--token", &seat2]);
    assert!(
        state
            .lines()
            .any(|l| l.contains("seat 2 (blue): zed") && l.contains("<- you")),
        "{state}"
    );
    // And they play: three bots finish the game, each on its seat.
    let bots: Vec<Running> = [&seat0, &seat1, &seat2]
        .iter()
        .map(|t| {
            Running(
                command(
                    &url,
                    &[
                        "bot",
                        "--game-id",
                        &id,
                        "--token",
                        t,
                        "--strategy",
                        "random",
                    ],
                )
                .stdout(Stdio::piped())
                .stderr(Stdio::null())
                .spawn()
                .expect("druids bot"),
            )
        })
        .collect();
    for (seat, mut bot) in bots.into_iter().enumerate() {
        assert!(wait_exit(&mut bot.0, "a bot").success());
        let mut out = String::new();
        std::io::Read::read_to_string(bot.0.stdout.as_mut().unwrap(), &mut out).unwrap();
        let line = json(&out);
        assert_eq!(line["seat"], seat, "{out}");
        assert!(line["outcome"].is_object(), "{out}");
    }
}

/// `answer-challenge` accepts (the match starts) or declines (the
/// challenge ends); `rotate-key` replaces a key at once; `revoke-bot` takes
/// it away (by the bot, or by the operator as a ban) and ends the bot's
/// pending challenges; the operator's `rotate-key --bot-id` gives a
/// revoked bot a working key again.
#[test]
fn answer_challenge_rotate_key_and_revoke_bot_change_what_keys_can_do() {
    let server = server("keys");
    let url = server.url();
    let (alpha_id, alpha) = register(&url, "alpha");
    let (beta_id, beta) = register(&url, "beta");
    let (_, gamma) = register(&url, "gamma");

    // Accepted: the match starts, and its games are the bots' to play.
    let accepted = challenge(&url, &alpha, &beta_id);
    let answer = json(&ok(
        &url,
        &[
            "answer-challenge",
            &accepted,
            "--key",
            &beta,
            "--accept",
            "--json",
        ],
    ));
    assert_eq!(answer["accepted"], true);
    let match_id = answer["match_id"].as_str().unwrap();
    assert!(!match_id.is_empty(), "the match starts: {answer}");
    // Its game is on the server, seating both bots.
    let games = ok(&url, &["list", "--json"]);
    let game: Value = games
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).expect("JSON"))
        .find(|g| g["matchId"] == match_id)
        .unwrap_or_else(|| panic!("no game of match {match_id}: {games}"));
    let mut names: Vec<&str> = game["seats"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    names.sort();
    assert_eq!(names, ["alpha", "beta"], "{game}");
    // Declined: the challenge is over for everyone.
    let declined = challenge(&url, &alpha, &beta_id);
    let out = ok(
        &url,
        &["answer-challenge", &declined, "--key", &beta, "--decline"],
    );
    assert_eq!(out.trim(), format!("declined challenge {declined}"));
    let err = refused(
        &url,
        &["answer-challenge", &declined, "--key", &beta, "--accept"],
    );
    assert!(
        err.contains(&declined) || err.contains("challenge"),
        "{err}"
    );

    // rotate-key: the new key works, the old one no longer does.
    let rotated = json(&ok(&url, &["rotate-key", "--key", &alpha, "--json"]));
    let alpha2 = rotated["api_key"].as_str().unwrap().to_owned();
    assert_ne!(alpha2, alpha);
    let err = refused(&url, &["rotate-key", "--key", &alpha]);
    assert!(err.contains("UNAUTHENTICATED"), "{err}");
    let pending = challenge(&url, &alpha2, &beta_id);

    // revoke-bot by the bot itself: its key stops working and the challenge
    // waiting for its answer ends.
    let revoked = json(&ok(&url, &["revoke-bot", "--key", &beta, "--json"]));
    assert!(
        revoked["revoked_unix_ms"].as_u64().unwrap() > 0,
        "{revoked}"
    );
    let err = refused(
        &url,
        &["answer-challenge", &pending, "--key", &beta, "--accept"],
    );
    assert!(err.contains("UNAUTHENTICATED"), "{err}");
    let err = refused(
        &url,
        &["answer-challenge", &pending, "--key", &gamma, "--accept"],
    );
    assert!(!err.is_empty(), "gamma was not challenged");
    let err = refused(
        &url,
        &[
            "challenge",
            "--key",
            &alpha2,
            "--game",
            "dolmen",
            "--opponent",
            &beta_id,
        ],
    );
    assert!(err.contains(&beta_id) || err.contains("revoked"), "{err}");

    // revoke-bot BOT_ID by the operator (a ban), then the operator's
    // rotate-key --bot-id: the banned key stays dead, the new one works.
    let out = ok(&url, &["revoke-bot", &alpha_id, "--operator-key", OPERATOR]);
    assert!(
        out.starts_with(&format!("bot {alpha_id} revoked at ")),
        "{out}"
    );
    let err = refused(&url, &["rotate-key", "--key", &alpha2]);
    assert!(err.contains("UNAUTHENTICATED"), "{err}");
    let (delta_id, _) = register(&url, "delta");
    let rekeyed = json(&ok(
        &url,
        &[
            "rotate-key",
            "--bot-id",
            &alpha_id,
            "--operator-key",
            OPERATOR,
            "--json",
        ],
    ));
    let alpha3 = rekeyed["api_key"].as_str().unwrap().to_owned();
    challenge(&url, &alpha3, &delta_id);
    let err = refused(&url, &["rotate-key", "--key", &alpha2]);
    assert!(err.contains("UNAUTHENTICATED"), "{err}");
}

/// `arena-tournament follow` prints the tournament's events as they happen
/// and exits on its own at the end; `--from-seq` replays the kept log.
#[test]
fn arena_tournament_follow_prints_every_event_and_exits_at_the_end() {
    let server = server("follow");
    let url = server.url();
    let (alpha_id, alpha) = register(&url, "alpha");
    let (beta_id, beta) = register(&url, "beta");
    let _bots: Vec<Running> = [&alpha, &beta]
        .iter()
        .map(|key| {
            Running(
                command(
                    &url,
                    &["bot", "--key", key, "--events", "--strategy", "greedy"],
                )
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .expect("druids bot --events"),
            )
        })
        .collect();
    let out = ok(
        &url,
        &[
            "arena-tournament",
            "create",
            "--name",
            "cup",
            "--game",
            "dolmen",
            "--players",
            "2",
            "--entrant",
            &alpha_id,
            "--entrant",
            &beta_id,
            "--round-robin",
            "--games-per-group",
            "2",
            "--operator-key",
            OPERATOR,
        ],
    );
    let id = out
        .trim()
        .strip_prefix("tournament ")
        .unwrap_or_else(|| panic!("no id: {out}"))
        .to_owned();

    let mut follow = Running(
        command(&url, &["arena-tournament", "follow", &id])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("follow"),
    );
    let status = wait_exit(&mut follow.0, "arena-tournament follow");
    let mut out = String::new();
    std::io::Read::read_to_string(follow.0.stdout.as_mut().unwrap(), &mut out).unwrap();
    assert!(status.success(), "{out}");
    let lines: Vec<&str> = out.lines().collect();
    // One line per event, numbered from #1 without a gap.
    for (i, line) in lines.iter().enumerate() {
        assert!(line.starts_with(&format!("#{} ", i + 1)), "{out}");
    }
    assert!(
        lines.iter().any(|l| l.contains("started: 2 entrants")),
        "{out}"
    );
    assert!(lines.iter().any(|l| l.contains(" round 1: ")), "{out}");
    let finished_matches = lines.iter().filter(|l| l.contains("; standings ")).count();
    assert_eq!(finished_matches, 2, "two games per group: {out}");
    let last = lines.last().expect("events");
    assert!(
        last.contains("finished: 1. ") && last.contains("alpha") && last.contains("beta"),
        "it ends with the final standings: {out}"
    );

    // The ended tournament's log, replayed from #2 as JSON, ends by itself.
    let out = ok(
        &url,
        &[
            "arena-tournament",
            "follow",
            &id,
            "--from-seq",
            "2",
            "--json",
        ],
    );
    let events: Vec<Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON"))
        .collect();
    assert_eq!(events.len(), lines.len() - 1, "{out}");
    assert_eq!(events[0]["seq"].to_string().trim_matches('"'), "2", "{out}");
    assert!(events.last().unwrap().get("finished").is_some(), "{out}");
}

/// `druids conformance --help` does not show `--server` reading
/// `DRUIDS_SERVER` (it does not: that is what the client under test is
/// given), while the commands that read it still say so.
#[test]
fn conformance_help_shows_no_druids_server_it_does_not_read() {
    let help = |sub: &str| {
        let out = Command::new(druids_binary())
            .args([sub, "--help"])
            .env("DRUIDS_SERVER", "http://127.0.0.1:1")
            .output()
            .expect("run druids");
        assert!(out.status.success(), "{sub} --help: {:?}", out.status);
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let conformance = help("conformance");
    let server = conformance
        .lines()
        .find(|l| l.trim_start().starts_with("--server <"))
        .unwrap_or_else(|| panic!("no --server in:\n{conformance}"));
    assert!(
        !server.contains("[env: DRUIDS_SERVER") && server.contains("DRUIDS_SERVER is not read"),
        "{server}"
    );
    let create = help("create");
    assert!(
        create.contains("[env: DRUIDS_SERVER=http://127.0.0.1:1]"),
        "{create}"
    );
}

/// A bot whose only server dies mid-game ends with the address and the cause
/// in words, not tonic's bare "tcp connect error".
#[test]
fn a_bot_that_loses_its_server_says_where_and_why() {
    let server = server("lost");
    let url = server.url();
    let created = two_seat_game(&url);
    let id = created["game_id"].as_str().unwrap().to_owned();
    let seat0 = created["seats"][0]["token"].as_str().unwrap().to_owned();
    let mut bot = Running(
        command(
            &url,
            &[
                "bot",
                "--game-id",
                &id,
                "--token",
                &seat0,
                "--strategy",
                "random",
            ],
        )
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("druids bot"),
    );
    // Its first move made, it waits for seat 1, which nobody plays.
    let mut polls = 0;
    while !ok(&url, &["state", "--game-id", &id]).contains("version 1)") {
        polls += 1;
        // Each poll is a `druids state` process: that paces the loop.
        assert!(polls < 3000, "the bot never moved");
    }
    server.kill();
    let status = wait_exit(&mut bot.0, "the bot without its server");
    assert!(!status.success());
    let mut stderr = String::new();
    bot.0
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    let last = stderr.lines().last().unwrap_or_default();
    assert!(
        last.starts_with(&format!("error: lost the druids server at {url}: ")),
        "{stderr}"
    );
    assert!(last.contains("connection refused"), "{stderr}");
}

/// `druids play` on a game already over shows how it ended and says that
/// nothing was played, not only "you made 0 decisions".
#[test]
fn play_on_a_game_already_over_shows_its_result() {
    let server = server("play-over");
    let url = server.url();
    let created = two_seat_game(&url);
    let id = created["game_id"].as_str().unwrap().to_owned();
    let seat = |s: usize| created["seats"][s]["token"].as_str().unwrap().to_owned();
    ok(&url, &["resign", "--game-id", &id, "--token", &seat(1)]);
    // The person's keyboard stays open: only the game's end ends the command.
    let mut child = command(&url, &["play", "--game-id", &id, "--token", &seat(0)])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("run druids play");
    let keyboard = child.stdin.take();
    let mut out = String::new();
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut out)
        .unwrap();
    let status = wait_exit(&mut child, "druids play");
    drop(keyboard);
    assert!(status.success(), "{out}");
    assert!(out.contains("you won"), "{out}");
    assert!(
        out.contains("the game was already over; you made no decision"),
        "{out}"
    );
    // `druids export` writes proto3 JSON to a `.json` file, else the binary
    // message; `druids replay` checks either.
    let dir = std::env::temp_dir().join(format!("druids-cli-export-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (name, json) in [("game.json", true), ("game.replay", false)] {
        let path = dir.join(name);
        let path = path.to_str().unwrap();
        ok(&url, &["export", "--game-id", &id, "--out", path]);
        let bytes = std::fs::read(path).unwrap();
        assert_eq!(
            serde_json::from_slice::<Value>(&bytes).is_ok(),
            json,
            "{name}"
        );
        let replayed = Command::new(druids_binary())
            .args(["replay", path])
            .output()
            .expect("run druids replay");
        let said = String::from_utf8_lossy(&replayed.stdout);
        assert!(
            replayed.status.success() && said.starts_with("ok: "),
            "{name}: {said}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}
