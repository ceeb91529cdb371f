//! `StreamEvents`: the budgets a stream is opened within, and the pump that
//! feeds it.
//!
//! Seats and spectators have separate budgets, so that spectators can never
//! lock the players of a game out of their own streams: each seat has its own
//! allowance, spectators share one per game, anonymous callers one per client
//! address across all games, and the whole server a total. A [`StreamSlot`]
//! holds a stream's place in every budget and frees it when dropped.

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
use crate::room::Room;

/// Events read from the log per lock of a room, for a stream.
const STREAM_BATCH: usize = 128;
/// Events buffered per stream before the reader must catch up.
pub const STREAM_BUFFER: usize = 64;

/// The server-wide stream budgets.
pub struct Streams {
    open: AtomicUsize,
    by_address: Mutex<HashMap<IpAddr, usize>>,
    limits: Limits,
}

impl Streams {
    /// Budgets as `limits` set them.
    pub fn new(limits: Limits) -> Streams {
        Streams {
            open: AtomicUsize::new(0),
            by_address: Mutex::new(HashMap::new()),
            limits,
        }
    }

    /// Streams open on the whole server.
    pub fn open_count(&self) -> usize {
        self.open.load(Ordering::Acquire)
    }

    /// A place for a stream on `room` for `viewer` from `peer`, in every budget
    /// or in none.
    pub fn open(
        self: &Arc<Self>,
        room: &Arc<Room>,
        viewer: Viewer,
        peer: Option<IpAddr>,
    ) -> Result<StreamSlot, ServiceError> {
        let max = self.limits.max_open_streams;
        self.open
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| {
                (n < max).then_some(n + 1)
            })
            .map_err(|_| {
                ServiceError::Limit(format!("this server serves at most {max} open streams"))
            })?;
        // From here on, dropping the slot undoes whatever was taken.
        let mut slot = StreamSlot {
            streams: Arc::clone(self),
            room: None,
            viewer,
            address: None,
        };
        if let (Viewer::Spectator, Some(peer)) = (viewer, peer) {
            let per_address = self.limits.max_streams_per_address;
            let mut by_address = self.by_address.lock().unwrap_or_else(|p| p.into_inner());
            let open = by_address.entry(peer).or_insert(0);
            if *open >= per_address {
                return Err(ServiceError::Limit(format!(
                    "at most {per_address} spectator streams may be open from one address"
                )));
            }
            *open += 1;
            slot.address = Some(peer);
        }
        room.open_stream(
            viewer,
            self.limits.max_streams_per_seat,
            self.limits.max_spectator_streams_per_game,
        )?;
        slot.room = Some(Arc::clone(room));
        Ok(slot)
    }
}

/// A stream's place in the budgets; freed when dropped.
pub struct StreamSlot {
    streams: Arc<Streams>,
    room: Option<Arc<Room>>,
    viewer: Viewer,
    address: Option<IpAddr>,
}

impl Drop for StreamSlot {
    fn drop(&mut self) {
        if let Some(room) = &self.room {
            room.close_stream(self.viewer);
        }
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
        self.streams.open.fetch_sub(1, Ordering::AcqRel);
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
