//! The decision hold of a duplicate match (docs/ratings.md, "Copying across
//! a duplicate match"). The games of a match share their seed and are played
//! at the same time, each bot in every game: while two of them are the same
//! game so far (their twins), a bot could wait for its opponent's decision
//! in one and play it in the other, and the match would be a tie whatever
//! its strength. So a seat's decision at a position another game of its
//! match also stands at, undecided, is held: checked, not stored, not made,
//! its clock stopped, until that game's seat has decided too (or its clock
//! did). Nobody then sees a decision at a position before the decision at
//! the same position of every other game is made. Games that went different
//! ways hold nothing. Only the games of one node know their twins (the
//! arena's node registers them); a match spread over nodes after a takeover
//! plays on without the hold.

use std::sync::{Arc, Mutex, Weak};

use tokio::sync::Notify;

use super::{Room, RoomState};
use crate::error::ServiceError;
use crate::hosted_game::{GatePosition, position_after};
use crate::store::SubmissionKey;
use crate::submission::Submission;
use druids_engine::Seat;

/// A room's twins: the other games of its match, and what wakes the
/// decisions it holds.
pub(super) struct Twins {
    /// Named again when one was rebuilt (a room read back anew).
    rooms: Mutex<Vec<Weak<Room>>>,
    changed: Notify,
}

impl Twins {
    /// The twins still in memory.
    fn rooms(&self) -> Vec<Arc<Room>> {
        let rooms = self.rooms.lock().unwrap_or_else(|p| p.into_inner());
        rooms.iter().filter_map(Weak::upgrade).collect()
    }
}

/// A decision held for the twins (in [`RoomState`]).
#[derive(Clone, Copy, Debug)]
pub(super) struct Held {
    /// Whose.
    seat: Seat,
    /// The ticket of the submission that may make it.
    ticket: u64,
    /// The position once it is made.
    after: u64,
    /// When it was held: the clock does not run meanwhile.
    since_ms: u64,
    /// Its submission's key: a retry (the same key and request) waits for
    /// it too.
    key: Option<SubmissionKey>,
    /// Whether its clock was given back the time it was held.
    resumed: bool,
}

/// A held decision, as its submission keeps it until it is made.
#[derive(Clone, Copy, Debug)]
pub struct Hold {
    ticket: u64,
    before: u64,
}

impl Hold {
    /// The ticket its submission carries ([`Submission::hold`]).
    pub fn ticket(&self) -> u64 {
        self.ticket
    }
}

impl Room {
    /// Names the other games of this game's match (`rooms`, this one among
    /// them), as the arena holds them now.
    pub fn set_twins(&self, rooms: &[Arc<Room>]) {
        let named = || {
            rooms
                .iter()
                .filter(|r| r.id != self.id)
                .map(Arc::downgrade)
                .collect::<Vec<_>>()
        };
        let twins = self.twins.get_or_init(|| {
            Box::new(Twins {
                rooms: Mutex::new(named()),
                changed: Notify::new(),
            })
        });
        let mut known = twins.rooms.lock().unwrap_or_else(|p| p.into_inner());
        let same = |w: &Weak<Room>| rooms.iter().any(|r| w.as_ptr() == Arc::as_ptr(r));
        if !known.iter().all(same) || known.len() + 1 != rooms.len() {
            *known = named();
        }
    }

    /// Wakes the decisions the twins hold: this room changed.
    pub(super) fn tell_twins(&self) {
        if let Some(twins) = self.twins.get() {
            for twin in twins.rooms() {
                if let Some(theirs) = twin.twins.get() {
                    theirs.changed.notify_waiters();
                }
            }
        }
    }

    /// Holds `seat`'s `submission` if a twin stands at this position
    /// undecided: checks it as a submission would be (without storing or
    /// making it) and stops the seat's clock. `None` when nothing is held
    /// (no twin, or none at this position): the submission goes its usual
    /// way. A retry of the held submission (its key and request) waits with
    /// it; another submission of the held seat gets
    /// [`ServiceError::DecisionHeld`].
    pub fn hold(
        &self,
        seat: Seat,
        submission: &Submission,
        now_ms: u64,
    ) -> Result<Option<Hold>, ServiceError> {
        let Some(twins) = self.twins.get() else {
            return Ok(None);
        };
        // Checked twice: before looking at the twins (each under its own
        // lock, never two at once), and again once holding.
        let digests = submission.key.as_ref().map(|k| k.digests);
        let ready = |state: &RoomState| -> Result<Option<u64>, ServiceError> {
            match state.held {
                Some(held) if held.seat == seat => {
                    return Err(ServiceError::DecisionHeld(self.id.clone()));
                }
                // Another seat's decision is held: the usual way says this
                // one is not its seat's to make.
                Some(_) => return Ok(None),
                None => {}
            }
            let retry = self.first_answer(state, seat, submission.key.as_ref(), now_ms)?;
            if state.appending || retry.is_some() {
                // Being stored, or a retry: the usual way answers it.
                return Ok(None);
            }
            self.still_played(state)?;
            if state.game.to_act() != Some(seat) {
                return Ok(None);
            }
            self.check_version(state, seat, submission.expected_version)?;
            Ok(Some(state.game.position()))
        };
        {
            // A retry of the held submission (its client timed out) waits
            // for it as the first call does, and is answered as it was.
            let state = self.lock();
            if let Some(held) = state.held
                && held.seat == seat
                && digests.is_some()
                && held.key == digests
            {
                return Ok(Some(Hold {
                    ticket: held.ticket,
                    before: state.game.position(),
                }));
            }
        }
        let Some(before) = ready(&self.lock())? else {
            return Ok(None);
        };
        if !blocked(self, twins, before) {
            return Ok(None);
        }
        let mut state = self.lock();
        if ready(&state)? != Some(before) {
            return Ok(None);
        }
        let prelude = state.prelude(seat, crate::store::Origin::Seat);
        let after = {
            let staged = state
                .game
                .stage(seat, &submission.choice, prelude)
                .map_err(|e| ServiceError::from_apply(&self.id, e))?;
            position_after(before, seat, Some(staged.action()))
        };
        let ticket = HOLDS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        state.held = Some(Held {
            seat,
            ticket,
            after,
            since_ms: now_ms,
            key: digests,
            resumed: false,
        });
        drop(state);
        self.tell_twins();
        Ok(Some(Hold { ticket, before }))
    }

    /// Waits until no twin stands at `hold`'s position undecided; the held
    /// decision's clock then runs on as it was when held (`now_ms`: when it
    /// is let go). The hold stays until [`Room::let_go`].
    pub async fn until_twins_decided(&self, hold: &Hold, now_ms: impl Fn() -> u64) {
        let Some(twins) = self.twins.get() else {
            return;
        };
        loop {
            let mut changed = std::pin::pin!(twins.changed.notified());
            changed.as_mut().enable();
            // A game that ended meanwhile (another seat resigned, or it was
            // given up) makes its held decision at once, to be refused.
            if !self.is_live() || !blocked(self, twins, hold.before) {
                break;
            }
            // A twin's change wakes this; a second now and then covers a
            // twin that went away, and this game's own end.
            let _ = tokio::time::timeout(std::time::Duration::from_secs(1), changed).await;
        }
        let mut state = self.lock();
        let now = now_ms();
        let RoomState { held, clocks, .. } = &mut *state;
        if let Some(held) = held
            .as_mut()
            .filter(|h| h.ticket == hold.ticket && !h.resumed)
        {
            held.resumed = true;
            if let Some(clocks) = clocks.as_mut() {
                clocks.delay(now.saturating_sub(held.since_ms));
            }
        }
    }

    /// Ends `hold`, once its submission was made (or refused).
    pub fn let_go(&self, hold: &Hold) {
        let mut state = self.lock();
        if state.held.is_some_and(|h| h.ticket == hold.ticket) {
            state.held = None;
        }
        self.announce(&state);
    }

    /// Refuses, with a retry, a submission of `seat` while its decision is
    /// held, but `ticket`'s (the held one's own).
    pub(super) fn unless_held(
        &self,
        state: &RoomState,
        seat: Seat,
        ticket: Option<u64>,
    ) -> Result<(), ServiceError> {
        match state.held {
            Some(h) if h.seat == seat && Some(h.ticket) != ticket => {
                Err(ServiceError::DecisionHeld(self.id.clone()))
            }
            _ => Ok(()),
        }
    }

    /// Whether a seat's decision is held (no clock runs, no one else acts).
    pub(super) fn holds(state: &RoomState) -> bool {
        state.held.is_some()
    }

    /// The seat whose decision is held, if one is.
    pub(super) fn held_seat(state: &RoomState) -> Option<Seat> {
        state.held.map(|h| h.seat)
    }
}

/// Tickets of held decisions, unique in this process.
static HOLDS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);

/// Whether a twin of `room` stands at position `at` undecided: there and
/// no decision held, or one step behind with the decision held that brings
/// it there. Only a game of the same seed (so the same set-up and draws) is
/// at the same position after the same moves.
fn blocked(room: &Room, twins: &Twins, at: u64) -> bool {
    twins.rooms().into_iter().any(|twin| {
        if twin.setup.seed != room.setup.seed {
            return false;
        }
        let state = twin.lock();
        if state.abandoned.is_some()
            || state.game.is_over()
            || matches!(state.game.gate(), Some(GatePosition::Waiting { .. }))
        {
            return false;
        }
        match state.held {
            Some(held) => held.after == at,
            None => state.game.to_act().is_some() && state.game.position() == at,
        }
    })
}
