//! `druids`: the command-line client of the druids game server.
//!
//! Subcommands map one-to-one onto what a user does: create or join a game, look
//! at it, watch it, play it by hand, let a bot play a seat, or run many
//! self-play games. Everything that talks to a server goes through the gRPC
//! contract in `proto/`, exactly as a bot in another language would.

mod selfplay_local;
mod tournament;

use clap::{Parser, Subcommand, ValueEnum};

#[derive(Parser)]
#[command(name = "druids", version, about = "Client for the druids game server")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// The games the server hosts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum GameName {
    /// Meduris (HABA), 2–4 players.
    Meduris,
}

#[derive(Subcommand)]
enum Command {
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
    },
}

fn main() -> std::process::ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Tournament {
            game,
            players,
            bots,
            games,
            seed,
            think_ms,
            iterations,
        } => {
            let (strategies, names) = match tournament::parse_lineup(&bots) {
                Ok(l) => l,
                Err(e) => {
                    eprintln!("error: {e}");
                    return std::process::ExitCode::from(2);
                }
            };
            if let Some(p) = players.filter(|&p| p != strategies.len()) {
                eprintln!(
                    "error: --players {p} but the line-up {bots:?} has {} bots",
                    strategies.len()
                );
                return std::process::ExitCode::from(2);
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
            };
            match result {
                Ok(()) => std::process::ExitCode::SUCCESS,
                Err(e) => {
                    eprintln!("error: {e}");
                    std::process::ExitCode::FAILURE
                }
            }
        }
        Command::Selfplay {
            game,
            players,
            games,
            concurrency,
            seed,
        } => {
            let result = match game {
                GameName::Meduris => selfplay_local::run::<druids_engine::meduris::Meduris>(
                    players,
                    games,
                    concurrency,
                    seed,
                ),
            };
            match result {
                Ok((t, seconds)) => {
                    let line = serde_json::json!({
                        "game": format!("{game:?}").to_lowercase(),
                        "players": players,
                        "mode": "in-process",
                        "games": t.games,
                        "completed": t.completed,
                        "errors": t.errors,
                        "actions": t.actions,
                        "seconds": seconds,
                        "actions_per_second": t.actions as f64 / seconds.max(1e-9),
                    });
                    println!("{line}");
                    if t.errors == 0 {
                        std::process::ExitCode::SUCCESS
                    } else {
                        std::process::ExitCode::FAILURE
                    }
                }
                Err(e) => {
                    eprintln!("error: {e}");
                    std::process::ExitCode::from(2)
                }
            }
        }
    }
}
