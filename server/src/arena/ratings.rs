//! The ratings of every pool (game kind and player count): the live Weng-Lin
//! rating updated by each rated result, and the latest maximum-likelihood fit
//! of the pool's results (`druids_arena::ratings`). Both come from the stored
//! results alone: at start-up they are replayed in the order the matches
//! finished, the order they were first recorded in.

use std::collections::BTreeMap;

use druids_arena::ratings::{
    BotId, FitConfig, FitInput, FittedBot, GameResult, LiveRating, LiveRatings, RatingChange,
};
use druids_contract::pb;

use super::bots::BotNo;

/// A pool: which game, how many players.
pub type PoolKey = (druids_contract::Kind, u32);

/// One pool's ratings.
#[derive(Default)]
struct Pool {
    live: LiveRatings,
    results: FitInput,
    fit: Vec<FittedBot>,
    fitted_ms: u64,
    /// Results not in the fit yet.
    unfitted: u32,
}

/// A bot's fitted strength and how many of its results the fit includes.
pub type Fitted = (pb::FittedStrength, u64);

/// A pool's leaderboard: its bots, and how fresh the fit beside them is.
pub struct Board {
    /// Best live rating first: each bot's live rating and its fit.
    pub rows: Vec<(BotNo, LiveRating, Option<Fitted>)>,
    /// When the fit was made, ms since the Unix epoch (0: never).
    pub fitted_ms: u64,
    /// Rated results recorded since (not in the fit).
    pub results_since_fit: u32,
}

/// Every pool's ratings.
#[derive(Default)]
pub struct Ratings {
    pools: BTreeMap<PoolKey, Pool>,
}

impl Ratings {
    /// Records a rated result of pool `key` (ranks by bot, 1 = best).
    pub fn record(&mut self, key: PoolKey, ranks: &[(BotNo, u32)]) -> Vec<RatingChange> {
        let players = ranks.iter().map(|&(b, r)| (BotId(b), r)).collect();
        let Ok(result) = GameResult::new(players) else {
            return Vec::new();
        };
        let pool = self.pools.entry(key).or_default();
        pool.results.add(&result);
        pool.unfitted = pool.unfitted.saturating_add(1);
        pool.live.record(&result)
    }

    /// Fits every pool with results newer than its fit, if its last fit is at
    /// least `every_ms` old; returns how many pools were fitted.
    pub fn refit(&mut self, now_ms: u64, every_ms: u64) -> usize {
        let mut fitted = 0;
        for pool in self.pools.values_mut() {
            if pool.unfitted == 0
                || now_ms.saturating_sub(pool.fitted_ms) < every_ms && pool.fitted_ms > 0
            {
                continue;
            }
            match pool.results.fit(&FitConfig::default()) {
                Ok(fit) => {
                    pool.fit = fit.bots;
                    pool.fitted_ms = now_ms;
                    pool.unfitted = 0;
                    fitted += 1;
                }
                Err(e) => tracing::error!("the rating fit failed: {e}"),
            }
        }
        fitted
    }

    /// Bot `bot`'s live rating in pool `key`, and its rated matches there.
    pub fn live(&self, key: PoolKey, bot: BotNo) -> LiveRating {
        self.pools
            .get(&key)
            .map(|p| p.live.get(BotId(bot)))
            .unwrap_or_else(|| LiveRatings::default().get(BotId(bot)))
    }

    /// The pool's bots, best live rating first, and how fresh its fit is.
    pub fn leaderboard(&self, key: PoolKey) -> Board {
        let Some(pool) = self.pools.get(&key) else {
            return Board {
                rows: Vec::new(),
                fitted_ms: 0,
                results_since_fit: 0,
            };
        };
        let rows = pool
            .live
            .leaderboard()
            .into_iter()
            .map(|(bot, rating)| {
                let fit = pool.fit.iter().find(|f| f.bot == bot);
                (bot.0, rating, fit.map(|f| (strength(f), f.games)))
            })
            .collect();
        Board {
            rows,
            fitted_ms: pool.fitted_ms,
            results_since_fit: pool.unfitted,
        }
    }

    /// Every pool bot `bot` has a rating in.
    pub fn of_bot(&self, bot: BotNo) -> Vec<(PoolKey, LiveRating, Option<pb::FittedStrength>)> {
        self.pools
            .iter()
            .filter(|(_, p)| p.live.contains(BotId(bot)))
            .map(|(&key, p)| (key, p.live.get(BotId(bot)), fitted(p, BotId(bot))))
            .collect()
    }
}

fn fitted(pool: &Pool, bot: BotId) -> Option<pb::FittedStrength> {
    pool.fit.iter().find(|f| f.bot == bot).map(strength)
}

fn strength(f: &FittedBot) -> pb::FittedStrength {
    let d = f.display();
    pb::FittedStrength {
        strength: d.value,
        low: d.low,
        high: d.high,
    }
}

/// A live rating as the contract shows it.
pub fn rating(r: &LiveRating) -> pb::Rating {
    pb::Rating {
        mu: r.mu,
        sigma: r.sigma,
        display: r.display(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 29: a leaderboard never shows a fit older than the ratings
    /// beside it without saying so.
    #[test]
    fn a_leaderboard_says_how_many_results_its_fit_leaves_out() {
        let key = (druids_contract::Kind::Meduris, 2);
        let mut ratings = Ratings::default();
        ratings.record(key, &[(1, 1), (2, 2)]);
        ratings.record(key, &[(1, 1), (2, 2)]);
        assert_eq!(ratings.refit(1_000, 60_000), 1);
        let board = ratings.leaderboard(key);
        assert_eq!((board.fitted_ms, board.results_since_fit), (1_000, 0));
        assert!(
            board
                .rows
                .iter()
                .all(|(_, live, fit)| fit.unwrap().1 == live.games as u64)
        );
        // Newer results: the live ratings move, the fit waits for its turn.
        ratings.record(key, &[(2, 1), (1, 2)]);
        ratings.record(key, &[(2, 1), (3, 2)]);
        assert_eq!(ratings.refit(2_000, 60_000), 0);
        let board = ratings.leaderboard(key);
        assert_eq!(board.results_since_fit, 2);
        let fit_of = |bot| {
            let (_, live, fit) = board.rows.iter().find(|r| r.0 == bot).unwrap();
            (live.games, fit.map(|f| f.1))
        };
        assert_eq!(fit_of(1), (3, Some(2)));
        assert_eq!(fit_of(3), (1, None));
        // The next fit takes them all.
        assert_eq!(ratings.refit(61_000, 60_000), 1);
        assert_eq!(ratings.leaderboard(key).results_since_fit, 0);
    }
}
