//! `druids tournament`: bots against each other in-process, seats rotated every
//! game, with win rates (95% Wilson intervals) and mean scores.

use std::time::Duration;

use druids_bots::arena::{self, Standing};
use druids_bots::{Budget, Searchable, Strategy};

/// Runs the tournament and prints a table, then one JSON line.
pub fn run<G: Searchable>(
    game_name: &str,
    strategies: &[Strategy],
    names: &[String],
    games: u32,
    seed: u64,
    think: Budget,
) -> Result<(), String> {
    let started = std::time::Instant::now();
    let standings = arena::tournament::<G>(strategies, games, seed, think, |done, _| {
        if done % 10 == 0 {
            eprintln!("{done}/{games} games");
        }
    })
    .map_err(|e| e.to_string())?;
    println!(
        "{game_name}, {} players, {games} games, seats rotated",
        strategies.len()
    );
    println!(
        "{:<4} {:<8} {:>9} {:>17} {:>10}",
        "#", "bot", "win rate", "95% CI", "mean score"
    );
    for (i, (s, name)) in standings.iter().zip(names).enumerate() {
        let (lo, hi) = s.win_rate_ci95();
        println!(
            "{:<4} {:<8} {:>8.1}% {:>7.1}% – {:>5.1}% {:>10.2}",
            i,
            name,
            100.0 * s.win_rate(),
            100.0 * lo,
            100.0 * hi,
            s.mean_score()
        );
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
    println!("{line}");
    Ok(())
}

/// Parses a comma-separated line-up such as `mcts,greedy,random,random`.
pub fn parse_lineup(s: &str) -> Result<(Vec<Strategy>, Vec<String>), String> {
    let names: Vec<String> = s.split(',').map(|n| n.trim().to_string()).collect();
    let strategies = names
        .iter()
        .map(|n| n.parse())
        .collect::<Result<Vec<Strategy>, String>>()?;
    Ok((strategies, names))
}

/// The MCTS budget from `--think-ms` / `--iterations`.
pub fn budget(think_ms: u64, iterations: Option<u32>) -> Budget {
    match iterations {
        Some(n) => Budget::Iterations(n),
        None => Budget::Time(Duration::from_millis(think_ms)),
    }
}
