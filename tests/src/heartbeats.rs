//! Reading event streams past their heartbeats: a quiet stream sends one
//! every `--stream-heartbeat-ms`, which is not an event, so a test that reads
//! "the next event" (or counts them) reads it with [`next_event`].

use druids_contract::pb;
use tonic::{Status, Streaming};

/// An event of a stream that sends heartbeats.
pub trait MaybeHeartbeat {
    /// Whether it is a heartbeat rather than an event.
    fn is_heartbeat(&self) -> bool;
}

impl MaybeHeartbeat for pb::GameEvent {
    fn is_heartbeat(&self) -> bool {
        matches!(self.body, Some(pb::game_event::Body::Heartbeat(_)))
    }
}

impl MaybeHeartbeat for pb::SeekEvent {
    fn is_heartbeat(&self) -> bool {
        matches!(self.event, Some(pb::seek_event::Event::Heartbeat(_)))
    }
}

impl MaybeHeartbeat for pb::BotEvent {
    fn is_heartbeat(&self) -> bool {
        matches!(self.event, Some(pb::bot_event::Event::Heartbeat(_)))
    }
}

impl MaybeHeartbeat for pb::TournamentEvent {
    fn is_heartbeat(&self) -> bool {
        matches!(self.event, Some(pb::tournament_event::Event::Heartbeat(_)))
    }
}

/// The stream's next message that is not a heartbeat (None: it ended).
pub async fn next_event<E: MaybeHeartbeat>(stream: &mut Streaming<E>) -> Result<Option<E>, Status> {
    loop {
        match stream.message().await? {
            Some(e) if e.is_heartbeat() => continue,
            other => return Ok(other),
        }
    }
}

/// Reads `stream` in windows of `window`, heartbeats only, until a window
/// passes with nothing (`true`), for at most `windows` windows: how a client's
/// watchdog tells a paused server (its heartbeats stop once those already on
/// the way are read) from a quiet stream.
pub async fn falls_silent<E: MaybeHeartbeat + std::fmt::Debug>(
    stream: &mut Streaming<E>,
    window: std::time::Duration,
    windows: usize,
) -> bool {
    for _ in 0..windows {
        match tokio::time::timeout(window, stream.message()).await {
            Err(_silence) => return true,
            Ok(Ok(Some(e))) => assert!(e.is_heartbeat(), "nothing but heartbeats: {e:?}"),
            Ok(other) => panic!("the stream to a paused server stays open: {other:?}"),
        }
    }
    false
}
