//! `druids tournament`: bots against each other in-process, seats rotated every
//! game, with win rates (95% Wilson intervals) and mean scores. It measures
//! the bots, not the server, so it runs on the engines directly.

use std::time::Duration;

use druids_bots::arena::{self, Standing};
use druids_bots::{Budget, Searchable, Strategy};

use crate::cli::TournamentArgs;
use crate::connect::CliError;
use crate::outln;

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
    druids_contract::with_game!(args.game, |G| run::<G>(
        game,
        &strategies,
        &names,
        args.games,
        args.seed,
        think
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
) -> Result<(), CliError> {
    let started = std::time::Instant::now();
    let standings = arena::tournament::<G>(strategies, games, seed, think, |done, _| {
        if done % 10 == 0 {
            eprintln!("{done}/{games} games");
        }
    })?;
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

/// The MCTS budget from `--think-ms` / `--iterations`.
pub fn budget(think_ms: u64, iterations: Option<u32>) -> Budget {
    match iterations {
        Some(n) => Budget::Iterations(n),
        None => Budget::Time(Duration::from_millis(think_ms)),
    }
}
