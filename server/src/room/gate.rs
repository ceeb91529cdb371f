//! A duplicate match's dice gate, as one room sees it: where the game stands
//! in the match's shared sequence of draws, and the draws the arena releases
//! to it once every game of the match has reached them (docs/ratings.md,
//! "The dice promise"). Nothing here is stored: a released draw is the
//! seed's, and a game's log of actions says which draws it made, so a
//! restart rebuilds the same game and the arena's gate releases again what
//! it had released.

use super::Room;
use crate::error::ServiceError;
use crate::hosted_game::GatePosition;

impl Room {
    /// Where the game stands in its match's sequence of draws; `None` for a
    /// game without the gate.
    pub fn gate(&self) -> Option<GatePosition> {
        let state = self.lock();
        if state.abandoned.is_some() {
            return state.game.gate().map(|_| GatePosition::Over);
        }
        state.game.gate()
    }

    /// Refuses, with a retry (`WAITING_FOR_MATCH`), a stream from `from_seq`
    /// past the log's next event while the game waits at its gate: after a
    /// takeover, the rebuilt game makes again the seqs its clients saw once
    /// the arena releases its draws.
    pub fn waits_to_reach(&self, from_seq: u64) -> Result<(), ServiceError> {
        let waiting = matches!(self.gate(), Some(GatePosition::Waiting { .. }));
        if waiting && from_seq > self.last_seq().saturating_add(1) {
            return Err(ServiceError::WaitingForMatch(self.id.clone()));
        }
        Ok(())
    }

    /// Makes the draws below `upto` the game waits for; the pending
    /// decision's clock starts at `now_ms`. Whether anything was drawn.
    pub fn release_draws(&self, upto: u64, now_ms: u64) -> bool {
        let mut state = self.lock();
        if state.abandoned.is_some() || state.game.release_draws(upto).is_none() {
            return false;
        }
        state.after_change(now_ms);
        self.announce(&state);
        true
    }
}
