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
/// Highest decision or action count a stream point may name.
const MAX_POINT_COUNT: u32 = 100_000;

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
    /// `Resign`, `ExportReplay`, `GetReplayViews`: no fault names them, but
    /// a restart's downtime answers them too, and the ledger notes them.
    Resign,
    Replay,
    ReplayViews,
}

impl Method {
    /// The method's name in the ledger.
    pub fn name(self) -> &'static str {
        match self {
            Method::Submit => "SubmitAction",
            Method::Legal => "GetLegalActions",
            Method::State => "GetState",
            Method::Stream => "StreamEvents",
            Method::Resign => "Resign",
            Method::Replay => "ExportReplay",
            Method::ReplayViews => "GetReplayViews",
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
    /// With a GOAWAY whose last stream id is below every call open on the
    /// client's connection, which then closes.
    GoawayUnprocessed,
    /// With `UNAVAILABLE`, as every stream of the game: the server restarts,
    /// and refuses the game's calls for this long.
    Restart(Duration),
}

/// Where in a seat's stream an end-stream fault fires.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Point {
    /// Right after the event with this seq (or the first later one sent).
    AfterSeq(u64),
    /// Right before the seat's N-th `DecisionNeeded` of the game's log (or
    /// the first later event).
    BeforeDecision(u32),
    /// Right after the first event of the seat's K-th own applied action.
    AfterSubmit(u32),
}

/// One fault of a plan, parsed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Kind {
    EndStream {
        at: Point,
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

/// A stream point, its count at least 1 (and a decision or action count at
/// most [`MAX_POINT_COUNT`]).
fn point(field: &'static str, at: Option<pb::StreamPoint>) -> Result<Point, ServiceError> {
    use pb::stream_point::Point as P;
    let counted = |name: &str, n: u32| match n {
        1..=MAX_POINT_COUNT => Ok(n),
        _ => Err(ServiceError::invalid(
            field,
            format!("{field}.{name} must be 1 to {MAX_POINT_COUNT} (got {n})"),
        )),
    };
    match at.and_then(|a| a.point) {
        Some(P::AfterSeq(n)) if n >= 1 => Ok(Point::AfterSeq(n)),
        Some(P::AfterSeq(_)) => Err(ServiceError::invalid(
            field,
            format!("{field}.after_seq must be at least 1"),
        )),
        Some(P::BeforeDecision(n)) => counted("before_decision", n).map(Point::BeforeDecision),
        Some(P::AfterSubmit(k)) => counted("after_submit", k).map(Point::AfterSubmit),
        None => Err(ServiceError::invalid(
            field,
            format!("{field} needs a point: after_seq, before_decision or after_submit"),
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
            let at = point("plan.faults.end_stream.at", e.at)?;
            let how = match pb::StreamEnd::try_from(e.how) {
                Ok(pb::StreamEnd::Unavailable) => StreamEnd::Unavailable,
                Ok(pb::StreamEnd::Clean) => StreamEnd::Clean,
                Ok(pb::StreamEnd::Reset) => StreamEnd::Reset,
                Ok(pb::StreamEnd::Goaway) => StreamEnd::Goaway,
                Ok(pb::StreamEnd::GoawayUnprocessed) => StreamEnd::GoawayUnprocessed,
                _ => {
                    return Err(ServiceError::invalid(
                        "plan.faults.end_stream.how",
                        "plan.faults.end_stream.how must be STREAM_END_UNAVAILABLE, \
                         STREAM_END_CLEAN, STREAM_END_RESET, STREAM_END_GOAWAY or \
                         STREAM_END_GOAWAY_UNPROCESSED",
                    ));
                }
            };
            Kind::EndStream { at, how }
        }
        Some(K::Restart(r)) => Kind::EndStream {
            at: point("plan.faults.restart.at", r.at)?,
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
                        format!(
                            "plan.faults.exhaust.method {} names no method: FAULT_METHOD_SUBMIT_ACTION, \
                             FAULT_METHOD_GET_LEGAL_ACTIONS, FAULT_METHOD_GET_STATE or \
                             FAULT_METHOD_STREAM_EVENTS",
                            x.method
                        ),
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
        for (i, f) in plan.faults.iter().enumerate() {
            // The refusal names the fault: plan.faults[i].
            let at = |e: ServiceError| e.nested("plan.faults", &format!("plan.faults[{i}]"));
            if f.seat as usize >= players {
                return Err(at(ServiceError::invalid(
                    "plan.faults.seat",
                    format!("seat {} is not below the game's {players} players", f.seat),
                )));
            }
            faults.push(Fault {
                seat: Seat(f.seat as u8),
                kind: kind(&f.kind).map_err(at)?,
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
        let end = |point| {
            plan(pb::fault::Kind::EndStream(pb::EndStreamFault {
                at: Some(pb::StreamPoint { point }),
                how: pb::StreamEnd::Unavailable as i32,
            }))
        };
        use pb::stream_point::Point as P;
        for (point, field) in [
            (Some(P::BeforeDecision(0)), "before_decision"),
            (Some(P::AfterSubmit(0)), "after_submit"),
            (Some(P::AfterSubmit(MAX_POINT_COUNT + 1)), "after_submit"),
            (None, "needs a point"),
        ] {
            let e = Plan::parse(&end(point), 2).unwrap_err();
            assert!(e.to_string().contains(field), "{e}");
        }
        assert!(Plan::parse(&end(Some(P::BeforeDecision(3))), 2).is_ok());
        assert!(Plan::parse(&end(Some(P::AfterSubmit(MAX_POINT_COUNT))), 2).is_ok());
    }
}
