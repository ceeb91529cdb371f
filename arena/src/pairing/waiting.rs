//! Why a seek is still waiting: what the pool lacks for it, so that a bot
//! alone in its pool is told so (and what would help) instead of waiting in
//! silence. It reads the pool as [`Pool::form`] left it and changes nothing.
//!
//! A seek could play a game of `n` players when at least `n` different bots
//! (its own included) have seeks of its kind and rated flag whose player
//! ranges contain `n`. When no count of its range has that many, it waits
//! for bots ([`WaitReason::TooFewBots`]); when enough bots seek but too many
//! of them play as many matches as they may, for them to finish
//! ([`WaitReason::BotsBusy`]); otherwise only the rating window holds it back
//! ([`WaitReason::RatingWindow`]), which widens with time.

use std::collections::{HashMap, HashSet};

use super::BotId;
use super::pool::{Pool, Seek, SeekId};

/// What a waiting seek lacks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WaitReason {
    /// Fewer bots seek a game it could share than its smallest game needs.
    TooFewBots,
    /// Enough bots seek, but some of them play as many matches as they may.
    BotsBusy,
    /// Enough bots with room seek, but not within its rating window yet.
    RatingWindow {
        /// When its window takes any rating (`None`: never, by the pool's
        /// configuration).
        opens_at_ms: Option<u64>,
    },
}

/// One waiting seek's situation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Waiting {
    /// What it lacks.
    pub reason: WaitReason,
    /// The most bots (its own included) seeking a game of one player count
    /// it accepts: of its range, the count with the most.
    pub bots: usize,
    /// The players of its smallest game (its range's start).
    pub needed: u8,
}

/// Which seeks can sit at one table: the same kind and rated flag, and a
/// game of `players`.
type Table<K> = (K, bool, u8);

impl<K: Copy + Eq + std::hash::Hash + Ord> Pool<K> {
    /// The open seeks that could share a game with `seek` (the same kind and
    /// rated flag, player ranges that overlap), `seek` itself included if it
    /// is open. Its bot's other seeks are not counted: a bot never meets
    /// itself.
    pub fn compatible(&self, seek: &Seek<K>) -> usize {
        self.seeks()
            .filter(|s| {
                (s.id == seek.id || s.bot != seek.bot)
                    && s.kind == seek.kind
                    && s.rated == seek.rated
                    && s.players.start() <= seek.players.end()
                    && seek.players.start() <= s.players.end()
            })
            .count()
    }

    /// Why each open seek is still waiting at `now_ms`, in id order. Meant
    /// for after [`Pool::form`]: the seeks it leaves are those it could not
    /// match.
    pub fn waiting(&self, now_ms: u64) -> Vec<(SeekId, Waiting)> {
        let mut all: HashMap<Table<K>, HashSet<BotId>> = HashMap::new();
        let mut free: HashMap<Table<K>, HashSet<BotId>> = HashMap::new();
        for s in self.seeks() {
            let has_room = {
                let load = self.load(s.bot);
                load.playing < load.limit
            };
            for n in s.players.clone() {
                all.entry((s.kind, s.rated, n)).or_default().insert(s.bot);
                if has_room {
                    free.entry((s.kind, s.rated, n)).or_default().insert(s.bot);
                }
            }
        }
        let count =
            |map: &HashMap<Table<K>, HashSet<BotId>>, key| map.get(&key).map_or(0, |b| b.len());
        self.seeks()
            .map(|s| {
                let counts = || s.players.clone().map(|n| (s.kind, s.rated, n));
                let playable =
                    |map| counts().any(|key @ (_, _, n)| count(map, key) >= usize::from(n));
                let reason = if !playable(&all) {
                    WaitReason::TooFewBots
                } else if !playable(&free) {
                    WaitReason::BotsBusy
                } else {
                    WaitReason::RatingWindow {
                        opens_at_ms: self
                            .config()
                            .open_after_ms
                            .map(|open| s.since_ms.saturating_add(open))
                            .filter(|&at| at > now_ms),
                    }
                };
                let waiting = Waiting {
                    reason,
                    bots: counts().map(|key| count(&all, key)).max().unwrap_or(0),
                    needed: *s.players.start(),
                };
                (s.id, waiting)
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pairing::Seats;
    use crate::pairing::pool::PoolConfig;

    fn seats(_: &u8) -> Seats {
        Seats::new(2, 4)
    }

    fn seek(id: u64, bot: u64, players: std::ops::RangeInclusive<u8>, rating: f64) -> Seek<u8> {
        Seek {
            id: SeekId(id),
            bot: BotId(bot),
            kind: 1,
            players,
            rated: true,
            rating,
            since_ms: 0,
        }
    }

    fn reasons(pool: &Pool<u8>, now: u64) -> Vec<(u64, WaitReason, usize)> {
        pool.waiting(now)
            .into_iter()
            .map(|(id, w)| (id.0, w.reason, w.bots))
            .collect()
    }

    #[test]
    fn a_lone_four_player_seek_waits_for_bots() {
        let mut pool = Pool::new(PoolConfig::default(), seats);
        pool.add(seek(1, 10, 4..=4, 1500.0)).unwrap();
        // Another bot's two seeks count once; an unrated one not at all.
        pool.add(seek(2, 11, 2..=4, 1500.0)).unwrap();
        pool.add(seek(3, 11, 4..=4, 1500.0)).unwrap();
        pool.add(Seek {
            rated: false,
            ..seek(4, 12, 4..=4, 1500.0)
        })
        .unwrap();
        assert!(pool.form(0).is_empty());
        let w = pool.waiting(0);
        let first = w.iter().find(|(id, _)| id.0 == 1).unwrap().1;
        assert_eq!(first.reason, WaitReason::TooFewBots);
        assert_eq!((first.bots, first.needed), (2, 4));
        assert_eq!(pool.compatible(&seek(1, 10, 4..=4, 0.0)), 3);
        // Its own second seek is not one it could share a game with.
        pool.add(seek(5, 10, 2..=4, 1500.0)).unwrap();
        assert_eq!(pool.compatible(&seek(1, 10, 4..=4, 0.0)), 3);
    }

    #[test]
    fn enough_bots_far_apart_wait_for_the_window_and_busy_bots_say_so() {
        let config = PoolConfig {
            open_after_ms: Some(20_000),
            ..PoolConfig::default()
        };
        let mut pool = Pool::new(config, seats);
        pool.add(seek(1, 10, 2..=2, 1000.0)).unwrap();
        pool.add(seek(2, 11, 2..=2, 2000.0)).unwrap();
        assert!(pool.form(1_000).is_empty());
        assert_eq!(
            reasons(&pool, 1_000),
            [
                (
                    1,
                    WaitReason::RatingWindow {
                        opens_at_ms: Some(20_000)
                    },
                    2
                ),
                (
                    2,
                    WaitReason::RatingWindow {
                        opens_at_ms: Some(20_000)
                    },
                    2
                )
            ]
        );
        pool.set_load(BotId(11), 1, 1);
        assert_eq!(reasons(&pool, 1_000)[0].1, WaitReason::BotsBusy);
    }
}
