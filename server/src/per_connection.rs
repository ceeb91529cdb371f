//! Serving each gRPC connection with its own shutdown signal, so that a test
//! plan's `STREAM_END_GOAWAY` fault can send GOAWAY on one client's
//! connection while the server goes on (tonic's server drains only all of
//! its connections at once, and exposes no handle to one).
//!
//! Every accepted connection is served by a clone of the same tonic
//! [`Router`], fed that one connection, so that everything the router's
//! server is built with holds as before: TLS, HTTP/2 keep-alive, the calls
//! per connection, the pending-accept resets, the header list size, the
//! layers, the client's address in each request. The router's shutdown
//! signal is the first of: the fault's GOAWAY, the connection's own end (so
//! that its server task ends with it), and the server's shutdown. hyper's
//! `graceful_shutdown` then sends GOAWAY and lets the calls already taken
//! finish; the listener's limits stay with [`crate::transport`]'s acceptor.
//!
//! h2 (under hyper) chooses the GOAWAY's last stream id itself: a first
//! GOAWAY with the highest id, a PING, then a second GOAWAY with the last
//! stream it processed, so streams the client opened while the PING was in
//! flight are refused (and retried by the client on a new connection). It
//! has no public call to send a lower id: the `STREAM_END_GOAWAY_UNPROCESSED`
//! fault's GOAWAY is written by the connection itself ([`crate::resets`]).

use std::io;

use bytes::Bytes;
use futures_util::FutureExt;
use http::{Request, Response};
use tokio::sync::watch;
use tokio::task::JoinSet;
use tokio_stream::{Stream, StreamExt};
use tonic::body::Body;
use tonic::service::Routes;
use tonic::transport::server::Router;
use tower::{Layer, Service};

use crate::transport::Conn;

/// Serves the connections of `incoming` with `router`, one server each, until
/// `shutdown` completes; then stops accepting and waits for every connection
/// to drain (as tonic's `serve_with_incoming_shutdown` does).
pub async fn serve<L, ResBody>(
    router: Router<L>,
    incoming: impl Stream<Item = io::Result<Conn>>,
    shutdown: impl Future<Output = ()>,
) where
    L: Layer<Routes> + Clone + Send + 'static,
    L::Service: Service<Request<Body>, Response = Response<ResBody>> + Clone + Send + 'static,
    <L::Service as Service<Request<Body>>>::Future: Send,
    <L::Service as Service<Request<Body>>>::Error: Into<tonic::codegen::StdError> + Send,
    ResBody: http_body::Body<Data = Bytes> + Send + 'static,
    ResBody::Error: Into<tonic::codegen::StdError>,
{
    let (stopping, stop) = watch::channel(false);
    let mut conns = JoinSet::new();
    let mut incoming = Box::pin(incoming);
    let mut shutdown = std::pin::pin!(shutdown);
    loop {
        tokio::select! {
            () = &mut shutdown => break,
            Some(_) = conns.join_next(), if !conns.is_empty() => {}
            conn = incoming.next() => {
                let mut conn = match conn {
                    None => break,
                    Some(Err(_)) => continue,
                    Some(Ok(conn)) => conn,
                };
                let (goaway, gone) = conn.signals();
                let mut stop = stop.clone();
                let signal = async move {
                    let goaway = async {
                        match goaway {
                            Some(g) => g.await,
                            None => std::future::pending().await,
                        }
                    };
                    tokio::select! {
                        () = goaway => {}
                        _ = gone => {}
                        _ = stop.wait_for(|s| *s) => {}
                    }
                };
                // One connection, then none: the server waits for the signal.
                let one = tokio_stream::once(Ok::<_, io::Error>(conn))
                    .chain(tokio_stream::pending());
                let served = router.clone().serve_with_incoming_shutdown(one, signal);
                conns.spawn(served.map(|r| {
                    if let Err(e) = r {
                        tracing::debug!("serving a connection failed: {e}");
                    }
                }));
            }
        }
    }
    // Stop accepting at once (the listener closes), then drain.
    drop(incoming);
    let _ = stopping.send(true);
    while conns.join_next().await.is_some() {}
}
