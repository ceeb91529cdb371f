//! The rating windows of the server's ladder ([`LADDER`]): how close in
//! rating a seek's opponents must be, and how fast that widens while it
//! waits. Ratings are on the pool's scale, 20 points per unit of a live
//! rating's mu around 1500 (a new bot's mu of 25); the README's "Run a
//! ladder" states the same windows in mu.
//!
//! Narrow windows make fair games and informative results; wide ones make
//! games at once. A bot in the middle of the ratings finds close opponents
//! at once whatever the window, so the windows matter only to bots far
//! from the middle, whose nearest peers are few, far away and often busy
//! in a match. Before, a window took 30 s to reach its widest (±20 mu)
//! and a minute to take any rating, and such bots waited a median 31 to
//! 60 s a match against 0.1 s for the others (issue 29). The windows now
//! reach their widest in 10 s and take any rating after 15 s; the
//! simulation below pins what that gives. (House bots, where the server
//! runs them, fill what the pool cannot.)

use super::pool::PoolConfig;

/// The ladder's windows: ±100 points (±5 mu) at once, widening by 30 a
/// second to ±400 (±20 mu) after 10 s; after 15 s a seek takes any rating,
/// the nearest first.
pub const LADDER: PoolConfig = PoolConfig {
    base_window: 100.0,
    widen_per_second: 30.0,
    max_window: 400.0,
    open_after_ms: Some(15_000),
    default_limit: 1,
};

#[cfg(test)]
mod tests {
    use std::collections::HashMap;
    use std::ops::RangeInclusive;

    use super::*;
    use crate::pairing::BotId;
    use crate::pairing::pool::{Pool, Seek, SeekId};

    /// The windows of the ladder before issue 29.
    const BEFORE: PoolConfig = PoolConfig {
        base_window: 100.0,
        widen_per_second: 10.0,
        max_window: 400.0,
        open_after_ms: Some(60_000),
        default_limit: 1,
    };

    /// A deterministic standard normal sample (Box-Muller over a small LCG).
    fn normals(n: usize, mut state: u64) -> Vec<f64> {
        let mut uniform = move || {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            ((state >> 11) as f64 + 0.5) / (1u64 << 53) as f64
        };
        (0..n)
            .map(|_| {
                let (u, v) = (uniform(), uniform());
                (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()
            })
            .collect()
    }

    /// Waits per match, ms, by bot rank (0 = lowest rating), of `bots`
    /// bots whose ratings spread as a ladder's do (normal, standard deviation
    /// `sd` points: random, greedy and MCTS bots side by side), each seeking `players`
    /// games one match at a time, matches lasting `match_ms` on average, over
    /// `total_ms` in the server's 50 ms rounds.
    fn waits(
        config: PoolConfig,
        bots: usize,
        players: RangeInclusive<u8>,
        match_ms: u64,
        total_ms: u64,
        sd: f64,
    ) -> Vec<Vec<u64>> {
        let mut ratings: Vec<f64> = normals(bots, 29).iter().map(|z| 1500.0 + sd * z).collect();
        ratings.sort_by(f64::total_cmp);
        let mut pool: Pool<u8> = Pool::new(config, |_| crate::pairing::Seats::new(2, 4));
        let mut next_id = 0u64;
        let mut seek_since: HashMap<u64, u64> = HashMap::new();
        // When each bot's match ends; bots not in a match seek.
        let mut busy_until: Vec<Option<u64>> = vec![None; bots];
        let mut waits = vec![Vec::new(); bots];
        // Staggered arrivals, so that the first round is not one big draw.
        for (b, until) in busy_until.iter_mut().enumerate() {
            *until = Some((b as u64 * 37) % 5_000);
        }
        let mut now = 0;
        while now < total_ms {
            for b in 0..bots {
                if busy_until[b].is_some_and(|end| end <= now) {
                    busy_until[b] = None;
                    pool.set_load(BotId(b as u64), 0, 1);
                    pool.add(Seek {
                        id: SeekId(next_id),
                        bot: BotId(b as u64),
                        kind: 1,
                        players: players.clone(),
                        rated: true,
                        rating: ratings[b],
                        since_ms: now,
                    })
                    .unwrap();
                    seek_since.insert(next_id, now);
                    next_id += 1;
                }
            }
            for m in pool.form(now) {
                // Games last from half to one and a half times `match_ms`,
                // so that no group of bots stays together.
                let length = match_ms / 2 + crate::pairing::mix(now ^ m.seats[0].0.0) % match_ms;
                for (id, bot) in m.seats {
                    let b = bot.0 as usize;
                    waits[b].push(now - seek_since[&id.0]);
                    busy_until[b] = Some(now + length);
                }
            }
            now += 50;
        }
        waits
    }

    fn median(mut xs: Vec<u64>) -> u64 {
        xs.sort_unstable();
        xs.get(xs.len() / 2).copied().unwrap_or(u64::MAX)
    }

    /// The median wait of the `k` bots at each end of the ratings, and of
    /// the `2k` in the middle.
    fn medians(waits: &[Vec<u64>], k: usize) -> (u64, u64) {
        let n = waits.len();
        let far: Vec<u64> = waits[..k]
            .iter()
            .chain(&waits[n - k..])
            .flatten()
            .copied()
            .collect();
        let middle: Vec<u64> = waits[n / 2 - k..n / 2 + k]
            .iter()
            .flatten()
            .copied()
            .collect();
        (median(far), median(middle))
    }

    #[test]
    fn bots_far_from_the_middle_of_the_ratings_find_games_promptly() {
        // A small ladder: 16 bots seeking four-player games, ratings spread
        // widely (sd 400 points: 20 mu), matches of 40 s, an hour.
        let run = |config| waits(config, 16, 4..=4, 40_000, 3_600_000, 400.0);
        let (far, middle) = medians(&run(LADDER), 2);
        let (far_before, middle_before) = medians(&run(BEFORE), 2);
        eprintln!(
            "median wait per match, ms: far {far} (before {far_before}), middle {middle} \
             (before {middle_before})"
        );
        // What issue 29 measured, reproduced with the old windows...
        assert!(far_before > 30_000, "{far_before}");
        // ...and gone with the new: a far bot waits at most until its window
        // takes any rating, and the middle of the ratings is not held up.
        assert!(far <= 15_000, "{far}");
        assert!(middle <= 1_000, "{middle} (before {middle_before})");
    }
}
