//! `druids tournament`: bots against each other in-process, seats rotated every
//! game, with win rates (95% Wilson intervals) and mean scores. It measures
//! the bots, not the server, so it runs on the engines directly. With
//! `--jsonl FILE` each game is a JSON line there; a terminal shows progress.

use std::path::PathBuf;

use clap::Args;
use druids_bots::arena::{self, Standing};
use druids_bots::{Budget, Searchable, Strategy};
use druids_contract::codec::encode_outcome;

use crate::args::{StrategyArg, budget, game_kind};
use crate::connect::CliError;
use crate::lines::{GameRecord, game_line};
use crate::output::{GameLog, outln};

#[derive(Args)]
pub struct TournamentArgs {
    /// Which game.
    #[arg(long, value_parser = game_kind(), default_value = "meduris")]
    pub game: druids_contract::Kind,
    /// Number of seats (must match the line-up).
    #[arg(long)]
    pub players: Option<usize>,
    /// Line-up, one strategy per seat, comma-separated (e.g. random,greedy,mcts).
    #[arg(
        long,
        value_enum,
        value_delimiter = ',',
        default_value = "greedy,random"
    )]
    pub bots: Vec<StrategyArg>,
    /// Number of games.
    #[arg(long, default_value_t = 100)]
    pub games: u32,
    /// Seed of the first game.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// MCTS thinking time per decision, in milliseconds.
    #[arg(long, default_value_t = 100)]
    pub think_ms: u64,
    /// MCTS iterations per decision instead of a time limit (reproducible).
    #[arg(long)]
    pub iterations: Option<u32>,
    /// Write one JSON line per game to this file (its game id, seed, who
    /// sat where, the outcome).
    #[arg(long, value_name = "FILE")]
    pub jsonl: Option<PathBuf>,
}

/// `druids tournament`.
pub fn tournament(args: TournamentArgs) -> Result<(), CliError> {
    if let Some(p) = args.players.filter(|&p| p != args.bots.len()) {
        return Err(CliError::Usage(format!(
            "--players {p} but the line-up has {} bots",
            args.bots.len()
        )));
    }
    let strategies: Vec<Strategy> = args.bots.iter().map(|&b| b.into()).collect();
    let names: Vec<String> = args.bots.iter().map(|b| b.name()).collect();
    let think = budget(args.think_ms, args.iterations);
    let game = args.game.name();
    let log = GameLog::open(args.jsonl.as_deref(), u64::from(args.games))?;
    druids_contract::with_game!(args.game, |G| run::<G>(
        game,
        &strategies,
        &names,
        args.games,
        args.seed,
        think,
        &log
    ))
}

/// Runs the tournament and prints a table, then one JSON line.
pub fn run<G: Searchable>(
    game_name: &str,
    strategies: &[Strategy],
    names: &[String],
    games: u32,
    seed: u64,
    think: Budget,
    log: &GameLog,
) -> Result<(), CliError> {
    let started = std::time::Instant::now();
    let mut failed = None;
    let standings = arena::tournament::<G>(strategies, games, seed, think, |p, _| {
        let logged = log.game(|| {
            let seats: Vec<String> = p.seating.iter().map(|&e| names[e].clone()).collect();
            game_line(&GameRecord {
                index: u64::from(p.index),
                game_id: &format!("tournament-{seed}-{}", p.index),
                seed: p.seed,
                seats: &seats,
                outcome: Some(&encode_outcome(p.outcome)),
                actions: p.actions,
                error: None,
            })
        });
        failed = failed.take().or(logged.err());
    })?;
    if let Some(e) = failed {
        return Err(e);
    }
    let out = |line: String| outln!("{line}");
    out(format!(
        "{game_name}, {} players, {games} games, seats rotated",
        strategies.len()
    ))?;
    out(format!(
        "{:<4} {:<8} {:>9} {:>17} {:>10}",
        "#", "bot", "win rate", "95% CI", "mean score"
    ))?;
    for (i, (s, name)) in standings.iter().zip(names).enumerate() {
        let (lo, hi) = s.win_rate_ci95();
        out(format!(
            "{:<4} {:<8} {:>8.1}% {:>7.1}% – {:>5.1}% {:>10.2}",
            i,
            name,
            100.0 * s.win_rate(),
            100.0 * lo,
            100.0 * hi,
            s.mean_score()
        ))?;
    }
    let bots: Vec<serde_json::Value> = standings
        .iter()
        .zip(names)
        .map(|(s, name): (&Standing, &String)| {
            let (lo, hi) = s.win_rate_ci95();
            serde_json::json!({
                "bot": name,
                "games": s.games,
                "win_rate": s.win_rate(),
                "win_rate_ci95": [lo, hi],
                "mean_score": s.mean_score(),
            })
        })
        .collect();
    let line = serde_json::json!({
        "game": game_name,
        "players": strategies.len(),
        "games": games,
        "seed": seed,
        "think_ms": match think { Budget::Time(t) => t.as_millis() as u64, Budget::Iterations(_) => 0 },
        "seconds": started.elapsed().as_secs_f64(),
        "bots": bots,
    });
    out(line.to_string())
}
