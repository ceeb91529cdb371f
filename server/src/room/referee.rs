//! What the referee does to a room: the turn clocks' and the autopilot's
//! decisions when they are due, and giving up idle games.

use super::Room;
use super::play::Act;
use crate::clock::Expiry;
use crate::error::ServiceError;
use crate::hosted_game::Choice;
use crate::store::{Games, Origin};

impl Room {
    /// Decides for every seat whose clock ran out (or who is on autopilot) at
    /// `now_ms`, until a decision is not due. Returns the actions taken.
    pub fn expire(&self, games: &dyn Games, now_ms: u64) -> Result<usize, ServiceError> {
        let mut state = self.lock();
        let mut taken = 0;
        if state.abandoned.is_some() {
            return Ok(0);
        }
        loop {
            let Some(clocks) = &state.clocks else {
                return Ok(taken);
            };
            let (seat, origin) = match clocks.due(now_ms) {
                Expiry::NotDue => break,
                Expiry::TimedOut(s) => (s, Origin::Timeout),
                Expiry::Autopilot(s) => (s, Origin::Autopilot),
            };
            let Some(action) = state.server_choice(origin) else {
                break;
            };
            let act = Act {
                seat,
                origin,
                choice: Choice::Action(action),
                key: None,
            };
            let result = self.play(&mut state, act, games, now_ms);
            if let Err(e) = result {
                self.announce(&state);
                return Err(e);
            }
            self.record_end(&state, games, now_ms);
            taken += 1;
        }
        if taken > 0 {
            self.announce(&state);
        }
        Ok(taken)
    }

    /// Gives the game up unfinished (rebuilding it, as stored).
    pub fn abandon_stored(&self, reason: String, ended_ms: u64) {
        let mut state = self.lock();
        state.abandon(reason, ended_ms);
        self.announce(&state);
    }

    /// Abandons the game if nothing happened for `idle_ms` (0: never).
    pub fn expire_idle(
        &self,
        games: &dyn Games,
        idle_ms: u64,
        now_ms: u64,
    ) -> Result<bool, ServiceError> {
        let mut state = self.lock();
        if idle_ms == 0
            || state.abandoned.is_some()
            || state.game.is_over()
            || now_ms.saturating_sub(state.last_activity_ms) < idle_ms
        {
            return Ok(false);
        }
        let reason = format!("no action for {} s", idle_ms / 1000);
        games.abandon(&self.id, &reason, now_ms)?;
        state.abandon(reason, now_ms);
        self.announce(&state);
        Ok(true)
    }
}
