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
    unfitted: bool,
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
        pool.unfitted = true;
        pool.live.record(&result)
    }

    /// Fits every pool with results newer than its fit, if its last fit is at
    /// least `every_ms` old; returns how many pools were fitted.
    pub fn refit(&mut self, now_ms: u64, every_ms: u64) -> usize {
        let mut fitted = 0;
        for pool in self.pools.values_mut() {
            if !pool.unfitted
                || now_ms.saturating_sub(pool.fitted_ms) < every_ms && pool.fitted_ms > 0
            {
                continue;
            }
            match pool.results.fit(&FitConfig::default()) {
                Ok(fit) => {
                    pool.fit = fit.bots;
                    pool.fitted_ms = now_ms;
                    pool.unfitted = false;
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

    /// The pool's bots, best live rating first, and when it was last fitted.
    pub fn leaderboard(
        &self,
        key: PoolKey,
    ) -> (Vec<(BotNo, LiveRating, Option<pb::FittedStrength>)>, u64) {
        let Some(pool) = self.pools.get(&key) else {
            return (Vec::new(), 0);
        };
        let rows = pool
            .live
            .leaderboard()
            .into_iter()
            .map(|(bot, rating)| (bot.0, rating, fitted(pool, bot)))
            .collect();
        (rows, pool.fitted_ms)
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
    pool.fit.iter().find(|f| f.bot == bot).map(|f| {
        let d = f.display();
        pb::FittedStrength {
            strength: d.value,
            low: d.low,
            high: d.high,
        }
    })
}

/// A live rating as the contract shows it.
pub fn rating(r: &LiveRating) -> pb::Rating {
    pb::Rating {
        mu: r.mu,
        sigma: r.sigma,
        display: r.display(),
    }
}
