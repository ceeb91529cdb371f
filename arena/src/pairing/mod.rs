//! Pairing: who plays whom. The matchmaking pool forms rated and unrated
//! games from open seeks; schedules lay out tournaments (round-robin, Swiss,
//! gauntlet); duplicate matches replay one seed under every seat rotation so
//! that dice luck cancels out of a rated result.
//!
//! Everything here is pure and deterministic: no clock (time comes in as
//! `now_ms`), no randomness (seat orders come from a fixed hash of the
//! inputs), so the server can replay a decision and tests can pin it.

pub mod duplicate;
pub mod pool;
pub mod schedule;

/// A bot, as the pairing code sees it: an opaque number. The ratings module
/// has its own identical newtype; the two are to be unified.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct BotId(pub u64);

/// How many seats the games of one kind have. The pairing code knows no
/// game: whatever forms or checks a game is told its kind's bounds (the
/// server reads them from the game's descriptor).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Seats {
    min: u8,
    max: u8,
}

impl Seats {
    /// Games of `min` to `max` seats. Panics unless `2 <= min <= max`: a
    /// game of one seat pairs nobody. For constants; see [`Seats::try_new`].
    pub const fn new(min: u8, max: u8) -> Seats {
        match Seats::try_new(min, max) {
            Some(seats) => seats,
            None => panic!("a game has 2 <= min <= max seats"),
        }
    }

    /// Games of `min` to `max` seats, if `2 <= min <= max`.
    pub const fn try_new(min: u8, max: u8) -> Option<Seats> {
        if 2 <= min && min <= max {
            Some(Seats { min, max })
        } else {
            None
        }
    }

    /// The fewest seats.
    pub const fn min(self) -> u8 {
        self.min
    }

    /// The most seats.
    pub const fn max(self) -> u8 {
        self.max
    }

    /// Whether a game of `n` seats is one of these.
    pub const fn contains(self, n: usize) -> bool {
        self.min as usize <= n && n <= self.max as usize
    }
}

impl std::fmt::Display for Seats {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} to {}", self.min, self.max)
    }
}

/// SplitMix64's finaliser: a cheap, well-mixed, platform-independent hash.
/// Seat orders must not depend on the standard library's hasher, whose
/// output may change between Rust releases.
pub(crate) fn mix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

/// Orders `seats` by a hash of (`seed`, bot), ties by bot id. Used where no
/// seat should systematically go to, say, the lowest id or the oldest seek.
pub(crate) fn shuffle_seats<T>(seats: &mut [T], seed: u64, bot: impl Fn(&T) -> BotId) {
    seats.sort_by_key(|s| {
        let b = bot(s);
        (mix(seed ^ mix(b.0)), b)
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shuffle_is_deterministic_and_not_sorted_by_id() {
        let bots: Vec<BotId> = (0..4).map(BotId).collect();
        let mut firsts = std::collections::BTreeSet::new();
        for seed in 0..64 {
            let mut a = bots.clone();
            let mut b = bots.clone();
            b.reverse();
            shuffle_seats(&mut a, seed, |x| *x);
            shuffle_seats(&mut b, seed, |x| *x);
            assert_eq!(a, b);
            firsts.insert(a[0]);
        }
        // Over many seeds every bot gets the first seat at some point.
        assert_eq!(firsts.len(), 4);
    }
}
