//! Heartbeats on event streams: a stream on which nothing was sent for an
//! interval sends a `GameEvent.heartbeat`, so a client tells a quiet game
//! from a server (or a way to it) that is gone without a watchdog of its own
//! guessing how quiet a game may be.
//!
//! A heartbeat is not an event of the log: it repeats the seq and version of
//! the last event the stream sent, so a client that skips seqs it has seen
//! (the contract's resume rule) skips it, and resuming after one is
//! unchanged.

use std::time::Duration;

use druids_contract::pb;
use futures_util::StreamExt;
use tokio_stream::Stream;
use tonic::Status;

/// `events`, with a heartbeat whenever nothing was yielded for `every`.
/// `from_seq` is the stream's request: before its first event a heartbeat
/// repeats `from_seq - 1`, the last seq the client says it has seen.
pub fn with_heartbeats<S>(
    events: S,
    every: Duration,
    from_seq: u64,
) -> impl Stream<Item = Result<pb::GameEvent, Status>> + Send + 'static
where
    S: Stream<Item = Result<pb::GameEvent, Status>> + Send + Unpin + 'static,
{
    let beating = Beating {
        events,
        seq: from_seq.saturating_sub(1),
        version: 0,
        ended: false,
    };
    futures_util::stream::unfold(beating, move |mut b| async move {
        if b.ended {
            return None;
        }
        // `next()` may be dropped on a timeout: the stream keeps its own
        // progress, so the next call takes up where this one stopped.
        let item = match tokio::time::timeout(every, b.events.next()).await {
            Err(_quiet) => Ok(heartbeat(b.seq, b.version)),
            Ok(None) => return None,
            Ok(Some(Ok(event))) => {
                b.seq = b.seq.max(event.seq);
                b.version = b.version.max(event.version);
                Ok(event)
            }
            Ok(Some(Err(status))) => {
                b.ended = true;
                Err(status)
            }
        };
        Some((item, b))
    })
}

/// A heartbeat after the event numbered `seq` at `version`.
pub fn heartbeat(seq: u64, version: u64) -> pb::GameEvent {
    pb::GameEvent {
        seq,
        version,
        description: "heartbeat".into(),
        body: Some(pb::game_event::Body::Heartbeat(pb::Heartbeat {})),
    }
}

/// A stream's state between two of its items.
struct Beating<S> {
    events: S,
    /// The seq and version of the last event sent (or what the request says
    /// the client has seen).
    seq: u64,
    version: u64,
    /// The stream yielded its last error.
    ended: bool,
}
