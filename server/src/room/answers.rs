//! Idempotent submissions: what each keyed submission did, kept in a few
//! dozen bytes (the digest of what it asked, and where its events lie in
//! the log), and the first answer rebuilt from the log for a retry.

use druids_contract::pb;
use druids_engine::{Seat, Viewer};

use std::num::NonZeroU64;

use super::RoomState;
use crate::hosted_game::Applied;
use crate::store::SubmissionKey;

/// What the keyed submissions of a game did, in the order they were made:
/// a vector grown by a quarter at a time rather than a hash map (a game has
/// a few hundred submissions at most, and a hash map would hold twice their
/// size). A retry is usually of the last one, found first from the end.
#[derive(Debug, Default)]
pub(super) struct Answers(Vec<Answered>);

impl Answers {
    /// What the submission of `seat` with key digest `key` did, if any.
    pub(super) fn get(&self, seat: Seat, key: &[u8; 16]) -> Option<&Answered> {
        self.0
            .iter()
            .rev()
            .find(|a| a.seat == seat && a.key == *key)
    }

    /// Records what a keyed submission did.
    pub(super) fn insert(&mut self, answered: Answered) {
        if self.0.len() == self.0.capacity() {
            self.0.reserve_exact((self.0.len() / 4).max(4));
        }
        self.0.push(answered);
    }
}

/// What a submission with an idempotency key did: enough to give a retry the
/// first answer again, rebuilt from the log (56 bytes instead of the answer
/// itself). Versions and seqs fit in 32 bits: a log of 2^32 events would
/// not fit in memory.
#[derive(Clone, Debug)]
pub(super) struct Answered {
    seat: Seat,
    /// The digest of the key ([`crate::store::SubmissionKey::key`]).
    key: [u8; 16],
    /// The digest of what was asked ([`crate::store::SubmissionKey::request`]).
    pub(super) request: [u8; 16],
    version: u32,
    first_seq: u32,
    last_seq: u32,
    /// The deadline the answer carried on its `DecisionNeeded`, if any.
    pub(super) deadline_ms: Option<NonZeroU64>,
}

impl RoomState {
    /// What the submission of `seat` keyed `key` that caused `applied` did,
    /// now.
    pub(super) fn answered(&self, seat: Seat, key: SubmissionKey, applied: &Applied) -> Answered {
        let deadline_ms = self
            .clocks
            .as_ref()
            .and_then(|c| c.pending())
            .filter(|p| p.version == applied.version)
            .and_then(|p| NonZeroU64::new(p.deadline_ms));
        Answered {
            seat,
            key: key.key,
            request: key.request,
            version: applied.version as u32,
            first_seq: applied.first_seq as u32,
            last_seq: applied.last_seq as u32,
            deadline_ms,
        }
    }

    /// The first answer again, for a retry of `a`.
    pub(super) fn answer_again(&self, a: &Answered) -> pb::SubmitActionResponse {
        let seqs = u64::from(a.first_seq)..=u64::from(a.last_seq);
        let deadline = a.deadline_ms.map(NonZeroU64::get);
        self.answer(a.seat, seqs, u64::from(a.version), deadline)
    }

    /// The answer to a submission of `seat` whose action caused the events
    /// `seqs` and made `version`, read from the log as the seat sees them,
    /// with the deadline they carried (`None`: the pending one's).
    pub(super) fn answer(
        &self,
        seat: Seat,
        seqs: std::ops::RangeInclusive<u64>,
        version: u64,
        deadline: Option<u64>,
    ) -> pb::SubmitActionResponse {
        let (first, last) = seqs.into_inner();
        let mut events = Vec::new();
        self.game.events(
            first,
            (last + 1 - first) as usize,
            Viewer::Seat(seat),
            &mut events,
        );
        // Events the seat may not see were skipped, so the read may have run
        // past the action's own.
        events.retain(|e| e.seq <= last);
        match deadline {
            Some(deadline) => {
                for e in events.iter_mut().filter(|e| e.version == version) {
                    if let Some(pb::game_event::Body::DecisionNeeded(d)) = &mut e.body {
                        d.deadline_unix_ms = Some(deadline);
                    }
                }
            }
            None => self.stamp_deadlines(&mut events),
        }
        pb::SubmitActionResponse { version, events }
    }
}
