//! The wording of Die Dolmengötter: every action and event as one line of
//! plain English (`Display`), for logs, command-line clients and the
//! descriptions a server sends beside the structured messages. Kept apart
//! from the rules so that a change of wording never touches them.

use std::fmt;

use super::action::{Action, Decision};
use super::board::{self, Dir};
use super::event::{EndReason, Event, ScoreReason};
use crate::Seat;

impl fmt::Display for Dir {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Dir::North => "north",
            Dir::East => "east",
            Dir::South => "south",
            Dir::West => "west",
            Dir::Diagonal => "diagonally",
        })
    }
}

impl fmt::Display for Action {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Action::PlaceDruid { site } => write!(f, "place a druid on {site}"),
            Action::Walk { from, dir } => write!(f, "walk the druid on {from} {dir}"),
            Action::CollectHerbs { site } => {
                write!(f, "lay the druid on {site} down to collect herbs")
            }
            Action::Fly { from, to } => write!(f, "fly the lying druid on {from} to {to}"),
            Action::PlaceStone => f.write_str("leave a stone"),
            Action::DeclineStone => f.write_str("leave no stone (-1 point)"),
            Action::PlaceDolmen { value: Some(value) } => {
                write!(f, "place a dolmen of value {value}")
            }
            Action::PlaceDolmen { value: None } => f.write_str("place a dolmen"),
            Action::PassDolmen => f.write_str("place no dolmen"),
        }
    }
}

/// What the decision is about and what its choices earn by the rules, for
/// people deciding it (the contract's `Decision.description`).
impl fmt::Display for Decision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Decision::PlaceDruid => f.write_str("place one of your druids on a free site"),
            Decision::Turn => f.write_str(
                "the turn: walk a standing druid (jumping the druids in its way), \
                 lay one down to collect herbs, or fly a lying druid to any free \
                 site; a walk or a flight may leave a stone behind",
            ),
            Decision::Stone { site, may_decline } => {
                write!(
                    f,
                    "leave a stone on {site}: it counts for the majority of every \
                     circle around it"
                )?;
                if may_decline {
                    f.write_str(", or leave none and lose 1 point")?;
                }
                Ok(())
            }
            Decision::Dolmen { circle, on_top } => {
                let top = board::shape(circle).max_dolmens();
                if on_top {
                    write!(
                        f,
                        "{circle} has a new leader, who may place a dolmen on top of \
                         its stack (when the circle is complete, the top dolmen scores \
                         its value x {top}, each one below one less)"
                    )
                } else {
                    write!(
                        f,
                        "the leader of {circle} is equalled: the seat may place a \
                         dolmen under its stack (scored when the circle is complete: \
                         the top one x {top}, each one below one less)"
                    )
                }
            }
        }
    }
}

impl fmt::Display for ScoreReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ScoreReason::Dolmen => "a dolmen scored",
            ScoreReason::DeclinedStone => "declined to leave a stone",
        })
    }
}

impl fmt::Display for EndReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            EndReason::LastDolmen => "the last turns after a last dolmen were played",
            EndReason::LastStone => "the last stone of all players was placed",
            EndReason::Safeguard => "the max_turns safeguard",
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

impl fmt::Display for Event {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Event::DruidPlaced { seat, site } => write!(f, "{seat} placed a druid on {site}"),
            Event::TurnStarted { seat, turn } => write!(f, "turn {turn}: {seat} to play"),
            Event::TurnPassed { seat } => {
                write!(f, "{seat} has no legal action and loses the turn")
            }
            Event::Walked {
                seat,
                from,
                to,
                dir,
                jumped,
            } => match jumped {
                0 => write!(f, "{seat} walked {dir} from {from} to {to}"),
                1 => write!(
                    f,
                    "{seat} walked {dir} from {from} to {to}, jumping 1 druid"
                ),
                n => write!(
                    f,
                    "{seat} walked {dir} from {from} to {to}, jumping {n} druids"
                ),
            },
            Event::HerbsCollected { seat, site } => {
                write!(f, "{seat} laid the druid on {site} down to collect herbs")
            }
            Event::Flew { seat, from, to } => write!(f, "{seat} flew a druid from {from} to {to}"),
            Event::StonePlaced {
                seat,
                site,
                stones_left,
            } => write!(f, "{seat} left a stone on {site} ({stones_left} left)"),
            Event::StoneDeclined { seat, site } => write!(f, "{seat} left no stone on {site}"),
            Event::LeaderChanged { circle, leader } => write!(f, "{leader} now leads {circle}"),
            Event::DolmenPlaced {
                seat,
                circle,
                on_top,
                value,
                dolmens_left,
            } => {
                let place = if *on_top { "on top of" } else { "under" };
                match value {
                    Some(v) => write!(
                        f,
                        "{seat} placed a dolmen of value {v} {place} the stack of {circle} ({dolmens_left} left)"
                    ),
                    None => write!(
                        f,
                        "{seat} placed a dolmen {place} the stack of {circle} ({dolmens_left} left)"
                    ),
                }
            }
            Event::DolmenPassed { seat, circle } => {
                write!(f, "{seat} placed no dolmen in {circle}")
            }
            Event::CircleCompleted { circle } => {
                write!(f, "{circle} is complete: its stack scores")
            }
            Event::DolmenScored {
                seat,
                circle,
                value,
                multiplier,
            } => write!(
                f,
                "{seat}'s dolmen of value {value} in {circle} scored {value} x {multiplier}"
            ),
            Event::ScoreChanged {
                seat,
                delta,
                score,
                reason,
            } => write!(f, "{seat} scored {delta:+} ({reason}), now {score}"),
            Event::LastTurnsBegin { seat } => write!(
                f,
                "{seat} placed its last dolmen: every other player has one more turn"
            ),
            Event::GameEnded { reason } => write!(f, "regular play ended: {reason}"),
            Event::GameOver { scores, winners } => write!(
                f,
                "game over: scores {}; won by {}",
                scores
                    .iter()
                    .map(i32::to_string)
                    .collect::<Vec<_>>()
                    .join(", "),
                seats(winners)
            ),
        }
    }
}
