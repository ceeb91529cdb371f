//! Goods and multisets of goods: the vocabulary of costs, holdings and the
//! supply. The payment rule lives in [`super::payment`].

use std::fmt;

/// The four goods; also names the four high plateaus.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Good {
    /// Wood.
    Wood,
    /// Wool.
    Wool,
    /// Copper.
    Copper,
    /// Stone.
    Stone,
}

impl Good {
    /// All goods in their fixed order (also the order of the plateaus).
    pub const ALL: [Good; 4] = [Good::Wood, Good::Wool, Good::Copper, Good::Stone];

    /// Index into per-good arrays.
    #[inline]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The good with this index (0..4).
    #[inline]
    pub const fn from_index(i: usize) -> Good {
        Good::ALL[i]
    }

    /// Lower-case name.
    pub const fn name(self) -> &'static str {
        match self {
            Good::Wood => "wood",
            Good::Wool => "wool",
            Good::Copper => "copper",
            Good::Stone => "stone",
        }
    }
}

impl fmt::Display for Good {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A multiset of goods: how many of each kind.
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Goods(pub [u8; 4]);

impl Goods {
    /// No goods at all.
    pub const EMPTY: Goods = Goods([0; 4]);

    /// `n` of one good.
    pub const fn of(good: Good, n: u8) -> Goods {
        let mut g = [0; 4];
        g[good.index()] = n;
        Goods(g)
    }

    /// Builds a multiset from (good, count) pairs.
    pub fn from_pairs(pairs: &[(Good, u8)]) -> Goods {
        let mut g = Goods::EMPTY;
        for &(good, n) in pairs {
            g.0[good.index()] += n;
        }
        g
    }

    /// How many of `good`.
    #[inline]
    pub const fn get(self, good: Good) -> u8 {
        self.0[good.index()]
    }

    /// Total number of goods.
    #[inline]
    pub fn total(self) -> u32 {
        self.0.iter().map(|&n| n as u32).sum()
    }

    /// True when there are no goods.
    #[inline]
    pub fn is_empty(self) -> bool {
        self.0 == [0; 4]
    }

    /// True when every count is at most the count in `other`.
    #[inline]
    pub fn is_subset_of(self, other: Goods) -> bool {
        (0..4).all(|i| self.0[i] <= other.0[i])
    }

    /// Adds `other` (the caller guarantees no overflow: at most 18 of a kind exist).
    #[inline]
    pub fn add(&mut self, other: Goods) {
        for i in 0..4 {
            self.0[i] += other.0[i];
        }
    }

    /// Removes `other` (the caller guarantees `other` is a subset).
    #[inline]
    pub fn remove(&mut self, other: Goods) {
        for i in 0..4 {
            self.0[i] -= other.0[i];
        }
    }
}

impl fmt::Display for Goods {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_empty() {
            return f.write_str("nothing");
        }
        let mut first = true;
        for good in Good::ALL {
            let n = self.get(good);
            if n > 0 {
                if !first {
                    f.write_str(", ")?;
                }
                write!(f, "{n} {good}")?;
                first = false;
            }
        }
        Ok(())
    }
}
