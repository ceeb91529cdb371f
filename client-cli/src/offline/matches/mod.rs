//! `druids match`: your program (or a built-in strategy) against a line-up
//! of built-in bots, N games on the engines in this process (no server),
//! seats rotated and duplicate seeds for dice-driven games, on every core;
//! one JSON line per game, replays the viewer opens, and win rates and mean
//! scores with 95 % intervals (a Plackett-Luce fit when more than two
//! programs play), computed by [`druids_arena::evaluation`].
//!
//! The step between "my bot plays" (`druids bot --exec` on one game) and "my
//! bot is on the ladder" (`druids bot --key … --seek …`). A registered bot's
//! key is not a program: a match runs the program itself (`--exec` or
//! `--strategy`), sends nothing anywhere, and so never needs or sees a key.

mod game;
mod lineup;
mod report;

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc;
use std::time::Duration;

use clap::Args;
use druids_bots::Searchable;
use druids_contract::ProtoGame;

use crate::args::{StrategyArg, budget, game_kind};
use crate::bridge::in_process::ProgramSpec;
use crate::connect::CliError;
use crate::output::Progress;
use game::{Plan, Played};
use lineup::{Entry, Lineup, Program};
use report::Report;

/// `druids match`.
#[derive(Args)]
pub struct MatchArgs {
    /// Your program: it reads JSON lines on stdin and prints its moves
    /// (docs/bot-protocol.md), exactly as with `druids bot --exec`.
    #[arg(
        long,
        required_unless_present = "strategy",
        conflicts_with = "strategy"
    )]
    pub exec: Option<String>,
    /// Or a built-in strategy in your place.
    #[arg(long, value_enum)]
    pub strategy: Option<StrategyArg>,
    /// Not accepted: a match runs the program itself (--exec or --strategy)
    /// and needs no key.
    #[arg(long, hide = true)]
    pub key: Option<String>,
    /// Your name in the report.
    #[arg(long, default_value = "you")]
    pub name: String,
    /// The opponents, comma-separated built-in strategies (e.g.
    /// greedy,mcts), repeated to fill --players.
    #[arg(long, value_enum, value_delimiter = ',', required = true)]
    pub vs: Vec<StrategyArg>,
    /// Which game.
    #[arg(long, value_parser = game_kind(), default_value = "meduris")]
    pub game: druids_contract::Kind,
    /// Seats per game [default: you and each opponent once].
    #[arg(long)]
    pub players: Option<usize>,
    /// Number of games (a multiple of --players gives every program every
    /// seat equally often).
    #[arg(long, default_value_t = 100, value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
    pub games: u64,
    /// Seed of the first game.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Write one JSON line per game to this file instead of stdout.
    #[arg(long, value_name = "FILE")]
    pub jsonl: Option<PathBuf>,
    /// Write each finished game's replay to DIR/GAME_ID.json (a
    /// druids.v1.Replay in proto3 JSON, as ExportReplay answers).
    #[arg(long, value_name = "DIR")]
    pub replays: Option<PathBuf>,
    /// Games played at once [default: one per core].
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=256))]
    pub jobs: Option<u32>,
    /// Time your program has for each decision, in milliseconds.
    #[arg(long, default_value_t = 10_000)]
    pub decision_ms: u64,
    /// Pass your program's stderr and `#` log lines through (off: they are
    /// dropped, so that the report stays readable).
    #[arg(long)]
    pub show_logs: bool,
    /// MCTS thinking time per decision, in milliseconds.
    #[arg(long, default_value_t = 100)]
    pub think_ms: u64,
    /// MCTS iterations per decision instead of a time limit (reproducible).
    #[arg(long)]
    pub iterations: Option<u32>,
}

/// Runs the match; exit status 1 when a game could not be played.
pub fn run(args: MatchArgs) -> Result<ExitCode, CliError> {
    if args.key.is_some() {
        return Err(CliError::Usage(
            "druids match runs your bot's program itself, on no server: give it with --exec CMD \
             (or --strategy), not its key"
                .into(),
        ));
    }
    let think = budget(args.think_ms, args.iterations);
    let me = Entry {
        name: args.name.clone(),
        program: match (&args.exec, args.strategy) {
            (Some(exec), _) => Program::Exec(
                ProgramSpec::new(
                    exec,
                    args.show_logs,
                    Duration::from_millis(args.decision_ms),
                )
                .map_err(|e| CliError::Usage(e.to_string()))?,
            ),
            (None, Some(s)) => Program::Builtin(s.into(), think),
            (None, None) => unreachable!("clap requires one"),
        },
    };
    let players = args.players.unwrap_or(args.vs.len() + 1);
    let lineup = Lineup::new(me, &args.vs, think, players).map_err(CliError::Usage)?;
    druids_contract::with_game!(args.game, |G| play_all::<G>(&args, &lineup))
}

/// Plays every game on worker threads and reports each as it ends.
fn play_all<G: ProtoGame + Searchable>(
    args: &MatchArgs,
    lineup: &Lineup,
) -> Result<ExitCode, CliError> {
    let players = lineup.players();
    if !(G::MIN_PLAYERS..=G::MAX_PLAYERS).contains(&players) {
        return Err(CliError::Usage(format!(
            "{} is played by {} to {} players, not {players}",
            G::NAME,
            G::MIN_PLAYERS,
            G::MAX_PLAYERS
        )));
    }
    let mut report = Report::new(
        lineup,
        G::NAME,
        G::DICE_DRIVEN,
        args.games,
        args.jsonl.as_deref(),
        args.replays.as_deref(),
    )?;
    let jobs = args.jobs.map_or_else(
        || std::thread::available_parallelism().map_or(1, |n| n.get()),
        |j| j as usize,
    );
    let next = AtomicU64::new(0);
    let (tx, rx) = mpsc::channel::<Played>();
    let mut progress = Progress::new("games", args.games);
    std::thread::scope(|scope| -> Result<(), CliError> {
        for _ in 0..jobs.min(args.games as usize) {
            let (tx, next) = (tx.clone(), &next);
            scope.spawn(move || {
                loop {
                    let index = next.fetch_add(1, Ordering::Relaxed);
                    if index >= args.games {
                        return;
                    }
                    let plan = Plan {
                        index,
                        game_id: format!("match-{}-{index}", args.seed),
                        seed: lineup.seed(args.seed, index, G::DICE_DRIVEN),
                        seating: lineup.seating(index),
                    };
                    if tx.send(game::play::<G>(lineup, plan)).is_err() {
                        return; // The report stopped (a write failed).
                    }
                }
            });
        }
        drop(tx);
        for played in rx {
            let written = report.game(&played);
            progress.advance();
            if let Err(e) = written {
                // Stop handing out games; the workers finish the ones they have.
                next.store(args.games, Ordering::Relaxed);
                return Err(e);
            }
        }
        Ok(())
    })?;
    report.finish()
}
