//! The decisions a Meduris player makes, and the small vocabulary they use.

use super::goods::{Good, Goods};

/// A plateau is named by the good it yields.
pub type Plateau = Good;

/// One decision by the seat that must decide (see [`Decision`] for which kind is due).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Action {
    /// Setup: put one of your workers on top of a plateau holding fewer than 3.
    PlaceWorker {
        /// Target plateau.
        plateau: Plateau,
    },
    /// Die showed "+1": take one good of this kind from the supply.
    TakeGood {
        /// Kind taken (its supply must not be empty).
        good: Good,
    },
    /// Die showed "−1": return one good of this kind to the supply.
    ReturnGood {
        /// Kind returned (you must hold one).
        good: Good,
    },
    /// Turn option A: move your worker standing at `height` (1 = bottom) on `from`
    /// onto the top of `to`, then `to` yields.
    BigYield {
        /// Plateau the worker leaves.
        from: Plateau,
        /// Height of the worker in that stack, 1 = bottom.
        height: u8,
        /// Plateau the worker moves to (different, fewer than 3 workers).
        to: Plateau,
    },
    /// Turn option B: build a hut on an empty field, paying exactly `payment`.
    BuildHut {
        /// Field number on the ring.
        field: u8,
        /// Goods paid (empty on a "free hut" chip).
        payment: Goods,
    },
    /// Turn option C: build a temple on an empty field without a chip.
    BuildTemple {
        /// Field number on the ring.
        field: u8,
        /// Goods paid (the field's two goods, each possibly replaced 3-for-1).
        payment: Goods,
    },
    /// Offering at the hut the druid stands beside: an exact payment of both
    /// goods (points = settlement size), of one of them (+1), or nothing (−1).
    Offer {
        /// Goods offered.
        payment: Goods,
    },
    /// Offering: hand in the "druid offering" chip under this hut (counts as both goods).
    OfferChip,
}

/// The face of the die rolled at the start of every turn.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DieFace {
    /// Every worker on this plateau yields one good.
    Yield(Good),
    /// Every player takes one good of their choice.
    PlusOne,
    /// Every player holding goods returns one of their choice.
    MinusOne,
}

impl DieFace {
    /// The six faces, equally likely.
    pub const ALL: [DieFace; 6] = [
        DieFace::Yield(Good::Wood),
        DieFace::Yield(Good::Wool),
        DieFace::Yield(Good::Copper),
        DieFace::Yield(Good::Stone),
        DieFace::PlusOne,
        DieFace::MinusOne,
    ];
}

/// A bonus chip on a field.
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Chip {
    /// The builder of a hut here gains 2 points.
    PlusTwo,
    /// A hut here costs nothing.
    FreeHut,
    /// Stays under the hut; its owner may hand it in at an offering instead of goods.
    DruidOffering,
}

/// A building on a field.
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Building {
    /// A hut of this seat.
    Hut(crate::Seat),
    /// A temple of this seat.
    Temple(crate::Seat),
}

impl Building {
    /// The building's owner.
    pub const fn owner(self) -> crate::Seat {
        match self {
            Building::Hut(s) | Building::Temple(s) => s,
        }
    }
}

/// Where the druid stands.
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DruidPos {
    /// On his temple (start).
    Temple,
    /// On stone field 1, 2 or 3.
    StoneField(u8),
    /// Beside this ring field.
    Field(u8),
}

/// The kind of decision the seat to act must take.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Decision {
    /// Setup: place a worker.
    PlaceWorker,
    /// "+1" was rolled: choose a good to take.
    TakeGood,
    /// "−1" was rolled: choose a good to return.
    ReturnGood,
    /// The main part of the turn: big yield, hut or temple.
    Turn,
    /// An offering at the hut on this field.
    Offering {
        /// The field whose hut is visited.
        field: u8,
        /// True during the druid's last round.
        last_round: bool,
    },
}
