//! The two Meduris boards as data: the printed 32-field board for 2–3 players and
//! the project's own 40-field layout for 4 players (see the README's rulings).
//!
//! Fields are numbered clockwise from the field right after the great river; the
//! river lies between the last field and field 0.

use super::goods::Good::{self, Copper, Stone, Wood, Wool};

/// The nine rune areas of the ring, in ring order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Area {
    /// Serpent.
    Serpent,
    /// Star.
    Star,
    /// Splash.
    Splash,
    /// Scales.
    Scales,
    /// Spiral.
    Spiral,
    /// Wave.
    Wave,
    /// Fire.
    Fire,
    /// Moon.
    Moon,
    /// Arrow.
    Arrow,
}

impl Area {
    /// All areas in ring order.
    pub const ALL: [Area; 9] = [
        Area::Serpent,
        Area::Star,
        Area::Splash,
        Area::Scales,
        Area::Spiral,
        Area::Wave,
        Area::Fire,
        Area::Moon,
        Area::Arrow,
    ];

    /// Index into per-area arrays.
    #[inline]
    pub const fn index(self) -> usize {
        self as usize
    }
}

/// One building field of the ring: its rune area and the two goods it asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Field {
    /// The rune area the field belongs to.
    pub area: Area,
    /// The two goods shown on the field (cost of a hut or temple, and what the druid asks for).
    pub goods: [Good; 2],
}

/// Which printed side of the board is used.
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BoardKind {
    /// The 32-field board for 2 and 3 players.
    Small,
    /// The 40-field board for 4 players (the project's own layout).
    Large,
}

/// The most fields any board has; per-field arrays use this size.
pub const MAX_FIELDS: usize = 40;

/// Rune chips laid around the ring at set-up.
pub(crate) const CHIPS: usize = 6;
/// The fewest fields between two chips.
pub(crate) const MIN_GAP: usize = 3;
/// The most draws a set-up takes (on the largest ring).
pub(crate) const MAX_SETUP_DRAWS: usize = MAX_FIELDS - CHIPS * (MIN_GAP + 1) + CHIPS;

impl BoardKind {
    /// The board used with `players` players.
    pub const fn for_players(players: usize) -> BoardKind {
        if players >= 4 {
            BoardKind::Large
        } else {
            BoardKind::Small
        }
    }

    /// The fields in ring order.
    pub const fn fields(self) -> &'static [Field] {
        match self {
            BoardKind::Small => &SMALL,
            BoardKind::Large => &LARGE,
        }
    }

    /// Number of fields on the ring.
    pub const fn field_count(self) -> usize {
        self.fields().len()
    }

    /// For each field, the index (0..6) of its unordered pair of goods, see
    /// [`PAIR_GOODS`]. A table so that legal-action listing does not recompute it;
    /// 64 entries (0 past the ring) so that any bit index of a field mask is in
    /// bounds.
    pub(crate) const fn pairs(self) -> &'static [u8; 64] {
        match self {
            BoardKind::Small => &SMALL_PAIRS,
            BoardKind::Large => &LARGE_PAIRS,
        }
    }

    /// For each pair index (see [`PAIR_GOODS`]), the bit mask of the fields showing
    /// that pair: bit `i` set when field `i` asks for those two goods.
    #[cfg(test)]
    pub(crate) const fn pair_masks(self) -> &'static [u64; 6] {
        match self {
            BoardKind::Small => &SMALL_PAIR_MASKS,
            BoardKind::Large => &LARGE_PAIR_MASKS,
        }
    }

    /// For each set of pair indices (bit `p` for pair `p`), the mask of the
    /// fields showing one of those pairs.
    pub(crate) const fn pair_set_masks(self) -> &'static [u64; 64] {
        match self {
            BoardKind::Small => &SMALL_PAIR_SET_MASKS,
            BoardKind::Large => &LARGE_PAIR_SET_MASKS,
        }
    }
}

/// The six unordered pairs of two different goods, by pair index:
/// wood+wool, wood+copper, wood+stone, wool+copper, wool+stone, copper+stone.
pub(crate) const PAIR_GOODS: [[Good; 2]; 6] = [
    [Wood, Wool],
    [Wood, Copper],
    [Wood, Stone],
    [Wool, Copper],
    [Wool, Stone],
    [Copper, Stone],
];

/// Index into [`PAIR_GOODS`] of the two (different) goods of a field.
pub(crate) const fn pair_index(goods: [Good; 2]) -> usize {
    let (a, b) = (goods[0] as usize, goods[1] as usize);
    let (x, y) = if a < b { (a, b) } else { (b, a) };
    match x {
        0 => y - 1,
        1 => y + 1,
        _ => 5,
    }
}

const fn pairs_of<const N: usize>(fields: &[Field; N]) -> [u8; 64] {
    let mut out = [0; 64];
    let mut i = 0;
    while i < N {
        out[i] = pair_index(fields[i].goods) as u8;
        i += 1;
    }
    out
}

const fn pair_masks_of(pairs: &[u8], len: usize) -> [u64; 6] {
    let mut out = [0; 6];
    let mut i = 0;
    while i < len {
        out[pairs[i] as usize] |= 1 << i;
        i += 1;
    }
    out
}

static SMALL_PAIRS: [u8; 64] = pairs_of(&SMALL);
static LARGE_PAIRS: [u8; 64] = pairs_of(&LARGE);
const fn pair_set_masks_of(masks: &[u64; 6]) -> [u64; 64] {
    let mut out = [0; 64];
    let mut set = 0;
    while set < 64 {
        let mut p = 0;
        while p < 6 {
            if set & (1 << p) != 0 {
                out[set] |= masks[p];
            }
            p += 1;
        }
        set += 1;
    }
    out
}

static SMALL_PAIR_MASKS: [u64; 6] = pair_masks_of(&SMALL_PAIRS, SMALL.len());
static LARGE_PAIR_MASKS: [u64; 6] = pair_masks_of(&LARGE_PAIRS, LARGE.len());
static SMALL_PAIR_SET_MASKS: [u64; 64] = pair_set_masks_of(&SMALL_PAIR_MASKS);
static LARGE_PAIR_SET_MASKS: [u64; 64] = pair_set_masks_of(&LARGE_PAIR_MASKS);

const fn f(area: Area, a: Good, b: Good) -> Field {
    Field {
        area,
        goods: [a, b],
    }
}

use Area::{Arrow, Fire, Moon, Scales, Serpent, Spiral, Splash, Star, Wave};

/// The printed 2–3 player board (transcribed from the board; 32 fields, each good 16 times).
static SMALL: [Field; 32] = [
    f(Serpent, Wool, Copper),
    f(Serpent, Stone, Wood),
    f(Serpent, Wool, Copper),
    f(Serpent, Wood, Copper),
    f(Serpent, Stone, Wood),
    f(Star, Wood, Wool),
    f(Star, Copper, Wool),
    f(Star, Wood, Stone),
    f(Splash, Stone, Copper),
    f(Splash, Wool, Stone),
    f(Splash, Copper, Wood),
    f(Splash, Copper, Wool),
    f(Scales, Stone, Copper),
    f(Scales, Wool, Wood),
    f(Spiral, Wood, Copper),
    f(Spiral, Stone, Copper),
    f(Spiral, Wool, Wood),
    f(Wave, Wool, Stone),
    f(Wave, Wood, Stone),
    f(Wave, Copper, Wool),
    f(Wave, Stone, Wood),
    f(Wave, Stone, Wool),
    f(Fire, Copper, Wood),
    f(Fire, Wool, Wood),
    f(Fire, Stone, Copper),
    f(Moon, Stone, Wood),
    f(Moon, Wood, Wool),
    f(Moon, Wool, Copper),
    f(Moon, Wood, Copper),
    f(Arrow, Stone, Wool),
    f(Arrow, Copper, Stone),
    f(Arrow, Stone, Wool),
];

/// The project's 4-player layout \[ruling\]: 40 fields, same nine areas, each good 20 times.
static LARGE: [Field; 40] = [
    f(Serpent, Wool, Copper),
    f(Serpent, Stone, Wood),
    f(Serpent, Wool, Copper),
    f(Serpent, Wood, Copper),
    f(Serpent, Stone, Wood),
    f(Star, Wood, Wool),
    f(Star, Copper, Wool),
    f(Star, Stone, Copper),
    f(Star, Wood, Stone),
    f(Splash, Stone, Copper),
    f(Splash, Wool, Stone),
    f(Splash, Copper, Wood),
    f(Splash, Wood, Wool),
    f(Splash, Copper, Wool),
    f(Scales, Stone, Copper),
    f(Scales, Wood, Copper),
    f(Scales, Wool, Wood),
    f(Spiral, Wood, Copper),
    f(Spiral, Stone, Copper),
    f(Spiral, Wool, Stone),
    f(Spiral, Wool, Wood),
    f(Wave, Wool, Stone),
    f(Wave, Wood, Stone),
    f(Wave, Copper, Wool),
    f(Wave, Stone, Wood),
    f(Wave, Stone, Wool),
    f(Fire, Copper, Wood),
    f(Fire, Stone, Copper),
    f(Fire, Wool, Wood),
    f(Fire, Stone, Copper),
    f(Moon, Stone, Wood),
    f(Moon, Wood, Wool),
    f(Moon, Wool, Stone),
    f(Moon, Wool, Copper),
    f(Moon, Wood, Copper),
    f(Arrow, Stone, Wool),
    f(Arrow, Wood, Wool),
    f(Arrow, Copper, Stone),
    f(Arrow, Wood, Copper),
    f(Arrow, Stone, Wool),
];

#[cfg(test)]
mod tests {
    use super::*;

    fn counts(board: BoardKind) -> ([usize; 4], [usize; 9]) {
        let mut goods = [0; 4];
        let mut areas = [0; 9];
        for field in board.fields() {
            assert_ne!(
                field.goods[0], field.goods[1],
                "a field asks for two different goods"
            );
            for g in field.goods {
                goods[g.index()] += 1;
            }
            areas[field.area.index()] += 1;
        }
        (goods, areas)
    }

    #[test]
    fn small_board_has_32_fields_and_16_of_each_good() {
        assert_eq!(BoardKind::Small.field_count(), 32);
        let (goods, areas) = counts(BoardKind::Small);
        assert_eq!(goods, [16; 4]);
        assert_eq!(areas, [5, 3, 4, 2, 3, 5, 3, 4, 3]);
    }

    #[test]
    fn large_board_has_40_fields_and_20_of_each_good() {
        assert_eq!(BoardKind::Large.field_count(), 40);
        assert!(BoardKind::Large.field_count() <= MAX_FIELDS);
        let (goods, areas) = counts(BoardKind::Large);
        assert_eq!(goods, [20; 4]);
        assert_eq!(areas, [5, 4, 5, 3, 4, 5, 4, 5, 5]);
    }

    #[test]
    fn pair_table_names_each_fields_two_goods() {
        for board in [BoardKind::Small, BoardKind::Large] {
            for (field, &pair) in board.fields().iter().zip(board.pairs()) {
                let mut want = field.goods;
                want.sort();
                assert_eq!(PAIR_GOODS[pair as usize], want);
            }
            let masks = board.pair_masks();
            for (set, &fields) in board.pair_set_masks().iter().enumerate() {
                let want = (0..6)
                    .filter(|p| set & (1 << p) != 0)
                    .fold(0, |m, p| m | masks[p]);
                assert_eq!(fields, want);
            }
            for (i, &pair) in board.pairs()[..board.field_count()].iter().enumerate() {
                for (p, mask) in masks.iter().enumerate() {
                    assert_eq!(mask & (1 << i) != 0, p == pair as usize);
                }
            }
        }
    }

    #[test]
    fn areas_are_contiguous_and_in_ring_order() {
        for board in [BoardKind::Small, BoardKind::Large] {
            let fields = board.fields();
            assert_eq!(fields[0].area, Area::Serpent);
            for pair in fields.windows(2) {
                assert!(pair[0].area <= pair[1].area, "areas run in ring order");
            }
            assert_eq!(fields[fields.len() - 1].area, Area::Arrow);
        }
    }
}
