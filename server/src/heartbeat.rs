//! Heartbeats on event streams: a stream on which nothing was sent for an
//! interval (`--stream-heartbeat-ms`) sends a heartbeat (`GameEvent`,
//! `SeekEvent`, `BotEvent` and `TournamentEvent` each have one), so a client
//! tells a quiet stream from a server (or a way to it) that is gone without a
//! watchdog of its own guessing how quiet a game or an arena may be.
//!
//! A heartbeat is not an event of the log: it repeats the seq (and a game's
//! version) of the last event the stream sent, so a client that skips seqs
//! it has seen (the contract's resume rule) skips it, and resuming after one
//! is unchanged.

use std::time::Duration;

use druids_contract::pb;
use futures_util::StreamExt;
use tokio_stream::Stream;
use tonic::Status;

use crate::clock::{Clock, SystemClock};

/// An event of a stream that sends heartbeats.
pub trait Beat: Send + 'static {
    /// What a heartbeat repeats of the last event sent.
    type Mark: Copy + Send + 'static;

    /// `mark` once this event was sent.
    fn advance(&self, mark: Self::Mark) -> Self::Mark;

    /// A heartbeat repeating `mark`.
    fn heartbeat(mark: Self::Mark) -> Self;
}

/// The mark of a stream that has sent nothing yet: the last seq the client
/// says it has seen, `from_seq - 1` (0 for from_seq 0 or 1).
pub fn before(from_seq: u64) -> u64 {
    from_seq.saturating_sub(1)
}

impl Beat for pb::GameEvent {
    /// Seq and version.
    type Mark = (u64, u64);

    fn advance(&self, (seq, version): (u64, u64)) -> (u64, u64) {
        (seq.max(self.seq), version.max(self.version))
    }

    fn heartbeat((seq, version): (u64, u64)) -> pb::GameEvent {
        pb::GameEvent {
            seq,
            version,
            description: "heartbeat".into(),
            body: Some(pb::game_event::Body::Heartbeat(pb::Heartbeat {})),
        }
    }
}

impl Beat for pb::BotEvent {
    type Mark = u64;

    fn advance(&self, seq: u64) -> u64 {
        seq.max(self.seq)
    }

    fn heartbeat(seq: u64) -> pb::BotEvent {
        pb::BotEvent {
            seq,
            at_unix_ms: SystemClock.now_ms(),
            event: Some(pb::bot_event::Event::Heartbeat(pb::Heartbeat {})),
        }
    }
}

impl Beat for pb::TournamentEvent {
    type Mark = u64;

    fn advance(&self, seq: u64) -> u64 {
        seq.max(self.seq)
    }

    fn heartbeat(seq: u64) -> pb::TournamentEvent {
        pb::TournamentEvent {
            seq,
            at_unix_ms: SystemClock.now_ms(),
            event: Some(pb::tournament_event::Event::Heartbeat(pb::Heartbeat {})),
        }
    }
}

impl Beat for pb::SeekEvent {
    /// A seek's events have no seq.
    type Mark = ();

    fn advance(&self, (): ()) {}

    fn heartbeat((): ()) -> pb::SeekEvent {
        pb::SeekEvent {
            event: Some(pb::seek_event::Event::Heartbeat(pb::Heartbeat {})),
        }
    }
}

/// `events`, with a heartbeat whenever nothing was yielded for `every`.
/// `mark` is what a heartbeat before the first event repeats (for a stream
/// with seqs, [`before`] the request's from_seq).
pub fn with_heartbeats<E, S>(
    events: S,
    every: Duration,
    mark: E::Mark,
) -> impl Stream<Item = Result<E, Status>> + Send + 'static
where
    E: Beat,
    S: Stream<Item = Result<E, Status>> + Send + Unpin + 'static,
{
    let beating = Beating {
        events,
        mark,
        ended: false,
    };
    futures_util::stream::unfold(beating, move |mut b| async move {
        if b.ended {
            return None;
        }
        // `next()` may be dropped on a timeout: the stream keeps its own
        // progress, so the next call takes up where this one stopped.
        let item = match tokio::time::timeout(every, b.events.next()).await {
            Err(_quiet) => Ok(E::heartbeat(b.mark)),
            Ok(None) => return None,
            Ok(Some(Ok(event))) => {
                b.mark = event.advance(b.mark);
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

/// A stream's state between two of its items.
struct Beating<S, M> {
    events: S,
    /// What the last event sent (or the request) says the client has seen.
    mark: M,
    /// The stream yielded its last error.
    ended: bool,
}
