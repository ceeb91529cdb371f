//! Turn clocks: every decision runs on the clock of the seat that must take it.
//!
//! [`SeatClocks`] is the bookkeeping of one game (the pending deadline, each
//! seat's time bank, consecutive timeouts, autopilot); it is pure and takes the
//! time as an argument. Time comes from a [`Clock`], so tests drive it by hand
//! ([`ManualClock`]) instead of sleeping.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use druids_contract::pb;
use druids_engine::Seat;

/// A source of wall-clock time in milliseconds since the Unix epoch.
pub trait Clock: Send + Sync + 'static {
    /// Now.
    fn now_ms(&self) -> u64;
}

/// The system clock.
#[derive(Clone, Copy, Debug, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now_ms(&self) -> u64 {
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_millis() as u64)
            .unwrap_or(0)
    }
}

/// A clock that moves only when told to (tests).
#[derive(Debug, Default)]
pub struct ManualClock(AtomicU64);

impl ManualClock {
    /// A clock showing `ms`.
    pub fn at(ms: u64) -> ManualClock {
        ManualClock(AtomicU64::new(ms))
    }

    /// Moves the clock forward.
    pub fn advance(&self, ms: u64) {
        self.0.fetch_add(ms, Ordering::SeqCst);
    }
}

impl Clock for ManualClock {
    fn now_ms(&self) -> u64 {
        self.0.load(Ordering::SeqCst)
    }
}

/// The clock settings of a game (from its options).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ClockRules {
    /// Milliseconds per decision.
    pub decision_ms: u64,
    /// Reserve per seat.
    pub time_bank_ms: u64,
    /// Consecutive timeouts before autopilot (0: never).
    pub autopilot_after: u32,
}

impl ClockRules {
    /// The rules of `options`, `None` for a game without a clock.
    pub fn of(options: &pb::GameOptions) -> Option<ClockRules> {
        let decision_ms = options.decision_ms.unwrap_or(0) as u64;
        (decision_ms > 0).then(|| ClockRules {
            decision_ms,
            time_bank_ms: options.time_bank_ms.unwrap_or(0) as u64,
            autopilot_after: options.autopilot_after.unwrap_or(0),
        })
    }
}

/// The decision the clock is running for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pending {
    /// Who must decide.
    pub seat: Seat,
    /// The version the decision belongs to.
    pub version: u64,
    /// When it was asked.
    pub started_ms: u64,
    /// When it runs out (per-decision time plus the seat's bank).
    pub deadline_ms: u64,
}

/// What the clock decided when a deadline was examined.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Expiry {
    /// Nothing is due.
    NotDue,
    /// The seat ran out of time: apply its default action.
    TimedOut(Seat),
    /// The seat is on autopilot: decide for it now.
    Autopilot(Seat),
}

/// One game's clocks.
#[derive(Clone, Debug)]
pub struct SeatClocks {
    rules: ClockRules,
    bank_ms: Vec<u64>,
    consecutive: Vec<u32>,
    autopilot: Vec<bool>,
    pending: Option<Pending>,
}

impl SeatClocks {
    /// Fresh clocks for `players` seats.
    pub fn new(rules: ClockRules, players: usize) -> SeatClocks {
        SeatClocks {
            rules,
            bank_ms: vec![rules.time_bank_ms; players],
            consecutive: vec![0; players],
            autopilot: vec![false; players],
            pending: None,
        }
    }

    /// The decision being timed.
    pub fn pending(&self) -> Option<Pending> {
        self.pending
    }

    /// Seats on autopilot.
    pub fn autopilot_seats(&self) -> impl Iterator<Item = Seat> + '_ {
        self.autopilot
            .iter()
            .enumerate()
            .filter(|(_, on)| **on)
            .map(|(i, _)| Seat(i as u8))
    }

    /// Starts the clock for the decision of `seat` at `version` (or stops it
    /// when nobody must decide). A decision already being timed keeps its start.
    pub fn ask(&mut self, next: Option<(Seat, u64)>, now_ms: u64) {
        self.pending = next.map(|(seat, version)| match self.pending {
            Some(p) if p.seat == seat && p.version == version => p,
            _ => Pending {
                seat,
                version,
                started_ms: now_ms,
                deadline_ms: now_ms + self.rules.decision_ms + self.bank_ms[seat.index()],
            },
        });
    }

    /// Restarts the pending decision's clock from `now_ms` (after a restart of
    /// the server: time while it was down is not charged).
    pub fn restart(&mut self, now_ms: u64) {
        if let Some(p) = self.pending.take() {
            self.ask(Some((p.seat, p.version)), now_ms);
        }
    }

    /// As if `by_ms` more had passed on the pending decision (a test
    /// clock): its start and deadline come that much earlier.
    pub fn advance(&mut self, by_ms: u64) {
        if let Some(p) = &mut self.pending {
            p.started_ms = p.started_ms.saturating_sub(by_ms);
            p.deadline_ms = p.deadline_ms.saturating_sub(by_ms);
        }
    }

    /// As if `by_ms` less had passed on the pending decision (a decision
    /// held for a duplicate match's other games): its start and deadline
    /// come that much later.
    pub fn delay(&mut self, by_ms: u64) {
        if let Some(p) = &mut self.pending {
            p.started_ms = p.started_ms.saturating_add(by_ms);
            p.deadline_ms = p.deadline_ms.saturating_add(by_ms);
        }
    }

    /// What is due at `now_ms`.
    pub fn due(&self, now_ms: u64) -> Expiry {
        match self.pending {
            Some(p) if self.autopilot[p.seat.index()] => Expiry::Autopilot(p.seat),
            Some(p) if now_ms >= p.deadline_ms => Expiry::TimedOut(p.seat),
            _ => Expiry::NotDue,
        }
    }

    /// The seat answered in time: charge its bank for any overrun, reset its
    /// timeout count. Returns true when this takes it off autopilot.
    pub fn answered(&mut self, seat: Seat, now_ms: u64) -> bool {
        if let Some(p) = self.pending.filter(|p| p.seat == seat) {
            let used = now_ms.saturating_sub(p.started_ms);
            let over = used.saturating_sub(self.rules.decision_ms);
            let bank = &mut self.bank_ms[seat.index()];
            *bank = bank.saturating_sub(over);
        }
        self.consecutive[seat.index()] = 0;
        std::mem::replace(&mut self.autopilot[seat.index()], false)
    }

    /// Whether a timeout of `seat` now would put it on autopilot.
    pub fn timeout_starts_autopilot(&self, seat: Seat) -> bool {
        let i = seat.index();
        let limit = self.rules.autopilot_after;
        limit > 0 && self.consecutive[i] + 1 >= limit && !self.autopilot[i]
    }

    /// The seat ran out of time: its bank is spent. Returns true when this puts
    /// it on autopilot.
    pub fn timed_out(&mut self, seat: Seat) -> bool {
        let starts = self.timeout_starts_autopilot(seat);
        let i = seat.index();
        self.bank_ms[i] = 0;
        self.consecutive[i] += 1;
        if starts {
            self.autopilot[i] = true;
        }
        starts
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const RULES: ClockRules = ClockRules {
        decision_ms: 1000,
        time_bank_ms: 500,
        autopilot_after: 2,
    };

    #[test]
    fn a_decision_is_due_at_its_deadline_and_not_before() {
        let mut c = SeatClocks::new(RULES, 2);
        c.ask(Some((Seat(1), 4)), 10_000);
        assert_eq!(c.pending().unwrap().deadline_ms, 11_500);
        assert_eq!(c.due(11_499), Expiry::NotDue);
        assert_eq!(c.due(11_500), Expiry::TimedOut(Seat(1)));
    }

    #[test]
    fn overruns_draw_on_the_bank() {
        let mut c = SeatClocks::new(RULES, 2);
        c.ask(Some((Seat(0), 0)), 0);
        assert!(!c.answered(Seat(0), 1_300));
        c.ask(Some((Seat(0), 1)), 2_000);
        assert_eq!(c.pending().unwrap().deadline_ms, 2_000 + 1_000 + 200);
    }

    #[test]
    fn consecutive_timeouts_switch_to_autopilot_until_the_owner_answers() {
        let mut c = SeatClocks::new(RULES, 2);
        assert!(!c.timed_out(Seat(0)));
        assert!(c.timed_out(Seat(0)));
        c.ask(Some((Seat(0), 7)), 0);
        assert_eq!(c.due(0), Expiry::Autopilot(Seat(0)));
        assert_eq!(c.autopilot_seats().collect::<Vec<_>>(), [Seat(0)]);
        assert!(c.answered(Seat(0), 0));
        assert_eq!(c.due(0), Expiry::NotDue);
    }

    #[test]
    fn asking_again_for_the_same_decision_keeps_its_start() {
        let mut c = SeatClocks::new(RULES, 2);
        c.ask(Some((Seat(1), 3)), 100);
        c.ask(Some((Seat(1), 3)), 900);
        assert_eq!(c.pending().unwrap().started_ms, 100);
        c.restart(5_000);
        assert_eq!(c.pending().unwrap().started_ms, 5_000);
    }
}
