//! Whether a seat's event stream has reached the point of its end-stream
//! fault, asked of each event it is about to send and has sent. Points
//! keyed to decisions and actions are looked up in the game's log (through
//! its room), never counted per stream, so that they fire at the same event
//! on every run and after a resume.

use druids_contract::pb;
use druids_engine::Seat;

use super::plan::Point;
use crate::room::Room;

fn heartbeat(event: &pb::GameEvent) -> bool {
    matches!(event.body, Some(pb::game_event::Body::Heartbeat(_)))
}

impl Point {
    /// Where the stream ends before sending `event`, in the ledger's words,
    /// if it does.
    pub fn before_sending(self, event: &pb::GameEvent, room: &Room, seat: Seat) -> Option<String> {
        let Point::BeforeDecision(n) = self else {
            return None;
        };
        let due = room.decision_seq(seat, n)?;
        (!heartbeat(event) && event.seq >= due)
            .then(|| format!("before its DecisionNeeded #{n} (seq {due})"))
    }

    /// Where the stream ends after sending `event`, in the ledger's words,
    /// if it does.
    pub fn after_sending(self, event: &pb::GameEvent, room: &Room, seat: Seat) -> Option<String> {
        match self {
            Point::AfterSeq(after) => {
                (event.seq >= after).then(|| format!("after seq {}", event.seq))
            }
            Point::BeforeDecision(_) => None,
            Point::AfterSubmit(k) => {
                let version = room.own_action_version(seat, k)?;
                (!heartbeat(event) && event.version >= version).then(|| {
                    format!(
                        "after seq {}, the first event of its own action #{k} (version {version})",
                        event.seq
                    )
                })
            }
        }
    }
}
