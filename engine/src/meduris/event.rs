//! What happened: the events [`super::Meduris`] reports for every applied action.
//!
//! Everything in a Meduris event is public at the table (gains and payments are
//! made in the open); only the running totals behind each screen are private, and
//! those never appear in events.

use super::action::{Chip, DieFace, DruidPos, Plateau};
use super::board::Area;
use super::goods::{Good, Goods};
use crate::Seat;

/// Why a score changed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ScoreReason {
    /// "+2 points" chip.
    Chip,
    /// An offering (both, one, the druid chip, or the −1 for nothing).
    Offering,
    /// Interim rune scoring when the druid crosses the great river.
    RiverCrossing,
    /// Final scoring of a temple.
    Temple,
    /// Final scoring of rune stones.
    Runes,
}

/// How an offering was made.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OfferingKind {
    /// Both goods: points equal to the settlement's size.
    Both,
    /// One good: 1 point.
    One,
    /// Nothing: −1 point (never below 0).
    Nothing,
    /// The "druid offering" chip, counting as both.
    Chip,
}

/// One thing that happened in a Meduris game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Event {
    /// Setup: a bonus chip lies face up on a field.
    ChipPlaced {
        /// Field.
        field: u8,
        /// Chip.
        chip: Chip,
    },
    /// Setup: a worker was placed.
    WorkerPlaced {
        /// Owner.
        seat: Seat,
        /// Plateau.
        plateau: Plateau,
    },
    /// A player's turn began.
    TurnStarted {
        /// Active seat.
        seat: Seat,
        /// Turn number, from 1.
        turn: u32,
    },
    /// The die was rolled.
    DieRolled {
        /// Face shown.
        face: DieFace,
    },
    /// A seat received goods from the supply (yield or "+1").
    GoodsGained {
        /// Receiver.
        seat: Seat,
        /// Kind.
        good: Good,
        /// How many (may be less than due when the supply ran out).
        count: u8,
    },
    /// A seat returned a good for "−1".
    GoodReturned {
        /// Who returned it.
        seat: Seat,
        /// Kind.
        good: Good,
    },
    /// Big yield: a worker moved between plateaus.
    WorkerMoved {
        /// Owner.
        seat: Seat,
        /// From plateau.
        from: Plateau,
        /// Its height there before moving (1 = bottom).
        height: u8,
        /// To plateau.
        to: Plateau,
    },
    /// A hut was built.
    HutBuilt {
        /// Builder.
        seat: Seat,
        /// Field.
        field: u8,
        /// Goods paid.
        paid: Goods,
        /// Size of its settlement, counting the new hut.
        settlement: u8,
    },
    /// A temple was built.
    TempleBuilt {
        /// Builder.
        seat: Seat,
        /// Field.
        field: u8,
        /// Goods paid.
        paid: Goods,
    },
    /// A bonus chip was taken off the board (used when building, or handed in).
    ChipUsed {
        /// Field.
        field: u8,
        /// Chip.
        chip: Chip,
    },
    /// A rune stone changed hands.
    RuneTaken {
        /// Area.
        area: Area,
        /// Seat that held it (None: the general supply).
        from: Option<Seat>,
        /// New holder.
        to: Seat,
    },
    /// The druid moved.
    DruidMoved {
        /// New position.
        to: DruidPos,
    },
    /// The druid crossed the great river: interim rune scoring follows.
    RiverCrossed,
    /// An offering was made.
    Offering {
        /// Hut owner.
        seat: Seat,
        /// Field of the hut.
        field: u8,
        /// What was offered.
        kind: OfferingKind,
        /// Goods paid.
        paid: Goods,
    },
    /// A score changed.
    Scored {
        /// Seat.
        seat: Seat,
        /// Change actually applied (a −1 at 0 is reported as 0).
        delta: i32,
        /// Score afterwards.
        total: i32,
        /// Why.
        reason: ScoreReason,
    },
    /// A player has built everything: every other player has one more turn.
    EndTriggered {
        /// The player who finished building.
        seat: Seat,
    },
    /// The `max_turns` safeguard ended regular play \[ruling\].
    SafeguardReached {
        /// Turns played.
        turns: u32,
    },
    /// The druid's last round began; he will end beside `marked`.
    LastRoundStarted {
        /// The marked position.
        marked: DruidPos,
    },
    /// The game is over. Boxed: every other event is a few bytes, and a
    /// server keeps every event of each game in play.
    GameOver(Box<FinalResult>),
}

/// How a game ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FinalResult {
    /// Final scores, by seat.
    pub scores: Vec<i32>,
    /// Goods left per seat (they break ties). Holdings stay private:
    /// [`crate::Game::redact`] keeps only the viewer's own entry.
    pub goods_left: Vec<Option<Goods>>,
    /// Winners.
    pub winners: Vec<Seat>,
}
