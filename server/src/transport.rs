//! What the server does at the connection level, below the services, on both
//! of its listeners (gRPC, and the HTTP face): how many connections it
//! takes, how long a silent connection may stay, what it does when it runs
//! out of file descriptors, and the status codes of gRPC requests refused
//! before a handler runs.
//!
//! * Each listener takes at most `--max-connections` connections, and at
//!   most `--max-connections-per-address` from one client address (an IPv6
//!   address by its /64, [`crate::quota::client_address`]), so that one
//!   client holding connections open cannot lock everyone else out; one
//!   beyond is closed as soon as it is accepted. A connection that sends nothing
//!   within `--handshake-timeout-secs`, or nothing at all for
//!   `--idle-connection-secs`, is closed (gRPC: the server pings idle
//!   connections, so a live client always answers; HTTP: what the server
//!   writes counts too, so an event stream's keep-alive lines keep it open,
//!   and an HTTP request's head must arrive whole within the handshake
//!   timeout, see [`crate::http`]).
//! * When `accept` fails for want of file descriptors (or memory), the
//!   listener stops accepting until one of its connections closes (or a
//!   second passes), so new connections wait in the kernel's backlog or are
//!   refused there, while the open ones are served as before; the failure is
//!   logged at most once per [`LOG_EVERY`], with a count of the others.
//! * Calls a client cancels before the server has read them (a burst after
//!   the server was paused, or cut off for a moment) cost that client
//!   nothing: h2 closes a connection with `GOAWAY` / `ENHANCE_YOUR_CALM`
//!   ("too_many_resets") once more than a set number of streams were reset
//!   before they were accepted, 20 by default, which a paused server's
//!   backlog easily passes, killing the healthy calls on the connection with
//!   them; the server allows [`pending_accept_resets`].
//! * A request larger than `--max-message-bytes` is refused by tonic with
//!   `OUT_OF_RANGE`; the contract says `RESOURCE_EXHAUSTED`, so [`remap`]
//!   rewrites that status on the way out.

use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{Notify, OwnedSemaphorePermit, Semaphore, mpsc, oneshot};
use tokio::time::{Instant, Sleep};
use tokio_stream::Stream;
use tokio_stream::wrappers::ReceiverStream;
use tonic::transport::server::{Connected, TcpConnectInfo};

use crate::config::Limits;
use crate::quota::{Share, Shares, client_address};
use crate::resets::{Armed, Cued, ReadGate, Resets, WriteGate};

/// Most often a listener logs the same trouble (refused connections, failed
/// accepts).
pub const LOG_EVERY: Duration = Duration::from_secs(10);
/// Longest pause of a listener that cannot accept, if no connection closes.
const ACCEPT_PAUSE: Duration = Duration::from_secs(1);

/// What keeps a connection open.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Liveness {
    /// Only what the client sends (gRPC: the server's pings get answers).
    Reads,
    /// What either side sends (HTTP: an event stream only writes).
    ReadsAndWrites,
}

/// A place among a listener's connections; tells the listener when it is
/// given back.
struct Slot {
    _permit: OwnedSemaphorePermit,
    /// The client address's share, if shares are limited.
    _share: Option<Share>,
    closed: Arc<Notify>,
}

impl Drop for Slot {
    fn drop(&mut self) {
        self.closed.notify_one();
    }
}

/// An accepted connection: counted against `--max-connections` while open,
/// closed when it stays silent past its deadline.
pub struct Conn {
    inner: TcpStream,
    _slot: Slot,
    deadline: Pin<Box<Sleep>>,
    idle: Duration,
    liveness: Liveness,
    peer: SocketAddr,
    /// Armed by a test-faults server: a plan's fault may reset it.
    reset: Option<Armed>,
    /// Dropped with the connection: tells its server it is gone.
    _gone: Option<oneshot::Sender<()>>,
}

impl Conn {
    /// The client's address.
    pub fn peer(&self) -> SocketAddr {
        self.peer
    }

    /// The signals to send GOAWAY on this connection (armed connections
    /// only) and of its end (complete once the connection is dropped).
    pub fn signals(&mut self) -> (Option<Cued>, oneshot::Receiver<()>) {
        let (tx, rx) = oneshot::channel();
        self._gone = Some(tx);
        (self.reset.as_mut().and_then(Armed::goaway), rx)
    }

    fn alive(&mut self) {
        let next = Instant::now() + self.idle;
        self.deadline.as_mut().reset(next);
    }

    fn expired(&mut self, cx: &mut Context<'_>) -> bool {
        self.deadline.as_mut().poll(cx).is_ready()
    }

    /// Reads and discards what the client sends after a GOAWAY fault, until
    /// it closes (then h2 reads the end of the connection).
    fn discard(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let mut scratch = [0u8; 4096];
        loop {
            let mut buf = ReadBuf::new(&mut scratch);
            match Pin::new(&mut self.inner).poll_read(cx, &mut buf) {
                Poll::Ready(Ok(())) if buf.filled().is_empty() => return Poll::Ready(Ok(())),
                Poll::Ready(Ok(())) => self.alive(),
                Poll::Ready(Err(e)) => return Poll::Ready(Err(e)),
                Poll::Pending if self.expired(cx) => return Poll::Ready(Err(silent())),
                Poll::Pending => return Poll::Pending,
            }
        }
    }

    /// Whether a fault reset this connection: it then fails every read and
    /// write, and closes with a zero linger (the client gets an RST).
    fn reset_due(&mut self, cx: &mut Context<'_>) -> bool {
        let due = self.reset.as_mut().is_some_and(|r| r.poll_reset(cx));
        if due {
            let _ = self.inner.set_zero_linger();
        }
        due
    }
}

fn reset() -> io::Error {
    io::Error::new(
        io::ErrorKind::ConnectionReset,
        "the connection was reset by a fault of a test plan",
    )
}

fn silent() -> io::Error {
    io::Error::new(
        io::ErrorKind::TimedOut,
        "the connection was silent for too long",
    )
}

impl AsyncRead for Conn {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        if self.reset_due(cx) {
            return Poll::Ready(Err(reset()));
        }
        let this = &mut *self;
        if let Some(armed) = &mut this.reset {
            match armed.read_gate(cx, &mut this.inner) {
                Poll::Ready(Ok(ReadGate::Pass)) => {}
                Poll::Ready(Ok(ReadGate::Discard)) => return this.discard(cx),
                Poll::Ready(Err(e)) => return Poll::Ready(Err(e)),
                Poll::Pending if this.expired(cx) => return Poll::Ready(Err(silent())),
                Poll::Pending => return Poll::Pending,
            }
        }
        let before = buf.filled().len();
        match Pin::new(&mut self.inner).poll_read(cx, buf) {
            Poll::Ready(Ok(())) => {
                if buf.filled().len() > before {
                    self.alive();
                    if let Some(armed) = &mut self.reset {
                        armed.read(&buf.filled()[before..]);
                    }
                }
                Poll::Ready(Ok(()))
            }
            Poll::Ready(Err(e)) => Poll::Ready(Err(e)),
            Poll::Pending if self.expired(cx) => Poll::Ready(Err(silent())),
            Poll::Pending => Poll::Pending,
        }
    }
}

impl AsyncWrite for Conn {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        if self.reset_due(cx) {
            return Poll::Ready(Err(reset()));
        }
        let this = &mut *self;
        let mut max = buf.len();
        if let Some(armed) = &mut this.reset {
            match std::task::ready!(armed.write_gate(cx, &mut this.inner, buf.len()))? {
                WriteGate::Pass(n) => max = n,
                WriteGate::Drop => return Poll::Ready(Ok(buf.len())),
            }
        }
        match Pin::new(&mut self.inner).poll_write(cx, &buf[..max]) {
            Poll::Ready(Ok(n)) => {
                if n > 0 && self.liveness == Liveness::ReadsAndWrites {
                    self.alive();
                }
                if let Some(armed) = &mut self.reset {
                    armed.written(&buf[..n]);
                }
                Poll::Ready(Ok(n))
            }
            // A client that stops reading cannot hold the connection either.
            Poll::Pending if self.expired(cx) => Poll::Ready(Err(silent())),
            other => other,
        }
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = &mut *self;
        if let Some(armed) = &mut this.reset {
            std::task::ready!(armed.flush_gate(cx, &mut this.inner))?;
        }
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

impl Connected for Conn {
    type ConnectInfo = TcpConnectInfo;

    fn connect_info(&self) -> TcpConnectInfo {
        self.inner.connect_info()
    }
}

/// Logs one kind of trouble at most once per [`LOG_EVERY`], counting the
/// occurrences it did not log.
struct Throttled {
    last: Option<Instant>,
    unlogged: u64,
}

impl Throttled {
    fn new() -> Throttled {
        Throttled {
            last: None,
            unlogged: 0,
        }
    }

    /// Calls `log` with the number of occurrences not logged since the last
    /// call, if the last was long enough ago.
    fn note(&mut self, log: impl FnOnce(u64)) {
        let now = Instant::now();
        if self.last.is_some_and(|t| now.duration_since(t) < LOG_EVERY) {
            self.unlogged += 1;
            return;
        }
        log(self.unlogged);
        self.unlogged = 0;
        self.last = Some(now);
    }
}

/// Whether an accept error concerns only the connection being accepted (try
/// the next at once) rather than the server (out of descriptors or memory).
fn one_connection(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::ConnectionAborted
            | io::ErrorKind::ConnectionReset
            | io::ErrorKind::ConnectionRefused
            | io::ErrorKind::Interrupted
            | io::ErrorKind::WouldBlock
    )
}

/// A listener within the limits: see the module's documentation.
pub struct Acceptor {
    listener: TcpListener,
    slots: Arc<Semaphore>,
    /// Each client address's connections (when `per_address` > 0).
    by_address: Shares,
    per_address: usize,
    closed: Arc<Notify>,
    handshake: Duration,
    idle: Duration,
    liveness: Liveness,
    max: usize,
    refused: Throttled,
    failed: Throttled,
    resets: Option<Arc<Resets>>,
    /// Whether armed connections' bytes are HTTP/2 frames as they are.
    frames: bool,
}

impl Acceptor {
    /// Accepts on `listener` within `limits`.
    pub fn new(listener: TcpListener, limits: &Limits, liveness: Liveness) -> Acceptor {
        Acceptor {
            listener,
            slots: Arc::new(Semaphore::new(limits.max_connections)),
            by_address: Shares::default(),
            per_address: limits.max_connections_per_address,
            closed: Arc::new(Notify::new()),
            handshake: handshake_timeout(limits),
            idle: Duration::from_secs(limits.idle_connection_secs.max(1)),
            liveness,
            max: limits.max_connections,
            refused: Throttled::new(),
            failed: Throttled::new(),
            resets: None,
            frames: false,
        }
    }

    /// Lets `resets` reset this listener's connections (test faults);
    /// `frames`: their bytes are HTTP/2 frames as they are (no TLS).
    pub fn with_resets(mut self, resets: Option<Arc<Resets>>, frames: bool) -> Acceptor {
        self.resets = resets;
        self.frames = frames;
        self
    }

    /// The address listened on.
    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        self.listener.local_addr()
    }

    /// The next connection within the limits.
    pub async fn accept(&mut self) -> Conn {
        loop {
            let (stream, peer) = match self.listener.accept().await {
                Ok(accepted) => accepted,
                Err(e) if one_connection(&e) => continue,
                Err(e) => {
                    self.failed.note(|unlogged| {
                        tracing::warn!(
                            unlogged,
                            "cannot accept a connection ({e}): not accepting until a connection closes"
                        )
                    });
                    // Out of descriptors: the open connections are served;
                    // new ones wait until one of them is gone.
                    tokio::select! {
                        () = self.closed.notified() => {}
                        () = tokio::time::sleep(ACCEPT_PAUSE) => {}
                    }
                    continue;
                }
            };
            let share = match self.per_address {
                0 => None,
                per_address => {
                    let Some(share) = self.by_address.take(client_address(peer.ip()), per_address)
                    else {
                        self.refused.note(|unlogged| {
                            tracing::warn!(
                                per_address,
                                unlogged,
                                "connection refused: too many connections from one address"
                            )
                        });
                        continue;
                    };
                    Some(share)
                }
            };
            let Ok(permit) = Arc::clone(&self.slots).try_acquire_owned() else {
                let max = self.max;
                self.refused.note(|unlogged| {
                    tracing::warn!(max, unlogged, "connection refused: too many connections")
                });
                continue;
            };
            // Small request/response messages: never wait for Nagle's algorithm.
            let _ = stream.set_nodelay(true);
            return Conn {
                inner: stream,
                _slot: Slot {
                    _permit: permit,
                    _share: share,
                    closed: Arc::clone(&self.closed),
                },
                deadline: Box::pin(tokio::time::sleep(self.handshake)),
                idle: self.idle,
                liveness: self.liveness,
                peer,
                reset: self.resets.as_ref().map(|r| r.arm(peer, self.frames)),
                _gone: None,
            };
        }
    }
}

/// How long a new connection may take to send its first bytes (and, over
/// HTTP, a whole request head).
pub fn handshake_timeout(limits: &Limits) -> Duration {
    Duration::from_secs(limits.handshake_timeout_secs.max(1))
}

/// How long a request's body may take to arrive, on either face: three
/// times what its head may take.
pub fn body_deadline(limits: &Limits) -> Duration {
    3 * handshake_timeout(limits)
}

/// The gRPC connections accepted on `listener`, within the limits (and
/// armed for `resets`, on a test-faults server); the accepting stops when
/// the stream is dropped; `frames`: no TLS, the connections' bytes are
/// HTTP/2 frames as they are.
pub fn incoming(
    listener: TcpListener,
    limits: &Limits,
    resets: Option<Arc<Resets>>,
    frames: bool,
) -> impl Stream<Item = io::Result<Conn>> + Send + 'static {
    let mut acceptor = Acceptor::new(listener, limits, Liveness::Reads).with_resets(resets, frames);
    let (tx, rx) = mpsc::channel(1);
    tokio::spawn(async move {
        loop {
            tokio::select! {
                conn = acceptor.accept() => {
                    if tx.send(Ok(conn)).await.is_err() {
                        return;
                    }
                }
                () = tx.closed() => return,
            }
        }
    });
    ReceiverStream::new(rx)
}

/// Streams a client may reset before the server accepted them, at once, on
/// one connection before h2 closes it: four times the calls a connection
/// may have open, so that a client whose every call timed out during a
/// pause, and was retried and timed out again, keeps its connection, while
/// a connection resetting streams faster than the server reads them (the
/// "rapid reset" attack) is still closed, and the queue it fills is bounded.
pub fn pending_accept_resets(limits: &Limits) -> usize {
    (limits.max_calls_per_connection as usize).saturating_mul(4)
}

/// How often idle connections are pinged: often enough that a live client
/// answers well within the idle timeout.
pub fn keepalive_interval(limits: &Limits) -> Duration {
    Duration::from_secs((limits.idle_connection_secs / 3).max(1))
}
