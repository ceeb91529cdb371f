//! `StreamEvents`: the budgets a stream is opened within (the arena's log
//! streams' too), and the feed that reads its events from the room's log.
//!
//! The promise: a seat of a game in play can always open its stream,
//! whatever others hold. Each seat of a game in play has
//! `--reserved-streams-per-seat` streams that no budget but its own counts,
//! so neither spectators nor another seat's holder can take them (a bounded
//! number: games in play are bounded by `--max-games`). Every other stream (a
//! seat's beyond its reserved ones, up to `--max-streams-per-seat`, and every
//! spectator's) draws on the shared budgets: spectators per game, streams per
//! client address across all games, and the server's total. A
//! [`StreamSlot`] holds a stream's place in every budget and frees it when
//! dropped.
//!
//! The arena's log streams (`StreamBotEvents`, `StreamTournamentEvents`)
//! hold memory and a task each as long as they are open, so they draw on the
//! same per-address and server-wide budgets (one client cannot open
//! thousands), and a bot's event streams on a cap of their own,
//! [`MAX_BOT_EVENT_STREAMS`], so that one bot's key holds few, from however
//! many addresses. They have no reserved places: an [`ArenaStreamSlot`]
//! holds such a stream's places and frees them when dropped.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use druids_contract::pb;
use druids_engine::Viewer;
use tokio::sync::watch;
use tokio_stream::Stream;
use tonic::Status;
use tracing::Instrument;

use crate::config::Limits;
use crate::error::ServiceError;
use crate::room::{Room, StreamLimits, StreamPlace};

/// Events read from the log per lock of a room, for a stream.
const STREAM_BATCH: usize = 128;
/// Events buffered per relayed stream (from another node, or through a fault
/// plan) before the reader must catch up.
pub const STREAM_BUFFER: usize = 64;
/// Room for events a stream keeps between reads: a longer batch (history)
/// is not held on to once it is yielded.
const KEPT_READY: usize = 8;
/// `StreamBotEvents` one bot may have open at once, from any addresses: a
/// bot needs one (a few while it reconnects).
pub const MAX_BOT_EVENT_STREAMS: usize = 8;

/// The server-wide stream budgets.
pub struct Streams {
    /// Streams in the shared budget: games' (besides seats' reserved ones)
    /// and the arena's.
    shared: AtomicUsize,
    /// Games' streams in the shared budget: with `reserved`, the streams
    /// [`Streams::open_count`] reports (the arena's are not games' streams).
    games_shared: AtomicUsize,
    /// Seats' reserved streams.
    reserved: AtomicUsize,
    /// Shared streams by client address.
    by_address: Mutex<HashMap<IpAddr, usize>>,
    /// Open `StreamBotEvents` by bot (the arena's number of the bot: this
    /// module knows the arena by no more than that).
    by_bot: Mutex<HashMap<u64, usize>>,
    limits: Limits,
}

impl Streams {
    /// Budgets as `limits` set them.
    pub fn new(limits: Limits) -> Streams {
        Streams {
            shared: AtomicUsize::new(0),
            games_shared: AtomicUsize::new(0),
            reserved: AtomicUsize::new(0),
            by_address: Mutex::new(HashMap::new()),
            by_bot: Mutex::new(HashMap::new()),
            limits,
        }
    }

    /// How long a stream may send nothing before it sends a heartbeat.
    pub fn heartbeat_every(&self) -> std::time::Duration {
        std::time::Duration::from_millis(self.limits.stream_heartbeat_ms)
    }

    /// `StreamEvents` open on the whole server (not the arena's streams).
    pub fn open_count(&self) -> usize {
        self.games_shared.load(Ordering::Acquire) + self.reserved.load(Ordering::Acquire)
    }

    /// A place for a stream on `room` for `viewer` from `peer`, in every budget
    /// or in none.
    pub fn open(
        self: &Arc<Self>,
        room: &Arc<Room>,
        viewer: Viewer,
        peer: Option<IpAddr>,
    ) -> Result<StreamSlot, ServiceError> {
        let place = room.open_stream(
            viewer,
            &StreamLimits {
                per_seat: self.limits.max_streams_per_seat,
                reserved_per_seat: self.limits.reserved_streams_per_seat,
                spectators_per_game: self.limits.max_spectator_streams_per_game,
            },
        )?;
        // From here on, dropping the slot undoes whatever was taken.
        let mut slot = StreamSlot {
            streams: Arc::clone(self),
            room: Arc::clone(room),
            viewer,
            place,
            shared: None,
        };
        if place == StreamPlace::Reserved {
            self.reserved.fetch_add(1, Ordering::AcqRel);
            return Ok(slot);
        }
        slot.shared = Some(self.take_shared(peer)?);
        self.games_shared.fetch_add(1, Ordering::AcqRel);
        Ok(slot)
    }

    /// A place for an arena log stream (`StreamBotEvents` of `bot`, or
    /// `StreamTournamentEvents`: `None`) from `peer`, in every budget or in
    /// none: the bot's cap, the server's total and the address's.
    pub fn open_arena(
        self: &Arc<Self>,
        bot: Option<u64>,
        peer: Option<IpAddr>,
    ) -> Result<ArenaStreamSlot, ServiceError> {
        // From here on, dropping the slot undoes whatever was taken.
        let mut slot = ArenaStreamSlot {
            streams: Arc::clone(self),
            bot: None,
            _shared: None,
        };
        if let Some(bot) = bot {
            let mut by_bot = self.by_bot.lock().unwrap_or_else(|p| p.into_inner());
            let open = by_bot.entry(bot).or_insert(0);
            if *open >= MAX_BOT_EVENT_STREAMS {
                return Err(ServiceError::Limit(format!(
                    "a bot may have at most {MAX_BOT_EVENT_STREAMS} StreamBotEvents open at once"
                )));
            }
            *open += 1;
            slot.bot = Some(bot);
        }
        slot._shared = Some(self.take_shared(peer)?);
        Ok(slot)
    }

    /// A place in the shared budgets, the server's total and `peer`'s, in
    /// both or in none.
    fn take_shared(self: &Arc<Self>, peer: Option<IpAddr>) -> Result<SharedPlace, ServiceError> {
        let max = self.limits.max_open_streams;
        self.shared
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| {
                (n < max).then_some(n + 1)
            })
            .map_err(|_| {
                ServiceError::Limit(format!(
                    "this server serves at most {max} open streams (besides each seat's reserved ones)"
                ))
            })?;
        // From here on, dropping the place undoes whatever was taken.
        let mut place = SharedPlace {
            streams: Arc::clone(self),
            address: None,
        };
        if let Some(peer) = peer {
            let per_address = self.limits.max_streams_per_address;
            let mut by_address = self.by_address.lock().unwrap_or_else(|p| p.into_inner());
            let open = by_address.entry(peer).or_insert(0);
            if *open >= per_address {
                if *open == 0 {
                    by_address.remove(&peer);
                }
                return Err(ServiceError::Limit(format!(
                    "at most {per_address} streams (StreamEvents, StreamBotEvents, StreamTournamentEvents) may be open from one address (besides each seat's reserved ones)"
                )));
            }
            *open += 1;
            place.address = Some(peer);
        }
        Ok(place)
    }
}

/// A stream's place in the budgets; freed when dropped.
pub struct StreamSlot {
    streams: Arc<Streams>,
    room: Arc<Room>,
    viewer: Viewer,
    place: StreamPlace,
    /// Its place in the shared budgets, if taken (a shared place).
    shared: Option<SharedPlace>,
}

impl Drop for StreamSlot {
    fn drop(&mut self) {
        self.room.close_stream(self.viewer, self.place);
        match self.place {
            StreamPlace::Reserved => {
                self.streams.reserved.fetch_sub(1, Ordering::AcqRel);
            }
            // The shared place itself is freed with the field.
            StreamPlace::Shared if self.shared.is_some() => {
                self.streams.games_shared.fetch_sub(1, Ordering::AcqRel);
            }
            StreamPlace::Shared => {}
        }
    }
}

/// A stream's place in the shared budgets: the server's total and its
/// client address's; freed when dropped.
struct SharedPlace {
    streams: Arc<Streams>,
    address: Option<IpAddr>,
}

impl Drop for SharedPlace {
    fn drop(&mut self) {
        if let Some(peer) = self.address {
            give_back(&self.streams.by_address, &peer);
        }
        self.streams.shared.fetch_sub(1, Ordering::AcqRel);
    }
}

/// An arena log stream's place in the budgets (no room: it reads the
/// arena's log); freed when dropped, so it lives exactly as long as the
/// stream that holds it.
pub struct ArenaStreamSlot {
    streams: Arc<Streams>,
    /// The bot whose `StreamBotEvents` count was taken.
    bot: Option<u64>,
    _shared: Option<SharedPlace>,
}

impl Drop for ArenaStreamSlot {
    fn drop(&mut self) {
        if let Some(bot) = self.bot {
            give_back(&self.streams.by_bot, &bot);
        }
    }
}

/// One stream fewer for `key` in `counts` (a key with none left goes).
fn give_back<K: std::hash::Hash + Eq>(counts: &Mutex<HashMap<K, usize>>, key: &K) {
    let mut counts = counts.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(open) = counts.get_mut(key) {
        *open -= 1;
        if *open == 0 {
            counts.remove(key);
        }
    }
}

/// Refuses (INVALID_ARGUMENT) a stream of a log whose last event is `last`
/// from `from_seq` past its next event: nothing would ever come. `0` and `1`
/// are its start, `last + 1` is a resume that waits for what comes next.
pub fn within_log(from_seq: u64, last: u64) -> Result<(), ServiceError> {
    if from_seq > last.saturating_add(1) {
        return Err(ServiceError::invalid(
            "from_seq",
            format!("from_seq {from_seq} is beyond the log: the last event is {last}"),
        ));
    }
    Ok(())
}

/// Why a stream opened with a bot's key ends once the key stops working.
pub const KEY_GONE: &str = "the key this stream was opened with was rotated or revoked";

/// Whether the key a stream was opened with still gives it its view: a bot's
/// API key, which a rotation or a revocation takes away. Asked before each
/// event.
pub type KeyStands = Box<dyn Fn() -> bool + Send + Sync>;

/// Feeds one stream: `first` (a snapshot and the pending decision), then the
/// events from seq `cursor` on — history, then live events — until the game
/// can no longer change, the reader goes away (the stream is dropped, its
/// slot with it), the server stops, or `key_stands` (if any) says the key
/// it was opened with stopped working (then it ends `UNAUTHENTICATED`,
/// before the next event). The stream reads the room's log when the
/// connection polls it, at the reader's pace: no task and no channel of its
/// own, and an action's events, read together, leave together.
pub fn feed(
    room: Arc<Room>,
    slot: StreamSlot,
    first: Vec<pb::GameEvent>,
    cursor: u64,
    shutdown: watch::Receiver<bool>,
    key_stands: Option<KeyStands>,
    span: tracing::Span,
) -> impl Stream<Item = Result<pb::GameEvent, Status>> + Send + 'static {
    let feed = Feed {
        viewer: slot.viewer,
        room,
        _slot: slot,
        cursor,
        ready: first,
        taken: 0,
        ended: false,
        shutdown,
        key_stands,
    };
    futures_util::stream::unfold(feed, move |feed| feed.next().instrument(span.clone()))
}

/// A stream's state between two of its events.
struct Feed {
    room: Arc<Room>,
    viewer: Viewer,
    /// The stream's place in the budgets, freed with the stream.
    _slot: StreamSlot,
    /// The seq of the next event to read from the log.
    cursor: u64,
    /// Events read and not yet yielded: those from `taken` on.
    ready: Vec<pb::GameEvent>,
    taken: usize,
    /// Nothing more comes (the game can no longer change, or the stream
    /// yielded its last error).
    ended: bool,
    shutdown: watch::Receiver<bool>,
    key_stands: Option<KeyStands>,
}

impl Feed {
    /// The next item and the feed after it; `None` when the stream ends.
    async fn next(mut self) -> Option<(Result<pb::GameEvent, Status>, Feed)> {
        loop {
            if self.taken < self.ready.len()
                && self.key_stands.as_ref().is_some_and(|stands| !stands())
            {
                self.ready.clear();
                self.ended = true;
                let refusal = ServiceError::BotKeyUnknown(KEY_GONE);
                return Some((Err(refusal.into()), self));
            }
            if let Some(event) = self.ready.get_mut(self.taken) {
                let event = std::mem::take(event);
                self.taken += 1;
                return Some((Ok(event), self));
            }
            if self.ended {
                return None;
            }
            let refusal = {
                // Enabled before the log is read, so a change made meanwhile
                // wakes it.
                let changed = self.room.changed();
                tokio::pin!(changed);
                changed.as_mut().enable();
                if self.ready.capacity() > KEPT_READY {
                    self.ready = Vec::new();
                }
                self.ready.clear();
                self.taken = 0;
                let (next, caught_up, over) =
                    self.room
                        .read_events(self.cursor, STREAM_BATCH, self.viewer, &mut self.ready);
                self.cursor = next;
                if caught_up && over {
                    self.ended = true;
                    continue;
                } else if !caught_up || !self.ready.is_empty() {
                    continue;
                } else if self.room.has_moved() {
                    ServiceError::Moved(crate::error::clip(&self.room.id))
                } else {
                    tokio::select! {
                        () = &mut changed => continue,
                        () = stopped(&mut self.shutdown) => ServiceError::ShuttingDown,
                    }
                }
            };
            self.ended = true;
            return Some((Err(refusal.into()), self));
        }
    }
}

/// Completes once the server is shutting down.
async fn stopped(shutdown: &mut watch::Receiver<bool>) {
    let _ = shutdown.wait_for(|stop| *stop).await.map(|_| ());
}
