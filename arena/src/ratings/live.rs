//! Live ratings: a Weng-Lin (OpenSkill) rating updated after every game.
//!
//! The arena needs a number that moves as soon as a game ends, for the lobby
//! and for matchmaking, and that says how sure it is. Weng-Lin's
//! Bradley-Terry "full pairing" update does this for any number of players
//! with ties, in microseconds, keeping per bot a mean `mu` and an uncertainty
//! `sigma`. The arithmetic is the `skillratings` crate's; this module adds the
//! bookkeeping (bots, games played, before/after) and a small drift of sigma
//! between games so that a rating never freezes.
//!
//! The live rating depends on the order of the games; replaying the stored
//! results in their stored order reproduces it bit for bit.

use std::collections::BTreeMap;

use skillratings::MultiTeamOutcome;
use skillratings::weng_lin::{WengLinConfig, WengLinRating, weng_lin_multi_team};

use super::{BotId, GameResult};

/// The constants of the live rating. The defaults are OpenSkill's.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LiveConfig {
    /// The mean of a new bot: 25.
    pub initial_mu: f64,
    /// The uncertainty of a new bot: 25/3 ≈ 8.33, so a new bot's displayed
    /// rating `mu − 3·sigma` is 0.
    pub initial_sigma: f64,
    /// The skill-class width: a `beta` lead in `mu` gives about 2:1 odds
    /// head to head. 25/6 ≈ 4.17. Larger means more luck in the game.
    pub beta: f64,
    /// Added in quadrature to sigma before each game (`sigma² += tau²`), so
    /// that a bot that changes keeps being able to move. 25/300 ≈ 0.083.
    pub tau: f64,
    /// The floor of the uncertainty calculation (the crate's default).
    pub uncertainty_tolerance: f64,
}

impl Default for LiveConfig {
    fn default() -> Self {
        Self {
            initial_mu: 25.0,
            initial_sigma: 25.0 / 3.0,
            beta: 25.0 / 6.0,
            tau: 25.0 / 300.0,
            uncertainty_tolerance: 0.000_001,
        }
    }
}

/// One bot's live rating.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LiveRating {
    /// The estimated skill.
    pub mu: f64,
    /// The standard deviation of that estimate.
    pub sigma: f64,
    /// Rated games recorded for this bot in this pool.
    pub games: u32,
}

impl LiveRating {
    /// The rating shown to people: the conservative `mu − 3·sigma`, a skill
    /// the bot has with about 99.9 % certainty. It starts at 0 and rises both
    /// when the bot wins and as its uncertainty shrinks.
    pub fn display(&self) -> f64 {
        self.mu - 3.0 * self.sigma
    }
}

/// How one game changed one bot's live rating.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RatingChange {
    /// The bot.
    pub bot: BotId,
    /// Its rank in the game (1 = best).
    pub rank: u32,
    /// Its rating before the game.
    pub before: LiveRating,
    /// Its rating after the game.
    pub after: LiveRating,
}

/// The live ratings of one pool (one game kind and player count).
#[derive(Clone, Debug, Default)]
pub struct LiveRatings {
    config: LiveConfig,
    // Ordered, so that iteration and leaderboards are deterministic.
    bots: BTreeMap<BotId, LiveRating>,
}

impl LiveRatings {
    /// An empty pool with the given constants.
    pub fn new(config: LiveConfig) -> Self {
        Self {
            config,
            bots: BTreeMap::new(),
        }
    }

    /// A pool rebuilt from stored results, in their stored order. Gives
    /// bit-identical ratings to recording the same results one by one.
    pub fn replay<'a>(
        config: LiveConfig,
        results: impl IntoIterator<Item = &'a GameResult>,
    ) -> Self {
        let mut ratings = Self::new(config);
        for result in results {
            ratings.record(result);
        }
        ratings
    }

    /// Sets a bot's rating, e.g. when restoring a saved snapshot instead of
    /// replaying every result.
    pub fn set(&mut self, bot: BotId, rating: LiveRating) {
        self.bots.insert(bot, rating);
    }

    /// The constants in use.
    pub fn config(&self) -> &LiveConfig {
        &self.config
    }

    /// A bot's rating; a bot without rated games has the initial rating.
    pub fn get(&self, bot: BotId) -> LiveRating {
        self.bots.get(&bot).copied().unwrap_or(self.initial())
    }

    /// Whether the bot has played a rated game in this pool.
    pub fn contains(&self, bot: BotId) -> bool {
        self.bots.contains_key(&bot)
    }

    /// The number of bots with at least one rated game.
    pub fn len(&self) -> usize {
        self.bots.len()
    }

    /// Whether no game has been recorded.
    pub fn is_empty(&self) -> bool {
        self.bots.is_empty()
    }

    /// All rated bots, by id.
    pub fn iter(&self) -> impl Iterator<Item = (BotId, LiveRating)> + '_ {
        self.bots.iter().map(|(&bot, &rating)| (bot, rating))
    }

    /// All rated bots, best displayed rating first (ties by id).
    pub fn leaderboard(&self) -> Vec<(BotId, LiveRating)> {
        let mut rows: Vec<_> = self.iter().collect();
        rows.sort_by(|a, b| b.1.display().total_cmp(&a.1.display()).then(a.0.cmp(&b.0)));
        rows
    }

    /// Updates the ratings of the game's players and says how each changed,
    /// in the game's player order.
    pub fn record(&mut self, result: &GameResult) -> Vec<RatingChange> {
        let before: Vec<LiveRating> = result
            .players()
            .iter()
            .map(|&(bot, _)| self.get(bot))
            .collect();
        // One-player teams, with the drift applied first.
        let teams: Vec<[WengLinRating; 1]> = before
            .iter()
            .map(|r| {
                [WengLinRating {
                    rating: r.mu,
                    // Plain arithmetic (not hypot) so that a replay anywhere gives the same bits.
                    uncertainty: (r.sigma * r.sigma + self.config.tau * self.config.tau).sqrt(),
                }]
            })
            .collect();
        let teams_and_ranks: Vec<(&[WengLinRating], MultiTeamOutcome)> = teams
            .iter()
            .zip(result.players())
            .map(|(team, &(_, rank))| (&team[..], MultiTeamOutcome::new(rank as usize)))
            .collect();
        let config = WengLinConfig {
            beta: self.config.beta,
            uncertainty_tolerance: self.config.uncertainty_tolerance,
        };
        let updated = weng_lin_multi_team(&teams_and_ranks, &config);

        result
            .players()
            .iter()
            .zip(before)
            .zip(updated)
            .map(|((&(bot, rank), before), team)| {
                let after = LiveRating {
                    mu: team[0].rating,
                    sigma: team[0].uncertainty,
                    games: before.games + 1,
                };
                self.bots.insert(bot, after);
                RatingChange {
                    bot,
                    rank,
                    before,
                    after,
                }
            })
            .collect()
    }

    fn initial(&self) -> LiveRating {
        LiveRating {
            mu: self.config.initial_mu,
            sigma: self.config.initial_sigma,
            games: 0,
        }
    }
}
