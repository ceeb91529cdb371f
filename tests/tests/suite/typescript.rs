//! The TypeScript kit (`bots/typescript`) end to end: `npm ci` installs it
//! (npm's cache in `target/kits/npm-cache`, so only the first run downloads),
//! `npm run build` generates its types and compiles it with `tsc`, then its
//! bots (the `druids-bot` command and the compiled examples, as Node
//! subprocesses) play one complete game of each title against Rust bots on a
//! real server. Every bot must report the outcome the server reports, in the
//! shared result line, and every seat must have decided. Without Node 20+ and
//! npm the test fails and says why.
#![cfg(unix)]

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::Command;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use druids_contract::pb;
use druids_tests::TestServer;

use crate::cross_language::{
    GAME_TIMEOUT, assert_every_seat_decided, kits_dir, parse_result_line, repo_root, run_ok,
    rust_bot,
};

/// `npm ci` (first run: from the npm registry) and `npm run build`.
const SETUP_TIMEOUT: Duration = Duration::from_secs(240);

/// Who plays a seat.
#[derive(Clone, Copy, Debug)]
enum Player {
    /// The kit's `druids-bot` command with a strategy, configured by the
    /// environment: `DRUIDS_SERVER=host:port DRUIDS_TOKEN=... druids-bot --strategy S`.
    Cli(&'static str),
    /// A compiled example run by node: `node dist/examples/<name> --server http://...`.
    Example(&'static str),
    /// A Rust bot choosing at random, in this process.
    Rust,
}

fn kit_dir() -> PathBuf {
    repo_root().join("bots").join("typescript")
}

/// Installs and builds the kit (once per run of the test binary).
pub(crate) fn built_kit() -> Result<PathBuf, String> {
    static KIT: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    KIT.get_or_init(|| {
        let started = Instant::now();
        druids_tests::install::node_and_npm();
        let mut node = Command::new("node");
        node.args([
            "-e",
            "process.exit(Number(process.versions.node.split('.')[0]) >= 20 ? 0 : 1)",
        ]);
        run_ok(node, Duration::from_secs(30))
            .map_err(|e| format!("Node.js 20 or newer is needed: {e}"))?;
        let npm = |args: &[&str]| {
            let mut cmd = Command::new("npm");
            cmd.current_dir(kit_dir())
                .args(args)
                .env("npm_config_cache", kits_dir().join("npm-cache"))
                .env("npm_config_update_notifier", "false")
                .env("npm_config_fund", "false")
                .env("npm_config_audit", "false");
            cmd
        };
        let installing = druids_tests::install::lock();
        run_ok(
            npm(&[
                "ci",
                "--prefer-offline",
                "--ignore-scripts",
                "--no-audit",
                "--no-fund",
            ]),
            SETUP_TIMEOUT,
        )
        .map_err(|e| {
            format!("{e}\n(is npm installed, and the npm registry reachable the first time?)")
        })?;
        drop(installing);
        run_ok(npm(&["run", "build"]), SETUP_TIMEOUT)?;
        eprintln!(
            "typescript: npm ci + npm run build in {:.1?}",
            started.elapsed()
        );
        Ok(kit_dir())
    })
    .clone()
}

/// Runs a TypeScript bot for one seat; returns the outcome it printed.
fn node_bot(
    player: Player,
    addr: SocketAddr,
    game_id: String,
    token: String,
    seat: u32,
) -> Result<pb::Outcome, String> {
    let kit = built_kit()?;
    let mut cmd = match player {
        // The package's bin run as `npx druids-bot` runs it: by its `#!`
        // line, so the build must have left it executable.
        Player::Cli(_) => Command::new(kit.join("dist").join("src").join("cli.js")),
        _ => Command::new("node"),
    };
    cmd.current_dir(&kit);
    match player {
        Player::Cli(strategy) => {
            cmd.args(["--strategy", strategy, "--game-id", &game_id])
                .env("DRUIDS_SERVER", addr.to_string())
                .env("DRUIDS_TOKEN", &token);
        }
        Player::Example(script) => {
            cmd.arg(kit.join("dist").join("examples").join(script))
                .args(["--server", &format!("http://{addr}"), "--game-id", &game_id])
                .args(["--token", &token]);
        }
        Player::Rust => unreachable!("not a TypeScript bot"),
    }
    cmd.args(["--seed", &seat.to_string()]);
    let done = run_ok(cmd, GAME_TIMEOUT)?;
    let line = done.stdout.lines().last().unwrap_or_default();
    parse_result_line(line, &game_id, seat)
}

/// Plays one game of `kind` with `players` (by seat) and checks that every bot
/// saw the outcome the server reports.
async fn play_with_typescript(kind: pb::GameKind, players: &[Player], seed: u64) {
    if let Err(why) = tokio::task::spawn_blocking(built_kit)
        .await
        .expect("setup task")
    {
        panic!("cannot install and build the TypeScript bot kit (bots/typescript):\n{why}");
    }
    let server = TestServer::start().await;
    let mut client = server.client().await;
    let names: Vec<String> = players
        .iter()
        .enumerate()
        .map(|(seat, p)| match p {
            Player::Cli(strategy) => format!("druids-bot --strategy {strategy} (seat {seat})"),
            Player::Example(script) => format!("node {script} (seat {seat})"),
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
    let mut bots = Vec::new();
    for (seat, player) in players.iter().enumerate() {
        let seat = seat as u32;
        let token = created.seats[seat as usize].token.clone();
        let (addr, id) = (server.addr, game_id.clone());
        bots.push(match *player {
            Player::Rust => tokio::spawn(rust_bot(server.url(), id, token, seat)),
            node => tokio::task::spawn_blocking(move || node_bot(node, addr, id, token, seat)),
        });
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
    let outcome =
        crate::cross_language::result_fields(st.outcome.expect("a finished game has an outcome"));
    assert_eq!(outcome.scores.len(), players.len());
    for (name, seen) in names.iter().zip(seen) {
        let seen = seen.unwrap_or_else(|e| panic!("{name}: {e}"));
        // A result line shows the result fields; a Rust bot's stream all.
        assert_eq!(
            crate::cross_language::result_fields(seen),
            outcome,
            "{name} saw another outcome than the server"
        );
    }
    assert_every_seat_decided(&mut client, &game_id, &names).await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn typescript_and_rust_bots_play_meduris_to_the_same_end() {
    use Player::{Cli, Example, Rust};
    play_with_typescript(
        pb::GameKind::Meduris,
        &[Cli("random"), Rust, Example("builder_bot.js")],
        21,
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn typescript_and_rust_bots_play_dolmen_to_the_same_end() {
    use Player::{Cli, Example, Rust};
    play_with_typescript(
        pb::GameKind::Dolmen,
        &[
            Example("random_bot.js"),
            Rust,
            Cli("dist/examples/builder_bot.js"),
            Rust,
        ],
        23,
    )
    .await;
}
