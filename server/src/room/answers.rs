//! Idempotent submissions: what each keyed submission did, kept in a few
//! dozen bytes (digests of the key and of the request, and where its events
//! lie in the log), and the first answer rebuilt from the log for a retry.

use druids_contract::pb;
use druids_engine::{Seat, Viewer};

use super::RoomState;
use crate::host::Applied;

/// The first 16 bytes of a SHA-256: an idempotency key, or what a submission
/// asked for, in a fixed small size (keys may be 128 bytes long).
pub(super) type Digest = [u8; 16];

pub(super) fn digest(bytes: &[u8]) -> Digest {
    use sha2::Digest as _;
    let full = sha2::Sha256::digest(bytes);
    full[..16].try_into().expect("a SHA-256 has 32 bytes")
}

/// What a submission asked for (its choice and expected version), to
/// recognise a retry with the same key.
pub(super) fn fingerprint(req: &pb::SubmitActionRequest) -> Digest {
    use prost::Message;
    let asked = pb::SubmitActionRequest {
        choice: req.choice.clone(),
        expected_version: req.expected_version,
        ..Default::default()
    };
    digest(&asked.encode_to_vec())
}

/// What a submission with an idempotency key did: enough to give a retry the
/// first answer again, rebuilt from the log (a few dozen bytes instead of the
/// answer itself).
#[derive(Clone, Debug)]
pub(super) struct Answered {
    pub(super) fingerprint: Digest,
    version: u64,
    first_seq: u64,
    last_seq: u64,
    /// The deadline the answer carried on its `DecisionNeeded`, if any.
    pub(super) deadline_ms: Option<u64>,
}

impl RoomState {
    /// What a keyed submission of `seat` that caused `applied` did, now.
    pub(super) fn answered(&self, fingerprint: Digest, applied: &Applied) -> Answered {
        let deadline_ms = self
            .clocks
            .as_ref()
            .and_then(|c| c.pending())
            .filter(|p| p.version == applied.version)
            .map(|p| p.deadline_ms);
        Answered {
            fingerprint,
            version: applied.version,
            first_seq: applied.first_seq,
            last_seq: applied.last_seq,
            deadline_ms,
        }
    }

    /// The answer to a submission of `seat`, read from the log: the events
    /// its action caused as the seat sees them, with the deadline they carried.
    pub(super) fn answer(&self, seat: Seat, a: &Answered) -> pb::SubmitActionResponse {
        let mut events = Vec::new();
        let n = (a.last_seq + 1 - a.first_seq) as usize;
        self.game
            .events(a.first_seq, n, Viewer::Seat(seat), &mut events);
        // Events the seat may not see were skipped, so the read may have run
        // past the action's own.
        events.retain(|e| e.seq <= a.last_seq);
        match a.deadline_ms {
            Some(deadline) => {
                for e in events.iter_mut().filter(|e| e.version == a.version) {
                    if let Some(pb::game_event::Body::DecisionNeeded(d)) = &mut e.body {
                        d.deadline_unix_ms = Some(deadline);
                    }
                }
            }
            None => self.stamp_deadlines(&mut events),
        }
        pb::SubmitActionResponse {
            version: a.version,
            events,
        }
    }
}
