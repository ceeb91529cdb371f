//! `druids`: the command-line client of the druids game server.
//!
//! Subcommands map one-to-one onto what a user does: create or join a game, look
//! at it, watch it, play it by hand, let a bot play a seat, run many self-play
//! games, export and check replays. Everything that talks to a server goes
//! through the gRPC contract in `proto/`, exactly as a bot in another language
//! would.

mod bridge;
mod connect;
mod remote;
mod render;
mod selfplay_local;
mod selfplay_remote;
mod tournament;

use std::path::PathBuf;

use clap::{Parser, Subcommand, ValueEnum};
use connect::CliError;
use druids::pb;

/// Turn clock of self-play games with silent seats, unless --decision-ms says otherwise.
const SILENT_DECISION_MS: u32 = 200;

/// Where the server is when `--server` is not given.
const DEFAULT_SERVER: &str = "http://127.0.0.1:50051";

#[derive(Parser)]
#[command(name = "druids", version, about = "Client for the druids game server")]
struct Cli {
    /// Server URL (default http://127.0.0.1:50051; `selfplay` without it plays in-process).
    #[arg(long, global = true, env = "DRUIDS_SERVER")]
    server: Option<String>,
    #[command(subcommand)]
    command: Command,
}
/// The games the server hosts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum GameName {
    /// Meduris (HABA), 2–4 players.
    Meduris,
    /// Die Dolmengötter (eggertspiele), 2–5 players.
    Dolmen,
}

impl GameName {
    fn kind(self) -> pb::GameKind {
        match self {
            GameName::Meduris => pb::GameKind::Meduris,
            GameName::Dolmen => pb::GameKind::Dolmen,
        }
    }
}

#[derive(Subcommand)]
enum Command {
    /// Create a game; prints its id and one secret token per claimed seat.
    Create {
        /// Which game.
        #[arg(long, value_enum, default_value = "meduris")]
        game: GameName,
        /// Number of seats.
        #[arg(long)]
        players: u32,
        /// RNG seed (the server picks one if not given).
        #[arg(long)]
        seed: Option<u64>,
        /// Leave this seat open for `druids join` (repeatable).
        #[arg(long = "open-seat")]
        open_seats: Vec<u32>,
        /// Seat names, one per seat (repeatable).
        #[arg(long = "name")]
        names: Vec<String>,
        /// Seat that starts.
        #[arg(long)]
        start_seat: Option<u32>,
        /// Safeguard: regular play ends after this many turns.
        #[arg(long)]
        max_turns: Option<u32>,
        /// Turn clock: milliseconds per decision.
        #[arg(long)]
        decision_ms: Option<u32>,
        /// Turn clock: reserve per seat, in milliseconds.
        #[arg(long)]
        time_bank_ms: Option<u32>,
        /// Turn clock: consecutive timeouts before autopilot.
        #[arg(long)]
        autopilot_after: Option<u32>,
        /// Print one JSON object instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Claim an open seat of a game.
    Join {
        /// Game id.
        #[arg(long)]
        game_id: String,
        /// Seat to claim (default: the lowest open one).
        #[arg(long)]
        seat: Option<u32>,
        /// Your name.
        #[arg(long, default_value = "")]
        name: String,
    },
    /// Show a game's state (as your seat with --token, else as a spectator).
    State {
        /// Game id.
        #[arg(long)]
        game_id: String,
        /// Seat token.
        #[arg(long, env = "DRUIDS_TOKEN")]
        token: Option<String>,
    },
    /// Print a game's events as they happen, one line each.
    Watch {
        /// Game id.
        #[arg(long)]
        game_id: String,
        /// Seat token (shows that seat's secrets).
        #[arg(long, env = "DRUIDS_TOKEN")]
        token: Option<String>,
        /// First event to show (0: a snapshot of now, then live).
        #[arg(long, default_value_t = 0)]
        from_seq: u64,
    },
    /// Play a seat yourself in the terminal.
    Play {
        /// Game id.
        #[arg(long)]
        game_id: String,
        /// Your seat token.
        #[arg(long, env = "DRUIDS_TOKEN")]
        token: String,
    },
    /// Let a built-in bot play a seat until the game ends (either game; the
    /// server says which). Prints one JSON line with the outcome.
    Bot {
        /// Game id.
        #[arg(long)]
        game_id: String,
        /// The seat's token.
        #[arg(long, env = "DRUIDS_TOKEN")]
        token: String,
        /// Strategy: random, greedy or mcts.
        #[arg(long, default_value = "random")]
        strategy: String,
        /// Seed of the bot's choices.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// MCTS thinking time per decision, in milliseconds.
        #[arg(long, default_value_t = 100)]
        think_ms: u64,
        /// MCTS iterations per decision instead of a time limit.
        #[arg(long)]
        iterations: Option<u32>,
        /// Play with this program instead of a built-in strategy: it reads
        /// JSON lines on stdin and prints its moves (docs/bot-protocol.md).
        #[arg(long, conflicts_with_all = ["strategy", "seed", "think_ms", "iterations"])]
        exec: Option<String>,
    },
    /// Write the replay of a finished game to a file.
    Export {
        /// Game id.
        #[arg(long)]
        game_id: String,
        /// File to write.
        #[arg(long)]
        out: PathBuf,
    },
    /// Ask the server's gRPC health service; exits 0 when it is serving.
    Health,
    /// Re-run a replay file through the engine and check its recorded result.
    Replay {
        /// Replay file (from `druids export`).
        file: PathBuf,
    },
    /// Built-in bots against each other (in-process), seats rotated every game.
    Tournament {
        /// Which game.
        #[arg(long, value_enum, default_value = "meduris")]
        game: GameName,
        /// Number of seats (must match the line-up).
        #[arg(long)]
        players: Option<usize>,
        /// Line-up, one strategy per seat: random, greedy or mcts.
        #[arg(long, default_value = "greedy,random")]
        bots: String,
        /// Number of games.
        #[arg(long, default_value_t = 100)]
        games: u32,
        /// Seed of the first game.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// MCTS thinking time per decision, in milliseconds.
        #[arg(long, default_value_t = 100)]
        think_ms: u64,
        /// MCTS iterations per decision instead of a time limit (reproducible).
        #[arg(long)]
        iterations: Option<u32>,
    },
    /// Play many complete games between random bots and report totals as JSON.
    Selfplay {
        /// Which game.
        #[arg(long, value_enum, default_value = "meduris")]
        game: GameName,
        /// Seats per game.
        #[arg(long, default_value_t = 4)]
        players: usize,
        /// Number of games.
        #[arg(long, default_value_t = 100)]
        games: u64,
        /// Games played at the same time.
        #[arg(long, default_value_t = 1)]
        concurrency: usize,
        /// Seed of the first game (game i uses seed + i).
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// With --server: this fraction of the seats never answers (their
        /// clocks run out; the games get a clock of --decision-ms).
        #[arg(long, default_value_t = 0.0)]
        silent_fraction: f64,
        /// With --server: turn clock per decision, in milliseconds (default:
        /// none, or 200 when some seats are silent).
        #[arg(long)]
        decision_ms: Option<u32>,
        /// With --server: consecutive timeouts before the autopilot takes over.
        #[arg(long, default_value_t = 0)]
        autopilot_after: u32,
    },
}

#[tokio::main]
async fn main() -> std::process::ExitCode {
    let cli = Cli::parse();
    match run(cli).await {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e}");
            match e {
                CliError::Usage(_) => std::process::ExitCode::from(2),
                _ => std::process::ExitCode::FAILURE,
            }
        }
    }
}

async fn run(cli: Cli) -> Result<std::process::ExitCode, CliError> {
    let url = cli
        .server
        .clone()
        .unwrap_or_else(|| DEFAULT_SERVER.to_owned());
    let ok = std::process::ExitCode::SUCCESS;
    match cli.command {
        Command::Create {
            game,
            players,
            seed,
            open_seats,
            names,
            start_seat,
            max_turns,
            decision_ms,
            time_bank_ms,
            autopilot_after,
            json,
        } => {
            let mut client = connect::connect(&url).await?;
            let options = pb::GameOptions {
                start_seat,
                max_turns,
                decision_ms,
                time_bank_ms,
                autopilot_after,
            };
            let args = remote::CreateArgs {
                kind: game.kind(),
                players,
                seed,
                options,
                names,
                open: open_seats,
            };
            remote::create(&mut client, args, json).await?;
        }
        Command::Join {
            game_id,
            seat,
            name,
        } => {
            remote::join(&mut connect::connect(&url).await?, game_id, seat, name).await?;
        }
        Command::State { game_id, token } => {
            remote::state(&mut connect::connect(&url).await?, game_id, token).await?;
        }
        Command::Watch {
            game_id,
            token,
            from_seq,
        } => {
            remote::watch(&mut connect::connect(&url).await?, game_id, token, from_seq).await?;
        }
        Command::Play { game_id, token } => {
            let mut client = connect::connect(&url).await?;
            let r = remote::play_seat(&mut client, &game_id, &token, remote::HumanChooser, true)
                .await?;
            println!("you made {} decisions", r.actions);
        }
        Command::Bot {
            game_id,
            token,
            strategy,
            seed,
            think_ms,
            iterations,
            exec,
        } => {
            if let Some(exec) = exec {
                let opts = bridge::Options {
                    exec,
                    game_id,
                    token,
                };
                bridge::play(&url, opts).await?;
                return Ok(ok);
            }
            let strategy: druids_bots::Strategy = strategy.parse().map_err(CliError::Usage)?;
            let think = tournament::budget(think_ms, iterations);
            let mut client = connect::connect(&url).await?;
            let r = remote::play_bot(&mut client, &game_id, &token, strategy, seed, think).await?;
            let outcome = r
                .outcome
                .map(|o| serde_json::json!({"scores": o.scores, "winners": o.winners}));
            println!(
                "{}",
                serde_json::json!({"actions": r.actions, "outcome": outcome})
            );
        }
        Command::Export { game_id, out } => {
            remote::export(&mut connect::connect(&url).await?, game_id, &out).await?;
        }
        Command::Replay { file } => remote::replay(&file)?,
        Command::Health => remote::health(&url).await?,
        Command::Tournament {
            game,
            players,
            bots,
            games,
            seed,
            think_ms,
            iterations,
        } => {
            let (strategies, names) = tournament::parse_lineup(&bots).map_err(CliError::Usage)?;
            if let Some(p) = players.filter(|&p| p != strategies.len()) {
                return Err(CliError::Usage(format!(
                    "--players {p} but the line-up {bots:?} has {} bots",
                    strategies.len()
                )));
            }
            let think = tournament::budget(think_ms, iterations);
            let result = match game {
                GameName::Meduris => tournament::run::<druids_engine::meduris::Meduris>(
                    "meduris",
                    &strategies,
                    &names,
                    games,
                    seed,
                    think,
                ),
                GameName::Dolmen => tournament::run::<druids_engine::dolmen::Dolmen>(
                    "dolmen",
                    &strategies,
                    &names,
                    games,
                    seed,
                    think,
                ),
            };
            result.map_err(|e| CliError::Io(std::io::Error::other(e)))?;
        }
        Command::Selfplay {
            game,
            players,
            games,
            concurrency,
            seed,
            silent_fraction,
            decision_ms,
            autopilot_after,
        } => {
            let name = format!("{game:?}").to_lowercase();
            let line =
                match cli.server {
                    Some(url) => {
                        let plan = selfplay_remote::Plan {
                            url,
                            kind: game.kind(),
                            players: players as u32,
                            games,
                            concurrency,
                            seed,
                            silent_fraction,
                            decision_ms: decision_ms.unwrap_or(if silent_fraction > 0.0 {
                                SILENT_DECISION_MS
                            } else {
                                0
                            }),
                            autopilot_after,
                        };
                        let (t, seconds) = selfplay_remote::run(plan).await?;
                        let get = |a: &std::sync::atomic::AtomicU64| {
                            a.load(std::sync::atomic::Ordering::Relaxed)
                        };
                        serde_json::json!({
                            "game": name,
                            "players": players,
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
                        if silent_fraction > 0.0 {
                            return Err(CliError::Usage("--silent-fraction needs --server".into()));
                        }
                        let result =
                            match game {
                                GameName::Meduris => selfplay_local::run::<
                                    druids_engine::meduris::Meduris,
                                >(
                                    players, games, concurrency, seed
                                ),
                                GameName::Dolmen => selfplay_local::run::<
                                    druids_engine::dolmen::Dolmen,
                                >(
                                    players, games, concurrency, seed
                                ),
                            };
                        let (t, seconds) = result.map_err(|e| CliError::Usage(e.to_string()))?;
                        serde_json::json!({
                            "game": name,
                            "players": players,
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
            println!("{line}");
            if failed {
                return Ok(std::process::ExitCode::FAILURE);
            }
        }
    }
    Ok(ok)
}
