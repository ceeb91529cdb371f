//! What happened: the events [`super::Dolmen`] reports for every applied action.
//!
//! Everything is public except the value of a dolmen before it is scored:
//! [`Event::DolmenPlaced`] carries it for the engine and for its owner, and
//! [`crate::Game::redact`] removes it for everyone else.

use super::board::{Circle, Dir, Site};
use crate::Seat;

/// Why a score changed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ScoreReason {
    /// A dolmen scored (circle completed, or final scoring).
    Dolmen,
    /// The player declined to leave a stone (−1).
    DeclinedStone,
}

/// Why the game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EndReason {
    /// A player placed their last dolmen and every other player had one more turn.
    LastDolmen,
    /// The last stone of all players was placed.
    LastStone,
    /// The `max_turns` safeguard (\[ruling\]).
    Safeguard,
}

/// One thing that happened in a Die Dolmengötter game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Event {
    /// Setup: a druid was placed.
    DruidPlaced {
        /// Owner.
        seat: Seat,
        /// Site.
        site: Site,
    },
    /// A player's turn began.
    TurnStarted {
        /// Active seat.
        seat: Seat,
        /// Turn number, from 1.
        turn: u32,
    },
    /// The player had no legal action: the turn passes (\[ruling\]).
    TurnPassed {
        /// The seat that could not act.
        seat: Seat,
    },
    /// A druid walked (and jumped over `jumped` druids).
    Walked {
        /// Owner.
        seat: Seat,
        /// Where it started.
        from: Site,
        /// Where it landed.
        to: Site,
        /// Direction.
        dir: Dir,
        /// Druids jumped over.
        jumped: u8,
    },
    /// A druid was laid down to collect herbs.
    HerbsCollected {
        /// Owner.
        seat: Seat,
        /// Site.
        site: Site,
    },
    /// A lying druid flew and stood up.
    Flew {
        /// Owner.
        seat: Seat,
        /// Where it lay.
        from: Site,
        /// Where it landed.
        to: Site,
    },
    /// A stone was left on a site.
    StonePlaced {
        /// Owner.
        seat: Seat,
        /// Site.
        site: Site,
        /// Stones the seat has left.
        stones_left: u8,
    },
    /// The player left no stone (a point is lost unless they had no stone).
    StoneDeclined {
        /// The seat.
        seat: Seat,
        /// The site the druid left.
        site: Site,
    },
    /// A colour gained sole majority in a circle and leads it now.
    LeaderChanged {
        /// The circle.
        circle: Circle,
        /// The new leader.
        leader: Seat,
    },
    /// A dolmen was placed.
    DolmenPlaced {
        /// Owner.
        seat: Seat,
        /// Circle.
        circle: Circle,
        /// True: on top of the stack; false: under it.
        on_top: bool,
        /// Its value: only for its owner (and the engine); `None` for others.
        value: Option<u8>,
        /// Dolmens the seat has left in hand.
        dolmens_left: u8,
    },
    /// A seat that could have placed a dolmen did not.
    DolmenPassed {
        /// The seat.
        seat: Seat,
        /// The circle.
        circle: Circle,
    },
    /// Every site of a circle holds a stone: its stack scores.
    CircleCompleted {
        /// The circle.
        circle: Circle,
    },
    /// A dolmen scored and left the game; its value is public from now on.
    DolmenScored {
        /// Owner.
        seat: Seat,
        /// Circle.
        circle: Circle,
        /// Its value.
        value: u8,
        /// The multiplier of its place in the stack.
        multiplier: u8,
    },
    /// A score changed.
    ScoreChanged {
        /// The seat.
        seat: Seat,
        /// By how much.
        delta: i32,
        /// The new score.
        score: i32,
        /// Why.
        reason: ScoreReason,
    },
    /// A player placed their last dolmen: every other player has one more turn.
    LastTurnsBegin {
        /// The seat that placed its last dolmen.
        seat: Seat,
    },
    /// Regular play ended; final scoring follows.
    GameEnded {
        /// Why.
        reason: EndReason,
    },
    /// The game is over.
    GameOver {
        /// Final scores by seat.
        scores: Vec<i32>,
        /// Winning seats.
        winners: Vec<Seat>,
    },
}
