//! Faults on cue (`--test-faults`): the fault plans attached to test games
//! and their ledgers.
//!
//! A plan is keyed to a seat's call counts and to event seqs, never to the
//! wall clock, so that it fires at the same points on every run. It lives in
//! memory beside its game and touches nothing else: a call of a game without
//! a plan (every game when the mode is off) finds no entry here and goes on
//! as if this module did not exist. The ledger records every call the plan's
//! game receives with its answer, each fault that fired and each event stream
//! that ended, so that a test asserts on what the client did.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use druids_contract::pb;
use druids_engine::Seat;

use crate::auth::TokenHash;
use crate::error::{ServiceError, clip};

/// Most faults in one plan.
pub const MAX_FAULTS: usize = 32;
/// Most entries a ledger keeps (later ones are counted as dropped).
pub const MAX_LEDGER: usize = 20_000;
/// Most entries in one GetLedger answer.
pub const MAX_PAGE: usize = 1000;
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
}

/// One fault of a plan, parsed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
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
struct Fault {
    seat: Seat,
    kind: Kind,
    fired: bool,
}

/// A fault plan, checked ([`Plan::parse`]).
#[derive(Clone, Debug, Default)]
pub struct Plan {
    faults: Vec<Fault>,
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

impl Plan {
    /// The plan of `plan` for a game of `players` seats, every field checked.
    pub fn parse(plan: &pb::FaultPlan, players: usize) -> Result<Plan, ServiceError> {
        use pb::fault::Kind as K;
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
            let kind = match &f.kind {
                None => {
                    return Err(ServiceError::invalid(
                        "plan.faults.kind",
                        "a fault needs a kind",
                    ));
                }
                Some(K::EndStream(e)) => {
                    let after_seq = match e.at.and_then(|a| a.point) {
                        Some(pb::stream_point::Point::AfterSeq(n)) if n >= 1 => n,
                        _ => {
                            return Err(ServiceError::invalid(
                                "plan.faults.end_stream.at",
                                "end_stream needs at.after_seq of at least 1",
                            ));
                        }
                    };
                    let how = match pb::StreamEnd::try_from(e.how) {
                        Ok(pb::StreamEnd::Unavailable) => StreamEnd::Unavailable,
                        Ok(pb::StreamEnd::Clean) => StreamEnd::Clean,
                        _ => {
                            return Err(ServiceError::invalid(
                                "plan.faults.end_stream.how",
                                "how must be STREAM_END_UNAVAILABLE or STREAM_END_CLEAN",
                            ));
                        }
                    };
                    Kind::EndStream { after_seq, how }
                }
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
            };
            faults.push(Fault {
                seat: Seat(f.seat as u8),
                kind,
                fired: false,
            });
        }
        Ok(Plan { faults })
    }
}

/// What a plan does to one call, decided before the call runs.
#[derive(Debug, Default)]
pub enum Cue {
    /// Nothing: the call runs as always.
    #[default]
    Pass,
    /// The call is answered with this error and not run (fault index).
    Refuse(ServiceError, Option<u32>),
    /// The call runs after this hold.
    Hold(Duration, u32),
    /// The call runs and its answer is replaced by `UNAVAILABLE`.
    LoseAnswer(u32),
}

/// A refusal that lasts until its retry delay has passed.
#[derive(Clone, Copy, Debug)]
struct Window {
    until: Instant,
    exhausted: bool,
    fault: u32,
}

/// A game's plan with its counters and ledger.
struct Attached {
    key: TokenHash,
    plan: Plan,
    started: Instant,
    counts: HashMap<(Seat, Method), u32>,
    windows: HashMap<(Seat, Method), Window>,
    ledger: Vec<pb::LedgerEntry>,
    dropped: u64,
}

impl Attached {
    fn new(key: TokenHash, plan: Plan) -> Attached {
        Attached {
            key,
            plan,
            started: Instant::now(),
            counts: HashMap::new(),
            windows: HashMap::new(),
            ledger: Vec::new(),
            dropped: 0,
        }
    }

    fn push(&mut self, seat: Option<Seat>, at: (u64, u64), entry: pb::ledger_entry::Entry) {
        if self.ledger.len() >= MAX_LEDGER {
            self.dropped += 1;
            return;
        }
        self.ledger.push(pb::LedgerEntry {
            index: self.ledger.len() as u64,
            at_ms: self.started.elapsed().as_millis() as u64,
            last_seq: at.0,
            version: at.1,
            seat: seat.map(|s| s.0.into()),
            entry: Some(entry),
        });
    }

    fn fired(&mut self, index: u32, seat: Seat, at: (u64, u64), description: String) {
        self.plan.faults[index as usize].fired = true;
        self.push(
            Some(seat),
            at,
            pb::ledger_entry::Entry::Fault(pb::LedgerFault {
                fault: index,
                description,
            }),
        );
    }
}

/// The plans of this server's test games (empty unless `--test-faults`).
pub struct Faults {
    enabled: bool,
    games: Mutex<HashMap<String, Attached>>,
}

impl Faults {
    /// The registry; `enabled` is `--test-faults`.
    pub fn new(enabled: bool) -> Faults {
        Faults {
            enabled,
            games: Mutex::new(HashMap::new()),
        }
    }

    /// Whether the server runs in test-faults mode.
    pub fn enabled(&self) -> bool {
        self.enabled
    }

    /// Refuses every call when the mode is off.
    pub fn check_enabled(&self) -> Result<(), ServiceError> {
        match self.enabled {
            true => Ok(()),
            false => Err(ServiceError::TestFaultsOff),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Attached>> {
        // A panic while holding the lock leaves whole entries: keep serving.
        self.games.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Whether `game_id` has a plan (the fast check before any ledger work).
    pub fn has_plan(&self, game_id: &str) -> bool {
        self.enabled && self.lock().contains_key(game_id)
    }

    /// Attaches the first plan of a game just created by its test key's holder.
    pub fn attach_new(&self, game_id: &str, key: TokenHash, plan: Plan) {
        self.lock()
            .insert(game_id.to_owned(), Attached::new(key, plan));
    }

    /// Replaces the plan of a test game (its ledger starts again).
    pub fn replace(&self, game_id: &str, key: &TokenHash, plan: Plan) -> Result<(), ServiceError> {
        let mut games = self.lock();
        let attached = Self::owned(&mut games, game_id, key)?;
        *attached = Attached::new(attached.key, plan);
        Ok(())
    }

    fn owned<'a>(
        games: &'a mut HashMap<String, Attached>,
        game_id: &str,
        key: &TokenHash,
    ) -> Result<&'a mut Attached, ServiceError> {
        let attached = games.get_mut(game_id).ok_or_else(|| {
            ServiceError::invalid(
                "game_id",
                format!(
                    "game {} was not made by CreateTestGame on this server process",
                    clip(game_id)
                ),
            )
        })?;
        if !attached.key.matches(key) {
            return Err(ServiceError::TestKeyUnknown(clip(game_id)));
        }
        Ok(attached)
    }

    /// A page of the ledger of `game_id`.
    pub fn ledger(
        &self,
        game_id: &str,
        key: &TokenHash,
        from: u64,
        page_size: u32,
    ) -> Result<pb::GetLedgerResponse, ServiceError> {
        let size = match page_size as usize {
            0 => MAX_PAGE,
            n => n.min(MAX_PAGE),
        };
        let mut games = self.lock();
        let attached = Self::owned(&mut games, game_id, key)?;
        let start = (from as usize).min(attached.ledger.len());
        let entries: Vec<_> = attached.ledger[start..]
            .iter()
            .take(size)
            .cloned()
            .collect();
        Ok(pb::GetLedgerResponse {
            next_index: (start + entries.len()) as u64,
            entries,
            dropped: attached.dropped,
        })
    }

    /// Counts a call of `seat` to `method` and says what the plan does to it.
    /// `at` is the game's last seq and version.
    pub fn cue(&self, game_id: &str, seat: Seat, method: Method, at: (u64, u64)) -> Cue {
        let mut games = self.lock();
        let Some(a) = games.get_mut(game_id) else {
            return Cue::Pass;
        };
        let now = Instant::now();
        if let Some(w) = a.windows.get(&(seat, method)).copied() {
            if now < w.until {
                return Cue::Refuse(refusal(w.exhausted, w.until - now), Some(w.fault));
            }
            a.windows.remove(&(seat, method));
        }
        let count = a.counts.entry((seat, method)).or_default();
        *count += 1;
        let n = *count;
        let found = a.plan.faults.iter().enumerate().find_map(|(i, f)| {
            let due = !f.fired && f.seat == seat;
            let hit = match f.kind {
                Kind::RefuseSubmit { nth, .. }
                | Kind::LoseAnswer { nth }
                | Kind::Hold { nth, .. } => method == Method::Submit && nth == n,
                Kind::Exhaust { method: m, nth, .. } => m == method && nth == n,
                Kind::EndStream { .. } => false,
            };
            (due && hit).then_some((i as u32, f.kind))
        });
        let Some((index, kind)) = found else {
            return Cue::Pass;
        };
        let name = method.name();
        let (cue, words) = match kind {
            Kind::RefuseSubmit { retry, .. } | Kind::Exhaust { retry, .. } => {
                let exhausted = matches!(kind, Kind::Exhaust { .. });
                a.windows.insert(
                    (seat, method),
                    Window {
                        until: now + retry,
                        exhausted,
                        fault: index,
                    },
                );
                let code = if exhausted {
                    "RESOURCE_EXHAUSTED"
                } else {
                    "UNAVAILABLE"
                };
                (
                    Cue::Refuse(refusal(exhausted, retry), Some(index)),
                    format!(
                        "answered {name} #{n} of seat {} with {code}, RetryInfo {} ms, applying nothing",
                        seat.0,
                        retry.as_millis()
                    ),
                )
            }
            Kind::LoseAnswer { .. } => (
                Cue::LoseAnswer(index),
                format!(
                    "ran {name} #{n} of seat {} and lost its answer (UNAVAILABLE)",
                    seat.0
                ),
            ),
            Kind::Hold { hold, .. } => (
                Cue::Hold(hold, index),
                format!(
                    "held {name} #{n} of seat {} for {} ms",
                    seat.0,
                    hold.as_millis()
                ),
            ),
            Kind::EndStream { .. } => unreachable!("stream ends are not call faults"),
        };
        a.fired(index, seat, at, words);
        cue
    }

    /// The seq after which the next stream of `seat` ends, and how.
    pub fn stream_end(&self, game_id: &str, seat: Seat) -> Option<(u32, u64, StreamEnd)> {
        let games = self.lock();
        games
            .get(game_id)?
            .plan
            .faults
            .iter()
            .enumerate()
            .find_map(|(i, f)| match f.kind {
                Kind::EndStream { after_seq, how } if !f.fired && f.seat == seat => {
                    Some((i as u32, after_seq, how))
                }
                _ => None,
            })
    }

    /// Records that end-stream fault `index` fired after `seq`.
    pub fn stream_fault_fired(
        &self,
        game_id: &str,
        index: u32,
        seat: Seat,
        seq: u64,
        how: StreamEnd,
    ) {
        let mut games = self.lock();
        if let Some(a) = games.get_mut(game_id) {
            let how = match how {
                StreamEnd::Unavailable => "UNAVAILABLE",
                StreamEnd::Clean => "OK (a clean end)",
            };
            a.fired(
                index,
                seat,
                (seq, 0),
                format!(
                    "ended the stream of seat {} after seq {seq} with {how}",
                    seat.0
                ),
            );
        }
    }

    /// Records a call of the game and its answer.
    pub fn record_call(
        &self,
        game_id: &str,
        seat: Option<Seat>,
        at: (u64, u64),
        call: pb::LedgerCall,
    ) {
        if let Some(a) = self.lock().get_mut(game_id) {
            a.push(seat, at, pb::ledger_entry::Entry::Call(call));
        }
    }

    /// Records that an event stream of the game ended.
    pub fn record_stream_end(
        &self,
        game_id: &str,
        seat: Option<Seat>,
        at: (u64, u64),
        end: pb::LedgerStreamEnd,
    ) {
        if let Some(a) = self.lock().get_mut(game_id) {
            a.push(seat, at, pb::ledger_entry::Entry::StreamEnd(end));
        }
    }
}

/// The error of a refusing fault, with what is left of its delay.
fn refusal(exhausted: bool, retry_after: Duration) -> ServiceError {
    // Rounded up so that a client waiting what it is told is never early.
    let retry_after = Duration::from_millis(retry_after.as_millis().max(1) as u64 + 1);
    match exhausted {
        true => ServiceError::RateLimited {
            what: "a fault of the game's test plan".into(),
            retry_after,
        },
        false => ServiceError::FaultUnavailable { retry_after },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan(kind: pb::fault::Kind) -> pb::FaultPlan {
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
    }

    #[test]
    fn the_nth_call_of_its_seat_fires_once() {
        let faults = Faults::new(true);
        let p = plan(pb::fault::Kind::LoseAnswer(pb::LoseAnswerFault { nth: 2 }));
        let key = TokenHash::of("k");
        faults.attach_new("g", key, Plan::parse(&p, 2).unwrap());
        let seat = Seat(1);
        assert!(matches!(
            faults.cue("g", Seat(0), Method::Submit, (0, 0)),
            Cue::Pass
        ));
        assert!(matches!(
            faults.cue("g", seat, Method::Submit, (0, 0)),
            Cue::Pass
        ));
        assert!(matches!(
            faults.cue("g", seat, Method::Legal, (0, 0)),
            Cue::Pass
        ));
        assert!(matches!(
            faults.cue("g", seat, Method::Submit, (0, 0)),
            Cue::LoseAnswer(0)
        ));
        assert!(matches!(
            faults.cue("g", seat, Method::Submit, (0, 0)),
            Cue::Pass
        ));
        assert!(matches!(
            faults.cue("other", seat, Method::Submit, (0, 0)),
            Cue::Pass
        ));
        let ledger = faults.ledger("g", &TokenHash::of("k"), 0, 0).unwrap();
        assert_eq!(ledger.entries.len(), 1);
        assert!(faults.ledger("g", &TokenHash::of("x"), 0, 0).is_err());
    }
}
