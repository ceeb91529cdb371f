//! What the referee does to a room: the turn clocks' and the autopilot's
//! decisions when they are due, and giving up idle games.

use super::play::Act;
use super::{Room, RoomState};
use crate::clock::Expiry;
use crate::error::ServiceError;
use crate::hosted_game::{Choice, GatePosition};
use crate::store::{Games, Origin};

/// A decision of a room that is due: what the referee's pass sorts by.
/// Deadlines come before autopilots, each earliest first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Due {
    /// A seat's clock ran out at `deadline_ms`.
    Timeout {
        /// When it ran out.
        deadline_ms: u64,
    },
    /// A seat on autopilot was asked to decide at `asked_ms`.
    Autopilot {
        /// When it was asked.
        asked_ms: u64,
    },
}

impl Room {
    /// A test clock: as if `by_ms` more had passed on the pending decision
    /// ([`crate::clock::SeatClocks::advance`]). Returns the deadline now
    /// pending; the referee (or [`Room::expire_one`]) applies it when due.
    pub fn advance_clock(&self, by_ms: u64) -> Option<u64> {
        let mut state = self.lock();
        let clocks = state.clocks.as_mut()?;
        clocks.advance(by_ms);
        clocks.pending().map(|p| p.deadline_ms)
    }

    /// The decision due at `now_ms`, if one is.
    pub fn due(&self, now_ms: u64) -> Option<Due> {
        let state = self.lock();
        // A held decision stops the clock ([`super::twins`]).
        if state.abandoned.is_some() || Room::holds(&state) {
            return None;
        }
        let clocks = state.clocks.as_ref()?;
        let pending = clocks.pending()?;
        match clocks.due(now_ms) {
            Expiry::NotDue => None,
            Expiry::TimedOut(_) => Some(Due::Timeout {
                deadline_ms: pending.deadline_ms,
            }),
            Expiry::Autopilot(_) => Some(Due::Autopilot {
                asked_ms: pending.started_ms,
            }),
        }
    }

    /// Decides for the seat whose clock ran out (or who is on autopilot) at
    /// `now_ms`, once: the next decision waits for the referee's next pass.
    /// Returns whether an action was taken.
    pub fn expire_one(&self, games: &dyn Games, now_ms: u64) -> Result<bool, ServiceError> {
        let mut state = self.lock();
        // An action waiting for its commit may answer the clock: decide at
        // the next pass, on the game it made.
        if state.abandoned.is_some() || state.appending || Room::holds(&state) {
            return Ok(false);
        }
        let Some(clocks) = &state.clocks else {
            return Ok(false);
        };
        let (seat, origin) = match clocks.due(now_ms) {
            Expiry::NotDue => return Ok(false),
            Expiry::TimedOut(s) => (s, Origin::Timeout),
            Expiry::Autopilot(s) => (s, Origin::Autopilot),
        };
        let Some(action) = state.server_choice(origin, self.setup.seed) else {
            return Ok(false);
        };
        let act = Act {
            seat,
            origin,
            choice: Choice::Action(action),
            key: None,
        };
        let result = self.play(&mut state, act, games, now_ms);
        self.announce(&state);
        result?;
        self.record_end(&state, games, now_ms);
        Ok(true)
    }

    /// Gives the game up unfinished (rebuilding it, as stored).
    pub fn abandon_stored(&self, reason: String, ended_ms: u64) {
        let mut state = self.lock();
        state.abandon(reason, ended_ms);
        self.announce(&state);
    }

    /// When the game's idle time began (its last action, or its creation or
    /// takeover), if it can go idle at all: not when it is over or given
    /// up, or while an action is being stored. A decision on a turn clock
    /// is taken by the clock (then the autopilot), and a game waiting at its
    /// match's dice gate moves when the match's other games, on their
    /// clocks, reach the draw: neither is idle, and abandoning one would
    /// void a rated match for the seat that stalls.
    pub fn idle_since(&self) -> Option<u64> {
        idle_since(&self.lock())
    }

    /// Abandons the game if nothing happened for `idle_ms` (0: never).
    pub fn expire_idle(
        &self,
        games: &dyn Games,
        idle_ms: u64,
        now_ms: u64,
    ) -> Result<bool, ServiceError> {
        let mut state = self.lock();
        if idle_ms == 0 || idle_since(&state).is_none_or(|t| now_ms.saturating_sub(t) < idle_ms) {
            return Ok(false);
        }
        let reason = format!("no action for {} s", idle_ms / 1000);
        games.abandon(&self.id, &reason, now_ms)?;
        state.abandon(reason, now_ms);
        self.announce(&state);
        Ok(true)
    }
}

/// See [`Room::idle_since`].
fn idle_since(state: &RoomState) -> Option<u64> {
    let moving = state.appending
        || Room::holds(state)
        || state.abandoned.is_some()
        || state.game.is_over()
        || state.deadline_ms().is_some()
        || matches!(state.game.gate(), Some(GatePosition::Waiting { .. }));
    (!moving).then_some(state.last_activity_ms)
}
