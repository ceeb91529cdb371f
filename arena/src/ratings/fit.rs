//! The maximum-likelihood fit: Plackett-Luce strengths over all rated games.
//!
//! The live rating depends on the order of the games and forgets slowly; the
//! arena also wants a reference ranking that uses every stored game equally
//! and says how sure it is. This module fits one strength `θ` per bot:
//!
//! * **Model.** Plackett-Luce (Bradley-Terry for more than two players): the
//!   probability of a finishing order is the product, over places, of
//!   `exp(θ_winner) / Σ exp(θ_remaining)`: first the winner is drawn among
//!   all players, then the second among the rest, and so on.
//! * **Ties** (Breslow's rule, as in Cox regression and Hunter 2004): the
//!   players of a tied group are each counted as a winner among everybody
//!   still remaining, with the same denominator, and are then removed
//!   together. Without ties this is exactly Plackett-Luce; a tie pulls the
//!   tied bots' strengths together. The objective stays concave.
//! * **Prior.** Each `θ` has a Gaussian prior N(0, `prior_sd`²), by default
//!   `prior_sd` = 2 (about 350 display points): weak next to tens of games,
//!   but it keeps a bot that has won every game finite and makes the
//!   maximum unique.
//! * **Identifiability.** Only differences of strengths are observable. With
//!   the prior the optimum has mean θ = 0 exactly; the reported
//!   uncertainties are those of `θ_i − mean θ`, so the prior's say about the
//!   common level (which no game can inform) is projected out.
//! * **Intervals.** 95 % intervals are `θ ± 1.96` standard errors from the
//!   inverse of the observed information (the negated Hessian of the
//!   penalised log-likelihood) at the optimum.
//! * **Fitting.** Newton-Raphson with step halving, from θ = 0. The results
//!   are first aggregated into distinct rankings with counts, in a canonical
//!   order, so the fit does not depend on the order of the results at all
//!   (the same bits, not just the same value), and repeated rankings (common
//!   with few bots) cost once.

use std::collections::BTreeMap;

use super::linalg::{Cholesky, Matrix};
use super::{BotId, GameResult, elo};

/// The z value of a two-sided 95 % normal interval.
const Z95: f64 = 1.959_963_984_540_054;

/// The fit's settings.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FitConfig {
    /// Standard deviation of the Gaussian prior on each strength, in θ units
    /// (1 θ ≈ 174 display points). Default 2.
    pub prior_sd: f64,
    /// Newton steps allowed before giving up. Default 100.
    pub max_iterations: u32,
    /// Converged when no strength moves by more than this in a step.
    /// Default 1e-10.
    pub tolerance: f64,
}

impl Default for FitConfig {
    fn default() -> Self {
        Self {
            prior_sd: 2.0,
            max_iterations: 100,
            tolerance: 1e-10,
        }
    }
}

/// Why a fit cannot be run.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum FitError {
    /// The prior must be a proper Gaussian.
    #[error("prior_sd must be positive and finite, got {0}")]
    InvalidPrior(f64),
    /// The tolerance must be a positive number.
    #[error("tolerance must be positive and finite, got {0}")]
    InvalidTolerance(f64),
}

/// A value with its 95 % interval.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Estimate {
    /// The point estimate.
    pub value: f64,
    /// The lower end of the 95 % interval.
    pub low: f64,
    /// The upper end of the 95 % interval.
    pub high: f64,
}

impl Estimate {
    /// The same estimate on the Elo-like display scale ([`elo`]).
    pub fn to_display(self) -> Self {
        Self {
            value: elo(self.value),
            low: elo(self.low),
            high: elo(self.high),
        }
    }

    /// Whether the two intervals are disjoint.
    pub fn separated_from(&self, other: &Self) -> bool {
        self.high < other.low || other.high < self.low
    }
}

/// One bot's fitted strength.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FittedBot {
    /// The bot.
    pub bot: BotId,
    /// Results this bot took part in.
    pub games: u64,
    /// The strength θ (mean over the pool's bots is 0) with its interval.
    pub theta: Estimate,
    /// The standard error of θ.
    pub std_error: f64,
}

impl FittedBot {
    /// The strength and interval on the display scale.
    pub fn display(&self) -> Estimate {
        self.theta.to_display()
    }
}

/// The outcome of a fit.
#[derive(Clone, Debug, PartialEq)]
pub struct Fit {
    /// Every bot of the results, by id.
    pub bots: Vec<FittedBot>,
    /// The number of results fitted.
    pub results: u64,
    /// Newton steps taken.
    pub iterations: u32,
    /// Whether the steps became smaller than the tolerance. If not, the
    /// estimates are the last iterate and the intervals may be unreliable.
    pub converged: bool,
    /// The penalised log-likelihood at the estimate (log prior up to a
    /// constant).
    pub log_likelihood: f64,
}

impl Fit {
    /// The fitted strength of a bot, if it appears in the results.
    pub fn get(&self, bot: BotId) -> Option<&FittedBot> {
        self.bots
            .binary_search_by_key(&bot, |b| b.bot)
            .ok()
            .map(|i| &self.bots[i])
    }

    /// All bots, strongest first (ties by id).
    pub fn leaderboard(&self) -> Vec<FittedBot> {
        let mut rows = self.bots.clone();
        rows.sort_by(|a, b| {
            b.theta
                .value
                .total_cmp(&a.theta.value)
                .then(a.bot.cmp(&b.bot))
        });
        rows
    }
}

/// Results aggregated for fitting: each distinct ranking with its count.
///
/// A ranking is kept as its players in tied groups, best group first, each
/// group sorted by id, so results that differ only in seat order or in rank
/// numbering (1, 1, 3 against 1, 1, 2) are the same ranking. The server can
/// keep one of these per pool and add results as they come.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FitInput {
    // Key: (group number from 0, bot) in order.
    rankings: BTreeMap<Vec<(u32, BotId)>, u64>,
    results: u64,
}

impl FitInput {
    /// Nothing yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds one result.
    pub fn add(&mut self, result: &GameResult) {
        let mut players: Vec<(u32, BotId)> = result
            .players()
            .iter()
            .map(|&(bot, rank)| (rank, bot))
            .collect();
        players.sort_unstable();
        let mut group = 0;
        let mut key = Vec::with_capacity(players.len());
        for (i, &(rank, bot)) in players.iter().enumerate() {
            if i > 0 && rank != players[i - 1].0 {
                group += 1;
            }
            key.push((group, bot));
        }
        *self.rankings.entry(key).or_insert(0) += 1;
        self.results += 1;
    }

    /// The number of results added.
    pub fn len(&self) -> u64 {
        self.results
    }

    /// Whether no result was added.
    pub fn is_empty(&self) -> bool {
        self.results == 0
    }

    /// The number of distinct rankings among them.
    pub fn distinct_rankings(&self) -> usize {
        self.rankings.len()
    }

    /// Fits the strengths. Zero results give an empty, converged fit.
    pub fn fit(&self, config: &FitConfig) -> Result<Fit, FitError> {
        if !(config.prior_sd > 0.0 && config.prior_sd.is_finite()) {
            return Err(FitError::InvalidPrior(config.prior_sd));
        }
        if !(config.tolerance > 0.0 && config.tolerance.is_finite()) {
            return Err(FitError::InvalidTolerance(config.tolerance));
        }
        let problem = Problem::new(self, config.prior_sd);
        Ok(problem.solve(config, self.results))
    }
}

impl<'a> FromIterator<&'a GameResult> for FitInput {
    fn from_iter<I: IntoIterator<Item = &'a GameResult>>(iter: I) -> Self {
        let mut input = Self::new();
        for result in iter {
            input.add(result);
        }
        input
    }
}

/// Fits the strengths of all bots in `results` (see the module docs).
pub fn fit<'a>(
    results: impl IntoIterator<Item = &'a GameResult>,
    config: &FitConfig,
) -> Result<Fit, FitError> {
    results.into_iter().collect::<FitInput>().fit(config)
}

/// The aggregated rankings in flat arrays of bot indices, for fast passes.
struct Problem {
    bots: Vec<BotId>,
    games: Vec<u64>,
    /// Bot indices of all rankings, back to back, best first.
    players: Vec<u32>,
    /// Per position: the position one past the end of its tied group.
    group_end: Vec<u32>,
    /// Per ranking: its first position in `players`; one extra at the end.
    starts: Vec<usize>,
    counts: Vec<f64>,
    /// 1 / prior_sd².
    precision: f64,
}

impl Problem {
    fn new(input: &FitInput, prior_sd: f64) -> Self {
        let mut bots: Vec<BotId> = input
            .rankings
            .keys()
            .flatten()
            .map(|&(_, bot)| bot)
            .collect();
        bots.sort_unstable();
        bots.dedup();
        let index: BTreeMap<BotId, u32> = bots
            .iter()
            .enumerate()
            .map(|(i, &b)| (b, i as u32))
            .collect();

        let mut problem = Self {
            games: vec![0; bots.len()],
            bots,
            players: Vec::new(),
            group_end: Vec::new(),
            starts: vec![0],
            counts: Vec::new(),
            precision: 1.0 / (prior_sd * prior_sd),
        };
        for (key, &count) in &input.rankings {
            let start = problem.players.len();
            for (i, &(group, bot)) in key.iter().enumerate() {
                let idx = index[&bot];
                problem.players.push(idx);
                problem.games[idx as usize] += count;
                let end = key[i..].iter().take_while(|&&(g, _)| g == group).count() + i;
                problem.group_end.push((start + end) as u32);
            }
            problem.starts.push(problem.players.len());
            problem.counts.push(count as f64);
        }
        problem
    }

    fn solve(&self, config: &FitConfig, results: u64) -> Fit {
        let n = self.bots.len();
        let mut theta = vec![0.0; n];
        let mut iterations = 0;
        let mut converged = n == 0;
        let mut info = Matrix::zeros(n);
        let mut value = self.log_likelihood(&theta);

        while !converged && iterations < config.max_iterations {
            let (gradient, information) = self.derivatives(&theta);
            info = information;
            let Some(chol) = Cholesky::new(&info) else {
                break;
            };
            let step = chol.solve(&gradient);
            iterations += 1;

            // Newton's step is almost always taken whole; halve it while it
            // would lower the (concave) objective.
            let mut t = 1.0;
            let mut candidate: Vec<f64>;
            let mut candidate_value;
            loop {
                candidate = theta.iter().zip(&step).map(|(x, d)| x + t * d).collect();
                candidate_value = self.log_likelihood(&candidate);
                if candidate_value >= value - 1e-12 * value.abs() || t < 1e-6 {
                    break;
                }
                t *= 0.5;
            }
            let moved = step.iter().fold(0.0f64, |m, d| m.max((t * d).abs()));
            theta = candidate;
            value = candidate_value;
            converged = moved < config.tolerance;
        }
        if iterations == 0 && n > 0 {
            info = self.derivatives(&theta).1;
        }

        // The optimum has mean zero already (the prior's gradient must sum
        // to zero there); remove the rounding.
        let mean = if n > 0 {
            theta.iter().sum::<f64>() / n as f64
        } else {
            0.0
        };
        theta.iter_mut().for_each(|x| *x -= mean);

        let variances = centred_variances(&info);
        let bots = (0..n)
            .map(|i| {
                let se = variances[i].max(0.0).sqrt();
                FittedBot {
                    bot: self.bots[i],
                    games: self.games[i],
                    theta: Estimate {
                        value: theta[i],
                        low: theta[i] - Z95 * se,
                        high: theta[i] + Z95 * se,
                    },
                    std_error: se,
                }
            })
            .collect();
        Fit {
            bots,
            results,
            iterations,
            converged,
            log_likelihood: value,
        }
    }

    /// The penalised log-likelihood.
    fn log_likelihood(&self, theta: &[f64]) -> f64 {
        let mut total = 0.0;
        let mut w = Vec::new();
        for r in 0..self.counts.len() {
            let (start, end) = (self.starts[r], self.starts[r + 1]);
            let mut sum = 0.0;
            let m = self.weights(theta, start, end, &mut w);
            let mut a = start;
            while a < end - 1 {
                let b = self.group_end[a] as usize;
                let denominator: f64 = w[a - start..].iter().sum();
                sum += (a..b).map(|p| theta[self.players[p] as usize]).sum::<f64>()
                    - (b - a) as f64 * (denominator.ln() + m);
                a = b;
            }
            total += self.counts[r] * sum;
        }
        total - 0.5 * self.precision * theta.iter().map(|x| x * x).sum::<f64>()
    }

    /// The gradient of the penalised log-likelihood and its negated Hessian
    /// (the observed information, positive definite thanks to the prior).
    fn derivatives(&self, theta: &[f64]) -> (Vec<f64>, Matrix) {
        let n = self.bots.len();
        let mut gradient: Vec<f64> = theta.iter().map(|x| -self.precision * x).collect();
        let mut info = Matrix::zeros(n);
        for i in 0..n {
            info.add(i, i, self.precision);
        }
        let mut w = Vec::new();
        let mut p = Vec::new();
        for r in 0..self.counts.len() {
            let (start, end) = (self.starts[r], self.starts[r + 1]);
            self.weights(theta, start, end, &mut w);
            let count = self.counts[r];
            let mut a = start;
            // A last lone player adds nothing: it wins among itself surely.
            while a < end - 1 {
                let b = self.group_end[a] as usize;
                let remaining = &self.players[a..end];
                let denominator: f64 = w[a - start..].iter().sum();
                p.clear();
                p.extend(w[a - start..].iter().map(|x| x / denominator));
                let weight = count * (b - a) as f64;
                for &winner in &self.players[a..b] {
                    gradient[winner as usize] += count;
                }
                for (q, &i) in remaining.iter().enumerate() {
                    let i = i as usize;
                    gradient[i] -= weight * p[q];
                    info.add(i, i, weight * p[q] * (1.0 - p[q]));
                    for (s, &j) in remaining[..q].iter().enumerate() {
                        let j = j as usize;
                        let v = -weight * p[q] * p[s];
                        // Fill the lower triangle only.
                        if i > j {
                            info.add(i, j, v)
                        } else {
                            info.add(j, i, v)
                        }
                    }
                }
                a = b;
            }
        }
        info.symmetrise_from_lower();
        (gradient, info)
    }

    /// `exp(θ − max θ)` of a ranking's players, into `w`; returns the max.
    fn weights(&self, theta: &[f64], start: usize, end: usize, w: &mut Vec<f64>) -> f64 {
        let ids = &self.players[start..end];
        let m = ids
            .iter()
            .map(|&i| theta[i as usize])
            .fold(f64::NEG_INFINITY, f64::max);
        w.clear();
        w.extend(ids.iter().map(|&i| (theta[i as usize] - m).exp()));
        m
    }
}

/// The variances of `θ_i − mean θ` for the covariance `info⁻¹`: the diagonal
/// of `P·info⁻¹·P` with `P = I − 11ᵀ/n`.
fn centred_variances(info: &Matrix) -> Vec<f64> {
    let size = info.size();
    let Some(chol) = Cholesky::new(info) else {
        return vec![f64::INFINITY; size];
    };
    let cov = chol.inverse();
    let nf = size as f64;
    let row_means: Vec<f64> = (0..size)
        .map(|i| (0..size).map(|j| cov.get(i, j)).sum::<f64>() / nf)
        .collect();
    let grand_mean = row_means.iter().sum::<f64>() / nf;
    (0..size)
        .map(|i| cov.get(i, i) - 2.0 * row_means[i] + grand_mean)
        .collect()
}
