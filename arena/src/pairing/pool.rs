//! The matchmaking pool: bots that want a game leave a seek here, and
//! [`Pool::form`] turns open seeks into games, as fast as ratings and limits
//! allow. It exists apart from the server's streams so that the rules (who
//! may meet whom, who goes first) are a pure function that can be tested and
//! measured.
//!
//! # Rules
//!
//! * All seeks in a match share the kind and the rated flag, and every seek's
//!   range of player counts contains the match's count; a seek's range lies
//!   within its kind's [`Seats`], which the pool is told.
//! * A bot never sits twice in one match, even with several seeks open.
//! * A bot at its limit of concurrent games is not matched; a game formed in
//!   a [`Pool::form`] call counts toward the limit at once (and stays counted:
//!   the server lowers it again with [`Pool::set_load`] when a game ends).
//! * Matched seeks leave the pool.
//!
//! # Preferences
//!
//! * **Oldest first.** Seeks are taken as *anchors* in order of age (oldest
//!   `since_ms`, then lowest id). Each anchor tries to gather the other seats
//!   of a game around itself; if it cannot, the next anchor tries.
//! * **The anchor's window decides.** A match is formed when every member's
//!   rating lies within the anchor's window around the anchor's rating. The
//!   window widens with the anchor's waiting time:
//!   `min(base_window + widen_per_second * waited_s, max_window)`, and after
//!   `open_after_ms` it is unbounded. The anchor is the oldest seek that can
//!   gather a game, so it is usually the longest waiter in its match and the
//!   one whose patience we honour; a newer seek may be pulled into a wider
//!   game than its own window would allow, which is the price of never
//!   starving a lone far-off bot: once its window is open, the first
//!   compatible seek of any rating joins it. (An older seek that could not
//!   gather a game as anchor may still be gathered by a newer anchor; its
//!   own window, being at least as wide, then contains the anchor.)
//! * **Closest ratings fill the seats.** Within the window, the anchor takes
//!   the seeks whose ratings are nearest its own (ties: the older seek).
//! * **The largest count first.** An anchor that accepts several counts tries
//!   the largest first, so that 4-player seekers are not starved by a steady
//!   trickle of 2-player games. Games are formed as soon as they are possible:
//!   a 2..=4 seeker with one compatible partner gets a 2-player game now
//!   rather than waiting for a bigger one.
//!
//! # Seat order
//!
//! Seats are ordered by a hash of (the match's seek ids, bot id), so no bot
//! and no kind of seek (oldest, lowest id, best rated) systematically sits
//! first, yet the same inputs always give the same order.
//!
//! # Cost
//!
//! Per call: sorting the seeks (O(n log n)), then for each anchor a sweep
//! outwards from its place in its bucket's rating order, skipping taken
//! seeks in near-constant time (a union-find over each bucket). With no
//! bot holding many seeks this is O(n log n) overall.

use std::collections::{BTreeMap, HashMap};
use std::ops::RangeInclusive;

use thiserror::Error;

use super::{BotId, Seats, mix, shuffle_seats};

#[cfg(test)]
mod tests;

/// A seek, named by the server; unique within a pool.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SeekId(pub u64);

/// One bot's open request for a game.
#[derive(Clone, Debug, PartialEq)]
pub struct Seek<K> {
    pub id: SeekId,
    pub bot: BotId,
    /// Which game (and variant); only equal kinds meet.
    pub kind: K,
    /// The player counts the bot accepts, within its kind's [`Seats`].
    pub players: RangeInclusive<u8>,
    pub rated: bool,
    /// The bot's current rating in this kind's pool, on the display scale.
    pub rating: f64,
    /// When the seek was opened; its window widens from here.
    pub since_ms: u64,
}

/// A game formed by the pool.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Match<K> {
    pub kind: K,
    pub players: u8,
    pub rated: bool,
    /// Seat order: the first pair sits in the first seat.
    pub seats: Vec<(SeekId, BotId)>,
}

/// How the rating window widens. Ratings are on the display scale (an
/// Elo-like scale where 400 points is a large gap).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PoolConfig {
    /// Half-width of the window of a seek that has just arrived.
    pub base_window: f64,
    /// How much the half-width grows per second of waiting.
    pub widen_per_second: f64,
    /// The largest half-width reached by widening.
    pub max_window: f64,
    /// After waiting this long a seek accepts any rating (`None`: never), so
    /// a lone bot far from everyone still gets games.
    pub open_after_ms: Option<u64>,
    /// The concurrent-game limit of a bot nobody called `set_load` for.
    pub default_limit: u32,
}

impl Default for PoolConfig {
    /// 50 points at once, +5 a second, 400 after 70 s, anyone after 3 min.
    fn default() -> Self {
        Self {
            base_window: 50.0,
            widen_per_second: 5.0,
            max_window: 400.0,
            open_after_ms: Some(180_000),
            default_limit: 1,
        }
    }
}

impl PoolConfig {
    /// The half-width of the rating window after waiting `waited_ms`.
    pub fn window(&self, waited_ms: u64) -> f64 {
        if self.open_after_ms.is_some_and(|open| waited_ms >= open) {
            return f64::INFINITY;
        }
        let widened = self.base_window + self.widen_per_second * (waited_ms as f64 / 1000.0);
        widened.min(self.max_window)
    }
}

/// Why a seek was refused.
#[derive(Clone, Debug, Error, PartialEq)]
pub enum PoolError {
    #[error("seek {0:?} is already in the pool")]
    DuplicateSeek(SeekId),
    #[error("seek {id:?} asks for {start}..={end} players; games of its kind seat {seats}")]
    BadPlayers {
        id: SeekId,
        start: u8,
        end: u8,
        seats: Seats,
    },
    #[error("seek {0:?} has a rating that is not a finite number")]
    BadRating(SeekId),
}

/// How many games a bot is in, and how many it may be in at once.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Load {
    pub playing: u32,
    pub limit: u32,
}

impl Load {
    fn has_room(&self) -> bool {
        self.playing < self.limit
    }
}

/// The seats of each kind's games (the caller knows its games; the pool
/// does not).
pub type SeatsOf<K> = fn(&K) -> Seats;

/// The open seeks and the bots' loads.
#[derive(Clone, Debug)]
pub struct Pool<K> {
    config: PoolConfig,
    seats: SeatsOf<K>,
    seeks: BTreeMap<SeekId, Seek<K>>,
    loads: HashMap<BotId, Load>,
}

impl<K: Copy + Eq + std::hash::Hash + Ord> Pool<K> {
    /// An empty pool whose kinds' games seat what `seats` says.
    pub fn new(config: PoolConfig, seats: SeatsOf<K>) -> Self {
        Self {
            config,
            seats,
            seeks: BTreeMap::new(),
            loads: HashMap::new(),
        }
    }

    pub fn config(&self) -> &PoolConfig {
        &self.config
    }

    /// Opens a seek. Refuses a reused id, a range outside its kind's seats
    /// (or empty), and a rating that is NaN or infinite.
    pub fn add(&mut self, seek: Seek<K>) -> Result<(), PoolError> {
        let (start, end) = (*seek.players.start(), *seek.players.end());
        let seats = (self.seats)(&seek.kind);
        if start > end || !seats.contains(start.into()) || !seats.contains(end.into()) {
            return Err(PoolError::BadPlayers {
                id: seek.id,
                start,
                end,
                seats,
            });
        }
        if !seek.rating.is_finite() {
            return Err(PoolError::BadRating(seek.id));
        }
        if self.seeks.contains_key(&seek.id) {
            return Err(PoolError::DuplicateSeek(seek.id));
        }
        self.seeks.insert(seek.id, seek);
        Ok(())
    }

    /// Cancels a seek (its stream closed). `None` if it was not open.
    pub fn remove(&mut self, id: SeekId) -> Option<Seek<K>> {
        self.seeks.remove(&id)
    }

    /// Cancels all of a bot's seeks (it disconnected), oldest id first.
    pub fn remove_bot(&mut self, bot: BotId) -> Vec<Seek<K>> {
        let ids: Vec<SeekId> = self
            .seeks
            .values()
            .filter(|s| s.bot == bot)
            .map(|s| s.id)
            .collect();
        ids.iter().filter_map(|id| self.seeks.remove(id)).collect()
    }

    /// Records how many games `bot` is in and how many it may be in.
    pub fn set_load(&mut self, bot: BotId, playing: u32, limit: u32) {
        self.loads.insert(bot, Load { playing, limit });
    }

    /// A bot's load; the default limit and no games if never set.
    pub fn load(&self, bot: BotId) -> Load {
        self.loads.get(&bot).copied().unwrap_or(Load {
            playing: 0,
            limit: self.config.default_limit,
        })
    }

    pub fn get(&self, id: SeekId) -> Option<&Seek<K>> {
        self.seeks.get(&id)
    }

    /// The open seeks in id order.
    pub fn seeks(&self) -> impl Iterator<Item = &Seek<K>> {
        self.seeks.values()
    }

    pub fn len(&self) -> usize {
        self.seeks.len()
    }

    pub fn is_empty(&self) -> bool {
        self.seeks.is_empty()
    }

    /// Forms every game the rules and preferences allow now (see the module
    /// documentation), removes the matched seeks and counts the games toward
    /// the bots' loads. Matches come out in the order they were formed:
    /// oldest anchor first.
    pub fn form(&mut self, now_ms: u64) -> Vec<Match<K>> {
        let mut former = Former::new(self);
        let mut matches = Vec::new();
        for anchor in 0..former.seeks.len() {
            if let Some(m) = former.try_anchor(anchor, now_ms, &self.config) {
                matches.push(m);
            }
        }
        let Former { loads, .. } = former;
        for (bot, load) in loads {
            self.loads.insert(bot, load);
        }
        for m in &matches {
            for (id, _) in &m.seats {
                self.seeks.remove(id);
            }
        }
        matches
    }
}

/// Sentinel for "this seek is not in that bucket".
const ABSENT: u32 = u32::MAX;

/// The seeks that can meet in a game of one count: same kind, same rated
/// flag, range containing the count; sorted by rating.
struct Bucket {
    /// Seek indices (age order) sorted by (rating, age).
    members: Vec<u32>,
    /// Union-find "next live position at or after i"; `len` means none.
    next: Vec<u32>,
    /// Union-find "previous live position at or before i - 1", shifted by
    /// one so that 0 means none.
    prev: Vec<u32>,
}

fn find(parent: &mut [u32], mut i: u32) -> u32 {
    while parent[i as usize] != i {
        let up = parent[parent[i as usize] as usize];
        parent[i as usize] = up;
        i = up;
    }
    i
}

impl Bucket {
    /// The live position at or after `pos`.
    fn live_at_or_after(&mut self, pos: u32) -> Option<u32> {
        let p = find(&mut self.next, pos);
        (p < self.members.len() as u32).then_some(p)
    }

    /// The live position at or before `pos` (`None` for `pos` = -1).
    fn live_at_or_before(&mut self, pos: Option<u32>) -> Option<u32> {
        let q = find(&mut self.prev, pos? + 1);
        q.checked_sub(1)
    }

    fn kill(&mut self, pos: u32) {
        self.next[pos as usize] = pos + 1;
        self.prev[pos as usize + 1] = pos;
    }
}

/// The working state of one `form` call.
struct Former<'p, K> {
    /// The seeks of bots with room, oldest first: index = age rank.
    seeks: Vec<&'p Seek<K>>,
    buckets: Vec<Bucket>,
    /// Per seek, per count of its range: (bucket, position) or ABSENT; seek
    /// `i`'s are at `places[starts[i]..starts[i + 1]]`.
    places: Vec<(u32, u32)>,
    starts: Vec<u32>,
    taken: Vec<bool>,
    by_bot: HashMap<BotId, Vec<u32>>,
    /// Loads changed during this call.
    loads: HashMap<BotId, Load>,
    pool_loads: &'p HashMap<BotId, Load>,
    default_limit: u32,
}

impl<'p, K: Copy + Eq + std::hash::Hash + Ord> Former<'p, K> {
    fn new(pool: &'p Pool<K>) -> Self {
        let mut seeks: Vec<&Seek<K>> = pool
            .seeks
            .values()
            .filter(|s| pool.load(s.bot).has_room())
            .collect();
        seeks.sort_by_key(|s| (s.since_ms, s.id));

        let mut keys: BTreeMap<(K, bool, u8), u32> = BTreeMap::new();
        let mut buckets: Vec<Bucket> = Vec::new();
        let mut by_bot: HashMap<BotId, Vec<u32>> = HashMap::new();
        for (i, s) in seeks.iter().enumerate() {
            by_bot.entry(s.bot).or_default().push(i as u32);
            for n in s.players.clone() {
                let b = *keys.entry((s.kind, s.rated, n)).or_insert_with(|| {
                    buckets.push(Bucket {
                        members: Vec::new(),
                        next: Vec::new(),
                        prev: Vec::new(),
                    });
                    buckets.len() as u32 - 1
                });
                buckets[b as usize].members.push(i as u32);
            }
        }
        let mut starts = Vec::with_capacity(seeks.len() + 1);
        starts.push(0u32);
        for s in &seeks {
            let counts = u32::from(*s.players.end() - *s.players.start()) + 1;
            starts.push(starts[starts.len() - 1] + counts);
        }
        let mut places = vec![(ABSENT, ABSENT); starts[seeks.len()] as usize];
        for (key, &b) in &keys {
            let bucket = &mut buckets[b as usize];
            bucket.members.sort_by(|&x, &y| {
                let (rx, ry) = (seeks[x as usize].rating, seeks[y as usize].rating);
                rx.total_cmp(&ry).then(x.cmp(&y))
            });
            let len = bucket.members.len() as u32;
            bucket.next = (0..=len).collect();
            bucket.prev = (0..=len).collect();
            for (pos, &i) in bucket.members.iter().enumerate() {
                let first = *seeks[i as usize].players.start();
                places[starts[i as usize] as usize + usize::from(key.2 - first)] = (b, pos as u32);
            }
        }
        Self {
            taken: vec![false; seeks.len()],
            seeks,
            buckets,
            places,
            starts,
            by_bot,
            loads: HashMap::new(),
            pool_loads: &pool.loads,
            default_limit: pool.config.default_limit,
        }
    }

    fn load(&self, bot: BotId) -> Load {
        self.loads
            .get(&bot)
            .or_else(|| self.pool_loads.get(&bot))
            .copied()
            .unwrap_or(Load {
                playing: 0,
                limit: self.default_limit,
            })
    }

    /// Takes seek `i` out of every bucket.
    fn retire(&mut self, i: u32) {
        if std::mem::replace(&mut self.taken[i as usize], true) {
            return;
        }
        let (from, to) = (self.starts[i as usize], self.starts[i as usize + 1]);
        for &(b, pos) in &self.places[from as usize..to as usize] {
            if b != ABSENT {
                self.buckets[b as usize].kill(pos);
            }
        }
    }

    fn try_anchor(&mut self, anchor: usize, now_ms: u64, config: &PoolConfig) -> Option<Match<K>> {
        if self.taken[anchor] {
            return None;
        }
        let seek = self.seeks[anchor];
        let window = config.window(now_ms.saturating_sub(seek.since_ms));
        for n in seek.players.clone().rev() {
            let Some(group) = self.gather(anchor, n, window) else {
                continue;
            };
            return Some(self.commit(n, group));
        }
        None
    }

    /// Finds `n - 1` seeks of distinct bots, other than the anchor's, nearest
    /// the anchor's rating within `window`, in the anchor's bucket for `n`.
    fn gather(&mut self, anchor: usize, n: u8, window: f64) -> Option<Vec<u32>> {
        let first = *self.seeks[anchor].players.start();
        let (b, pos) = self.places[self.starts[anchor] as usize + usize::from(n - first)];
        if b == ABSENT {
            return None;
        }
        let centre = self.seeks[anchor].rating;
        let seeks = &self.seeks;
        let bucket = &mut self.buckets[b as usize];
        let mut group = vec![anchor as u32];
        let within = |p: Option<u32>, bucket: &Bucket| {
            p.filter(|&p| {
                let r = seeks[bucket.members[p as usize] as usize].rating;
                (r - centre).abs() <= window
            })
        };
        let mut left = bucket.live_at_or_before(pos.checked_sub(1));
        left = within(left, bucket);
        let mut right = bucket.live_at_or_after(pos + 1);
        right = within(right, bucket);
        while group.len() < usize::from(n) {
            let take_left = match (left, right) {
                (None, None) => return None,
                (Some(_), None) => true,
                (None, Some(_)) => false,
                (Some(l), Some(r)) => {
                    let (il, ir) = (bucket.members[l as usize], bucket.members[r as usize]);
                    let dl = centre - seeks[il as usize].rating;
                    let dr = seeks[ir as usize].rating - centre;
                    dl < dr || (dl == dr && il < ir)
                }
            };
            let p = if take_left { left } else { right }.unwrap_or_default();
            let i = bucket.members[p as usize];
            let bot = seeks[i as usize].bot;
            if !group.iter().any(|&g| seeks[g as usize].bot == bot) {
                group.push(i);
            }
            if take_left {
                left = within(bucket.live_at_or_before(p.checked_sub(1)), bucket);
            } else {
                right = within(bucket.live_at_or_after(p + 1), bucket);
            }
        }
        Some(group)
    }

    /// Turns a gathered group into a match: retires its seeks, counts the
    /// game toward each bot's load and retires the seeks of bots now full.
    fn commit(&mut self, n: u8, group: Vec<u32>) -> Match<K> {
        let first = self.seeks[group[0] as usize];
        let (kind, rated) = (first.kind, first.rated);
        let mut seats: Vec<(SeekId, BotId)> = group
            .iter()
            .map(|&i| (self.seeks[i as usize].id, self.seeks[i as usize].bot))
            .collect();
        let mut ids: Vec<u64> = seats.iter().map(|(id, _)| id.0).collect();
        ids.sort_unstable();
        let seed = ids.iter().fold(0u64, |acc, &id| mix(acc ^ id));
        shuffle_seats(&mut seats, seed, |&(_, bot)| bot);

        for &i in &group {
            self.retire(i);
            let bot = self.seeks[i as usize].bot;
            let mut load = self.load(bot);
            load.playing = load.playing.saturating_add(1);
            self.loads.insert(bot, load);
            if !load.has_room() {
                let others = self.by_bot.get(&bot).cloned().unwrap_or_default();
                for other in others {
                    self.retire(other);
                }
            }
        }
        Match {
            kind,
            players: n,
            rated,
            seats,
        }
    }
}
