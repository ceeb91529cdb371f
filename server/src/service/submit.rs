//! Making a submission in its room the way the store takes it (a queued
//! append awaited in a task of its own, or a blocking one off the async
//! workers), and a decision held for a duplicate match's other games first
//! ([`crate::room::Hold`]).

use std::sync::Arc;

use druids_contract::pb;
use druids_engine::Seat;
use tonic::Status;
use tracing::{Instrument, Span};

use crate::blocking::OffTheWorkers;
use crate::clock::Clock;
use crate::error::ServiceError;
use crate::room::{Answered, Hold, Room};
use crate::rooms::Rooms;
use crate::store::Games;
use crate::submission::Submission;

/// What a submission is made with.
pub(super) struct Making {
    pub(super) blocking: OffTheWorkers,
    pub(super) room: Arc<Room>,
    pub(super) games: Arc<dyn Games>,
    pub(super) rooms: Arc<Rooms>,
    pub(super) seat: Seat,
    pub(super) span: Span,
}

type Made = Result<Result<pb::SubmitActionResponse, ServiceError>, Status>;

/// Makes `submission` at `now`: a queued append is awaited here (call it
/// in a task of its own), a blocking one runs on the blocking pool.
pub(super) async fn make(making: Making, submission: Submission, now: u64) -> Made {
    let Making {
        blocking,
        room,
        games,
        rooms,
        seat,
        span,
    } = making;
    if games.queues_appends() {
        let answered = room
            .submit_queued(seat, &submission, games.as_ref(), now)
            .instrument(span)
            .await;
        return Ok(settle_queued(&blocking, room, games, rooms, answered, now).await);
    }
    blocking
        .run(move || {
            let _enter = span.enter();
            let reply = room.submit(seat, &submission, games.as_ref(), now);
            rooms.settle(&room);
            reply
        })
        .await
}

/// Makes a held submission once the other games of its match decided at
/// its position. Run it in a task of its own, so that it is made even if
/// its caller goes away: it was shown to no one, but the other games'
/// decisions may have been made on the strength of it.
pub(super) async fn make_held(
    making: Making,
    held: Hold,
    mut submission: Submission,
    clock: Arc<dyn Clock>,
) -> Made {
    // The one submission that may make the held decision.
    submission.hold = Some(held.ticket());
    let room = Arc::clone(&making.room);
    room.until_twins_decided(&held, || clock.now_ms()).await;
    let made = make(making, submission, clock.now_ms()).await;
    room.let_go(&held);
    made
}

/// After a queued write to `room`: the game's end recorded (off the async
/// workers) if the write ended it, the room settled; the answer.
pub(super) async fn settle_queued<T>(
    blocking: &OffTheWorkers,
    room: Arc<Room>,
    games: Arc<dyn Games>,
    rooms: Arc<Rooms>,
    answered: Result<Answered<T>, ServiceError>,
    now: u64,
) -> Result<T, ServiceError> {
    let answered = answered?;
    if answered.ended {
        let ended = Arc::clone(&room);
        // The end of the game is not fatal to record (see `Room::record_end`).
        let _ = blocking
            .run(move || ended.record_end_now(games.as_ref(), now))
            .await;
    }
    rooms.settle(&room);
    Ok(answered.reply)
}
