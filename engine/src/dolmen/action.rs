//! The decisions a Die Dolmengötter player makes, and the small vocabulary they
//! use: sites, circles, directions.

use std::fmt;

/// A site of the board: a lattice point where a druid or a stone may stand.
///
/// Sites are numbered 0..73 row by row (y = 0 first, x from 0 to 8 within a
/// row), skipping the centre point of each octagon; see [`super::board`] for
/// the coordinates of each.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Site(pub u8);

impl Site {
    /// The site as an index into per-site arrays.
    #[inline]
    pub const fn index(self) -> usize {
        self.0 as usize
    }
}

impl fmt::Display for Site {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (x, y) = super::board::coords(*self);
        write!(f, "site {} ({x},{y})", self.0)
    }
}

/// A stone circle, numbered 0..28 in letter order: `A`..`Z` are 0..=25, `a`
/// is 26, `b` is 27 (the digest's grid).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Circle(pub u8);

impl Circle {
    /// The circle as an index into per-circle arrays.
    #[inline]
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// The circle's letter in the digest's grid.
    pub const fn letter(self) -> char {
        if self.0 < 26 {
            (b'A' + self.0) as char
        } else {
            (b'a' + self.0 - 26) as char
        }
    }
}

impl fmt::Display for Circle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "circle {}", self.letter())
    }
}

/// The shape of a circle, which fixes its sites, stack limit and multipliers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Shape {
    /// 4 sites, at most 3 dolmens, multipliers 3, 2, 1.
    Square,
    /// 6 sites, at most 4 dolmens, multipliers 4, 3, 2, 1.
    Hexagon,
    /// 8 sites, at most 5 dolmens, multipliers 5, 4, 3, 2, 1.
    Octagon,
}

impl Shape {
    /// Sites on the circle.
    pub const fn sites(self) -> usize {
        match self {
            Shape::Square => 4,
            Shape::Hexagon => 6,
            Shape::Octagon => 8,
        }
    }

    /// Most dolmens in the circle's stack; also the top dolmen's multiplier
    /// (\[ruling\]: 3, 4, 5).
    pub const fn max_dolmens(self) -> usize {
        match self {
            Shape::Square => 3,
            Shape::Hexagon => 4,
            Shape::Octagon => 5,
        }
    }
}

/// A direction of a walk.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Dir {
    /// Towards y = 0 (wraps to y = 8).
    North,
    /// Towards x = 8 (wraps to x = 0).
    East,
    /// Towards y = 8 (wraps to y = 0).
    South,
    /// Towards x = 0 (wraps to x = 8).
    West,
    /// From a corner to the opposite corner ((0,0) ↔ (8,8), (8,0) ↔ (0,8));
    /// never a jump.
    Diagonal,
}

impl Dir {
    /// Every direction.
    pub const ALL: [Dir; 5] = [Dir::North, Dir::East, Dir::South, Dir::West, Dir::Diagonal];
}

/// One decision by the seat that must decide (see [`Decision`] for which kind is due).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Action {
    /// Setup: put one of your druids on a free site.
    PlaceDruid {
        /// Target site (holding neither druid nor stone).
        site: Site,
    },
    /// Turn option 1: walk your standing druid on `from` one step in `dir`,
    /// jumping over any druids in the way.
    Walk {
        /// Site of the walking druid (yours, standing).
        from: Site,
        /// Direction.
        dir: Dir,
    },
    /// Turn option 2: lay your standing druid on `site` down to collect herbs.
    CollectHerbs {
        /// Site of the druid (yours, standing).
        site: Site,
    },
    /// Turn option 3: fly your lying druid on `from` to the free site `to`; it stands up.
    Fly {
        /// Site of the druid (yours, lying).
        from: Site,
        /// Target site (holding neither druid nor stone).
        to: Site,
    },
    /// After a walk or flight: leave one of your stones on the site the druid left.
    PlaceStone,
    /// After a walk or flight: leave no stone, losing 1 point (not allowed at 1 point or less).
    DeclineStone,
    /// A dolmen may be placed (on top of or under a stack, as the decision says):
    /// place one of yours of this value.
    PlaceDolmen {
        /// Value of the dolmen placed (1–4; you must hold one).
        value: u8,
    },
    /// A dolmen may be placed: don't (no penalty).
    PassDolmen,
}

/// The kind of decision the seat to act must take.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Decision {
    /// Setup: place a druid.
    PlaceDruid,
    /// The turn: walk, collect herbs or fly.
    Turn,
    /// After a walk or flight: leave a stone on `site` or decline.
    Stone {
        /// The site the druid left.
        site: Site,
        /// False when the player may not decline (score 1 or less).
        may_decline: bool,
    },
    /// The seat may place a dolmen in `circle`, on top of the stack (it gained
    /// the majority) or under it (it equalised the leader).
    Dolmen {
        /// The circle.
        circle: Circle,
        /// True: on top; false: under the stack.
        on_top: bool,
    },
}
