//! `StreamEvents`: the budgets a stream is opened within, and the pump that
//! feeds it.
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

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use druids_contract::pb;
use druids_engine::Viewer;
use tokio::sync::{mpsc, watch};
use tonic::Status;

use crate::config::Limits;
use crate::error::ServiceError;
use crate::room::{Room, StreamLimits, StreamPlace};

/// Events read from the log per lock of a room, for a stream.
const STREAM_BATCH: usize = 128;
/// Events buffered per stream before the reader must catch up.
pub const STREAM_BUFFER: usize = 64;

/// The server-wide stream budgets.
pub struct Streams {
    /// Streams in the shared budget.
    shared: AtomicUsize,
    /// Seats' reserved streams.
    reserved: AtomicUsize,
    /// Shared streams by client address.
    by_address: Mutex<HashMap<IpAddr, usize>>,
    limits: Limits,
}

impl Streams {
    /// Budgets as `limits` set them.
    pub fn new(limits: Limits) -> Streams {
        Streams {
            shared: AtomicUsize::new(0),
            reserved: AtomicUsize::new(0),
            by_address: Mutex::new(HashMap::new()),
            limits,
        }
    }

    /// Streams open on the whole server.
    pub fn open_count(&self) -> usize {
        self.shared.load(Ordering::Acquire) + self.reserved.load(Ordering::Acquire)
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
            counted: false,
            address: None,
        };
        if place == StreamPlace::Reserved {
            self.reserved.fetch_add(1, Ordering::AcqRel);
            slot.counted = true;
            return Ok(slot);
        }
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
        slot.counted = true;
        if let Some(peer) = peer {
            let per_address = self.limits.max_streams_per_address;
            let mut by_address = self.by_address.lock().unwrap_or_else(|p| p.into_inner());
            let open = by_address.entry(peer).or_insert(0);
            if *open >= per_address {
                return Err(ServiceError::Limit(format!(
                    "at most {per_address} streams may be open from one address (besides each seat's reserved ones)"
                )));
            }
            *open += 1;
            slot.address = Some(peer);
        }
        Ok(slot)
    }
}

/// A stream's place in the budgets; freed when dropped.
pub struct StreamSlot {
    streams: Arc<Streams>,
    room: Arc<Room>,
    viewer: Viewer,
    place: StreamPlace,
    /// Whether the server-wide count (shared or reserved) was taken.
    counted: bool,
    address: Option<IpAddr>,
}

impl Drop for StreamSlot {
    fn drop(&mut self) {
        self.room.close_stream(self.viewer, self.place);
        if let Some(peer) = self.address {
            let mut by_address = self
                .streams
                .by_address
                .lock()
                .unwrap_or_else(|p| p.into_inner());
            if let Some(open) = by_address.get_mut(&peer) {
                *open -= 1;
                if *open == 0 {
                    by_address.remove(&peer);
                }
            }
        }
        if self.counted {
            let count = match self.place {
                StreamPlace::Reserved => &self.streams.reserved,
                StreamPlace::Shared => &self.streams.shared,
            };
            count.fetch_sub(1, Ordering::AcqRel);
        }
    }
}

/// Feeds one stream: `first` (a snapshot and the pending decision), then the
/// events from seq `cursor` on — history, then live events — at the reader's
/// pace, until the game can no longer change, the reader goes away or the
/// server stops.
pub async fn pump(
    room: Arc<Room>,
    slot: StreamSlot,
    first: Vec<pb::GameEvent>,
    mut cursor: u64,
    tx: mpsc::Sender<Result<pb::GameEvent, Status>>,
    mut shutdown: watch::Receiver<bool>,
) {
    let _slot = slot;
    let viewer = _slot.viewer;
    for event in first {
        if tx.send(Ok(event)).await.is_err() {
            return;
        }
    }
    let mut batch = Vec::with_capacity(STREAM_BATCH);
    loop {
        // Enabled before the log is read, so a change made meanwhile wakes it.
        let changed = room.changed();
        tokio::pin!(changed);
        changed.as_mut().enable();
        let (next, caught_up, over) = room.read_events(cursor, STREAM_BATCH, viewer, &mut batch);
        cursor = next;
        for event in batch.drain(..) {
            if tx.send(Ok(event)).await.is_err() {
                return;
            }
        }
        if caught_up {
            if over {
                return;
            }
            if room.has_moved() {
                let moved = ServiceError::Moved(crate::error::clip(&room.id));
                let _ = tx.send(Err(moved.into())).await;
                return;
            }
            tokio::select! {
                () = &mut changed => {}
                // The client went away while the game was quiet: free the slot now.
                () = tx.closed() => return,
                () = stopped(&mut shutdown) => {
                    let _ = tx.send(Err(ServiceError::ShuttingDown.into())).await;
                    return;
                }
            }
        }
    }
}

/// Completes once the server is shutting down.
async fn stopped(shutdown: &mut watch::Receiver<bool>) {
    let _ = shutdown.wait_for(|stop| *stop).await.map(|_| ());
}
