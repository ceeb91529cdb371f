//! When a plan's faults fire: [`Faults::cue`] counts a call and says what
//! the plan does to it (refuse, hold, lose its answer, or nothing), and
//! [`Faults::stream_end`] says at which point a seat's next stream ends and
//! how. A restart refuses every call of its game until it is "back".

use std::time::{Duration, Instant};

use druids_engine::Seat;
use tokio::sync::watch;

use super::Faults;
use super::plan::{Kind, Method, Point, StreamEnd};
use crate::error::ServiceError;

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
pub(super) struct Window {
    until: Instant,
    exhausted: bool,
    fault: u32,
}

impl Faults {
    /// Counts a call of `seat` (`None`: a spectator) to `method` and says
    /// what the plan does to it. `at` is the game's last seq and version.
    pub fn cue(&self, game_id: &str, seat: Option<Seat>, method: Method, at: (u64, u64)) -> Cue {
        let mut games = self.lock();
        let Some(a) = games.get_mut(game_id) else {
            return Cue::Pass;
        };
        let now = Instant::now();
        // A restarting server answers nobody, and counts nothing.
        if let Some((until, fault)) = a.down {
            if now < until {
                let retry_after = rounded_up(until - now);
                return Cue::Refuse(ServiceError::FaultRestarting { retry_after }, Some(fault));
            }
            a.down = None;
        }
        let Some(seat) = seat else {
            return Cue::Pass;
        };
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

    /// The point at which the next stream of `seat` ends, and how.
    pub fn stream_end(&self, game_id: &str, seat: Seat) -> Option<(u32, Point, StreamEnd)> {
        let games = self.lock();
        games
            .get(game_id)?
            .plan
            .faults
            .iter()
            .enumerate()
            .find_map(|(i, f)| match f.kind {
                Kind::EndStream { at, how } if !f.fired && f.seat == seat => {
                    Some((i as u32, at, how))
                }
                _ => None,
            })
    }

    /// The game's restarts, for a stream of the game to end at the next
    /// one (`None`: the game has no plan).
    pub fn restarts(&self, game_id: &str) -> Option<watch::Receiver<u64>> {
        Some(self.lock().get(game_id)?.restarts.subscribe())
    }

    /// Records that end-stream fault `index` fired at `point` (in words) on
    /// a stream of `seat` from `peer`, when the game's last seq and version
    /// were `at`; a restart takes the game "down" and ends its other streams.
    pub fn stream_fault_fired(
        &self,
        game_id: &str,
        (index, point): (u32, &str),
        seat: Seat,
        at: (u64, u64),
        how: StreamEnd,
        peer: &str,
    ) {
        let mut games = self.lock();
        let Some(a) = games.get_mut(game_id) else {
            return;
        };
        let s = seat.0;
        let words = match how {
            StreamEnd::Unavailable => {
                format!("ended the stream of seat {s} {point} with UNAVAILABLE")
            }
            StreamEnd::Clean => {
                format!("ended the stream of seat {s} {point} with OK (a clean end)")
            }
            StreamEnd::Reset => {
                format!(
                    "reset the connection ({peer}) of the stream of seat {s} {point}: no status"
                )
            }
            StreamEnd::Goaway => format!(
                "sent GOAWAY on the connection ({peer}) of the stream of seat {s} {point}, \
                 then ended the stream with UNAVAILABLE"
            ),
            StreamEnd::GoawayUnprocessed => format!(
                "sent GOAWAY on the connection ({peer}) of the stream of seat {s} {point} with \
                 a last stream id below every call open on it (reported not processed), \
                 then closed the connection"
            ),
            StreamEnd::Restart(down) => {
                a.down = Some((Instant::now() + down, index));
                a.restarts.send_modify(|n| *n += 1);
                format!(
                    "restarted the server {point} of the stream of seat {s}: every stream \
                     of the game ended with UNAVAILABLE, its calls refused for {} ms",
                    down.as_millis()
                )
            }
        };
        a.fired(index, seat, at, words);
    }
}

/// `d` rounded up to a whole ms (at least one), so that a client waiting
/// what it is told is never early, and a plan's whole delay is told as is.
fn rounded_up(d: Duration) -> Duration {
    let ms = d.as_nanos().div_ceil(1_000_000).max(1);
    Duration::from_millis(u64::try_from(ms).unwrap_or(u64::MAX))
}

/// The error of a refusing fault, with what is left of its delay.
fn refusal(exhausted: bool, retry_after: Duration) -> ServiceError {
    let retry_after = rounded_up(retry_after);
    match exhausted {
        true => ServiceError::RateLimited {
            what: "a fault of the game's test plan".into(),
            retry_after,
        },
        false => ServiceError::FaultUnavailable { retry_after },
    }
}
