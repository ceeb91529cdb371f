//! The decisions a Die Dolmengötter player makes. The vocabulary they use
//! (sites, circles, directions) belongs to the board, [`super::board`].

use super::board::{Circle, Dir, Site};

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
        /// Value of the dolmen placed (1–4; you must hold one). `None` only in
        /// the action as shown to other seats ([`crate::Game::redact_action`]):
        /// the value is its owner's secret. The engine refuses it unnamed.
        value: Option<u8>,
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
