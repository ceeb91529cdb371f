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

mod clocks;
mod mixed_games;
mod refusals;
mod restart;
mod tls;
mod typing;

use std::io::Read;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use druids_contract::pb;
use druids_contract::pb::druids_service_client::DruidsServiceClient;
use druids_contract::pb::game_event::Body;
use druids_tests::{Lcg, authed};
use tokio_stream::StreamExt;
use tonic::Code;
use tonic::transport::Channel;

/// Making the venv and installing the kit (a minute at most from PyPI; seconds
/// from the cache).
const SETUP_TIMEOUT: Duration = Duration::from_secs(180);

/// One whole game, every bot included (a few seconds in practice).
pub(crate) const GAME_TIMEOUT: Duration = Duration::from_secs(60);

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

/// Runs a kit's bot command to the end; returns the outcome it printed.
fn kit_bot(cmd: Command, game_id: &str, seat: u32) -> Result<pb::Outcome, String> {
    let done = run_ok(cmd, GAME_TIMEOUT)?;
    let line = done.stdout.lines().last().unwrap_or_default();
    parse_result_line(line, game_id, seat)
}
