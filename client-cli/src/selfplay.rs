//! `druids selfplay`: many complete games between random bots, reported as
//! one JSON line; through a server (`--server`: every seat a bot on its own
//! connection) or in-process on the engines (no server: measures the rules
//! engines alone).

use std::process::ExitCode;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::cli::{SILENT_DECISION_MS, SelfplayArgs};
use crate::connect::{CliError, ServerAddr};
use crate::{outln, selfplay_local, selfplay_remote};

/// Runs the games; exit status 1 when any game failed.
pub async fn selfplay(
    server: Option<ServerAddr>,
    args: SelfplayArgs,
) -> Result<ExitCode, CliError> {
    let name = args.game.name();
    let line = match server {
        Some(server) => {
            let plan = selfplay_remote::Plan {
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
            let (t, seconds) = selfplay_remote::run(plan).await?;
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
            let (t, seconds) = druids_contract::with_game!(
                args.game,
                |G| selfplay_local::run::<G>(players, games, threads, seed)
            )?;
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
