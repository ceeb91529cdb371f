//! Resetting one client's gRPC connection on cue: the `STREAM_END_RESET`
//! fault of a test plan (`--test-faults`). A real network breaks a
//! connection under every call on it, with no gRPC status and no HTTP/2
//! frame: the server's side of the TCP connection fails its next read or
//! write and is closed with a zero linger, so the client's kernel gets an
//! RST. Connections are armed only on a server in test-faults mode.

use std::collections::HashMap;
use std::future::Future;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};

use tokio::sync::Notify;
use tokio::sync::futures::OwnedNotified;

/// The armed connections of a listener, by the client's address.
#[derive(Default)]
pub struct Resets {
    conns: Mutex<HashMap<SocketAddr, Arc<Notify>>>,
}

impl Resets {
    fn conns(&self) -> std::sync::MutexGuard<'_, HashMap<SocketAddr, Arc<Notify>>> {
        self.conns.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Arms the connection of `peer` (until the returned guard is dropped).
    pub fn arm(self: &Arc<Self>, peer: SocketAddr) -> Armed {
        let notify = Arc::new(Notify::new());
        self.conns().insert(peer, Arc::clone(&notify));
        Armed {
            fired: Box::pin(Arc::clone(&notify).notified_owned()),
            notify,
            peer,
            registry: Arc::clone(self),
            done: false,
        }
    }

    /// Resets the connection of `peer`; false if no such connection is open.
    pub fn reset(&self, peer: SocketAddr) -> bool {
        match self.conns().get(&peer) {
            Some(n) => {
                n.notify_one();
                true
            }
            None => false,
        }
    }
}

/// One armed connection: [`Armed::poll_reset`] says when to break it.
pub struct Armed {
    fired: Pin<Box<OwnedNotified>>,
    notify: Arc<Notify>,
    peer: SocketAddr,
    registry: Arc<Resets>,
    done: bool,
}

impl Armed {
    /// Whether the connection must be reset now (and ever after); registers
    /// `cx` to be woken when it must.
    pub fn poll_reset(&mut self, cx: &mut Context<'_>) -> bool {
        if !self.done && self.fired.as_mut().poll(cx) == Poll::Ready(()) {
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
            .is_some_and(|n| Arc::ptr_eq(n, &self.notify))
        {
            conns.remove(&self.peer);
        }
    }
}
