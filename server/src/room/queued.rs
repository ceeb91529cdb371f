//! Actions stored through a store that queues its appends
//! ([`Games::append_later`]): the room decides and stages an action under its
//! lock, queues the action's record and awaits the commit without the lock,
//! so that no thread waits on the disk. Once committed, the action is made
//! (staged again on the game, which nothing changed meanwhile) and answered;
//! a failed commit makes nothing, and no reader ever saw the action. While an
//! action waits for its commit, the room's other writers wait for it
//! (submissions and resignations, which then decide on the new version) or
//! leave their decision to a later pass (the referee, the idle check), so a
//! game's actions are stored in the order they are made.

use std::pin::pin;

use druids_contract::pb;
use druids_engine::Seat;

use super::play::Act;
use super::{Room, RoomState};
use crate::error::ServiceError;
use crate::hosted_game::Applied;
use crate::store::{ActionRecord, Games, Origin, StoreError, SubmissionKey};
use crate::submission::{Resignation, Submission};

/// What a writer decided under the lock.
enum Turn {
    /// The first answer to a retried request.
    Again(pb::SubmitActionResponse),
    /// A move to store, then make.
    Store(Move),
}

/// A move of a seat: an action or its resignation.
enum Move {
    Act(Act),
    Resign {
        seat: Seat,
        key: Option<SubmissionKey>,
    },
}

impl Move {
    fn seat_and_key(&self) -> (Seat, Option<SubmissionKey>) {
        match self {
            Move::Act(act) => (act.seat, act.key),
            Move::Resign { seat, key } => (*seat, *key),
        }
    }
}

/// A queued write's answer, and whether it ended the game (the caller then
/// records the end, off the async workers: [`Room::record_end_now`]).
pub struct Answered<T> {
    /// The answer.
    pub reply: T,
    /// True if this write ended the game.
    pub ended: bool,
}

impl Room {
    /// [`Room::submit`] through a store that queues its appends.
    pub async fn submit_queued(
        &self,
        seat: Seat,
        submission: &Submission,
        games: &dyn Games,
        now_ms: u64,
    ) -> Result<Answered<pb::SubmitActionResponse>, ServiceError> {
        self.write_queued(games, now_ms, |state| {
            let key = submission.key.as_ref();
            if let Some(first) = self.first_answer(state, seat, key, now_ms)? {
                return Ok(Turn::Again(first));
            }
            self.unless_held(state, seat, submission.hold)?;
            self.still_played(state)?;
            self.check_version(state, seat, submission.expected_version)?;
            Ok(Turn::Store(Move::Act(Act {
                seat,
                origin: Origin::Seat,
                choice: submission.choice.clone(),
                key: key.map(|k| k.digests),
            })))
        })
        .await
    }

    /// [`Room::resign`] through a store that queues its appends.
    pub async fn resign_queued(
        &self,
        seat: Seat,
        resignation: &Resignation,
        games: &dyn Games,
        now_ms: u64,
    ) -> Result<Answered<pb::ResignResponse>, ServiceError> {
        let answered = self
            .write_queued(games, now_ms, |state| {
                let key = resignation.key.as_ref();
                if let Some(first) = self.first_resign_answer(state, seat, key, now_ms)? {
                    return Ok(Turn::Again(first));
                }
                if Room::held_seat(state) == Some(seat) {
                    return Err(ServiceError::DecisionHeld(self.id.clone()));
                }
                self.still_played(state)?;
                if !state.game.can_resign(seat) {
                    return Err(ServiceError::NotStarted(self.id.clone()));
                }
                Ok(Turn::Store(Move::Resign {
                    seat,
                    key: key.map(|k| k.digests),
                }))
            })
            .await?;
        Ok(Answered {
            reply: super::resign::resigned(answered.reply),
            ended: answered.ended,
        })
    }

    /// Records the end of the game if it is over (blocks on the store).
    pub fn record_end_now(&self, games: &dyn Games, now_ms: u64) {
        let state = self.lock();
        self.record_end(&state, games, now_ms);
    }

    /// One write: `decide` (under the lock, once no other action of the room
    /// waits for its commit) answers a retry or names the move; the move's
    /// record is queued, its commit awaited without the lock, then the move
    /// is made and answered.
    async fn write_queued(
        &self,
        games: &dyn Games,
        now_ms: u64,
        mut decide: impl FnMut(&mut RoomState) -> Result<Turn, ServiceError>,
    ) -> Result<Answered<pb::SubmitActionResponse>, ServiceError> {
        let (stored, queued) = loop {
            let mut waiting = pin!(self.changed.notified());
            {
                let mut state = self.lock();
                if !state.appending {
                    let queued = match decide(&mut state)? {
                        Turn::Again(first) => {
                            return Ok(Answered {
                                reply: first,
                                ended: false,
                            });
                        }
                        Turn::Store(queued) => queued,
                    };
                    let record = self.record_of(&mut state, &queued, now_ms)?;
                    let stored = games
                        .append_later(&self.id, &record)
                        .ok_or_else(not_queued)?;
                    state.appending = true;
                    break (stored, queued);
                }
                // Registered before the lock is let go: the end of the
                // waiting action is not missed.
                waiting.as_mut().enable();
            }
            waiting.await;
        };
        let stored = stored.await;
        let mut state = self.lock();
        state.appending = false;
        let applied = match stored
            .map_err(ServiceError::from)
            .and_then(|()| self.make(&mut state, &queued, now_ms))
        {
            Ok(applied) => applied,
            Err(e) => {
                // Nothing was made: the writers waiting decide on the old game.
                self.announce(&state);
                return Err(e);
            }
        };
        let (seat, key) = queued.seat_and_key();
        let seqs = applied.first_seq..=applied.last_seq;
        let reply = state.answer(seat, seqs, applied.version, None);
        if let Some(key) = key {
            let answered = state.answered(seat, key, &applied);
            state.answered.insert(answered);
        }
        self.announce(&state);
        Ok(Answered {
            reply,
            ended: state.game.is_over(),
        })
    }

    /// The record of `queued`, the next version of the game (staged to see
    /// that it is legal and how it is encoded, then dropped).
    fn record_of(
        &self,
        state: &mut RoomState,
        queued: &Move,
        now_ms: u64,
    ) -> Result<ActionRecord, ServiceError> {
        let version = state.game.version() + 1;
        let (seat, origin, action, key) = match queued {
            Move::Act(act) => {
                let prelude = state.prelude(act.seat, act.origin);
                let staged = state
                    .game
                    .stage(act.seat, &act.choice, prelude)
                    .map_err(|e| ServiceError::from_apply(&self.id, e))?;
                (act.seat, act.origin, staged.action().clone(), act.key)
            }
            Move::Resign { seat, key } => (*seat, Origin::Resigned, pb::Action::default(), *key),
        };
        Ok(ActionRecord {
            version,
            seat,
            origin,
            action,
            key,
            epoch: self.setup.epoch,
            at_ms: now_ms,
        })
    }

    /// Makes `queued`, whose record is committed, on the game.
    fn make(
        &self,
        state: &mut RoomState,
        queued: &Move,
        now_ms: u64,
    ) -> Result<Applied, ServiceError> {
        let applied = match queued {
            Move::Act(act) => {
                let prelude = state.prelude(act.seat, act.origin);
                state
                    .game
                    .stage(act.seat, &act.choice, prelude)
                    .map_err(|e| ServiceError::from_apply(&self.id, e))?
                    .commit()
            }
            Move::Resign { seat, .. } => state.game.resign(*seat),
        };
        let (seat, origin) = match queued {
            Move::Act(act) => (act.seat, act.origin),
            Move::Resign { seat, .. } => (*seat, Origin::Resigned),
        };
        Ok(state.acted(seat, origin, applied, now_ms))
    }
}

/// The error of a queued write on a store that does not queue its appends
/// (the service sends those writes the blocking way).
fn not_queued() -> ServiceError {
    ServiceError::Storage(StoreError::Database {
        op: "storing an action",
        source: std::sync::Arc::new(std::io::Error::other(
            "this store does not queue its appends",
        )),
    })
}
