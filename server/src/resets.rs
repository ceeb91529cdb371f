//! Resetting one client's gRPC connection, or sending it GOAWAY, on cue:
//! the `STREAM_END_RESET` and `STREAM_END_GOAWAY` faults of a test plan
//! (`--test-faults`). A real network breaks a connection under every call on
//! it, with no gRPC status and no HTTP/2 frame: the server's side of the TCP
//! connection fails its next read or write and is closed with a zero linger,
//! so the client's kernel gets an RST. A server going away says so with
//! GOAWAY and lets the calls it took finish: [`Armed::goaway`] is the signal
//! that [`crate::serve_grpc`]'s per-connection server shuts down on.
//! Connections are armed only on a server in test-faults mode.

use std::collections::HashMap;
use std::future::Future;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::Context;

use tokio::sync::Notify;

/// What a fault may do to one armed connection.
#[derive(Default)]
struct Cues {
    reset: Notify,
    goaway: Notify,
}

/// The armed connections of a listener, by the client's address.
#[derive(Default)]
pub struct Resets {
    conns: Mutex<HashMap<SocketAddr, Arc<Cues>>>,
}

impl Resets {
    fn conns(&self) -> std::sync::MutexGuard<'_, HashMap<SocketAddr, Arc<Cues>>> {
        self.conns.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Arms the connection of `peer` (until the returned guard is dropped).
    pub fn arm(self: &Arc<Self>, peer: SocketAddr) -> Armed {
        let cues = Arc::new(Cues::default());
        self.conns().insert(peer, Arc::clone(&cues));
        let notified = |pick: fn(&Cues) -> &Notify| {
            let cues = Arc::clone(&cues);
            Box::pin(async move { pick(&cues).notified().await })
        };
        Armed {
            fired: notified(|c| &c.reset),
            goaway: Some(notified(|c| &c.goaway)),
            cues,
            peer,
            registry: Arc::clone(self),
            done: false,
        }
    }

    /// Resets the connection of `peer`; false if no such connection is open.
    pub fn reset(&self, peer: SocketAddr) -> bool {
        self.cue(peer, |c| &c.reset)
    }

    /// Sends GOAWAY on the connection of `peer`; false if no such connection
    /// is open.
    pub fn goaway(&self, peer: SocketAddr) -> bool {
        self.cue(peer, |c| &c.goaway)
    }

    fn cue(&self, peer: SocketAddr, pick: fn(&Cues) -> &Notify) -> bool {
        match self.conns().get(&peer) {
            Some(c) => {
                // A permit is stored if nobody waits yet: the cue is not lost.
                pick(c).notify_one();
                true
            }
            None => false,
        }
    }
}

/// A cue's signal, complete when the fault fires.
pub type Cued = Pin<Box<dyn Future<Output = ()> + Send>>;

/// One armed connection: [`Armed::poll_reset`] says when to break it,
/// [`Armed::goaway`] when to go away from it.
pub struct Armed {
    fired: Cued,
    goaway: Option<Cued>,
    cues: Arc<Cues>,
    peer: SocketAddr,
    registry: Arc<Resets>,
    done: bool,
}

impl Armed {
    /// The signal to send GOAWAY on this connection (once: the server that
    /// serves the connection takes it).
    pub fn goaway(&mut self) -> Option<Cued> {
        self.goaway.take()
    }

    /// Whether the connection must be reset now (and ever after); registers
    /// `cx` to be woken when it must.
    pub fn poll_reset(&mut self, cx: &mut Context<'_>) -> bool {
        if !self.done && self.fired.as_mut().poll(cx).is_ready() {
            self.done = true;
        }
        self.done
    }
}

impl Drop for Armed {
    fn drop(&mut self) {
        let mut conns = self.registry.conns();
        // A new connection from the same address may have replaced this one.
        if conns
            .get(&self.peer)
            .is_some_and(|c| Arc::ptr_eq(c, &self.cues))
        {
            conns.remove(&self.peer);
        }
    }
}
