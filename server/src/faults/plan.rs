//! A fault plan as the client sent it, checked once into [`Plan`]: every
//! count at least 1, every delay bounded, every seat in the game, at most
//! [`MAX_FAULTS`] faults. Nothing here fires anything.

use std::time::Duration;

use druids_contract::pb;
use druids_engine::Seat;

use crate::error::ServiceError;

/// Most faults in one plan.
pub const MAX_FAULTS: usize = 32;
/// Longest delay a fault may name.
const MAX_DELAY_MS: u32 = 60_000;

/// A method whose calls a plan counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Method {
    /// `SubmitAction`.
    Submit,
    /// `GetLegalActions`.
    Legal,
    /// `GetState`.
    State,
    /// `StreamEvents`.
    Stream,
}

impl Method {
    /// The method's name in the ledger.
    pub fn name(self) -> &'static str {
        match self {
            Method::Submit => "SubmitAction",
            Method::Legal => "GetLegalActions",
            Method::State => "GetState",
            Method::Stream => "StreamEvents",
        }
    }
}

/// How a stream ends at a fault.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StreamEnd {
    /// With status `UNAVAILABLE`.
    Unavailable,
    /// With status OK although the game goes on.
    Clean,
    /// With no status at all: the client's connection is reset (TCP RST).
    Reset,
    /// With GOAWAY on the client's connection, then `UNAVAILABLE`.
    Goaway,
    /// With `UNAVAILABLE`, as every stream of the game: the server restarts,
    /// and refuses the game's calls for this long.
    Restart(Duration),
}

/// One fault of a plan, parsed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Kind {
    EndStream {
        after_seq: u64,
        how: StreamEnd,
    },
    RefuseSubmit {
        nth: u32,
        retry: Duration,
    },
    LoseAnswer {
        nth: u32,
    },
    Hold {
        nth: u32,
        hold: Duration,
    },
    Exhaust {
        method: Method,
        nth: u32,
        retry: Duration,
    },
}

#[derive(Clone, Copy, Debug)]
pub(super) struct Fault {
    pub(super) seat: Seat,
    pub(super) kind: Kind,
    pub(super) fired: bool,
}

/// A fault plan, checked ([`Plan::parse`]).
#[derive(Clone, Debug, Default)]
pub struct Plan {
    pub(super) faults: Vec<Fault>,
}

fn at_least_one(field: &'static str, n: u32) -> Result<u32, ServiceError> {
    if n == 0 {
        return Err(ServiceError::invalid(
            field,
            format!("{field} must be at least 1"),
        ));
    }
    Ok(n)
}

fn delay(field: &'static str, ms: u32) -> Result<Duration, ServiceError> {
    if !(1..=MAX_DELAY_MS).contains(&ms) {
        return Err(ServiceError::invalid(
            field,
            format!("{field} must be 1 to {MAX_DELAY_MS} ms (got {ms})"),
        ));
    }
    Ok(Duration::from_millis(ms.into()))
}

/// The seq of a stream point, at least 1.
fn after_seq(field: &'static str, at: Option<pb::StreamPoint>) -> Result<u64, ServiceError> {
    match at.and_then(|a| a.point) {
        Some(pb::stream_point::Point::AfterSeq(n)) if n >= 1 => Ok(n),
        _ => Err(ServiceError::invalid(
            field,
            format!("{field} needs after_seq of at least 1"),
        )),
    }
}

fn kind(kind: &Option<pb::fault::Kind>) -> Result<Kind, ServiceError> {
    use pb::fault::Kind as K;
    Ok(match kind {
        None => {
            return Err(ServiceError::invalid(
                "plan.faults.kind",
                "a fault needs a kind",
            ));
        }
        Some(K::EndStream(e)) => {
            let after_seq = after_seq("plan.faults.end_stream.at", e.at)?;
            let how = match pb::StreamEnd::try_from(e.how) {
                Ok(pb::StreamEnd::Unavailable) => StreamEnd::Unavailable,
                Ok(pb::StreamEnd::Clean) => StreamEnd::Clean,
                Ok(pb::StreamEnd::Reset) => StreamEnd::Reset,
                Ok(pb::StreamEnd::Goaway) => StreamEnd::Goaway,
                _ => {
                    return Err(ServiceError::invalid(
                        "plan.faults.end_stream.how",
                        "how must be STREAM_END_UNAVAILABLE, STREAM_END_CLEAN, STREAM_END_RESET \
                         or STREAM_END_GOAWAY",
                    ));
                }
            };
            Kind::EndStream { after_seq, how }
        }
        Some(K::Restart(r)) => Kind::EndStream {
            after_seq: after_seq("plan.faults.restart.at", r.at)?,
            how: StreamEnd::Restart(delay("plan.faults.restart.down_ms", r.down_ms)?),
        },
        Some(K::RefuseSubmit(r)) => Kind::RefuseSubmit {
            nth: at_least_one("plan.faults.refuse_submit.nth", r.nth)?,
            retry: delay("plan.faults.refuse_submit.retry_after_ms", r.retry_after_ms)?,
        },
        Some(K::LoseAnswer(l)) => Kind::LoseAnswer {
            nth: at_least_one("plan.faults.lose_answer.nth", l.nth)?,
        },
        Some(K::HoldAnswer(h)) => Kind::Hold {
            nth: at_least_one("plan.faults.hold_answer.nth", h.nth)?,
            hold: delay("plan.faults.hold_answer.hold_ms", h.hold_ms)?,
        },
        Some(K::Exhaust(x)) => Kind::Exhaust {
            method: match pb::FaultMethod::try_from(x.method) {
                Ok(pb::FaultMethod::SubmitAction) => Method::Submit,
                Ok(pb::FaultMethod::GetLegalActions) => Method::Legal,
                Ok(pb::FaultMethod::GetState) => Method::State,
                Ok(pb::FaultMethod::StreamEvents) => Method::Stream,
                _ => {
                    return Err(ServiceError::invalid(
                        "plan.faults.exhaust.method",
                        format!("method {} names no method", x.method),
                    ));
                }
            },
            nth: at_least_one("plan.faults.exhaust.nth", x.nth)?,
            retry: delay("plan.faults.exhaust.retry_after_ms", x.retry_after_ms)?,
        },
    })
}

impl Plan {
    /// The plan of `plan` for a game of `players` seats, every field checked.
    pub fn parse(plan: &pb::FaultPlan, players: usize) -> Result<Plan, ServiceError> {
        if plan.faults.len() > MAX_FAULTS {
            return Err(ServiceError::invalid(
                "plan.faults",
                format!(
                    "a plan has at most {MAX_FAULTS} faults (got {})",
                    plan.faults.len()
                ),
            ));
        }
        let mut faults = Vec::with_capacity(plan.faults.len());
        for f in &plan.faults {
            if f.seat as usize >= players {
                return Err(ServiceError::invalid(
                    "plan.faults.seat",
                    format!("seat {} is not below the game's {players} players", f.seat),
                ));
            }
            faults.push(Fault {
                seat: Seat(f.seat as u8),
                kind: kind(&f.kind)?,
                fired: false,
            });
        }
        Ok(Plan { faults })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(crate) fn plan(kind: pb::fault::Kind) -> pb::FaultPlan {
        pb::FaultPlan {
            faults: vec![pb::Fault {
                seat: 1,
                kind: Some(kind),
            }],
        }
    }

    #[test]
    fn plans_are_checked() {
        let refuse = |nth, ms| {
            plan(pb::fault::Kind::RefuseSubmit(pb::RefuseSubmitFault {
                nth,
                retry_after_ms: ms,
            }))
        };
        assert!(Plan::parse(&refuse(1, 500), 2).is_ok());
        assert!(Plan::parse(&refuse(0, 500), 2).is_err());
        assert!(Plan::parse(&refuse(1, 0), 2).is_err());
        assert!(Plan::parse(&refuse(1, 60_001), 2).is_err());
        assert!(Plan::parse(&refuse(1, 500), 1).is_err(), "seat 1 of 1");
        let many = pb::FaultPlan {
            faults: vec![refuse(1, 1).faults[0]; MAX_FAULTS + 1],
        };
        assert!(Plan::parse(&many, 2).is_err());
        let restart = |seq, ms| {
            plan(pb::fault::Kind::Restart(pb::RestartFault {
                at: Some(pb::StreamPoint {
                    point: Some(pb::stream_point::Point::AfterSeq(seq)),
                }),
                down_ms: ms,
            }))
        };
        assert!(Plan::parse(&restart(3, 500), 2).is_ok());
        assert!(Plan::parse(&restart(0, 500), 2).is_err());
        assert!(Plan::parse(&restart(3, 0), 2).is_err());
    }
}
