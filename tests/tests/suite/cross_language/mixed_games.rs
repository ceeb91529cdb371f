//! Python and Rust bots at one table: a 4-player game of each title, every
//! client seeing the same end and every seat having decided.

use std::process::Command;
use std::time::Duration;

use druids_contract::pb;
use druids_tests::TestServer;

use super::{
    GAME_TIMEOUT, assert_every_seat_decided, parse_result_line, python_dir, result_fields, run_ok,
    rust_bot, venv_bin,
};

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
