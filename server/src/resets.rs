//! Resetting one client's gRPC connection, or sending it GOAWAY, on cue:
//! the `STREAM_END_RESET`, `STREAM_END_GOAWAY` and
//! `STREAM_END_GOAWAY_UNPROCESSED` faults of a test plan (`--test-faults`). A real network breaks a connection under every call on
//! it, with no gRPC status and no HTTP/2 frame: the server's side of the TCP
//! connection fails its next read or write and is closed with a zero linger,
//! so the client's kernel gets an RST. A server going away says so with
//! GOAWAY and lets the calls it took finish: [`Armed::goaway`] is the signal
//! that [`crate::serve_grpc`]'s per-connection server shuts down on.
//! A GOAWAY that reports the calls still open as not processed is written
//! by the connection itself ([`Armed::read_gate`], [`Armed::write_gate`]),
//! since h2 only sends GOAWAY frames whose last stream id it chose: at the
//! cue the connection stops reading (no call sent later is taken), lets h2
//! finish the frames it is writing, writes a GOAWAY whose last stream id is
//! below every stream still open ([`crate::h2_frames`]), half-closes the
//! socket, and then drops whatever h2 writes and reads the client's bytes
//! only to discard them until the client closes.
//! Connections are armed only on a server in test-faults mode.

use std::collections::HashMap;
use std::future::Future;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker};

use tokio::io::AsyncWrite;
use tokio::net::TcpStream;
use tokio::sync::Notify;

use crate::h2_frames::{self, Streams};

/// What a fault may do to one armed connection.
#[derive(Default)]
struct Cues {
    reset: Notify,
    goaway: Notify,
    unprocessed: Notify,
    /// Whether the connection's frames are followed (no TLS).
    frames: bool,
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

    /// Arms the connection of `peer` (until the returned guard is dropped);
    /// `frames`: its bytes are HTTP/2 frames as they are (no TLS), so a
    /// GOAWAY of its own can be written between them.
    pub fn arm(self: &Arc<Self>, peer: SocketAddr, frames: bool) -> Armed {
        let cues = Arc::new(Cues {
            frames,
            ..Cues::default()
        });
        self.conns().insert(peer, Arc::clone(&cues));
        let notified = |pick: fn(&Cues) -> &Notify| {
            let cues = Arc::clone(&cues);
            Box::pin(async move { pick(&cues).notified().await })
        };
        Armed {
            fired: notified(|c| &c.reset),
            goaway: Some(notified(|c| &c.goaway)),
            unprocessed: notified(|c| &c.unprocessed),
            going: Going::Serving,
            streams: frames.then(Streams::default),
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

    /// Sends the connection of `peer` a GOAWAY reporting every call still
    /// open on it as not processed, and closes it; false if no such
    /// connection is open or its frames cannot be followed (TLS).
    pub fn goaway_unprocessed(&self, peer: SocketAddr) -> bool {
        let follows = self.conns().get(&peer).is_some_and(|c| c.frames);
        follows && self.cue(peer, |c| &c.unprocessed)
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
    unprocessed: Cued,
    going: Going,
    /// The connection's streams, followed from its frames (None over TLS).
    streams: Option<Streams>,
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

/// Where an armed connection is in a `STREAM_END_GOAWAY_UNPROCESSED` fault.
enum Going {
    /// No such fault yet: bytes pass both ways.
    Serving,
    /// The fault fired: nothing more is read; h2 may finish what it writes.
    /// `poked`: h2 has had one more turn to write what it had queued.
    Cued { poked: bool, reader: Option<Waker> },
    /// The GOAWAY frame is being written (`sent` bytes of it so far).
    Sending {
        frame: [u8; 17],
        sent: usize,
        reader: Option<Waker>,
    },
    /// The GOAWAY is written and the socket half-closed: what h2 writes is
    /// dropped, what the client sends is read and discarded.
    Gone,
}

/// What a connection does with a read.
pub enum ReadGate {
    /// Reads into h2's buffer (and follows the frames).
    Pass,
    /// Discards what the client sends: the connection has gone away.
    Discard,
}

/// What a connection does with a write.
pub enum WriteGate {
    /// Writes at most this many bytes (and follows the frames).
    Pass(usize),
    /// Drops the bytes, as if written: the connection has gone away.
    Drop,
}

impl Armed {
    /// Whether the unprocessed-GOAWAY fault fired, moving to [`Going::Cued`].
    fn cue_fired(&mut self, cx: &mut Context<'_>) {
        if matches!(self.going, Going::Serving)
            && self.streams.is_some()
            && self.unprocessed.as_mut().poll(cx).is_ready()
        {
            self.going = Going::Cued {
                poked: false,
                reader: None,
            };
        }
    }

    /// Starts writing the GOAWAY if h2's frames so far end on a boundary.
    fn send_if_between_frames(&mut self) {
        let Some(streams) = &self.streams else { return };
        if let Going::Cued { reader, .. } = &mut self.going
            && streams.write_boundary()
        {
            let last = streams.below_open();
            tracing::debug!(
                last,
                "test fault: GOAWAY reporting the open streams unprocessed"
            );
            self.going = Going::Sending {
                frame: h2_frames::goaway(last),
                sent: 0,
                reader: reader.take(),
            };
        }
    }

    /// Writes what is left of the GOAWAY; ready once it is all written and
    /// the socket half-closed.
    fn poll_send(&mut self, cx: &mut Context<'_>, io: &mut TcpStream) -> Poll<std::io::Result<()>> {
        while let Going::Sending {
            frame,
            sent,
            reader,
        } = &mut self.going
        {
            if *sent == frame.len() {
                std::task::ready!(Pin::new(&mut *io).poll_flush(cx))?;
                // A FIN, not a reset: the client reads the GOAWAY.
                let _ = std::task::ready!(Pin::new(&mut *io).poll_shutdown(cx));
                if let Some(w) = reader.take() {
                    w.wake();
                }
                self.going = Going::Gone;
                break;
            }
            let n = std::task::ready!(Pin::new(&mut *io).poll_write(cx, &frame[*sent..]))?;
            if n == 0 {
                return Poll::Ready(Err(std::io::ErrorKind::WriteZero.into()));
            }
            *sent += n;
        }
        Poll::Ready(Ok(()))
    }

    /// Before a read of the client's bytes.
    pub fn read_gate(
        &mut self,
        cx: &mut Context<'_>,
        io: &mut TcpStream,
    ) -> Poll<std::io::Result<ReadGate>> {
        self.cue_fired(cx);
        if let Going::Cued { poked, reader } = &mut self.going {
            *reader = Some(cx.waker().clone());
            if !*poked {
                // One more turn for h2 to write what it has queued (the
                // event the fault fires after) before the GOAWAY.
                *poked = true;
                cx.waker().wake_by_ref();
                return Poll::Pending;
            }
            self.send_if_between_frames();
        }
        match self.going {
            Going::Serving => Poll::Ready(Ok(ReadGate::Pass)),
            Going::Cued { .. } => Poll::Pending,
            Going::Sending { .. } => {
                std::task::ready!(self.poll_send(cx, io))?;
                Poll::Ready(Ok(ReadGate::Discard))
            }
            Going::Gone => Poll::Ready(Ok(ReadGate::Discard)),
        }
    }

    /// Before a write of `len` bytes of h2's.
    pub fn write_gate(
        &mut self,
        cx: &mut Context<'_>,
        io: &mut TcpStream,
        len: usize,
    ) -> Poll<std::io::Result<WriteGate>> {
        self.cue_fired(cx);
        match &self.going {
            Going::Serving | Going::Cued { .. } => Poll::Ready(Ok(WriteGate::Pass(len))),
            Going::Sending { .. } => {
                std::task::ready!(self.poll_send(cx, io))?;
                Poll::Ready(Ok(WriteGate::Drop))
            }
            Going::Gone => Poll::Ready(Ok(WriteGate::Drop)),
        }
    }

    /// Before h2 flushes: what it wrote so far has gone to the socket, so
    /// the GOAWAY may follow it.
    pub fn flush_gate(
        &mut self,
        cx: &mut Context<'_>,
        io: &mut TcpStream,
    ) -> Poll<std::io::Result<()>> {
        self.cue_fired(cx);
        self.send_if_between_frames();
        if matches!(self.going, Going::Sending { .. }) {
            std::task::ready!(self.poll_send(cx, io))?;
        }
        Poll::Ready(Ok(()))
    }

    /// Follows bytes read from the client.
    pub fn read(&mut self, bytes: &[u8]) {
        if let Some(s) = &mut self.streams {
            s.read(bytes);
        }
    }

    /// Follows bytes written to the client.
    pub fn written(&mut self, bytes: &[u8]) {
        if let Some(s) = &mut self.streams {
            s.written(bytes);
        }
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
