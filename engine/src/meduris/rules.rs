//! What is pending: the kind of decision due and the seat that must take
//! it, and why an action is refused. The rules themselves are split by stage:
//! [`super::setup`], [`super::legal`] (the legal actions and the timeout
//! default) and [`super::apply`] (applying one action).

use super::action::{Building, Decision, Plateau};

use super::goods::{Good, Goods};
use super::state::{Phase, State};
use crate::{Rejection, RuleViolation, Seat, TurnError};

/// Why an action was refused. The state is unchanged whenever one is returned.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RuleError {
    /// The game is over, another seat must decide, or the action answers
    /// another kind of decision.
    #[error(transparent)]
    Turn(#[from] TurnError<Decision>),
    /// The plateau already holds 3 workers.
    #[error("the {0} plateau already holds 3 workers")]
    PlateauFull(Plateau),
    /// A worker must leave its plateau.
    #[error("a worker must move to a different plateau")]
    SamePlateau,
    /// No worker of yours at that place.
    #[error("you have no worker at height {height} of the {plateau} plateau")]
    NotYourWorker {
        /// Plateau.
        plateau: Plateau,
        /// Height.
        height: u8,
    },
    /// The supply has none of this good.
    #[error("the supply has no {0} left")]
    SupplyEmpty(Good),
    /// You hold none of this good.
    #[error("you hold no {0}")]
    NotHeld(Good),
    /// Field number beyond the ring of the board in use (the codec refuses
    /// only numbers no board has).
    #[error("field {field} does not exist: this board has fields 0 to {}", .len - 1)]
    NoSuchField {
        /// Field asked for.
        field: u8,
        /// Fields on the ring.
        len: u8,
    },
    /// The field is built on.
    #[error("field {0} is already built on")]
    FieldOccupied(u8),
    /// Temples may not be built on bonus chips.
    #[error("field {0} holds a bonus chip: no temple may be built there")]
    ChipOnField(u8),
    /// No hut left in stock.
    #[error("you have no huts left")]
    NoHutsLeft,
    /// No temple left in stock.
    #[error("you have no temples left")]
    NoTemplesLeft,
    /// The payment does not cover the cost exactly.
    #[error(
        "payment {paid} does not exactly cover {required} (each required good may be replaced by exactly three goods)"
    )]
    WrongPayment {
        /// What the rules require.
        required: Goods,
        /// What was offered.
        paid: Goods,
    },
    /// An offering payment matches neither both goods nor one of them.
    #[error("offering {paid} is neither both of {required}, nor one of them, nor nothing")]
    WrongOffering {
        /// The field's two goods.
        required: Goods,
        /// What was offered.
        paid: Goods,
    },
    /// You do not hold the goods you try to pay.
    #[error("you do not hold {0}")]
    CannotAfford(Goods),
    /// There is no druid chip under this hut.
    #[error("there is no druid offering chip under the hut on field {0}")]
    NoDruidChip(u8),
}

impl RuleViolation for RuleError {
    fn rejection(&self) -> Rejection {
        match self {
            RuleError::Turn(e) => e.rejection(),
            RuleError::NoSuchField { .. } => Rejection::Malformed,
            _ => Rejection::Illegal,
        }
    }
}

/// The kind of decision pending in `phase`.
pub(crate) fn decision(state: &State) -> Option<Decision> {
    Some(match state.phase {
        Phase::PlaceWorkers { .. } => Decision::PlaceWorker,
        Phase::TakeGood { .. } => Decision::TakeGood,
        Phase::ReturnGood { .. } => Decision::ReturnGood,
        Phase::Turn => Decision::Turn,
        Phase::Ritual { field, .. } => Decision::Offering {
            field,
            last_round: false,
        },
        Phase::LastRound { field, .. } => Decision::Offering {
            field,
            last_round: true,
        },
        Phase::Chips { .. } | Phase::Roll | Phase::Over => return None,
    })
}

/// The seat that must decide now.
pub(crate) fn to_act(state: &State) -> Option<Seat> {
    match state.phase {
        Phase::PlaceWorkers { seat } | Phase::TakeGood { seat } | Phase::ReturnGood { seat } => {
            Some(seat)
        }
        Phase::Turn => Some(state.active),
        Phase::Ritual { field, .. } | Phase::LastRound { field, .. } => {
            state.building(field as usize).map(Building::owner)
        }
        Phase::Chips { .. } | Phase::Roll | Phase::Over => None,
    }
}
