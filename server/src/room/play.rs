//! Actions played in a room, in one pass: the engine stages the move on a
//! copy ([`HostedGame::stage`](crate::hosted_game::HostedGame::stage)), the
//! room appends its one record to the store, then commits it. A failed
//! append leaves the game as it was. Every action takes this path: a seat's
//! submission, the turn clock's and the autopilot's decisions, a replay's
//! prefix; an action read back from the store is committed without storing.

use druids_contract::pb;
use druids_engine::Seat;

use super::{Room, RoomState};
use crate::error::{ServiceError, clip};
use crate::hosted_game::{Applied, ApplyError, Choice, GatePosition};
use crate::store::{ActionRecord, Games, Origin, SubmissionKey};
use crate::submission::{IdempotencyKey, Submission};

/// An action to play: whose, decided by whom, what, and the key of the
/// submission it answers, if any.
pub(super) struct Act {
    pub(super) seat: Seat,
    pub(super) origin: Origin,
    pub(super) choice: Choice,
    pub(super) key: Option<SubmissionKey>,
}

impl Room {
    /// Charges a submission of `seat` to the seat's budget of `per_second`
    /// (0: no limit) at `now_ms`.
    pub fn charge_submission(
        &self,
        seat: Seat,
        per_second: u32,
        now_ms: u64,
    ) -> Result<(), ServiceError> {
        if per_second == 0 {
            return Ok(());
        }
        self.lock().buckets[seat.index()]
            .take(per_second, 1, now_ms)
            .map_err(|retry_after| ServiceError::RateLimited {
                what: format!("{seat} may submit at most {per_second} actions per second"),
                retry_after,
            })
    }

    /// Plays a submission of `seat`: its first answer again if it is a
    /// retry, else the action, stored first.
    pub fn submit(
        &self,
        seat: Seat,
        submission: &Submission,
        games: &dyn Games,
        now_ms: u64,
    ) -> Result<pb::SubmitActionResponse, ServiceError> {
        let mut state = self.lock();
        if let Some(first) = self.first_answer(&state, seat, submission.key.as_ref(), now_ms)? {
            return Ok(first);
        }
        self.unless_held(&state, seat, submission.hold)?;
        // A decision the clock took answers DEADLINE_PASSED, also when the
        // default it applied ended the game (druids.proto's contract).
        let version = self.check_version(&state, seat, submission.expected_version);
        if let Err(late @ ServiceError::DeadlinePassed { .. }) = version {
            return Err(late);
        }
        self.still_played(&state)?;
        // A duplicate match's game at a die its other games have not
        // reached: no seat decides until the arena releases it.
        if matches!(state.game.gate(), Some(GatePosition::Waiting { .. })) {
            return Err(ServiceError::WaitingForMatch(self.id.clone()));
        }
        version?;
        let digests = submission.key.as_ref().map(|k| k.digests);
        let act = Act {
            seat,
            origin: Origin::Seat,
            choice: submission.choice.clone(),
            key: digests,
        };
        let applied = self.play(&mut state, act, games, now_ms)?;
        Ok(self.answer_applied(&mut state, seat, &applied, digests, games, now_ms))
    }

    /// After `seat`'s own act (a submission or a resignation) was applied:
    /// the game's end recorded if it ended, the answer kept under the
    /// request's key, the change announced; the answer.
    pub(super) fn answer_applied(
        &self,
        state: &mut RoomState,
        seat: Seat,
        applied: &Applied,
        digests: Option<SubmissionKey>,
        games: &dyn Games,
        now_ms: u64,
    ) -> pb::SubmitActionResponse {
        self.record_end(state, games, now_ms);
        let seqs = applied.first_seq..=applied.last_seq;
        let reply = state.answer(seat, seqs, applied.version, None);
        if let Some(key) = digests {
            let answered = state.answered(seat, key, applied);
            state.answered.insert(answered);
        }
        self.announce(state);
        reply
    }

    /// The first answer to the request keyed `key` of `seat`, if it is a
    /// retry; an error if the key was used for another request, or its
    /// answer is no longer kept.
    pub(super) fn first_answer(
        &self,
        state: &RoomState,
        seat: Seat,
        key: Option<&IdempotencyKey>,
        now_ms: u64,
    ) -> Result<Option<pb::SubmitActionResponse>, ServiceError> {
        let Some(key) = key else {
            return Ok(None);
        };
        if state.keys_until_ms.is_some_and(|until| now_ms >= until) {
            return Err(ServiceError::AnswerGone(self.id.clone()));
        }
        if let Some(first) = state.answered.get(seat, &key.digests.key) {
            return if first.request == key.digests.request {
                Ok(Some(state.answer_again(first)))
            } else {
                Err(ServiceError::KeyReused {
                    what: "idempotency key",
                    key: clip(&key.text),
                })
            };
        }
        if state.ended_ms.is_some() && !state.keys_kept {
            return Err(ServiceError::AnswerGone(self.id.clone()));
        }
        Ok(None)
    }

    /// Refuses a submission of `seat` made for another version than the
    /// game's: one the server decided for the seat after its deadline, or a
    /// stale one.
    pub(super) fn check_version(
        &self,
        state: &RoomState,
        seat: Seat,
        expected: u64,
    ) -> Result<(), ServiceError> {
        let current = state.game.version();
        if expected == current {
            return Ok(());
        }
        if state.decided_for.get(usize::from(seat.0)) == Some(&Some(expected)) {
            return Err(ServiceError::DeadlinePassed { expected, current });
        }
        Err(ServiceError::StaleVersion { expected, current })
    }

    /// Refuses a change to a game that is over or was given up.
    pub(super) fn still_played(&self, state: &RoomState) -> Result<(), ServiceError> {
        if state.game.is_over() {
            return Err(ServiceError::Finished(self.id.clone()));
        }
        if let Some(reason) = &state.abandoned {
            return Err(ServiceError::Abandoned(self.id.clone(), reason.clone()));
        }
        Ok(())
    }

    /// The one path of every live action: staged by the engine, its record
    /// appended to the store, then committed.
    pub(super) fn play(
        &self,
        state: &mut RoomState,
        act: Act,
        games: &dyn Games,
        now_ms: u64,
    ) -> Result<Applied, ServiceError> {
        let Act {
            seat,
            origin,
            choice,
            key,
        } = act;
        let prelude = state.prelude(seat, origin);
        let version = state.game.version() + 1;
        let staged = state
            .game
            .stage(seat, &choice, prelude)
            .map_err(|e| ServiceError::from_apply(&self.id, e))?;
        games.append_action(
            &self.id,
            &ActionRecord {
                version,
                seat,
                origin,
                action: staged.action().clone(),
                key,
                epoch: self.setup.epoch,
                at_ms: now_ms,
            },
        )?;
        let applied = staged.commit();
        Ok(state.acted(seat, origin, applied, now_ms))
    }

    /// Tells the store that the game just ended, if it did, so that it is not
    /// rebuilt at the next start. Not fatal: the action is stored, and a
    /// restart that rebuilds the game sees it over and tells the store then.
    pub(super) fn record_end(&self, state: &RoomState, games: &dyn Games, now_ms: u64) {
        if state.game.is_over()
            && let Err(e) = games.finish(
                &self.id,
                state.game.version(),
                &state.game.outcome().unwrap_or_default(),
                now_ms,
            )
        {
            tracing::warn!(game_id = %self.id, "cannot record the end of the game: {e}");
        }
    }

    /// Applies an action of the replay a game starts from (CreateGame with
    /// `start_from`), storing it like any action.
    pub fn apply_prefix(
        &self,
        action: pb::ReplayAction,
        games: &dyn Games,
        now_ms: u64,
    ) -> Result<(), ServiceError> {
        let mut state = self.lock();
        let act = Act {
            seat: Seat(action.seat as u8),
            origin: Origin::of_replay(&action),
            choice: Choice::Action(action.action.unwrap_or_default()),
            key: None,
        };
        let result = self.play(&mut state, act, games, now_ms);
        self.record_end(&state, games, now_ms);
        self.announce(&state);
        result.map(|_| ())
    }

    /// Replays a stored action (already durable: nothing is stored),
    /// remembering its idempotency key if the room keeps them.
    pub fn replay_stored(&self, record: ActionRecord, now_ms: u64) -> Result<(), ApplyError> {
        let mut state = self.lock();
        let (seat, origin) = (record.seat, record.origin);
        // A logged action was played after the draws before it: a gated
        // game had them released (see `gate`).
        state.game.release_draws(u64::MAX);
        let applied = if origin == Origin::Resigned {
            if !state.game.can_resign(seat) {
                return Err(ApplyError::Resigned);
            }
            state.game.resign(seat)
        } else {
            let prelude = state.prelude(seat, origin);
            state
                .game
                .apply(seat, &Choice::Action(record.action), prelude)?
        };
        let applied = state.acted(seat, origin, applied, now_ms);
        if state.keys_kept
            && let Some(key) = record.key
        {
            let mut answered = state.answered(seat, key, &applied);
            if record.at_ms == 0 {
                // Stored before actions were dated: the clock was replayed
                // from now, so the answer carries the pending deadline.
                answered.deadline_ms = None;
            }
            state.answered.insert(answered);
        }
        self.announce(&state);
        Ok(())
    }
}
