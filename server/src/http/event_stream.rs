//! The contract's event logs as streaming HTTP bodies: Server-Sent Events
//! (`Accept: text/event-stream`, with ids so `Last-Event-ID` resumes) or
//! newline-delimited JSON, with keep-alives, for the game service's and the
//! arena's streams alike.

use std::convert::Infallible;
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::http::{HeaderMap, header};
use axum::response::{IntoResponse, Response};
use druids_contract::json::to_json;
use druids_contract::pb;
use tokio::sync::mpsc;
use tokio_stream::StreamExt;
use tonic::Status;

use super::ApiError;

/// The seq to stream from: after `Last-Event-ID` if sent, else `from_seq` of
/// the query (default 0: a snapshot first).
pub(super) fn from_seq(query: Option<&str>, headers: &HeaderMap) -> Result<u64, ApiError> {
    let bad = |what: &str| ApiError::bad_json(format!("{what} is not a sequence number"));
    let [from_seq] = super::query::read(query, [("from_seq", "fromSeq")])?;
    if let Some(last) = headers.get("last-event-id") {
        // Any seq the server gave out; the seq after the largest u64 is none.
        return last
            .to_str()
            .ok()
            .and_then(|v| v.trim().parse::<u64>().ok())
            .and_then(|last| last.checked_add(1))
            .ok_or_else(|| bad("Last-Event-ID"));
    }
    from_seq.map_or(Ok(0), |v| v.parse().map_err(|_| bad("from_seq")))
}

/// How the events of a stream are framed.
#[derive(Clone, Copy)]
enum Framing {
    Sse,
    Ndjson,
}

impl Framing {
    fn of(headers: &HeaderMap) -> Framing {
        let accept = headers
            .get(header::ACCEPT)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("");
        if accept.contains("text/event-stream") {
            Framing::Sse
        } else {
            Framing::Ndjson
        }
    }

    fn content_type(self) -> &'static str {
        match self {
            Framing::Sse => "text/event-stream",
            Framing::Ndjson => "application/x-ndjson",
        }
    }

    /// One event: its seq is the SSE id, so that `Last-Event-ID` resumes;
    /// except for a heartbeat (not an event of the log) and an event not
    /// newer than one already sent (none today: a stream's seqs only grow),
    /// which carry no id so that a resumption never goes back.
    fn event<E: Sequenced>(self, event: &E, newest: u64) -> Bytes {
        let json = to_json(event).to_string();
        Bytes::from(match self {
            Framing::Sse if event.seq() <= newest || event.is_heartbeat() => {
                format!("data: {json}\n\n")
            }
            Framing::Sse => format!("id: {}\ndata: {json}\n\n", event.seq()),
            Framing::Ndjson => format!("{json}\n"),
        })
    }

    /// An error that ended the stream (e.g. the server is shutting down).
    fn error(self, e: &ApiError) -> Bytes {
        Bytes::from(match self {
            Framing::Sse => format!("event: druids-error\ndata: {}\n\n", e.body()),
            Framing::Ndjson => format!("{}\n", serde_json::json!({ "error": e.body() })),
        })
    }

    /// A line that carries nothing, to keep an idle connection open (an SSE
    /// comment; an empty line in NDJSON, as Lichess does).
    fn keepalive(self) -> Bytes {
        Bytes::from_static(match self {
            Framing::Sse => b": keep-alive\n\n",
            Framing::Ndjson => b"\n",
        })
    }
}

/// A numbered event of a stream of the contract.
pub(super) trait Sequenced: prost::Name + Send + 'static {
    /// Its position in its log.
    fn seq(&self) -> u64;

    /// Whether it is a heartbeat rather than an event of the log.
    fn is_heartbeat(&self) -> bool {
        false
    }
}

impl Sequenced for pb::GameEvent {
    fn seq(&self) -> u64 {
        self.seq
    }

    fn is_heartbeat(&self) -> bool {
        matches!(self.body, Some(pb::game_event::Body::Heartbeat(_)))
    }
}

impl Sequenced for pb::BotEvent {
    fn seq(&self) -> u64 {
        self.seq
    }

    fn is_heartbeat(&self) -> bool {
        matches!(self.event, Some(pb::bot_event::Event::Heartbeat(_)))
    }
}

impl Sequenced for pb::TournamentEvent {
    fn seq(&self) -> u64 {
        self.seq
    }

    fn is_heartbeat(&self) -> bool {
        matches!(self.event, Some(pb::tournament_event::Event::Heartbeat(_)))
    }
}

/// A stream of one of the contract's event logs.
pub(super) type Events<E> =
    std::pin::Pin<Box<dyn tokio_stream::Stream<Item = Result<E, Status>> + Send>>;

/// A stream of the contract's events as a streaming HTTP body (SSE or
/// NDJSON, as `headers` accept), with a keep-alive line every `keepalive`,
/// so that proxies and browsers do not close a stream of a game where nobody
/// moves.
pub(super) fn stream_response<E: Sequenced>(
    events: Events<E>,
    headers: &HeaderMap,
    keepalive: Duration,
) -> Response {
    let framing = Framing::of(headers);
    let (tx, rx) = mpsc::channel::<Result<Bytes, Infallible>>(16);
    // A task, not a merged stream: it stops reading the service's stream (and
    // so frees the stream's slot) as soon as the client goes away.
    tokio::spawn(forward(events, tx, framing, keepalive));
    (
        [
            (header::CONTENT_TYPE, framing.content_type()),
            (header::CACHE_CONTROL, "no-cache"),
            // nginx and friends: pass each event on at once.
            (header::HeaderName::from_static("x-accel-buffering"), "no"),
        ],
        Body::from_stream(tokio_stream::wrappers::ReceiverStream::new(rx)),
    )
        .into_response()
}

async fn forward<E: Sequenced>(
    mut events: Events<E>,
    tx: mpsc::Sender<Result<Bytes, Infallible>>,
    framing: Framing,
    keepalive: Duration,
) {
    let mut tick = tokio::time::interval_at(tokio::time::Instant::now() + keepalive, keepalive);
    let mut newest = 0;
    loop {
        let chunk = tokio::select! {
            // The client went away (its connection dropped the body): stop
            // at once, freeing the stream's slot, not at the next write.
            () = tx.closed() => break,
            item = events.next() => match item {
                None => break,
                Some(Ok(event)) => {
                    let chunk = framing.event(&event, newest);
                    newest = newest.max(event.seq());
                    chunk
                }
                Some(Err(status)) => {
                    let _ = tx.send(Ok(framing.error(&ApiError::from(status)))).await;
                    break;
                }
            },
            _ = tick.tick() => framing.keepalive(),
        };
        if tx.send(Ok(chunk)).await.is_err() {
            break;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn last_event_id_resumes_after_it_and_wins_over_the_query() {
        let mut headers = HeaderMap::new();
        assert_eq!(from_seq(None, &headers).unwrap(), 0);
        assert_eq!(from_seq(Some("from_seq=7"), &headers).unwrap(), 7);
        assert_eq!(from_seq(Some("fromSeq=3"), &headers).unwrap(), 3);
        assert!(from_seq(Some("from_seq=x"), &headers).is_err());
        // A misspelt or repeated parameter is refused, not read as 0 or
        // as its first value.
        assert!(from_seq(Some("x=1&fromSeq=3"), &headers).is_err());
        assert!(from_seq(Some("from_seq=1&fromSeq=3"), &headers).is_err());
        headers.insert("last-event-id", "41".parse().unwrap());
        assert_eq!(from_seq(Some("from_seq=7"), &headers).unwrap(), 42);
        headers.insert("last-event-id", u64::MAX.to_string().parse().unwrap());
        assert!(from_seq(None, &headers).is_err());
    }
}
