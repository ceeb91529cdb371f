//! `druids conformance`: grades a client (any program, or a line-protocol
//! bot through the bridge with `--exec`) against a server in test-faults
//! mode. Each scenario makes a game with a fault plan, starts the client
//! once with its seat, plays the other seats itself, and judges the client
//! from the server's ledger (docs/testing-clients.md).

mod judge;
mod report;
mod run;
mod scenarios;
mod server;

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use clap::Args;

use crate::args::game_kind;
use crate::connect::{CliError, ServerAddr};
use crate::output::{self, outln};
use report::{Row, shell_quote};
use run::ClientCommand;
use scenarios::{Choice, Scenario};

#[derive(Args, Clone, Debug)]
pub struct ConformanceArgs {
    /// Only this game: its whole games, and the fault scenarios on it
    /// [default: every game; faults on the first].
    #[arg(long, value_parser = game_kind())]
    pub game: Option<druids_contract::Kind>,
    /// Only this many players [default: every count; faults with the fewest].
    #[arg(long)]
    pub players: Option<u32>,
    /// Only the scenarios this selects: a name, a leading part of one up to
    /// a `/` (`stream`), or a glob (`*/lost/*`).
    #[arg(long, value_name = "PATTERN")]
    pub only: Option<String>,
    /// List the scenarios (name and what each sets up) and exit.
    #[arg(long)]
    pub list: bool,
    /// Seed of the games (each scenario's own seed is derived from it and
    /// its name, so a scenario run alone plays the same game).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Write JUnit XML here.
    #[arg(long, value_name = "FILE")]
    pub junit: Option<PathBuf>,
    /// Write the results as JSON here.
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
    /// Scenarios expected to fail, one name or pattern a line (`#`
    /// comments): they do not fail the run, and one that passes does.
    #[arg(long, value_name = "FILE")]
    pub known_failing: Option<PathBuf>,
    /// Grade a line-protocol bot (as `druids bot --exec CMD` runs it)
    /// instead of a command after `--`.
    #[arg(long, value_name = "CMD", conflicts_with = "command")]
    pub exec: Option<String>,
    /// Scenarios run at once [default: the number of cores].
    #[arg(long)]
    pub jobs: Option<usize>,
    /// The druids-server binary to start [default: the one beside this
    /// program, else druids-server on the PATH]. Unused with --server.
    #[arg(long, env = "DRUIDS_SERVER_BIN")]
    pub server_bin: Option<PathBuf>,
    /// The client under test and its arguments; `{server}`, `{game_id}` and
    /// `{token}` are replaced (also given as DRUIDS_SERVER, DRUIDS_GAME_ID
    /// and DRUIDS_TOKEN in its environment).
    #[arg(last = true, value_name = "CMD ARGS")]
    pub command: Vec<String>,
}

/// Runs the scenarios; exit status 1 when one FAILED (and is not known to),
/// or one known to fail did not.
pub async fn conformance(
    server: Option<ServerAddr>,
    args: ConformanceArgs,
) -> Result<ExitCode, CliError> {
    let choice = Choice {
        kind: args.game,
        players: args.players,
    };
    if let (Some(k), Some(p)) = (args.game, args.players)
        && !k.descriptor().players().contains(&(p as usize))
    {
        return Err(CliError::Usage(format!("{k} is not played by {p}")));
    }
    let scenarios: Vec<Scenario> = scenarios::all(choice)
        .into_iter()
        .filter(|s| {
            args.only
                .as_deref()
                .is_none_or(|p| scenarios::matches(p, &s.name))
        })
        .collect();
    if args.list {
        // A closed stdout (`--list | head`) ends the command quietly (main).
        for s in &scenarios {
            outln!("{:<38} {}", s.name, s.about)?;
        }
        return Ok(ExitCode::SUCCESS);
    }
    if scenarios.is_empty() {
        return Err(CliError::Usage("no scenario matches --only".into()));
    }
    let client = client_command(&args)?;
    let known = match &args.known_failing {
        Some(path) => {
            let every = scenarios::all(Choice {
                kind: None,
                players: None,
            });
            let names: Vec<String> = every.into_iter().map(|s| s.name).collect();
            report::known_failing(path, &names)?
        }
        None => vec![],
    };
    let own;
    let addr = match server.clone() {
        Some(a) => {
            server::probe(&a).await?;
            a
        }
        None => {
            own = server::start(server::binary(args.server_bin.clone())).await?;
            own.addr.clone()
        }
    };
    let jobs = args
        .jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(2, |n| n.get()))
        .max(1);
    let gate = Arc::new(tokio::sync::Semaphore::new(jobs));
    let mut running = tokio::task::JoinSet::new();
    for (i, sc) in scenarios.iter().cloned().enumerate() {
        let (gate, addr, client) = (gate.clone(), addr.clone(), client.clone());
        let seed = scenario_seed(args.seed, &sc.name);
        running.spawn(async move {
            let _slot = gate.acquire_owned().await.expect("never closed");
            let graded = run::run(&addr, &sc, seed, &client).await;
            (i, seed, graded)
        });
    }
    let total = scenarios.len();
    let mut rows: Vec<Option<Row>> = (0..total).map(|_| None).collect();
    let mut done = 0;
    while let Some(finished) = running.join_next().await {
        let (i, seed, graded) = finished?;
        // A server that does not serve test faults grades nothing: stop
        // (the other scenarios end with `running`).
        let graded = match graded {
            Err(e @ CliError::NoTestFaults { .. }) => return Err(e),
            graded => graded.map_err(|e| e.to_string()),
        };
        done += 1;
        let row = Row {
            scenario: &scenarios[i],
            seed,
            graded,
            known_failing: report::listed(&known, &scenarios[i].name),
        };
        eprintln!("{}", row.line(done, total));
        rows[i] = Some(row);
    }
    let rows: Vec<Row> = rows
        .into_iter()
        .map(|r| r.expect("every scenario ran"))
        .collect();
    let rerun = |name: &str| rerun_command(server.as_ref(), &args, name);
    // A closed stdout (`| head`) still leaves the files and the exit status.
    match output::text(report::table(&rows, rerun)) {
        Err(e) if !e.is_broken_pipe() => return Err(e),
        _ => {}
    }
    if let Some(path) = &args.junit {
        std::fs::write(path, report::junit(&rows)).map_err(|e| CliError::file(path, e))?;
    }
    if let Some(path) = &args.json {
        let text = serde_json::to_string_pretty(&report::json(&rows, args.seed, &client.0))
            .expect("JSON values serialize");
        std::fs::write(path, text + "\n").map_err(|e| CliError::file(path, e))?;
    }
    Ok(if rows.iter().any(Row::fails_run) {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

/// The program graded: the command after `--`, or this program's own
/// bridge around `--exec`.
fn client_command(args: &ConformanceArgs) -> Result<ClientCommand, CliError> {
    if let Some(exec) = &args.exec {
        let me = std::env::current_exe()?;
        let me = me.to_string_lossy().into_owned();
        let bridge = ["bot", "--server", "{server}", "--game-id", "{game_id}"];
        let mut argv = vec![me];
        argv.extend(bridge.iter().map(|s| s.to_string()));
        argv.extend([
            "--token".into(),
            "{token}".into(),
            "--exec".into(),
            exec.clone(),
        ]);
        return Ok(ClientCommand(argv));
    }
    if args.command.is_empty() {
        return Err(CliError::Usage(
            "name the client to grade: druids conformance -- CMD ARGS…, or --exec CMD".into(),
        ));
    }
    Ok(ClientCommand(args.command.clone()))
}

/// A scenario's game seed: from the run's seed and its name only, so that
/// `--only` replays the very same game.
fn scenario_seed(seed: u64, name: &str) -> u64 {
    // FNV-1a: stable across builds and platforms.
    name.bytes().fold(0xcbf2_9ce4_8422_2325 ^ seed, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// The command that reruns only `name`, as this run was asked.
fn rerun_command(server: Option<&ServerAddr>, args: &ConformanceArgs, name: &str) -> String {
    let mut argv: Vec<String> = vec!["druids".into(), "conformance".into()];
    if let Some(s) = server {
        argv.extend(["--server".into(), s.url.clone()]);
    }
    if let Some(k) = args.game {
        argv.extend(["--game".into(), k.name().into()]);
    }
    if let Some(p) = args.players {
        argv.extend(["--players".into(), p.to_string()]);
    }
    argv.extend([
        "--seed".into(),
        args.seed.to_string(),
        "--only".into(),
        name.into(),
    ]);
    match &args.exec {
        Some(exec) => argv.extend(["--exec".into(), exec.clone()]),
        None => {
            argv.push("--".into());
            argv.extend(args.command.iter().cloned());
        }
    }
    argv.iter()
        .map(|a| shell_quote(a))
        .collect::<Vec<_>>()
        .join(" ")
}
