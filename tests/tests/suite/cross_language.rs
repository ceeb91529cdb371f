//! Cross-language end-to-end: bots written in Python (the `bots/python` kit, run
//! as subprocesses) and in Rust (the generated client, in-process tasks) play
//! one 4-player game of each title (Meduris, Die Dolmengötter) together against
//! a real server over TCP, each seat following its own event stream. Every
//! client must see the same final outcome.
//!
//! The Python virtualenv `bots/python/.venv` is made by `bots/python/setup_venv.sh`
//! (from PyPI the first time, reused afterwards). If it cannot be made, the test
//! fails and says why.
#![cfg(unix)]

use std::io::Read;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use druids::pb;
use druids::pb::druids_service_client::DruidsServiceClient;
use druids::pb::game_event::Body;
use druids_tests::{Lcg, TestServer, authed};
use tokio_stream::StreamExt;
use tonic::Code;
use tonic::transport::Channel;

/// Creating the venv from PyPI (first run only; about a minute at most).
const SETUP_TIMEOUT: Duration = Duration::from_secs(150);
/// One whole game, every bot included (a few seconds in practice).
const GAME_TIMEOUT: Duration = Duration::from_secs(60);

/// Who plays a seat.
#[derive(Clone, Copy, Debug)]
enum Player {
    /// A Python example bot: the script's name under `bots/python/examples/`.
    Python(&'static str),
    /// A Rust bot choosing at random, in this process.
    Rust,
}

/// What one client saw at the end of the game.
#[derive(Debug)]
struct Seen {
    outcome: pb::Outcome,
    decisions: u64,
}

fn python_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join("bots")
        .join("python")
}

/// A finished subprocess: exit status and everything it printed.
struct Finished {
    status: ExitStatus,
    stdout: String,
    stderr: String,
}

/// Runs `cmd` in its own process group; kills the whole group after `timeout`.
fn run_with_timeout(mut cmd: Command, timeout: Duration) -> Result<Finished, String> {
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

/// The venv's python, after making the venv if needed (once per test binary).
fn python() -> Result<PathBuf, String> {
    static PYTHON: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    PYTHON
        .get_or_init(|| {
            let dir = python_dir();
            let mut cmd = Command::new("bash");
            cmd.arg(dir.join("setup_venv.sh"))
                // Fail in bounded time when PyPI cannot be reached.
                .env("PIP_DEFAULT_TIMEOUT", "20")
                .env("PIP_RETRIES", "2");
            let done = run_with_timeout(cmd, SETUP_TIMEOUT)?;
            if !done.status.success() {
                return Err(format!(
                    "bots/python/setup_venv.sh failed ({}):\n{}{}",
                    done.status, done.stdout, done.stderr
                ));
            }
            Ok(dir.join(".venv").join("bin").join("python"))
        })
        .clone()
}

/// Runs a Python example bot for one seat; returns the outcome it printed.
fn python_bot(
    python: PathBuf,
    script: &str,
    url: String,
    game_id: String,
    token: String,
    seat: u32,
) -> Result<Seen, String> {
    let mut cmd = Command::new(python);
    cmd.arg(python_dir().join("examples").join(script))
        .args(["--server", &url, "--game-id", &game_id, "--token", &token])
        .args(["--seed", &seat.to_string()]);
    let done = run_with_timeout(cmd, GAME_TIMEOUT)?;
    if !done.status.success() {
        return Err(format!(
            "{script} failed ({}):\n{}",
            done.status, done.stderr
        ));
    }
    let line = done.stdout.lines().last().unwrap_or_default();
    let json: serde_json::Value = serde_json::from_str(line)
        .map_err(|e| format!("{script} printed no JSON result ({e}): {:?}", done.stdout))?;
    let numbers = |key: &str| -> Vec<i64> {
        json["outcome"][key]
            .as_array()
            .map(|a| a.iter().filter_map(|v| v.as_i64()).collect())
            .unwrap_or_default()
    };
    let seats = |key: &str| numbers(key).into_iter().map(|n| n as u32).collect();
    if json["game_id"] != game_id.as_str() || json["seat"] != seat {
        return Err(format!("{script} reports another game or seat: {line}"));
    }
    Ok(Seen {
        outcome: pb::Outcome {
            scores: numbers("scores").into_iter().map(|n| n as i32).collect(),
            winners: seats("winners"),
            ranking: seats("ranking"),
            by_safeguard: json["outcome"]["by_safeguard"] == true,
        },
        decisions: json["decisions"].as_u64().unwrap_or(0),
    })
}

/// Takes the seat's pending decision, if any, choosing at random.
async fn decide(
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

/// A Rust bot: follows the seat's event stream and decides when asked.
async fn rust_bot(url: String, game_id: String, token: String, seat: u32) -> Result<Seen, String> {
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
    let mut decisions = 0;
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
        if mine
            && decide(&mut client, &game_id, &token, &mut rng)
                .await
                .map_err(|s| format!("decide: {s}"))?
        {
            decisions += 1;
        }
    }
    let outcome = outcome.ok_or("the stream ended without GameFinished")?;
    Ok(Seen { outcome, decisions })
}

/// Plays one game of `kind` with `players` (by seat) to the end and checks that
/// every client, and a spectator, saw the same finished outcome.
async fn play_cross_language(kind: pb::GameKind, players: &[Player], seed: u64) {
    let needs_python = players.iter().any(|p| matches!(p, Player::Python(_)));
    if needs_python {
        let venv = tokio::task::spawn_blocking(python).await;
        if let Err(why) = venv.expect("setup task") {
            panic!(
                "cannot set up the Python bot kit; this test needs Python 3.9+ and, the \
                 first time, access to PyPI (https://pypi.org) to create bots/python/.venv.\n{why}"
            );
        }
    }
    let server = TestServer::start().await;
    let mut client = server.client().await;
    let names: Vec<String> = players
        .iter()
        .enumerate()
        .map(|(seat, p)| match p {
            Player::Python(script) => format!("python {script} (seat {seat})"),
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
        let (url, id) = (server.url(), game_id.clone());
        let task = match *player {
            Player::Python(script) => tokio::task::spawn_blocking(move || {
                python_bot(python()?, script, url, id, token, seat)
            }),
            Player::Rust => tokio::spawn(rust_bot(url, id, token, seat)),
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
        assert_eq!(
            seen.outcome, outcome,
            "{name} saw another outcome than the spectator"
        );
        assert!(seen.decisions > 0, "{name} never decided");
    }
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn python_and_rust_bots_play_meduris_to_the_same_end() {
    use Player::{Python, Rust};
    play_cross_language(
        pb::GameKind::Meduris,
        &[
            Python("random_bot.py"),
            Rust,
            Python("heuristic_bot.py"),
            Rust,
        ],
        7,
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn python_and_rust_bots_play_dolmen_to_the_same_end() {
    use Player::{Python, Rust};
    play_cross_language(
        pb::GameKind::Dolmen,
        &[
            Python("heuristic_bot.py"),
            Rust,
            Python("random_bot.py"),
            Rust,
        ],
        11,
    )
    .await;
}
