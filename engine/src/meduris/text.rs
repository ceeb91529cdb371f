//! The wording of Meduris: every action and event as one line of plain
//! English (`Display`), for logs, command-line clients and the descriptions a
//! server sends beside the structured messages. Kept apart from the rules so
//! that a change of wording never touches them.

use std::fmt;

use super::action::{Action, Chip, Decision, DieFace, DruidPos};
use super::board::Area;
use super::event::{Event, OfferingKind, ScoreReason};
use crate::Seat;

impl fmt::Display for Action {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Action::PlaceWorker { plateau } => write!(f, "place a worker on the {plateau} plateau"),
            Action::TakeGood { good } => write!(f, "take 1 {good}"),
            Action::ReturnGood { good } => write!(f, "return 1 {good}"),
            Action::BigYield { from, height, to } => write!(
                f,
                "big yield: move your worker at height {height} on the {from} plateau to the {to} plateau"
            ),
            Action::BuildHut { field, payment } => {
                write!(f, "build a hut on field {field} paying {payment}")
            }
            Action::BuildTemple { field, payment } => {
                write!(f, "build a temple on field {field} paying {payment}")
            }
            Action::Offer { payment } if payment.is_empty() => {
                f.write_str("offer nothing (-1 point)")
            }
            Action::Offer { payment } => write!(f, "offer {payment}"),
            Action::OfferChip => f.write_str("hand in the druid-offering chip"),
        }
    }
}

/// What the decision is about and what its choices earn by the rules, for
/// people deciding it (the contract's `Decision.description`).
impl fmt::Display for Decision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Decision::PlaceWorker => f.write_str(
                "place a worker on a plateau: whenever the die shows its good, \
                 each worker there yields 1 of it",
            ),
            Decision::TakeGood => f.write_str("the die shows +1: take any one good"),
            Decision::ReturnGood => f.write_str("the die shows -1: give back any one good"),
            Decision::Turn => f.write_str(
                "the turn: a big yield (move a worker to another plateau: it yields \
                 as many goods as its height there), a hut (pay the field's two goods \
                 once per hut of its settlement, take the area's rune stone) or a \
                 temple (pay the field's two goods once; it scores the huts beside \
                 it at the end)",
            ),
            Decision::Offering { field, last_round } => {
                if last_round {
                    f.write_str("the druid's last round: ")?;
                }
                write!(
                    f,
                    "offering at the hut on field {field}: both of its goods earn \
                     1 point per hut of its settlement, one earns 1 point, nothing \
                     costs 1 point"
                )
            }
        }
    }
}

impl fmt::Display for Chip {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Chip::PlusTwo => "+2 points",
            Chip::FreeHut => "free hut",
            Chip::DruidOffering => "druid offering",
        })
    }
}

impl fmt::Display for DieFace {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DieFace::Yield(good) => write!(f, "{good}"),
            DieFace::PlusOne => f.write_str("+1"),
            DieFace::MinusOne => f.write_str("-1"),
        }
    }
}

impl fmt::Display for DruidPos {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DruidPos::Temple => f.write_str("his temple"),
            DruidPos::StoneField(n) => write!(f, "stone field {n}"),
            DruidPos::Field(n) => write!(f, "field {n}"),
        }
    }
}

impl fmt::Display for Area {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Area::Serpent => "serpent",
            Area::Star => "star",
            Area::Splash => "splash",
            Area::Scales => "scales",
            Area::Spiral => "spiral",
            Area::Wave => "wave",
            Area::Fire => "fire",
            Area::Moon => "moon",
            Area::Arrow => "arrow",
        })
    }
}

impl fmt::Display for ScoreReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ScoreReason::Chip => "+2 chip",
            ScoreReason::Offering => "offering",
            ScoreReason::RiverCrossing => "river crossing",
            ScoreReason::Temple => "temple",
            ScoreReason::Runes => "rune stones",
        })
    }
}

impl fmt::Display for OfferingKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            OfferingKind::Both => "both goods",
            OfferingKind::One => "one good",
            OfferingKind::Nothing => "nothing",
            OfferingKind::Chip => "the druid-offering chip",
        })
    }
}

/// Seats as "seat 0, seat 2".
fn seats(list: &[Seat]) -> String {
    list.iter()
        .map(Seat::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

/// Scores by seat as "12, 9, 4".
fn scores(list: &[i32]) -> String {
    list.iter()
        .map(i32::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

impl fmt::Display for Event {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Event::ChipPlaced { field, chip } => write!(f, "a {chip} chip lies on field {field}"),
            Event::WorkerPlaced { seat, plateau } => {
                write!(f, "{seat} placed a worker on the {plateau} plateau")
            }
            Event::TurnStarted { seat, turn } => write!(f, "turn {turn}: {seat} to play"),
            Event::DieRolled { face } => write!(f, "the die shows {face}"),
            Event::GoodsGained { seat, good, count } => write!(f, "{seat} gained {count} {good}"),
            Event::GoodReturned { seat, good } => write!(f, "{seat} returned 1 {good}"),
            Event::WorkerMoved {
                seat,
                from,
                height,
                to,
            } => write!(
                f,
                "{seat} moved its worker at height {height} from the {from} plateau to the {to} plateau"
            ),
            Event::HutBuilt {
                seat,
                field,
                paid,
                settlement,
            } => write!(
                f,
                "{seat} built a hut on field {field} (settlement {settlement}) paying {paid}"
            ),
            Event::TempleBuilt { seat, field, paid } => {
                write!(f, "{seat} built a temple on field {field} paying {paid}")
            }
            Event::ChipUsed { field, chip } => {
                write!(f, "the {chip} chip on field {field} left the board")
            }
            Event::RuneTaken { area, from, to } => match from {
                Some(from) => write!(f, "{to} took the {area} rune stone from {from}"),
                None => write!(f, "{to} took the {area} rune stone from the supply"),
            },
            Event::DruidMoved { to } => write!(f, "the druid moved to {to}"),
            Event::RiverCrossed => {
                f.write_str("the druid crossed the great river: rune stones score")
            }
            Event::Offering {
                seat,
                field,
                kind,
                paid,
            } => match kind {
                OfferingKind::Both | OfferingKind::One => {
                    write!(
                        f,
                        "{seat} offered {kind} ({paid}) at the hut on field {field}"
                    )
                }
                OfferingKind::Nothing | OfferingKind::Chip => {
                    write!(f, "{seat} offered {kind} at the hut on field {field}")
                }
            },
            Event::Scored {
                seat,
                delta,
                total,
                reason,
            } => write!(f, "{seat} scored {delta:+} ({reason}), now {total}"),
            Event::EndTriggered { seat } => write!(
                f,
                "{seat} has built everything: every other player has one more turn"
            ),
            Event::SafeguardReached { turns } => {
                write!(f, "the safeguard ended regular play after {turns} turns")
            }
            Event::LastRoundStarted { marked } => {
                write!(f, "the druid's last round began; it ends beside {marked}")
            }
            Event::GameOver(end) => write!(
                f,
                "game over: scores {}; won by {}",
                scores(&end.scores),
                seats(&end.winners)
            ),
        }
    }
}
