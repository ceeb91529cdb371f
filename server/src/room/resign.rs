//! A seat giving up ([`Room::resign`]): checked, stored like an action (a
//! record of its own, whose key is kept as a submission's), then made. The
//! game ends with it.

use druids_contract::pb;
use druids_engine::Seat;

use super::{Room, RoomState};
use crate::error::ServiceError;
use crate::store::{ActionRecord, Games, Origin};
use crate::submission::{IdempotencyKey, Resignation};

impl Room {
    /// `seat` resigns: its first answer again if this is a retry; else the
    /// resignation, stored first, which ends the game.
    pub fn resign(
        &self,
        seat: Seat,
        resignation: &Resignation,
        games: &dyn Games,
        now_ms: u64,
    ) -> Result<pb::ResignResponse, ServiceError> {
        let mut state = self.lock();
        let key = resignation.key.as_ref();
        if let Some(first) = self.first_resign_answer(&state, seat, key, now_ms)? {
            return Ok(resigned(first));
        }
        // Its decision is held for the match's other games: it stands.
        if Room::held_seat(&state) == Some(seat) {
            return Err(ServiceError::DecisionHeld(self.id.clone()));
        }
        self.still_played(&state)?;
        if !state.game.can_resign(seat) {
            return Err(ServiceError::NotStarted(self.id.clone()));
        }
        let digests = key.map(|k| k.digests);
        games.append_action(
            &self.id,
            &ActionRecord {
                version: state.game.version() + 1,
                seat,
                origin: Origin::Resigned,
                action: pb::Action::default(),
                key: digests,
                epoch: self.setup.epoch,
                at_ms: now_ms,
            },
        )?;
        let applied = state.game.resign(seat);
        let applied = state.acted(seat, Origin::Resigned, applied, now_ms);
        let reply = self.answer_applied(&mut state, seat, &applied, digests, games, now_ms);
        Ok(resigned(reply))
    }
}

impl Room {
    /// The first answer to a resignation keyed `key` if it is a retry, as
    /// [`Room::first_answer`] says; but once answers are no longer kept, a
    /// game over that `seat` did not resign holds no resignation of it to
    /// answer again: the game is over (`GAME_OVER`), whatever the key.
    pub(super) fn first_resign_answer(
        &self,
        state: &RoomState,
        seat: Seat,
        key: Option<&IdempotencyKey>,
        now_ms: u64,
    ) -> Result<Option<pb::SubmitActionResponse>, ServiceError> {
        match self.first_answer(state, seat, key, now_ms) {
            Err(ServiceError::AnswerGone(_)) if over_unresigned(&state.game.outcome(), seat) => {
                Err(ServiceError::Finished(self.id.clone()))
            }
            first => first,
        }
    }
}

/// A resignation's answer: what a submission's would be.
pub(super) fn resigned(answer: pb::SubmitActionResponse) -> pb::ResignResponse {
    pb::ResignResponse {
        version: answer.version,
        events: answer.events,
    }
}

/// Whether the game ended (`outcome`) without `seat` resigning it.
fn over_unresigned(outcome: &Option<pb::Outcome>, seat: Seat) -> bool {
    outcome
        .as_ref()
        .is_some_and(|o| !o.resigned.contains(&u32::from(seat.0)))
}
