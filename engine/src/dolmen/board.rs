//! The board as data: 28 stone circles on an 8 × 8 grid, 73 sites, their paths
//! and the wrap-around (the digest's \[ruling\]).
//!
//! Everything is derived once, at compile time, from the digest's letter grid
//! ([`GRID`]): which lattice points are sites (all but the octagon centres),
//! which circles each site belongs to, and the site one step away in each
//! direction. The queries below are table look-ups and never allocate.
//!
//! Geometry (\[ruling\]): cell (x, y) of the grid spans the lattice points
//! (x, y) … (x + 1, y + 1); a circle is the block of cells carrying its letter
//! and its sites are the lattice points on the block's boundary. Two
//! neighbouring lattice points are joined by a path when the unit segment
//! between them lies on the boundary of some circle (the board edges included);
//! a segment through the inside of a hexagon or an octagon is no path. Border
//! sites wrap around to the opposite border ((0, y) ↔ (8, y), (x, 0) ↔ (x, 8):
//! (8, y) and (0, y) are two different sites, one step apart), and each corner
//! is joined to the opposite corner by [`Dir::Diagonal`].

use std::fmt;

/// A site of the board: a lattice point where a druid or a stone may stand.
///
/// Sites are numbered 0..73 row by row (y = 0 first, x from 0 to 8 within a
/// row), skipping the centre point of each octagon; see [`coords`] for
/// the coordinates of each.
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
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
        let (x, y) = coords(*self);
        write!(f, "site {} ({x},{y})", self.0)
    }
}

/// A stone circle, numbered 0..28 in letter order: `A`..`Z` are 0..=25, `a`
/// is 26, `b` is 27 (the digest's grid).
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
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

/// Number of sites.
pub const SITES: usize = 73;
/// Number of circles.
pub const CIRCLES: usize = 28;
/// Lattice points per side of the board (coordinates 0..=8).
pub const SIDE: usize = 9;

/// The digest's grid (\[ruling\]): row y = 0 first, one letter per cell naming
/// its circle (`A`..`Z` are circles 0..=25, `a` is 26, `b` is 27).
pub const GRID: [&[u8; 8]; 8] = [
    b"ABBCCDDE", //
    b"ABBCCFGE", //
    b"HHIIJJGK", //
    b"LLIIJJMK", //
    b"NOOPPQMR", //
    b"NSTTUQVV", //
    b"WWTTXXVV", //
    b"WWYZXXab", //
];

/// Marks "no site" in the byte tables.
const NONE: u8 = u8::MAX;

/// Everything derived from [`GRID`].
struct Tables {
    /// (x, y) of each site.
    coords: [(u8, u8); SITES],
    /// Site number at [y][x], [`NONE`] at octagon centres.
    site_at: [[u8; SIDE]; SIDE],
    /// Shape of each circle.
    shape: [Shape; CIRCLES],
    /// Sites of each circle, increasing; the first `circle_len` are valid.
    circle_sites: [[Site; 8]; CIRCLES],
    circle_len: [u8; CIRCLES],
    /// Circles of each site, in letter order; the first `circles_len` are valid.
    circles_of: [[Circle; 3]; SITES],
    circles_len: [u8; SITES],
    /// Site one step away in each direction (index of [`Dir::ALL`]), or [`NONE`].
    neighbour: [[u8; 5]; SITES],
}

/// Circle number of a letter of the grid.
const fn letter_index(letter: u8) -> u8 {
    if letter >= b'a' {
        letter - b'a' + 26
    } else {
        letter - b'A'
    }
}

/// Circle of cell (x, y).
const fn cell(x: usize, y: usize) -> u8 {
    letter_index(GRID[y][x])
}

/// True at an octagon's centre: the four cells around the point are one circle.
const fn interior(x: usize, y: usize) -> bool {
    if x == 0 || y == 0 || x == 8 || y == 8 {
        return false;
    }
    let c = cell(x - 1, y - 1);
    cell(x, y - 1) == c && cell(x - 1, y) == c && cell(x, y) == c
}

/// Is the unit segment from (x, y) to (x + 1, y) on a circle's boundary?
const fn horizontal_path(x: usize, y: usize) -> bool {
    y == 0 || y == 8 || cell(x, y - 1) != cell(x, y)
}

/// Is the unit segment from (x, y) to (x, y + 1) on a circle's boundary?
const fn vertical_path(x: usize, y: usize) -> bool {
    x == 0 || x == 8 || cell(x - 1, y) != cell(x, y)
}

const fn build() -> Tables {
    let mut t = Tables {
        coords: [(0, 0); SITES],
        site_at: [[NONE; SIDE]; SIDE],
        shape: [Shape::Square; CIRCLES],
        circle_sites: [[Site(0); 8]; CIRCLES],
        circle_len: [0; CIRCLES],
        circles_of: [[Circle(0); 3]; SITES],
        circles_len: [0; SITES],
        neighbour: [[NONE; 5]; SITES],
    };

    // Shapes from the number of cells of each circle.
    let mut cells = [0u8; CIRCLES];
    let mut y = 0;
    while y < 8 {
        let mut x = 0;
        while x < 8 {
            cells[cell(x, y) as usize] += 1;
            x += 1;
        }
        y += 1;
    }
    let mut c = 0;
    while c < CIRCLES {
        t.shape[c] = match cells[c] {
            1 => Shape::Square,
            2 => Shape::Hexagon,
            4 => Shape::Octagon,
            _ => panic!("a circle covers 1, 2 or 4 cells"),
        };
        c += 1;
    }

    // Sites, row by row, skipping octagon centres.
    let mut n = 0;
    let mut y = 0;
    while y < SIDE {
        let mut x = 0;
        while x < SIDE {
            if !interior(x, y) {
                t.site_at[y][x] = n as u8;
                t.coords[n] = (x as u8, y as u8);
                n += 1;
            }
            x += 1;
        }
        y += 1;
    }
    assert!(n == SITES, "73 sites");

    // Membership: the distinct circles of the (up to four) cells around a site.
    let mut s = 0;
    while s < SITES {
        let (x, y) = (t.coords[s].0 as usize, t.coords[s].1 as usize);
        let mut k = 0;
        while k < 4 {
            let (dx, dy) = (k % 2, k / 2);
            if x + dx >= 1 && y + dy >= 1 && x + dx <= 8 && y + dy <= 8 {
                let c = cell(x + dx - 1, y + dy - 1);
                // Insert in letter order unless already present.
                let len = t.circles_len[s] as usize;
                let mut i = 0;
                let mut present = false;
                while i < len {
                    if t.circles_of[s][i].0 == c {
                        present = true;
                    }
                    i += 1;
                }
                if !present {
                    assert!(len < 3, "no site touches four circles");
                    let mut j = len;
                    while j > 0 && t.circles_of[s][j - 1].0 > c {
                        t.circles_of[s][j] = t.circles_of[s][j - 1];
                        j -= 1;
                    }
                    t.circles_of[s][j] = Circle(c);
                    t.circles_len[s] += 1;
                }
            }
            k += 1;
        }
        // Sites are visited in increasing order: each circle's list stays sorted.
        let mut i = 0;
        while i < t.circles_len[s] as usize {
            let c = t.circles_of[s][i].0 as usize;
            t.circle_sites[c][t.circle_len[c] as usize] = Site(s as u8);
            t.circle_len[c] += 1;
            i += 1;
        }
        s += 1;
    }

    // Paths, wrap-around and the corner diagonals.
    let mut s = 0;
    while s < SITES {
        let (x, y) = (t.coords[s].0 as usize, t.coords[s].1 as usize);
        // North.
        t.neighbour[s][0] = if y == 0 {
            t.site_at[8][x]
        } else if vertical_path(x, y - 1) {
            t.site_at[y - 1][x]
        } else {
            NONE
        };
        // East.
        t.neighbour[s][1] = if x == 8 {
            t.site_at[y][0]
        } else if horizontal_path(x, y) {
            t.site_at[y][x + 1]
        } else {
            NONE
        };
        // South.
        t.neighbour[s][2] = if y == 8 {
            t.site_at[0][x]
        } else if vertical_path(x, y) {
            t.site_at[y + 1][x]
        } else {
            NONE
        };
        // West.
        t.neighbour[s][3] = if x == 0 {
            t.site_at[y][8]
        } else if horizontal_path(x - 1, y) {
            t.site_at[y][x - 1]
        } else {
            NONE
        };
        // Diagonal: corners only.
        t.neighbour[s][4] = match (x, y) {
            (0, 0) => t.site_at[8][8],
            (8, 8) => t.site_at[0][0],
            (8, 0) => t.site_at[8][0],
            (0, 8) => t.site_at[0][8],
            _ => NONE,
        };
        s += 1;
    }
    t
}

static TABLES: Tables = build();

/// Index of a direction in [`Dir::ALL`].
#[inline]
const fn dir_index(dir: Dir) -> usize {
    match dir {
        Dir::North => 0,
        Dir::East => 1,
        Dir::South => 2,
        Dir::West => 3,
        Dir::Diagonal => 4,
    }
}

/// Every site, in number order.
pub fn sites() -> impl ExactSizeIterator<Item = Site> + DoubleEndedIterator + Clone {
    (0..SITES as u8).map(Site)
}

/// Every circle, in letter order.
pub fn circles() -> impl ExactSizeIterator<Item = Circle> + DoubleEndedIterator + Clone {
    (0..CIRCLES as u8).map(Circle)
}

/// The (x, y) lattice coordinates of a site, 0 ≤ x, y ≤ 8, y = 0 at the top.
///
/// # Panics
/// When `site` is not a site (number 73 or more).
#[inline]
pub fn coords(site: Site) -> (u8, u8) {
    TABLES.coords[site.index()]
}

/// The site at (x, y), `None` off the board or at an octagon's centre.
#[inline]
pub fn site_at(x: u8, y: u8) -> Option<Site> {
    let (x, y) = (x as usize, y as usize);
    if x >= SIDE || y >= SIDE {
        return None;
    }
    let s = TABLES.site_at[y][x];
    (s != NONE).then_some(Site(s))
}

/// A circle's shape.
///
/// # Panics
/// When `circle` is not a circle (number 28 or more).
#[inline]
pub fn shape(circle: Circle) -> Shape {
    TABLES.shape[circle.index()]
}

/// A circle's sites, in increasing order.
///
/// # Panics
/// When `circle` is not a circle (number 28 or more).
#[inline]
pub fn circle_sites(circle: Circle) -> &'static [Site] {
    let c = circle.index();
    &TABLES.circle_sites[c][..TABLES.circle_len[c] as usize]
}

/// The circles a site belongs to (1 to 3), in letter order.
///
/// # Panics
/// When `site` is not a site (number 73 or more).
#[inline]
pub fn circles_of(site: Site) -> &'static [Circle] {
    let s = site.index();
    &TABLES.circles_of[s][..TABLES.circles_len[s] as usize]
}

/// The site one step from `site` in `dir` along a path (wrap-around included),
/// `None` where there is no path. [`Dir::Diagonal`] leads somewhere only from
/// the four corners.
///
/// # Panics
/// When `site` is not a site (number 73 or more).
#[inline]
pub fn neighbour(site: Site, dir: Dir) -> Option<Site> {
    let n = TABLES.neighbour[site.index()][dir_index(dir)];
    (n != NONE).then_some(Site(n))
}

/// True when `site` is one of the four corners.
#[inline]
pub fn is_corner(site: Site) -> bool {
    matches!(coords(site), (0 | 8, 0 | 8))
}
