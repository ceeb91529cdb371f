//! Statistics of an evaluation: many games between a fixed set of programs
//! (a bot against a line-up, built-in strategies against each other), each
//! game seating some of them. Per program: its win rate with a 95 % Wilson
//! interval, its mean score with a 95 % normal interval, and — when more
//! than two programs play — a Plackett-Luce fit of their strengths over
//! every game's finishing order ([`crate::ratings::fit`], the arena's own).
//!
//! It knows no game and runs nothing: `druids match`, `druids tournament`
//! and the Python `evaluate(...)` hand it what was played and print what it
//! says, so every report of a win rate in druids is computed here.

use crate::ratings::{BotId, FitConfig, FitError, FittedBot, GameResult, fit};

/// The z value of a two-sided 95 % normal interval.
const Z95: f64 = 1.959_963_984_540_054;

/// One seat of a finished game: which program played it and how it ended.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SeatResult {
    /// The program (an index into the line-up).
    pub program: usize,
    /// The seat's final score.
    pub score: f64,
    /// The seat's place: 1 for the winners, then 2, 3, ... (equal places are
    /// ties).
    pub place: u32,
}

/// A value with its 95 % interval.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Interval {
    /// The point estimate.
    pub value: f64,
    /// The lower end.
    pub low: f64,
    /// The upper end.
    pub high: f64,
}

/// What one program achieved over the games it played.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ProgramSummary {
    /// Games it played (a program seated twice in one game counts twice).
    pub games: u64,
    /// Wins; a win shared by k seats counts 1/k.
    pub wins: f64,
    /// Win rate with its 95 % Wilson score interval.
    pub win_rate: Interval,
    /// Mean final score with its 95 % normal interval (mean ± 1.96 standard
    /// errors; a single game gives a zero-width interval).
    pub mean_score: Interval,
}

/// Everything an evaluation reports.
#[derive(Clone, Debug, PartialEq)]
pub struct Evaluation {
    /// One summary per program of the line-up, in its order.
    pub programs: Vec<ProgramSummary>,
    /// With more than two programs: each one's fitted strength (θ, mean 0,
    /// with its interval), in line-up order; `None` with two programs or
    /// fewer, where the win rate says it all.
    pub fit: Option<Vec<FittedBot>>,
}

/// The 95 % Wilson score interval of `successes` out of `n` trials
/// (`successes` may be fractional: shared wins).
pub fn wilson(successes: f64, n: u64) -> Interval {
    if n == 0 {
        return Interval {
            value: 0.0,
            low: 0.0,
            high: 1.0,
        };
    }
    let n = n as f64;
    let p = (successes / n).clamp(0.0, 1.0);
    let z2 = Z95 * Z95;
    let denom = 1.0 + z2 / n;
    let centre = (p + z2 / (2.0 * n)) / denom;
    let half = Z95 * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt() / denom;
    // At p = 0 (p = 1) the bound is exactly 0 (1); rounding would print
    // 2.8e-17 instead.
    let low = (centre - half).max(0.0);
    let high = (centre + half).min(1.0);
    Interval {
        value: p,
        low: if p == 0.0 { 0.0 } else { low },
        high: if p == 1.0 { 1.0 } else { high },
    }
}

/// The mean of `values` with a 95 % normal interval (± 1.96 standard errors
/// of the mean, from the sample standard deviation).
pub fn mean_interval(values: &[f64]) -> Interval {
    let n = values.len();
    if n == 0 {
        return Interval::default();
    }
    let mean = values.iter().sum::<f64>() / n as f64;
    if n == 1 {
        return Interval {
            value: mean,
            low: mean,
            high: mean,
        };
    }
    let var = values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1) as f64;
    let half = Z95 * (var / n as f64).sqrt();
    Interval {
        value: mean,
        low: mean - half,
        high: mean + half,
    }
}

/// Summarises `games` (each the seats of one finished game) played by
/// `programs` programs.
pub fn evaluate(programs: usize, games: &[Vec<SeatResult>]) -> Result<Evaluation, FitError> {
    let mut wins = vec![0.0; programs];
    let mut scores: Vec<Vec<f64>> = vec![Vec::new(); programs];
    for game in games {
        let winners = game.iter().filter(|s| s.place == 1).count().max(1);
        for seat in game {
            scores[seat.program].push(seat.score);
            if seat.place == 1 {
                wins[seat.program] += 1.0 / winners as f64;
            }
        }
    }
    let summaries = (0..programs)
        .map(|p| {
            let n = scores[p].len() as u64;
            ProgramSummary {
                games: n,
                wins: wins[p],
                win_rate: wilson(wins[p], n),
                mean_score: mean_interval(&scores[p]),
            }
        })
        .collect();
    let fit = if programs > 2 {
        Some(fit_strengths(programs, games)?)
    } else {
        None
    };
    Ok(Evaluation {
        programs: summaries,
        fit,
    })
}

/// The Plackett-Luce fit over the games' finishing orders, one entry per
/// program in line-up order. A game that seats one program twice is fitted
/// with that program's best place only (the model rates distinct players).
fn fit_strengths(programs: usize, games: &[Vec<SeatResult>]) -> Result<Vec<FittedBot>, FitError> {
    let results: Vec<GameResult> = games
        .iter()
        .filter_map(|game| {
            let mut best: Vec<(BotId, u32)> = Vec::new();
            for seat in game {
                let bot = BotId(seat.program as u64);
                match best.iter_mut().find(|(b, _)| *b == bot) {
                    Some((_, place)) => *place = (*place).min(seat.place),
                    None => best.push((bot, seat.place)),
                }
            }
            GameResult::new(best).ok()
        })
        .collect();
    let fitted = fit(results.iter(), &FitConfig::default())?;
    Ok((0..programs)
        .map(|p| {
            let bot = BotId(p as u64);
            fitted.get(bot).copied().unwrap_or(FittedBot {
                bot,
                games: 0,
                theta: crate::ratings::Estimate {
                    value: 0.0,
                    low: f64::NEG_INFINITY,
                    high: f64::INFINITY,
                },
                std_error: f64::INFINITY,
            })
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wilson_intervals_match_the_textbook() {
        let i = wilson(97.0, 100);
        assert!((i.value - 0.97).abs() < 1e-12);
        assert!((i.low - 0.9155).abs() < 1e-3 && (i.high - 0.9897).abs() < 1e-3);
        let none = wilson(0.0, 200);
        assert_eq!(none.low, 0.0, "{none:?}");
        assert_eq!(wilson(3.0, 3).high, 1.0);
        assert_eq!(wilson(0.0, 6).low, 0.0, "exactly 0, not 2.8e-17");
        assert!(none.high < 0.02, "{none:?}");
        assert_eq!(wilson(0.0, 0).high, 1.0);
    }

    #[test]
    fn mean_intervals_narrow_with_more_games() {
        let few = mean_interval(&[10.0, 20.0]);
        assert_eq!(few.value, 15.0);
        let many: Vec<f64> = (0..200)
            .map(|i| if i % 2 == 0 { 10.0 } else { 20.0 })
            .collect();
        let more = mean_interval(&many);
        assert_eq!(more.value, 15.0);
        assert!(more.high - more.low < few.high - few.low);
        // 1.96 · sd / √n with sd ≈ 5.01 and n = 200.
        assert!((more.high - 15.0 - 1.96 * 5.0125 / 200f64.sqrt()).abs() < 1e-2);
    }

    fn seat(program: usize, score: f64, place: u32) -> SeatResult {
        SeatResult {
            program,
            score,
            place,
        }
    }

    #[test]
    fn shared_wins_split_and_the_fit_orders_three_programs() {
        let mut games = Vec::new();
        for i in 0..60 {
            // Program 0 beats 1 beats 2 most of the time.
            let upset = i % 6 == 0;
            games.push(vec![
                seat(0, 30.0, if upset { 2 } else { 1 }),
                seat(1, 20.0, if upset { 1 } else { 2 }),
                seat(2, 10.0, 3),
            ]);
        }
        games.push(vec![seat(0, 5.0, 1), seat(1, 5.0, 1), seat(2, 1.0, 3)]);
        let e = evaluate(3, &games).unwrap();
        assert_eq!(e.programs[0].games, 61);
        assert!(
            (e.programs[0].wins - 50.5).abs() < 1e-9,
            "{:?}",
            e.programs[0]
        );
        assert!((e.programs[1].wins - 10.5).abs() < 1e-9);
        assert_eq!(e.programs[2].wins, 0.0);
        let fit = e.fit.expect("three programs are fitted");
        assert!(fit[0].theta.value > fit[1].theta.value);
        assert!(fit[1].theta.value > fit[2].theta.value);
        assert!(fit[0].theta.separated_from(&fit[2].theta));
        let two = evaluate(2, &[vec![seat(0, 1.0, 1), seat(1, 0.0, 2)]]).unwrap();
        assert!(two.fit.is_none());
    }

    #[test]
    fn a_program_seated_twice_counts_each_seat() {
        let games = vec![vec![seat(0, 9.0, 1), seat(1, 5.0, 2), seat(1, 3.0, 3)]];
        let e = evaluate(2, &games).unwrap();
        assert_eq!(e.programs[1].games, 2);
        assert_eq!(e.programs[1].mean_score.value, 4.0);
        let three = evaluate(3, &games).unwrap();
        assert_eq!(three.fit.unwrap()[2].games, 0);
    }
}
