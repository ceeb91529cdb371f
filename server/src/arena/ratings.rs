//! The ratings of every pool (game kind and player count): the live Weng-Lin
//! rating updated by each rated result, and the latest maximum-likelihood fit
//! of the pool's results (`druids_arena::ratings`). Both come from the stored
//! results alone: at start-up they are replayed in the order the matches
//! finished, the order they were first recorded in.
//!
//! Also what the sybil rules of `docs/ratings.md` read: whom each bot met in
//! rated matches (a bot is *established* after enough rated matches against
//! enough distinct opponents; only established bots are ranked, and only
//! they may play rated challenges), and when each pair of bots last started
//! rated matches together (a pair's matches beyond a few a day are played
//! unrated).

use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};

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
    /// The distinct opponents of each bot in rated results.
    opponents: HashMap<BotNo, HashSet<BotNo>>,
    /// When each pair of bots (the smaller number first) started rated
    /// matches together, oldest first.
    pairs: HashMap<(BotNo, BotNo), VecDeque<u64>>,
}

/// A day, ms: the window of the rated matches a pair may start.
pub const DAY_MS: u64 = 24 * 3_600_000;

/// When a bot counts as established in a pool (`docs/ratings.md`).
#[derive(Clone, Copy, Debug)]
pub struct Established {
    /// Rated matches played in the pool, at least.
    pub matches: u32,
    /// Distinct opponents met in them, at least.
    pub opponents: u32,
}

/// Every pair of `bots`, the smaller number first.
fn pairs(bots: &[BotNo]) -> impl Iterator<Item = (BotNo, BotNo)> + '_ {
    bots.iter().enumerate().flat_map(move |(i, &a)| {
        bots[i + 1..]
            .iter()
            .map(move |&b| if a < b { (a, b) } else { (b, a) })
    })
}

/// A bot's fitted strength and how many of its results the fit includes.
pub type Fitted = (pb::FittedStrength, u64);

/// A line of a leaderboard.
pub struct Row {
    /// The bot.
    pub bot: BotNo,
    /// Its live rating.
    pub rating: LiveRating,
    /// Its strength in the pool's latest fit, and the results that fit holds.
    pub fit: Option<Fitted>,
    /// Not established yet: ranked after every established bot.
    pub provisional: bool,
}

/// A pool's leaderboard: its bots, and how fresh the fit beside them is.
pub struct Board {
    /// The established bots first, each part best live rating first.
    pub rows: Vec<Row>,
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
        for (a, b) in pairs(&ranks.iter().map(|&(b, _)| b).collect::<Vec<_>>()) {
            pool.opponents.entry(a).or_default().insert(b);
            pool.opponents.entry(b).or_default().insert(a);
        }
        pool.live.record(&result)
    }

    /// Notes that `bots` started a rated match of pool `key` at `at_ms`.
    pub fn started(&mut self, key: PoolKey, bots: &[BotNo], at_ms: u64) {
        let pool = self.pools.entry(key).or_default();
        for pair in pairs(bots) {
            let times = pool.pairs.entry(pair).or_default();
            // In time order (a restart replays the stored matches in theirs).
            let at = times.partition_point(|&t| t <= at_ms);
            times.insert(at, at_ms);
        }
    }

    /// Takes back [`Ratings::started`] of a match that could not be opened.
    pub fn not_started(&mut self, key: PoolKey, bots: &[BotNo], at_ms: u64) {
        let Some(pool) = self.pools.get_mut(&key) else {
            return;
        };
        for pair in pairs(bots) {
            if let Some(times) = pool.pairs.get_mut(&pair)
                && let Some(i) = times.iter().position(|&t| t == at_ms)
            {
                times.remove(i);
            }
        }
    }

    /// A pair of `bots` that started `per_day` rated matches of pool `key`
    /// together in the day before `now_ms`, if one did: their next match is
    /// played unrated.
    pub fn pair_over(
        &mut self,
        key: PoolKey,
        bots: &[BotNo],
        per_day: u32,
        now_ms: u64,
    ) -> Option<(BotNo, BotNo)> {
        let pool = self.pools.get_mut(&key)?;
        pairs(bots).find(|pair| {
            let Some(times) = pool.pairs.get_mut(pair) else {
                return false;
            };
            while times
                .front()
                .is_some_and(|&t| now_ms.saturating_sub(t) >= DAY_MS)
            {
                times.pop_front();
            }
            times.len() >= per_day as usize
        })
    }

    /// Whether bot `bot` is established in pool `key`: enough rated
    /// matches, against enough distinct opponents, or against every other
    /// bot of a pool that has fewer (a lone bot among the house bots, whose
    /// default levels are four, is ranked once it played its matches).
    pub fn established(&self, key: PoolKey, bot: BotNo, rule: Established) -> bool {
        let (games, met, others) = self.pools.get(&key).map_or((0, 0, 0), |pool| {
            let met = pool.opponents.get(&bot).map_or(0, HashSet::len);
            let others = pool.opponents.len().saturating_sub(1);
            (pool.live.get(BotId(bot)).games, met, others)
        });
        games >= rule.matches && met >= (rule.opponents as usize).min(others)
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

    /// The pool's bots, the established ones first, each part best live
    /// rating first, with whether each is provisional (not established), and
    /// how fresh the pool's fit is.
    pub fn leaderboard(&self, key: PoolKey, rule: Established) -> Board {
        let Some(pool) = self.pools.get(&key) else {
            return Board {
                rows: Vec::new(),
                fitted_ms: 0,
                results_since_fit: 0,
            };
        };
        let mut rows: Vec<Row> = pool
            .live
            .leaderboard()
            .into_iter()
            .map(|(bot, rating)| Row {
                bot: bot.0,
                rating,
                fit: fitted(pool, bot),
                provisional: !self.established(key, bot.0, rule),
            })
            .collect();
        // A stable sort: the live order within each part.
        rows.sort_by_key(|r| r.provisional);
        Board {
            rows,
            fitted_ms: pool.fitted_ms,
            results_since_fit: pool.unfitted,
        }
    }

    /// Every pool bot `bot` has a rating in, with whether it is provisional
    /// there.
    pub fn of_bot(&self, bot: BotNo, rule: Established) -> Vec<(PoolKey, Row)> {
        self.pools
            .iter()
            .filter(|(_, p)| p.live.contains(BotId(bot)))
            .map(|(&key, p)| {
                let row = Row {
                    bot,
                    rating: p.live.get(BotId(bot)),
                    fit: fitted(p, BotId(bot)),
                    provisional: !self.established(key, bot, rule),
                };
                (key, row)
            })
            .collect()
    }
}

fn fitted(pool: &Pool, bot: BotId) -> Option<Fitted> {
    pool.fit
        .iter()
        .find(|f| f.bot == bot)
        .map(|f| (strength(f), f.games))
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
    use druids_contract::Kind;

    use super::*;

    const DOLMEN_2: PoolKey = (Kind::Dolmen, 2);
    const RULE: Established = Established {
        matches: 10,
        opponents: 5,
    };
    /// Every bot established from its first match.
    const OPEN: Established = Established {
        matches: 0,
        opponents: 0,
    };

    /// Records a rated match of `bots` ranked in their order at `at_ms`,
    /// as the arena does: unrated (not recorded) if a pair of them is past
    /// its `per_day` rated matches. Whether it was rated.
    fn play(r: &mut Ratings, bots: [BotNo; 2], per_day: u32, at_ms: u64) -> bool {
        if r.pair_over(DOLMEN_2, &bots, per_day, at_ms).is_some() {
            return false;
        }
        r.started(DOLMEN_2, &bots, at_ms);
        r.record(DOLMEN_2, &[(bots[0], 1), (bots[1], 2)]);
        true
    }

    /// The sybil scenario of issue 25 through the ratings' rules: four
    /// accomplices throw twelve matches to a target in a day (which also
    /// beats two others), while an honest bot beats ten distinct opponents
    /// and loses once. With the default of one rated match per pair and day,
    /// the thrown matches beyond the first of each pair are unrated, and the
    /// target is not ranked over the honest bot.
    #[test]
    fn thrown_games_do_not_rank_their_target_over_a_bot_that_beat_many() {
        let per_day = 1;
        let mut r = Ratings::default();
        let (target, honest) = (1, 2);
        let mut at = 100 * DAY_MS;
        let mut rated = 0;
        for _ in 0..3 {
            for s in 10..14 {
                at += 1_000;
                rated += usize::from(play(&mut r, [target, s], per_day, at));
            }
        }
        assert_eq!(rated, 4, "one rated match per accomplice");
        for other in [20, 21] {
            at += 1_000;
            play(&mut r, [target, other], per_day, at);
        }
        for other in 30..40 {
            at += 1_000;
            play(&mut r, [honest, other], per_day, at);
        }
        at += 1_000;
        play(&mut r, [40, honest], per_day, at);
        assert!(r.established(DOLMEN_2, honest, RULE));
        let rows = r.leaderboard(DOLMEN_2, RULE).rows;
        assert_eq!(rows[0].bot, honest, "the bot that beat many is #1");
        let t = rows.iter().position(|row| row.bot == target).unwrap();
        assert!(
            rows[t].provisional,
            "six matches: the target is provisional"
        );
        assert!(
            rows[..t].iter().all(|row| !row.provisional),
            "listed after every established bot"
        );
        // Without the per-pair rule, the same thrown games would have put
        // the target first.
        let mut open = Ratings::default();
        for _ in 0..3 {
            for s in 10..14 {
                open.record(DOLMEN_2, &[(target, 1), (s, 2)]);
            }
        }
        for other in [20, 21] {
            open.record(DOLMEN_2, &[(target, 1), (other, 2)]);
        }
        for other in 30..40 {
            open.record(DOLMEN_2, &[(honest, 1), (other, 2)]);
        }
        open.record(DOLMEN_2, &[(40, 1), (honest, 2)]);
        let rows = open.leaderboard(DOLMEN_2, RULE).rows;
        assert_eq!(rows[0].bot, target, "the attack works without the rule");
    }

    #[test]
    fn a_pair_past_its_rated_matches_of_the_day_plays_unrated() {
        let mut r = Ratings::default();
        let now = 10 * DAY_MS;
        for i in 0..3 {
            assert_eq!(r.pair_over(DOLMEN_2, &[1, 2], 3, now + i), None);
            r.started(DOLMEN_2, &[1, 2], now + i);
        }
        assert_eq!(r.pair_over(DOLMEN_2, &[2, 1], 3, now + 10), Some((1, 2)));
        assert_eq!(r.pair_over(DOLMEN_2, &[1, 3], 3, now + 10), None);
        assert_eq!(r.pair_over(DOLMEN_2, &[1, 2], 3, now + DAY_MS + 3), None);
    }

    /// Issue 29: a leaderboard never shows a fit older than the ratings
    /// beside it without saying so.
    #[test]
    fn a_leaderboard_says_how_many_results_its_fit_leaves_out() {
        let key = (druids_contract::Kind::Meduris, 2);
        let mut ratings = Ratings::default();
        ratings.record(key, &[(1, 1), (2, 2)]);
        ratings.record(key, &[(1, 1), (2, 2)]);
        assert_eq!(ratings.refit(1_000, 60_000), 1);
        let board = ratings.leaderboard(key, OPEN);
        assert_eq!((board.fitted_ms, board.results_since_fit), (1_000, 0));
        assert!(
            board
                .rows
                .iter()
                .all(|r| r.fit.unwrap().1 == r.rating.games as u64)
        );
        // Newer results: the live ratings move, the fit waits for its turn.
        ratings.record(key, &[(2, 1), (1, 2)]);
        ratings.record(key, &[(2, 1), (3, 2)]);
        assert_eq!(ratings.refit(2_000, 60_000), 0);
        let board = ratings.leaderboard(key, OPEN);
        assert_eq!(board.results_since_fit, 2);
        let fit_of = |bot| {
            let r = board.rows.iter().find(|r| r.bot == bot).unwrap();
            (r.rating.games, r.fit.map(|f| f.1))
        };
        assert_eq!(fit_of(1), (3, Some(2)));
        assert_eq!(fit_of(3), (1, None));
        // The next fit takes them all.
        assert_eq!(ratings.refit(61_000, 60_000), 1);
        assert_eq!(ratings.leaderboard(key, OPEN).results_since_fit, 0);
    }

    #[test]
    fn a_start_taken_back_no_longer_counts_for_the_pair() {
        let mut r = Ratings::default();
        r.started(DOLMEN_2, &[1, 2], 10);
        assert_eq!(r.pair_over(DOLMEN_2, &[1, 2], 1, 20), Some((1, 2)));
        r.not_started(DOLMEN_2, &[1, 2], 10);
        assert_eq!(r.pair_over(DOLMEN_2, &[1, 2], 1, 20), None);
    }

    /// A lone bot among fewer than `opponents` others (the four house bots
    /// of a fresh server) is established once it played its matches against
    /// every one of them; while a pool has more, it needs `opponents`.
    #[test]
    fn a_lone_bot_among_few_others_is_established_once_it_met_them_all() {
        let mut r = Ratings::default();
        let (lone, house) = (1, [50, 51, 52, 53]);
        let mut at = 100 * DAY_MS;
        for round in 0..3 {
            for &h in &house {
                at += 1_000;
                assert!(play(&mut r, [lone, h], 10, at), "round {round}");
            }
        }
        assert!(
            r.established(DOLMEN_2, lone, RULE),
            "12 matches, all 4 others met"
        );
        // One more bot in the pool: five others, so five must be met.
        at += 1_000;
        play(&mut r, [60, 53], 10, at);
        assert!(!r.established(DOLMEN_2, lone, RULE));
        at += 1_000;
        play(&mut r, [lone, 60], 10, at);
        assert!(r.established(DOLMEN_2, lone, RULE));
        // Too few matches is never enough.
        let mut fresh = Ratings::default();
        play(&mut fresh, [lone, 50], 10, at);
        assert!(!fresh.established(DOLMEN_2, lone, RULE));
    }
}
