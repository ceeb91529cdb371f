//! `druids selfplay`: many complete games between random bots, reported as
//! one JSON line of totals; through a server (`--server`: every seat a bot
//! on its own connection) or in-process on the engines (no server: measures
//! the rules engines alone). With `--jsonl FILE` each game is also a line
//! there (its game id, seed and outcome); a terminal shows progress.

mod in_process;
mod through_server;

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use clap::Args;

use crate::args::game_kind;
use crate::connect::{CliError, ServerAddr};
use crate::output::{GameLog, outln};

/// Turn clock of self-play games with silent seats, unless --decision-ms says otherwise.
const SILENT_DECISION_MS: u32 = 200;

#[derive(Args)]
pub struct SelfplayArgs {
    /// Which game.
    #[arg(long, value_parser = game_kind(), default_value = "meduris")]
    pub game: druids_contract::Kind,
    /// Seats per game.
    #[arg(long, default_value_t = 4)]
    pub players: usize,
    /// Number of games.
    #[arg(long, default_value_t = 100)]
    pub games: u64,
    /// Games played at the same time.
    #[arg(long, default_value_t = 1)]
    pub concurrency: usize,
    /// Seed of the first game (game i uses seed + i).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// With --server: this fraction of the seats never answers (their
    /// clocks run out; the games get a clock of --decision-ms).
    #[arg(long, default_value_t = 0.0)]
    pub silent_fraction: f64,
    /// With --server: turn clock per decision, in milliseconds (default:
    /// none, or 200 when some seats are silent).
    #[arg(long)]
    pub decision_ms: Option<u32>,
    /// With --server: consecutive timeouts before the autopilot takes over.
    #[arg(long, default_value_t = 0)]
    pub autopilot_after: u32,
    /// Write one JSON line per game to this file (its game id, seed, seats
    /// and outcome).
    #[arg(long, value_name = "FILE")]
    pub jsonl: Option<PathBuf>,
}

/// Runs the games; exit status 1 when any game failed.
pub async fn selfplay(
    server: Option<ServerAddr>,
    args: SelfplayArgs,
) -> Result<ExitCode, CliError> {
    let name = args.game.name();
    let log = Arc::new(GameLog::open(args.jsonl.as_deref(), args.games)?);
    let line = match server {
        Some(server) => {
            let plan = through_server::Plan {
                server,
                kind: args.game,
                players: args.players as u32,
                games: args.games,
                concurrency: args.concurrency,
                seed: args.seed,
                silent_fraction: args.silent_fraction,
                decision_ms: args.decision_ms.unwrap_or(if args.silent_fraction > 0.0 {
                    SILENT_DECISION_MS
                } else {
                    0
                }),
                autopilot_after: args.autopilot_after,
            };
            let (t, seconds) = through_server::run(plan, Arc::clone(&log)).await?;
            let get = |a: &AtomicU64| a.load(Ordering::Relaxed);
            serde_json::json!({
                "game": name,
                "players": args.players,
                "mode": "server",
                "games": get(&t.games),
                "completed": get(&t.completed),
                "errors": get(&t.errors),
                "actions": get(&t.actions),
                "timeouts": get(&t.timeouts),
                "seconds": seconds,
                "actions_per_second": get(&t.actions) as f64 / seconds.max(1e-9),
            })
        }
        None => {
            if args.silent_fraction > 0.0 {
                return Err(CliError::Usage("--silent-fraction needs --server".into()));
            }
            let (players, games, threads, seed) =
                (args.players, args.games, args.concurrency, args.seed);
            let (t, seconds) = druids_contract::with_game!(args.game, |G| in_process::run::<G>(
                players, games, threads, seed, &log
            ))?;
            serde_json::json!({
                "game": name,
                "players": args.players,
                "mode": "in-process",
                "games": t.games,
                "completed": t.completed,
                "errors": t.errors,
                "actions": t.actions,
                "timeouts": 0,
                "seconds": seconds,
                "actions_per_second": t.actions as f64 / seconds.max(1e-9),
            })
        }
    };
    let failed = line["errors"].as_u64().unwrap_or(1) > 0;
    outln!("{line}")?;
    Ok(if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}
