//! Cross-language end-to-end: bots written with the Python kit (`bots/python`,
//! installed exactly as its README says and run as subprocesses) and in Rust
//! (the generated client, in-process tasks) play one 4-player game of each
//! title (Meduris, Die Dolmengötter) together against a real server over TCP,
//! each seat following its own event stream. Every client must see the same
//! final outcome, and every seat must have decided. Then a bot of each kit
//! (Python and TypeScript) is put through what the raw protocol makes hard: a
//! server restart mid-game (resume the stream and the pending decision; on SQLite
//! and PostgreSQL) and a
//! turn clock it keeps missing (late submissions refused, play on); and both
//! play over TLS, trusting a self-signed certificate (`--ca-cert`); an action
//! the rules refuse ends a kit's bot with a clear error. The installed Python
//! kit passes `mypy --strict`.
//!
//! Each run of the test binary makes a fresh virtualenv under
//! `target/kits/python-venv` and runs `pip install ./bots/python` in it (the
//! package build generates the gRPC stubs from `proto/`). pip's cache lives in
//! `target/kits/pip-cache`, so only the first run downloads from PyPI. Without
//! Python 3.10+ (or PyPI, the first time) the test fails and says why.
#![cfg(unix)]

use std::io::Read;
use std::net::SocketAddr;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use druids_contract::pb;
use druids_contract::pb::druids_service_client::DruidsServiceClient;
use druids_contract::pb::game_event::Body;
use druids_server::Limits;
use druids_tests::{Lcg, TestServer, authed};
use tokio::net::TcpListener;
use tokio::sync::oneshot;
use tokio_stream::StreamExt;
use tonic::Code;
use tonic::transport::Channel;

use crate::stores::{Backend, TestDb, on_each_store_threaded};

on_each_store_threaded!(kit_bots_resume_after_a_server_restart);

/// Making the venv and installing the kit (a minute at most from PyPI; seconds
/// from the cache).
const SETUP_TIMEOUT: Duration = Duration::from_secs(180);
/// One whole game, every bot included (a few seconds in practice).
pub(crate) const GAME_TIMEOUT: Duration = Duration::from_secs(60);

/// Who plays a seat.
#[derive(Clone, Copy, Debug)]
enum Player {
    /// A Python example run as a script: `python examples/<name> --server URL ...`.
    PythonScript(&'static str),
    /// The kit's console script with a named strategy, configured by the
    /// environment: `DRUIDS_SERVER=host:port DRUIDS_TOKEN=... druids-bot --strategy S`.
    PythonCli(&'static str),
    /// A Rust bot choosing at random, in this process.
    Rust,
}

/// The repository's root.
pub(crate) fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("tests/ has a parent")
        .to_path_buf()
}

/// `target/kits`: where the kits' tests keep venvs, caches and builds.
pub(crate) fn kits_dir() -> PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .map(|t| {
            if t.is_absolute() {
                t
            } else {
                repo_root().join(t)
            }
        })
        .unwrap_or_else(|| repo_root().join("target"));
    target.join("kits")
}

fn python_dir() -> PathBuf {
    repo_root().join("bots").join("python")
}

/// A finished subprocess: exit status and everything it printed.
pub(crate) struct Finished {
    pub(crate) status: ExitStatus,
    pub(crate) stdout: String,
    pub(crate) stderr: String,
}

/// Runs `cmd` in its own process group; kills the whole group after `timeout`.
pub(crate) fn run_with_timeout(mut cmd: Command, timeout: Duration) -> Result<Finished, String> {
    let what = format!("{cmd:?}");
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .spawn()
        .map_err(|e| format!("cannot start {what}: {e}"))?;
    let drain = |mut pipe: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut text = String::new();
            let _ = pipe.read_to_string(&mut text);
            text
        })
    };
    let out = drain(Box::new(child.stdout.take().expect("stdout piped")));
    let err = drain(Box::new(child.stderr.take().expect("stderr piped")));
    let deadline = Instant::now() + timeout;
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Some(status),
            Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(50)),
            Ok(None) => break None,
            Err(e) => return Err(format!("waiting for {what}: {e}")),
        }
    };
    let Some(status) = status else {
        let group = format!("-{}", child.id());
        let _ = Command::new("kill")
            .args(["-s", "KILL", "--", &group])
            .status();
        let _ = child.kill();
        let _ = child.wait();
        let stderr = err.join().unwrap_or_default();
        return Err(format!(
            "{what} did not finish within {timeout:?}; its stderr:\n{stderr}"
        ));
    };
    Ok(Finished {
        status,
        stdout: out.join().unwrap_or_default(),
        stderr: err.join().unwrap_or_default(),
    })
}

/// Runs `cmd` and fails with everything it printed unless it succeeds.
pub(crate) fn run_ok(cmd: Command, timeout: Duration) -> Result<Finished, String> {
    let what = format!("{cmd:?}");
    let done = run_with_timeout(cmd, timeout)?;
    if !done.status.success() {
        return Err(format!(
            "{what} failed ({}):\n{}{}",
            done.status, done.stdout, done.stderr
        ));
    }
    Ok(done)
}

/// A fresh, empty venv `target/kits/NAME` (an old one is removed), made by
/// Python 3.10+.
pub(crate) fn fresh_venv(name: &str) -> Result<PathBuf, String> {
    let venv = kits_dir().join(name);
    if venv.exists() {
        std::fs::remove_dir_all(&venv)
            .map_err(|e| format!("cannot remove the old {}: {e}", venv.display()))?;
    }
    std::fs::create_dir_all(kits_dir()).map_err(|e| e.to_string())?;
    druids_tests::install::python_venv();
    let mut make = Command::new("python3");
    make.args([
        "-c",
        "import sys; assert sys.version_info >= (3, 10), sys.version",
    ]);
    run_ok(make, SETUP_TIMEOUT).map_err(|e| format!("python3 3.10+ is needed: {e}"))?;
    let mut make = Command::new("python3");
    make.args(["-m", "venv"]).arg(&venv);
    run_ok(make, SETUP_TIMEOUT)
        .map_err(|e| format!("{e}\n(on Debian/Ubuntu: apt install python3-venv)"))?;
    Ok(venv)
}

/// The `bin/` folder of a fresh venv with the kit installed as the README says
/// (made once per run of the test binary).
pub(crate) fn venv_bin() -> Result<PathBuf, String> {
    static BIN: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    BIN.get_or_init(|| {
        let started = Instant::now();
        let venv = fresh_venv("python-venv")?;
        let bin = venv.join("bin");
        let mut install = Command::new(bin.join("pip"));
        install
            .current_dir(repo_root())
            .args(["install", "--disable-pip-version-check", "--no-input", "-q"])
            .arg("./bots/python")
            .env("PIP_CACHE_DIR", kits_dir().join("pip-cache"))
            // Fail in bounded time when PyPI cannot be reached.
            .env("PIP_DEFAULT_TIMEOUT", "20")
            .env("PIP_RETRIES", "2");
        let installing = druids_tests::install::lock();
        run_ok(install, SETUP_TIMEOUT)
            .map_err(|e| format!("{e}\n(is PyPI, https://pypi.org, reachable?)"))?;
        drop(installing);
        eprintln!(
            "cross_language: fresh venv with `pip install ./bots/python` in {:.1?}",
            started.elapsed()
        );
        Ok(bin)
    })
    .clone()
}

/// The outcome in a bot's result line, which must be exactly, byte for
/// byte, the line every way of playing prints (`druids bot`, both kits):
/// `{"game_id": ID, "seat": N, "outcome": {"bySafeguard", "ranking",
/// "scores", "winners"}, "actions": N, "restarts": 0}` (the Outcome in
/// proto3 JSON with every field, keys sorted; Python's separators).
pub(crate) fn parse_result_line(
    line: &str,
    game_id: &str,
    seat: u32,
) -> Result<pb::Outcome, String> {
    let json: serde_json::Value =
        serde_json::from_str(line).map_err(|e| format!("no JSON result line ({e}): {line:?}"))?;
    let keys = |v: &serde_json::Value| {
        let mut k: Vec<String> = v
            .as_object()
            .map(|o| o.keys().cloned().collect())
            .unwrap_or_default();
        k.sort();
        k
    };
    if keys(&json) != ["actions", "game_id", "outcome", "restarts", "seat"] {
        return Err(format!(
            "the result line has other keys than game_id, seat, outcome, actions, restarts: {line}"
        ));
    }
    if json["game_id"] != game_id || json["seat"] != seat {
        return Err(format!(
            "the result line names another game or seat: {line}"
        ));
    }
    let outcome = &json["outcome"];
    if keys(outcome) != ["bySafeguard", "ranking", "scores", "winners"] {
        return Err(format!(
            "the outcome is not a full proto3 JSON Outcome: {line}"
        ));
    }
    let numbers = |key: &str| -> Result<Vec<i64>, String> {
        outcome[key]
            .as_array()
            .and_then(|a| a.iter().map(|v| v.as_i64()).collect::<Option<Vec<_>>>())
            .ok_or_else(|| format!("outcome.{key} is no list of numbers: {line}"))
    };
    let seats = |key: &str| -> Result<Vec<u32>, String> {
        Ok(numbers(key)?.into_iter().map(|n| n as u32).collect())
    };
    let list = |key: &str| -> Result<String, String> {
        let n: Vec<String> = numbers(key)?.iter().map(i64::to_string).collect();
        Ok(n.join(", "))
    };
    let exact = format!(
        "{{\"game_id\": {}, \"seat\": {seat}, \"outcome\": {{\"bySafeguard\": {}, \"ranking\": [{}], \"scores\": [{}], \"winners\": [{}]}}, \"actions\": {}, \"restarts\": 0}}",
        json["game_id"],
        outcome["bySafeguard"],
        list("ranking")?,
        list("scores")?,
        list("winners")?,
        json["actions"]
            .as_u64()
            .ok_or_else(|| format!("actions is no count: {line}"))?,
    );
    if line != exact {
        return Err(format!(
            "the result line is not in the shared shape:\n  {line}\nexpected\n  {exact}"
        ));
    }
    Ok(pb::Outcome {
        scores: numbers("scores")?.into_iter().map(|n| n as i32).collect(),
        winners: seats("winners")?,
        ranking: seats("ranking")?,
        by_safeguard: outcome["bySafeguard"]
            .as_bool()
            .ok_or_else(|| format!("outcome.bySafeguard is no boolean: {line}"))?,
        ..Default::default()
    })
}

/// The fields of an outcome a result line shows (not its tie-break keys).
pub(crate) fn result_fields(outcome: pb::Outcome) -> pb::Outcome {
    pb::Outcome {
        tie_breaks: Vec::new(),
        tie_break_names: Vec::new(),
        ..outcome
    }
}

/// Runs a Python bot for one seat; returns the outcome it printed.
fn python_bot(
    player: Player,
    addr: std::net::SocketAddr,
    game_id: String,
    token: String,
    seat: u32,
) -> Result<pb::Outcome, String> {
    let bin = venv_bin()?;
    let mut cmd;
    match player {
        Player::PythonScript(script) => {
            cmd = Command::new(bin.join("python"));
            cmd.arg(python_dir().join("examples").join(script))
                .args(["--server", &format!("http://{addr}"), "--game-id", &game_id])
                .args(["--token", &token]);
        }
        Player::PythonCli(strategy) => {
            cmd = Command::new(bin.join("druids-bot"));
            cmd.current_dir(python_dir())
                .args(["--strategy", strategy, "--game-id", &game_id])
                .env("DRUIDS_SERVER", addr.to_string())
                .env("DRUIDS_TOKEN", &token);
        }
        Player::Rust => unreachable!("not a Python bot"),
    }
    cmd.args(["--seed", &seat.to_string()]);
    let done = run_ok(cmd, GAME_TIMEOUT)?;
    let line = done.stdout.lines().last().unwrap_or_default();
    parse_result_line(line, &game_id, seat)
}

/// Takes the seat's pending decision, if any, choosing at random.
pub(crate) async fn decide(
    client: &mut DruidsServiceClient<Channel>,
    game_id: &str,
    token: &str,
    rng: &mut Lcg,
) -> Result<bool, tonic::Status> {
    for _ in 0..10 {
        let legal = client
            .get_legal_actions(authed(
                token,
                pb::GetLegalActionsRequest {
                    game_id: game_id.to_owned(),
                    all_payments: false,
                    ..Default::default()
                },
            ))
            .await?
            .into_inner();
        if legal.actions.is_empty() {
            return Ok(false);
        }
        let pick = legal.actions[rng.below(legal.actions.len())]
            .id
            .expect("default-list entries have ids");
        let submitted = client
            .submit_action(authed(
                token,
                pb::SubmitActionRequest {
                    game_id: game_id.to_owned(),
                    choice: Some(pb::submit_action_request::Choice::LegalActionId(pick)),
                    expected_version: Some(legal.version),
                    idempotency_key: format!("rust-s{}-v{}", legal.seat, legal.version),
                },
            ))
            .await;
        match submitted {
            Ok(_) => return Ok(true),
            Err(s) if s.code() == Code::Aborted => continue,
            Err(s) if s.code() == Code::FailedPrecondition => return Ok(false),
            Err(s) => return Err(s),
        }
    }
    Err(tonic::Status::aborted("the game kept moving on"))
}

/// A Rust bot: follows the seat's event stream and decides when asked;
/// returns the outcome it saw.
pub(crate) async fn rust_bot(
    url: String,
    game_id: String,
    token: String,
    seat: u32,
) -> Result<pb::Outcome, String> {
    let mut client = DruidsServiceClient::connect(url)
        .await
        .map_err(|e| format!("connect: {e}"))?;
    let mut rng = Lcg(0xD501D5 + u64::from(seat));
    let mut stream = client
        .stream_events(authed(
            &token,
            pb::StreamEventsRequest {
                game_id: game_id.clone(),
                from_seq: 0,
            },
        ))
        .await
        .map_err(|s| format!("stream_events: {s}"))?
        .into_inner();
    let mut outcome = None;
    while let Some(event) = stream.next().await {
        let event = event.map_err(|s| format!("stream: {s}"))?;
        let mine = match event.body {
            Some(Body::Snapshot(snap)) => {
                let st = snap.state.unwrap_or_default();
                if st.status == pb::GameStatus::Finished as i32 {
                    outcome = st.outcome;
                }
                st.to_act == Some(seat)
            }
            Some(Body::DecisionNeeded(d)) => d.seat == seat,
            Some(Body::GameFinished(f)) => {
                outcome = f.outcome;
                false
            }
            _ => false,
        };
        if mine {
            decide(&mut client, &game_id, &token, &mut rng)
                .await
                .map_err(|s| format!("decide: {s}"))?;
        }
    }
    outcome.ok_or_else(|| "the stream ended without GameFinished".to_owned())
}

/// Checks that every seat took decisions of its own (not only timeouts or
/// autopilot): the game's replay lists each applied action with its seat.
pub(crate) async fn assert_every_seat_decided(
    client: &mut DruidsServiceClient<Channel>,
    game_id: &str,
    names: &[String],
) {
    let replay = client
        .export_replay(pb::ExportReplayRequest {
            game_id: game_id.to_owned(),
        })
        .await
        .expect("export_replay")
        .into_inner();
    for (seat, name) in names.iter().enumerate() {
        let own = replay
            .actions
            .iter()
            .filter(|a| a.seat == seat as u32 && !a.timeout && !a.autopilot)
            .count();
        assert!(own > 0, "{name} never decided");
    }
}

/// Plays one game of `kind` with `players` (by seat) to the end and checks that
/// every client, and a spectator, saw the same finished outcome.
async fn play_cross_language(kind: pb::GameKind, players: &[Player], seed: u64) {
    let needs_python = players.iter().any(|p| !matches!(p, Player::Rust));
    if needs_python {
        let venv = tokio::task::spawn_blocking(venv_bin).await;
        if let Err(why) = venv.expect("setup task") {
            panic!(
                "cannot install the Python bot kit; this test needs Python 3.10+ with venv \
                 and, the first time, access to PyPI (https://pypi.org).\n{why}"
            );
        }
    }
    let server = TestServer::start().await;
    let mut client = server.client().await;
    let names: Vec<String> = players
        .iter()
        .enumerate()
        .map(|(seat, p)| match p {
            Player::PythonScript(script) => format!("python {script} (seat {seat})"),
            Player::PythonCli(strategy) => {
                format!("druids-bot --strategy {strategy} (seat {seat})")
            }
            Player::Rust => format!("rust random (seat {seat})"),
        })
        .collect();
    let created = client
        .create_game(pb::CreateGameRequest {
            kind: kind as i32,
            players: players.len() as u32,
            seed: Some(seed),
            seat_names: names.clone(),
            ..Default::default()
        })
        .await
        .expect("create_game")
        .into_inner();
    let game_id = created.game_id;
    assert_eq!(created.seats.len(), players.len(), "every seat is claimed");

    let mut bots = Vec::new();
    for (seat, player) in players.iter().enumerate() {
        let seat = seat as u32;
        let token = created.seats[seat as usize].token.clone();
        let (addr, id) = (server.addr, game_id.clone());
        let task = match *player {
            Player::Rust => tokio::spawn(rust_bot(server.url(), id, token, seat)),
            python => {
                tokio::task::spawn_blocking(move || python_bot(python, addr, id, token, seat))
            }
        };
        bots.push(task);
    }
    let seen = tokio::time::timeout(GAME_TIMEOUT + Duration::from_secs(5), async {
        let mut seen = Vec::new();
        for bot in bots {
            seen.push(bot.await.expect("bot task"));
        }
        seen
    })
    .await
    .unwrap_or_else(|_| panic!("the game did not finish within {GAME_TIMEOUT:?}"));

    let st = druids_tests::state(&mut client, &game_id, None).await;
    assert_eq!(
        st.status,
        pb::GameStatus::Finished as i32,
        "the game is over"
    );
    let outcome = st.outcome.expect("a finished game has an outcome");
    assert_eq!(outcome.scores.len(), players.len());
    assert!(!outcome.winners.is_empty());
    for (name, seen) in names.iter().zip(seen) {
        let seen = seen.unwrap_or_else(|e| panic!("{name}: {e}"));
        // A result line shows the outcome's result fields, not its
        // tie-break keys; a Rust bot's own stream shows them all.
        assert_eq!(
            result_fields(seen),
            result_fields(outcome.clone()),
            "{name} saw another outcome than the spectator"
        );
    }
    assert_every_seat_decided(&mut client, &game_id, &names).await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn python_and_rust_bots_play_meduris_to_the_same_end() {
    use Player::{PythonCli, PythonScript, Rust};
    play_cross_language(
        pb::GameKind::Meduris,
        &[
            PythonCli("random"),
            Rust,
            PythonScript("heuristic_bot.py"),
            Rust,
        ],
        7,
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn python_and_rust_bots_play_dolmen_to_the_same_end() {
    use Player::{PythonCli, PythonScript, Rust};
    play_cross_language(
        pb::GameKind::Dolmen,
        &[
            PythonScript("heuristic_bot.py"),
            Rust,
            PythonCli("examples/random_bot.py"),
            Rust,
        ],
        11,
    )
    .await;
}

/// A server on `addr` (port 0: any) keeping its games in `db`; returns
/// where it listens, the sender that stops it and its task.
async fn serve_on(
    addr: SocketAddr,
    db: &TestDb,
) -> (SocketAddr, oneshot::Sender<()>, tokio::task::JoinHandle<()>) {
    // The old server's port may take a moment to be free again (a deadline
    // that only guards a hang).
    let deadline = Instant::now() + Duration::from_secs(60);
    let listener = loop {
        match TcpListener::bind(addr).await {
            Ok(listener) => break listener,
            Err(e) => assert!(Instant::now() < deadline, "cannot bind {addr}: {e}"),
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    let addr = listener.local_addr().expect("addr");
    let (service, _) = druids_server::start(db.open(), Limits::unthrottled()).expect("start");
    let (stop, stopped) = oneshot::channel::<()>();
    let task = tokio::spawn(async move {
        druids_server::serve_service(listener, service, None, async {
            let _ = stopped.await;
        })
        .await
        .expect("serve");
    });
    (addr, stop, task)
}

/// Runs a kit's bot command to the end; returns the outcome it printed.
fn kit_bot(cmd: Command, game_id: &str, seat: u32) -> Result<pb::Outcome, String> {
    let done = run_ok(cmd, GAME_TIMEOUT)?;
    let line = done.stdout.lines().last().unwrap_or_default();
    parse_result_line(line, game_id, seat)
}

/// A bot of each kit (Python, TypeScript) plays a game while the server is
/// stopped and started again on the same port and database: each resumes its
/// event stream (and its pending decision) and plays on to the end.
async fn kit_bots_resume_after_a_server_restart(backend: Backend) {
    // Both kits at once (each is installed once per run of the test binary).
    let venv = tokio::task::spawn_blocking(venv_bin);
    let ts = tokio::task::spawn_blocking(crate::typescript::built_kit);
    let bin = venv
        .await
        .expect("setup task")
        .unwrap_or_else(|e| panic!("Python kit: {e}"));
    let ts_kit = ts
        .await
        .expect("setup task")
        .unwrap_or_else(|e| panic!("TypeScript kit: {e}"));
    let scratch = kits_dir().join(format!("restart-{backend:?}-{}", std::process::id()));
    std::fs::create_dir_all(&scratch).expect("scratch dir");
    let db = TestDb::new(backend, "kits_restart");
    // Strategies slow enough (15 ms a decision) for the restart to fall mid-game.
    let py_strategy = scratch.join("slow_bot.py");
    std::fs::write(
        &py_strategy,
        "import random, time\n\ndef choose(actions, state):\n    time.sleep(0.015)\n    return random.choice(actions)\n",
    )
    .expect("write slow_bot.py");
    let js_strategy = scratch.join("slow_bot.js");
    std::fs::write(
        &js_strategy,
        "exports.choose = async (actions) => {\n  await new Promise((r) => setTimeout(r, 15));\n  \
         return actions[Math.floor(Math.random() * actions.length)];\n};\n",
    )
    .expect("write slow_bot.js");

    let (addr, stop, task) = serve_on("127.0.0.1:0".parse().unwrap(), &db).await;
    let url = format!("http://{addr}");
    let mut client = DruidsServiceClient::connect(url.clone())
        .await
        .expect("connect");
    let (game_id, tokens) = druids_tests::create(&mut client, pb::GameKind::Meduris, 2, 5).await;
    let mut python = Command::new(bin.join("druids-bot"));
    python
        .args([
            "--server",
            &url,
            "--game-id",
            &game_id,
            "--token",
            &tokens[0],
        ])
        .arg("--strategy")
        .arg(&py_strategy);
    let mut node = Command::new("node");
    node.current_dir(&ts_kit)
        .args([
            "dist/src/cli.js",
            "--server",
            &url,
            "--game-id",
            &game_id,
            "--token",
            &tokens[1],
        ])
        .arg("--strategy")
        .arg(&js_strategy);
    let id = game_id.clone();
    let py = tokio::task::spawn_blocking(move || kit_bot(python, &id, 0));
    let id = game_id.clone();
    let js = tokio::task::spawn_blocking(move || kit_bot(node, &id, 1));

    // Let both seats decide a few times, then restart the server.
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let st = druids_tests::state(&mut client, &game_id, None).await;
        assert_eq!(
            st.status,
            pb::GameStatus::Running as i32,
            "the game is still on"
        );
        if st.version >= 6 {
            break;
        }
        assert!(Instant::now() < deadline, "the bots did not start playing");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    drop(client);
    let _ = stop.send(());
    task.await.expect("server task");
    // An outage of its own length (not a wait for anything): the bots find
    // the server gone and must keep trying until it is back.
    tokio::time::sleep(Duration::from_millis(300)).await;
    let (_, stop, task) = serve_on(addr, &db).await;

    let (py, js) = tokio::time::timeout(GAME_TIMEOUT + Duration::from_secs(5), async {
        (py.await.expect("python bot"), js.await.expect("node bot"))
    })
    .await
    .expect("the bots finish");
    let mut client = DruidsServiceClient::connect(url)
        .await
        .expect("connect again");
    let st = druids_tests::state(&mut client, &game_id, None).await;
    assert_eq!(
        st.status,
        pb::GameStatus::Finished as i32,
        "the game is over"
    );
    let outcome = result_fields(st.outcome.expect("outcome"));
    assert_eq!(py.unwrap_or_else(|e| panic!("python bot: {e}")), outcome);
    assert_eq!(js.unwrap_or_else(|e| panic!("node bot: {e}")), outcome);
    let names = [
        "python slow_bot (seat 0)".to_owned(),
        "node slow_bot (seat 1)".to_owned(),
    ];
    assert_every_seat_decided(&mut client, &game_id, &names).await;
    let _ = stop.send(());
    task.await.expect("server task");
    let _ = std::fs::remove_dir_all(&scratch);
}

/// A bot of each kit plays a game with a 60 ms turn clock and misses it on
/// every third decision (it thinks for 120 ms): the server applies the default
/// action, the late submission is refused, and the kit reads the game again
/// and plays on. Both must still report the server's outcome, and each seat
/// has timed out and decided itself. The strategies also check that the
/// deadline reaches them (`StateView.deadline_unix_ms`).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kit_bots_play_on_through_clock_timeouts() {
    let venv = tokio::task::spawn_blocking(venv_bin);
    let ts = tokio::task::spawn_blocking(crate::typescript::built_kit);
    let bin = venv
        .await
        .expect("setup task")
        .unwrap_or_else(|e| panic!("Python kit: {e}"));
    let ts_kit = ts
        .await
        .expect("setup task")
        .unwrap_or_else(|e| panic!("TypeScript kit: {e}"));
    let scratch = kits_dir().join(format!("clock-{}", std::process::id()));
    std::fs::create_dir_all(&scratch).expect("scratch dir");
    let py_strategy = scratch.join("late_bot.py");
    std::fs::write(
        &py_strategy,
        "import itertools, random, time\n\ncalls = itertools.count(1)\n\n\
         def choose(actions, state):\n    \
             if not state.HasField('deadline_unix_ms'):\n        \
                 raise RuntimeError('no deadline in the state')\n    \
             if next(calls) % 3 == 0:\n        time.sleep(0.12)\n    \
             return random.choice(actions)\n",
    )
    .expect("write late_bot.py");
    let js_strategy = scratch.join("late_bot.js");
    std::fs::write(
        &js_strategy,
        "let calls = 0;\nexports.choose = async (actions, state) => {\n  \
         if (state.deadlineUnixMs === undefined) throw new Error('no deadline in the state');\n  \
         if (++calls % 3 === 0) await new Promise((r) => setTimeout(r, 120));\n  \
         return actions[Math.floor(Math.random() * actions.length)];\n};\n",
    )
    .expect("write late_bot.js");

    let server = TestServer::start().await;
    let mut client = server.client().await;
    let created = client
        .create_game(pb::CreateGameRequest {
            kind: pb::GameKind::Dolmen as i32,
            players: 2,
            seed: Some(13),
            options: Some(pb::GameOptions {
                decision_ms: Some(60),
                ..Default::default()
            }),
            ..Default::default()
        })
        .await
        .expect("create_game")
        .into_inner();
    let game_id = created.game_id;
    let url = server.url();
    let mut python = Command::new(bin.join("druids-bot"));
    python
        .args(["--server", &url, "--game-id", &game_id])
        .args(["--token", &created.seats[0].token])
        .arg("--strategy")
        .arg(&py_strategy);
    let mut node = Command::new("node");
    node.current_dir(&ts_kit)
        .args(["dist/src/cli.js", "--server", &url, "--game-id", &game_id])
        .args(["--token", &created.seats[1].token])
        .arg("--strategy")
        .arg(&js_strategy);
    let id = game_id.clone();
    let py = tokio::task::spawn_blocking(move || kit_bot(python, &id, 0));
    let id = game_id.clone();
    let js = tokio::task::spawn_blocking(move || kit_bot(node, &id, 1));
    let (py, js) = tokio::time::timeout(GAME_TIMEOUT + Duration::from_secs(5), async {
        (py.await.expect("python bot"), js.await.expect("node bot"))
    })
    .await
    .expect("the bots finish");
    let st = druids_tests::state(&mut client, &game_id, None).await;
    assert_eq!(
        st.status,
        pb::GameStatus::Finished as i32,
        "the game is over"
    );
    let outcome = result_fields(st.outcome.expect("outcome"));
    assert_eq!(py.unwrap_or_else(|e| panic!("python bot: {e}")), outcome);
    assert_eq!(js.unwrap_or_else(|e| panic!("node bot: {e}")), outcome);
    let names = [
        "python late_bot (seat 0)".to_owned(),
        "node late_bot (seat 1)".to_owned(),
    ];
    assert_every_seat_decided(&mut client, &game_id, &names).await;
    let replay = client
        .export_replay(pb::ExportReplayRequest {
            game_id: game_id.clone(),
        })
        .await
        .expect("export_replay")
        .into_inner();
    for (seat, name) in names.iter().enumerate() {
        let timeouts = replay
            .actions
            .iter()
            .filter(|a| a.seat == seat as u32 && a.timeout)
            .count();
        assert!(
            timeouts > 0,
            "{name} never missed its clock: the test proves nothing"
        );
    }
    server.stop().await;
    let _ = std::fs::remove_dir_all(&scratch);
}

/// A bot of each kit plays over TLS (`--server https://...`) trusting a
/// self-signed certificate given with `--ca-cert`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kit_bots_play_over_tls_with_a_trusted_certificate() {
    use tonic::transport::{Certificate, ClientTlsConfig, Endpoint};

    let venv = tokio::task::spawn_blocking(venv_bin);
    let ts = tokio::task::spawn_blocking(crate::typescript::built_kit);
    let bin = venv
        .await
        .expect("setup task")
        .unwrap_or_else(|e| panic!("Python kit: {e}"));
    let ts_kit = ts
        .await
        .expect("setup task")
        .unwrap_or_else(|e| panic!("TypeScript kit: {e}"));
    let cert =
        rcgen::generate_simple_self_signed(vec!["localhost".to_owned()]).expect("certificate");
    let cert_pem = cert.cert.pem();
    let scratch = kits_dir().join(format!("tls-{}", std::process::id()));
    std::fs::create_dir_all(&scratch).expect("scratch dir");
    let ca = scratch.join("cert.pem");
    std::fs::write(&ca, &cert_pem).expect("write cert.pem");
    let server = TestServer::with_tls(druids_server::Tls {
        cert_pem: cert_pem.clone().into_bytes(),
        key_pem: cert.signing_key.serialize_pem().into_bytes(),
    })
    .await;
    let url = format!("https://localhost:{}", server.addr.port());
    let tls = ClientTlsConfig::new()
        .ca_certificate(Certificate::from_pem(&cert_pem))
        .domain_name("localhost");
    let channel = Endpoint::from_shared(url.clone())
        .expect("url")
        .tls_config(tls)
        .expect("tls")
        .connect()
        .await
        .expect("connect over TLS");
    let mut client = DruidsServiceClient::new(channel);
    let (game_id, tokens) = druids_tests::create(&mut client, pb::GameKind::Meduris, 2, 17).await;
    let mut python = Command::new(bin.join("druids-bot"));
    python
        .args([
            "--server",
            &url,
            "--game-id",
            &game_id,
            "--token",
            &tokens[0],
        ])
        .arg("--ca-cert")
        .arg(&ca);
    let mut node = Command::new("node");
    node.current_dir(&ts_kit)
        .args([
            "dist/src/cli.js",
            "--server",
            &url,
            "--game-id",
            &game_id,
            "--token",
            &tokens[1],
        ])
        .arg("--ca-cert")
        .arg(&ca);
    let id = game_id.clone();
    let py = tokio::task::spawn_blocking(move || kit_bot(python, &id, 0));
    let id = game_id.clone();
    let js = tokio::task::spawn_blocking(move || kit_bot(node, &id, 1));
    let (py, js) = tokio::time::timeout(GAME_TIMEOUT + Duration::from_secs(5), async {
        (py.await.expect("python bot"), js.await.expect("node bot"))
    })
    .await
    .expect("the bots finish");
    let st = druids_tests::state(&mut client, &game_id, None).await;
    let outcome = result_fields(st.outcome.expect("the game is over"));
    assert_eq!(
        py.unwrap_or_else(|e| panic!("python bot over TLS: {e}")),
        outcome
    );
    assert_eq!(
        js.unwrap_or_else(|e| panic!("node bot over TLS: {e}")),
        outcome
    );
    server.stop().await;
    let _ = std::fs::remove_dir_all(&scratch);
}

/// The Python kit's public API is typed: the installed package (generated
/// stubs excluded, as configured in its pyproject.toml) and the examples pass
/// `mypy --strict`.
#[test]
fn the_python_kit_type_checks_strictly() {
    let bin = venv_bin().unwrap_or_else(|e| panic!("Python kit: {e}"));
    let mut install = Command::new(bin.join("pip"));
    install
        .args([
            "install",
            "--disable-pip-version-check",
            "--no-input",
            "-q",
            "mypy==2.4.1",
        ])
        .env("PIP_CACHE_DIR", kits_dir().join("pip-cache"))
        .env("PIP_DEFAULT_TIMEOUT", "20");
    let installing = druids_tests::install::lock();
    run_ok(install, Duration::from_secs(180))
        .unwrap_or_else(|e| panic!("cannot install mypy: {e}"));
    drop(installing);
    let config = python_dir().join("pyproject.toml");
    for target in [
        vec!["-p".to_owned(), "druids_bot".to_owned()],
        std::fs::read_dir(python_dir().join("examples"))
            .expect("examples")
            .map(|e| e.expect("entry").path().display().to_string())
            .filter(|p| p.ends_with(".py"))
            .collect(),
    ] {
        let mut mypy = Command::new(bin.join("mypy"));
        // From outside the source tree, so the installed package is checked.
        mypy.current_dir(kits_dir())
            .arg("--config-file")
            .arg(&config)
            .args(&target)
            .env("MYPY_CACHE_DIR", kits_dir().join("mypy-cache"));
        run_ok(mypy, Duration::from_secs(180)).unwrap_or_else(|e| panic!("mypy {target:?}: {e}"));
    }
}

/// A strategy that returns an action the rules refuse (a druid on an occupied
/// site) ends the kit's bot with a clear error (exit code 1) instead of a
/// game stuck on its seat.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kit_bots_report_an_action_the_rules_refuse() {
    let venv = tokio::task::spawn_blocking(venv_bin);
    let ts = tokio::task::spawn_blocking(crate::typescript::built_kit);
    let bin = venv
        .await
        .expect("setup task")
        .unwrap_or_else(|e| panic!("Python kit: {e}"));
    let ts_kit = ts
        .await
        .expect("setup task")
        .unwrap_or_else(|e| panic!("TypeScript kit: {e}"));
    let scratch = kits_dir().join(format!("illegal-{}", std::process::id()));
    std::fs::create_dir_all(&scratch).expect("scratch dir");
    let py_strategy = scratch.join("illegal_bot.py");
    std::fs::write(
        &py_strategy,
        "from druids_bot import dolmen_pb2, pb\n\nfirst = []\n\n\
         def choose(actions, state):\n    \
             if not first:\n        \
                 first.append(actions[0].action.dolmen.place_druid.site)\n        \
                 return actions[0]\n    \
             d = dolmen_pb2.DolmenAction\n    \
             return pb.Action(dolmen=d(place_druid=d.PlaceDruid(site=first[0])))\n",
    )
    .expect("write illegal_bot.py");
    let js_strategy = scratch.join("illegal_bot.js");
    std::fs::write(
        &js_strategy,
        "let site;\nexports.choose = (actions) => {\n  \
         if (site === undefined) { site = actions[0].action.dolmen.placeDruid.site; return actions[0]; }\n  \
         return { dolmen: { placeDruid: { site } } };\n};\n",
    )
    .expect("write illegal_bot.js");
    let server = TestServer::start().await;
    let mut client = server.client().await;
    let url = server.url();
    let mut runs = Vec::new();
    for kit in ["python", "node"] {
        let (game_id, tokens) = druids_tests::create(&mut client, pb::GameKind::Dolmen, 2, 4).await;
        let rival = tokio::spawn(rust_bot(url.clone(), game_id.clone(), tokens[1].clone(), 1));
        let mut cmd;
        if kit == "python" {
            cmd = Command::new(bin.join("druids-bot"));
            cmd.arg("--strategy").arg(&py_strategy);
        } else {
            cmd = Command::new("node");
            cmd.current_dir(&ts_kit)
                .arg("dist/src/cli.js")
                .arg("--strategy")
                .arg(&js_strategy);
        }
        cmd.args([
            "--server",
            &url,
            "--game-id",
            &game_id,
            "--token",
            &tokens[0],
        ]);
        runs.push((
            kit,
            rival,
            tokio::task::spawn_blocking(move || run_with_timeout(cmd, GAME_TIMEOUT)),
        ));
    }
    for (kit, rival, run) in runs {
        let done = run
            .await
            .expect("bot task")
            .unwrap_or_else(|e| panic!("{kit}: {e}"));
        assert_eq!(
            done.status.code(),
            Some(1),
            "{kit} exits with 1:\n{}",
            done.stderr
        );
        assert!(
            done.stderr.contains("refused the action"),
            "{kit} says the action was refused:\n{}",
            done.stderr
        );
        rival.abort();
    }
    server.stop().await;
    let _ = std::fs::remove_dir_all(&scratch);
}
