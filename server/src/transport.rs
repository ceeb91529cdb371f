//! What the server does at the connection level, below the service: how many
//! connections and concurrent calls it takes, how long a silent connection may
//! stay, and the status codes of requests refused before they reach a handler.
//!
//! * A connection beyond `--max-connections` is closed as soon as it is
//!   accepted; one that sends nothing within `--handshake-timeout-secs`, or
//!   nothing at all for `--idle-connection-secs` (the server pings idle
//!   connections, so a live client always answers), is closed.
//! * A request larger than `--max-message-bytes` is refused by tonic with
//!   `OUT_OF_RANGE`; the contract says `RESOURCE_EXHAUSTED`, so [`remap`]
//!   rewrites that status on the way out.

use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio::time::{Instant, Sleep};
use tokio_stream::{Stream, StreamExt, wrappers::TcpListenerStream};
use tonic::transport::server::{Connected, TcpConnectInfo};

use crate::config::Limits;

/// An accepted connection: counted against `--max-connections` while open,
/// closed when it stays silent past its deadline.
pub struct Conn {
    inner: TcpStream,
    _permit: OwnedSemaphorePermit,
    deadline: Pin<Box<Sleep>>,
    idle: Duration,
}

impl Conn {
    fn new(
        inner: TcpStream,
        permit: OwnedSemaphorePermit,
        handshake: Duration,
        idle: Duration,
    ) -> Conn {
        Conn {
            inner,
            _permit: permit,
            deadline: Box::pin(tokio::time::sleep(handshake)),
            idle,
        }
    }
}

impl AsyncRead for Conn {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        match Pin::new(&mut self.inner).poll_read(cx, buf) {
            Poll::Ready(Ok(())) => {
                if buf.filled().len() > before {
                    let next = Instant::now() + self.idle;
                    self.deadline.as_mut().reset(next);
                }
                Poll::Ready(Ok(()))
            }
            Poll::Ready(Err(e)) => Poll::Ready(Err(e)),
            Poll::Pending => match self.deadline.as_mut().poll(cx) {
                Poll::Ready(()) => Poll::Ready(Err(io::Error::new(
                    io::ErrorKind::TimedOut,
                    "the client sent nothing for too long",
                ))),
                Poll::Pending => Poll::Pending,
            },
        }
    }
}

impl AsyncWrite for Conn {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.inner).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
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

/// The connections accepted on `listener`, within the limits.
pub fn incoming(
    listener: TcpListener,
    limits: &Limits,
) -> impl Stream<Item = io::Result<Conn>> + Send + 'static {
    let slots = Arc::new(Semaphore::new(limits.max_connections));
    let handshake = Duration::from_secs(limits.handshake_timeout_secs.max(1));
    let idle = Duration::from_secs(limits.idle_connection_secs.max(1));
    let max = limits.max_connections;
    TcpListenerStream::new(listener).filter_map(move |accepted| match accepted {
        Ok(stream) => {
            // Small request/response messages: never wait for Nagle's algorithm.
            let _ = stream.set_nodelay(true);
            match Arc::clone(&slots).try_acquire_owned() {
                Ok(permit) => Some(Ok(Conn::new(stream, permit, handshake, idle))),
                Err(_) => {
                    tracing::warn!(max, "connection refused: too many connections");
                    None
                }
            }
        }
        Err(e) => {
            // Accept errors (e.g. out of file descriptors) concern one connection.
            tracing::warn!("cannot accept a connection: {e}");
            None
        }
    })
}

/// How often idle connections are pinged: often enough that a live client
/// answers well within the idle timeout.
pub fn keepalive_interval(limits: &Limits) -> Duration {
    Duration::from_secs((limits.idle_connection_secs / 3).max(1))
}

/// Rewrites the status of a request tonic refused for its size
/// (`OUT_OF_RANGE`) to the contract's `RESOURCE_EXHAUSTED`. Refusals before a
/// handler runs are trailers-only responses: the status is in the headers.
pub fn remap(mut response: http::Response<tonic::body::Body>) -> http::Response<tonic::body::Body> {
    let out_of_range = response
        .headers()
        .get("grpc-status")
        .is_some_and(|v| v.as_bytes() == b"11");
    if out_of_range {
        let headers = response.headers_mut();
        headers.insert("grpc-status", http::HeaderValue::from_static("8"));
        headers.insert(
            "grpc-message",
            http::HeaderValue::from_static(
                "the request is larger than this server accepts (see --max-message-bytes)",
            ),
        );
    }
    response
}
