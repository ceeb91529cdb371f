//! The gRPC port's edge: what tonic lets through or answers on its own that
//! the contract refuses in its own words.
//!
//! tonic serves any content type, decodes a unary call's first message and
//! drops the rest, and answers a request it cannot decode with a bare
//! `INTERNAL` (or a size refusal with `OUT_OF_RANGE`) and no
//! `google.rpc.ErrorInfo`. This layer, around every service of the port:
//!
//! * refuses a request whose `content-type` is not `application/grpc…` with
//!   HTTP 415, as the gRPC over HTTP/2 spec asks;
//! * refuses request metadata over [`MAX_METADATA_BYTES`] with
//!   `RESOURCE_EXHAUSTED` (`LIMIT_REACHED`); HTTP/2 itself lets up to
//!   [`HTTP2_MAX_HEADER_LIST`] through so that the refusal is a gRPC answer;
//! * refuses a second request message with `INVALID_ARGUMENT` (every method
//!   of the port takes one, but reflection's stream), and a request message
//!   that has not arrived whole within its deadline (three handshake
//!   timeouts, as the HTTP face's bodies), so that a call trickled a byte at
//!   a time holds no stream for long;
//! * counts the calls whose request is not whole when the server first
//!   reads it (a client's message almost always comes with its headers) and
//!   refuses one beyond `--max-waiting-calls-per-address` from its client's
//!   address, or beyond `--max-waiting-calls` in all, with
//!   `RESOURCE_EXHAUSTED` (`RATE_LIMITED`, retry in 100 ms): each such call
//!   holds its headers and its handler's state until its request ends, so
//!   calls opened without ever sending one would otherwise hold memory
//!   bounded only by the connections and the calls per connection
//!   (gigabytes from one address);
//! * gives tonic's decode and size refusals the contract's code and an
//!   `ErrorInfo` (`INVALID_ARGUMENT`, `RESOURCE_EXHAUSTED` with
//!   `LIMIT_REACHED`), and its `UNIMPLEMENTED` (an unknown method, an
//!   unsupported `grpc-encoding`) an `ErrorInfo` (`INVALID_ARGUMENT`).

use std::net::IpAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::Bytes;
use http_body::{Body, Frame, SizeHint};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tonic::transport::server::{TcpConnectInfo, TlsConnectInfo};
use tonic::{Code, Status};

use crate::config::Limits;
use crate::error::ServiceError;
use crate::quota::{Share, Shares, client_address};

/// Largest request metadata (header names and values, summed) a call may
/// carry: gRPC's usual 8 KiB and then some.
pub const MAX_METADATA_BYTES: usize = 16 * 1024;
/// Largest header block HTTP/2 accepts before answering on its own (431).
pub const HTTP2_MAX_HEADER_LIST: u32 = 64 * 1024;

/// The layer ([`tower::Layer`]) putting [`GrpcEdge`] around the port's services.
#[derive(Clone, Debug)]
pub struct GrpcEdgeLayer {
    /// How long a request message may take to arrive whole.
    body_deadline: Duration,
    waiting: Arc<Waiting>,
}

impl GrpcEdgeLayer {
    /// The edge as `limits` set it.
    pub fn new(limits: &Limits) -> GrpcEdgeLayer {
        GrpcEdgeLayer {
            body_deadline: crate::transport::body_deadline(limits),
            waiting: Arc::new(Waiting {
                by_address: Shares::default(),
                per_address: limits.max_waiting_calls_per_address,
                all: (limits.max_waiting_calls > 0).then(|| {
                    Arc::new(Semaphore::new(
                        limits.max_waiting_calls.min(Semaphore::MAX_PERMITS),
                    ))
                }),
                max: limits.max_waiting_calls,
            }),
        }
    }
}

impl<S> tower::Layer<S> for GrpcEdgeLayer {
    type Service = GrpcEdge<S>;

    fn layer(&self, inner: S) -> GrpcEdge<S> {
        GrpcEdge {
            inner,
            body_deadline: self.body_deadline,
            waiting: Arc::clone(&self.waiting),
        }
    }
}

/// See the module.
#[derive(Clone, Debug)]
pub struct GrpcEdge<S> {
    inner: S,
    body_deadline: Duration,
    waiting: Arc<Waiting>,
}

/// The budgets of calls waiting for their request: by client address
/// (`0`: none) and in all (`None`: none).
#[derive(Debug)]
struct Waiting {
    by_address: Shares,
    per_address: usize,
    all: Option<Arc<Semaphore>>,
    max: usize,
}

/// A waiting call's place in [`Waiting`]'s budgets, given back when dropped.
struct WaitingPlace {
    _all: Option<OwnedSemaphorePermit>,
    _address: Option<Share>,
}

impl Waiting {
    /// A place for one more waiting call from `peer`, or the refusal: a
    /// place frees as soon as a waiting call's message comes, so a client
    /// that met the limit by bad luck (its message came a moment after its
    /// headers, on a busy server) is told to retry shortly.
    fn take(&self, peer: Option<IpAddr>) -> Result<WaitingPlace, ServiceError> {
        let refusal = |what: String| ServiceError::RateLimited {
            what,
            retry_after: WAITING_RETRY,
        };
        let all = match &self.all {
            None => None,
            Some(all) => Some(Arc::clone(all).try_acquire_owned().map_err(|_| {
                refusal(format!(
                    "this server has {} calls waiting for their request message, its most \
                     (send each call's message with it)",
                    self.max
                ))
            })?),
        };
        let address = match peer {
            Some(peer) if self.per_address > 0 => Some(
                self.by_address
                    .take(peer, self.per_address)
                    .ok_or_else(|| {
                        refusal(format!(
                            "at most {} calls from one address may wait for their request message \
                         at once (send each call's message with it)",
                            self.per_address
                        ))
                    })?,
            ),
            _ => None,
        };
        Ok(WaitingPlace {
            _all: all,
            _address: address,
        })
    }
}

/// The delay a refused waiting call is told to retry after.
const WAITING_RETRY: Duration = Duration::from_millis(100);

/// The client address of a request, as its connection says.
fn client_of(req: &Req) -> Option<IpAddr> {
    let ext = req.extensions();
    ext.get::<TcpConnectInfo>()
        .and_then(TcpConnectInfo::remote_addr)
        .or_else(|| {
            ext.get::<TlsConnectInfo<TcpConnectInfo>>()
                .and_then(|tls| tls.get_ref().remote_addr())
        })
        .map(|a| client_address(a.ip()))
}

type Req = http::Request<tonic::body::Body>;
type Resp = http::Response<tonic::body::Body>;

impl<S> tower::Service<Req> for GrpcEdge<S>
where
    S: tower::Service<Req, Response = Resp> + Send,
    S::Future: Send + 'static,
{
    type Response = Resp;
    type Error = S::Error;
    type Future = Pin<Box<dyn Future<Output = Result<Resp, S::Error>> + Send>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, req: Req) -> Self::Future {
        if let Some(refusal) = refused(&req) {
            return Box::pin(async move { Ok(refusal) });
        }
        let streaming = req.uri().path().starts_with("/grpc.reflection.");
        let deadline = self.body_deadline;
        let req = if streaming {
            req
        } else {
            let waiting = Some((Arc::clone(&self.waiting), client_of(&req)));
            req.map(|body| tonic::body::Body::new(OneMessage::new(body, deadline, waiting)))
        };
        let answer = self.inner.call(req);
        Box::pin(async move { answer.await.map(remap) })
    }
}

/// The answer to a request refused on its headers alone.
fn refused(req: &Req) -> Option<Resp> {
    let content_type = req
        .headers()
        .get(http::header::CONTENT_TYPE)
        .map(|v| v.as_bytes())
        .unwrap_or(b"");
    if !content_type.starts_with(b"application/grpc") {
        let mut answer = Status::from(ServiceError::invalid(
            "content-type",
            format!(
                "this port speaks gRPC: content-type must be application/grpc, not {}",
                crate::error::clip(&String::from_utf8_lossy(content_type))
            ),
        ))
        .into_http();
        *answer.status_mut() = http::StatusCode::UNSUPPORTED_MEDIA_TYPE;
        return Some(answer);
    }
    oversized_metadata(req.headers()).map(|e| Status::from(e).into_http())
}

/// The refusal of request headers over [`MAX_METADATA_BYTES`] (names and
/// values, summed), on either face.
pub(crate) fn oversized_metadata(headers: &http::HeaderMap) -> Option<ServiceError> {
    let metadata: usize = headers
        .iter()
        .map(|(k, v)| k.as_str().len() + v.len())
        .sum();
    (metadata > MAX_METADATA_BYTES).then(|| {
        ServiceError::Limit(format!(
            "the request's metadata is {metadata} bytes, more than the {MAX_METADATA_BYTES} this server accepts"
        ))
    })
}

/// Gives tonic's own refusals of a request it could not decode the
/// contract's code and an `ErrorInfo`: a size refusal (`OUT_OF_RANGE`)
/// becomes `RESOURCE_EXHAUSTED` (`LIMIT_REACHED`), a decode failure
/// (the contract codec's `INVALID_ARGUMENT`, or tonic's `INTERNAL`)
/// `INVALID_ARGUMENT` (`INVALID_ARGUMENT`). Refusals before a
/// handler runs are trailers-only responses carrying their `Status`.
fn remap(response: Resp) -> Resp {
    // tonic keeps a refusal's `Status` with its answer, but for an unknown
    // method, whose trailers-only answer carries it in its headers alone.
    let from_headers;
    let status = match response.extensions().get::<Status>() {
        Some(status) => status,
        None => match Status::from_header_map(response.headers()) {
            Some(status) => {
                from_headers = status;
                &from_headers
            }
            None => return response,
        },
    };
    if !status.details().is_empty() {
        return response;
    }
    // A decoder's message can repeat the path of every nested message it
    // was in: bounded, as everything a refusal says of the request.
    let message = status.message();
    let said = match crate::error::cut(message, MAX_DECODER_MESSAGE_BYTES) {
        whole if whole.len() == message.len() => whole.to_owned(),
        part => format!("{part}…"),
    };
    let error = match status.code() {
        // The contract's codec (druids_contract::wire) already calls a
        // malformed body INVALID_ARGUMENT: it gains its ErrorInfo here.
        Code::InvalidArgument => ServiceError::invalid("request", said),
        Code::OutOfRange => ServiceError::Limit(format!(
            "the request is larger than this server accepts (see --max-message-bytes): {said}"
        )),
        Code::Internal if is_decode_failure(status.message()) => ServiceError::invalid(
            "request",
            format!("the request is not one message of the method's type: {said}"),
        ),
        // An unknown method (tonic says nothing), or a `grpc-encoding` this
        // server does not take.
        Code::Unimplemented if message.is_empty() => {
            ServiceError::Unimplemented("this server has no such method".into())
        }
        Code::Unimplemented => ServiceError::Unimplemented(said),
        _ => return response,
    };
    Status::from(error).into_http()
}

/// Most bytes of a decoder's own message a refusal repeats.
const MAX_DECODER_MESSAGE_BYTES: usize = 200;

/// Whether `message` is one of tonic's (and prost's) own for a request it
/// could not decode: its other `INTERNAL`s, and the server's, stay what they
/// are. (gRPC asks `INTERNAL` for a compressed flag without an encoding; the
/// contract calls every malformed request `INVALID_ARGUMENT`, so that
/// clients never retry it.)
fn is_decode_failure(message: &str) -> bool {
    [
        "failed to decode Protobuf message",
        "Missing request message",
        "Unexpected EOF decoding stream",
        "protocol error: received message",
        "Error decompressing",
    ]
    .iter()
    .any(|m| message.starts_with(m))
}

/// A request body that ends in an error at the start of a second gRPC
/// message (a unary or server-streaming call takes exactly one), or when it
/// is still awaited at its deadline, or when it is not whole at once and the
/// budgets of waiting calls are spent.
struct OneMessage {
    inner: tonic::body::Body,
    /// The budgets and the client, while the body has not been awaited.
    waiting: Option<(Arc<Waiting>, Option<IpAddr>)>,
    /// The place taken in them once the body was awaited, until it ends.
    place: Option<WaitingPlace>,
    /// When the request came, and how long its body may take.
    since: tokio::time::Instant,
    within: Duration,
    /// The timer of that deadline, set once the body is first awaited (most
    /// bodies are whole at once).
    deadline: Option<Pin<Box<tokio::time::Sleep>>>,
    /// Messages begun so far.
    begun: u32,
    /// Bytes of the current message's 5-byte prefix read so far.
    prefix: [u8; 5],
    prefix_read: usize,
    /// Bytes of the current message still to come.
    remaining: u64,
}

impl OneMessage {
    fn new(
        inner: tonic::body::Body,
        within: Duration,
        waiting: Option<(Arc<Waiting>, Option<IpAddr>)>,
    ) -> OneMessage {
        OneMessage {
            inner,
            waiting,
            place: None,
            since: tokio::time::Instant::now(),
            within,
            deadline: None,
            begun: 0,
            prefix: [0; 5],
            prefix_read: 0,
            remaining: 0,
        }
    }

    /// Follows the framing through `data`; false at a second message.
    fn follow(&mut self, mut data: &[u8]) -> bool {
        while !data.is_empty() {
            if self.remaining > 0 {
                let n = data
                    .len()
                    .min(usize::try_from(self.remaining).unwrap_or(usize::MAX));
                self.remaining -= n as u64;
                data = &data[n..];
                continue;
            }
            if self.prefix_read == 0 {
                self.begun += 1;
                if self.begun > 1 {
                    return false;
                }
            }
            let n = (5 - self.prefix_read).min(data.len());
            self.prefix[self.prefix_read..self.prefix_read + n].copy_from_slice(&data[..n]);
            self.prefix_read += n;
            data = &data[n..];
            if self.prefix_read == 5 {
                let len = [
                    self.prefix[1],
                    self.prefix[2],
                    self.prefix[3],
                    self.prefix[4],
                ];
                self.remaining = u64::from(u32::from_be_bytes(len));
                self.prefix_read = 0;
            }
        }
        true
    }
}

impl Body for OneMessage {
    type Data = Bytes;
    type Error = Status;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Status>>> {
        let frame = match Pin::new(&mut self.inner).poll_frame(cx) {
            Poll::Ready(frame) => frame,
            Poll::Pending => {
                if let Some((waiting, peer)) = self.waiting.take() {
                    match waiting.take(peer) {
                        Ok(place) => self.place = Some(place),
                        Err(refusal) => return Poll::Ready(Some(Err(Status::from(refusal)))),
                    }
                }
                let until = self.since + self.within;
                let deadline = self
                    .deadline
                    .get_or_insert_with(|| Box::pin(tokio::time::sleep_until(until)));
                if deadline.as_mut().poll(cx).is_ready() {
                    let within = self.within.as_secs();
                    return Poll::Ready(Some(Err(Status::from(ServiceError::invalid(
                        "request",
                        format!("the request message did not arrive whole within {within} s"),
                    )))));
                }
                return Poll::Pending;
            }
        };
        if !matches!(frame, Some(Ok(_))) {
            // The request has ended (or failed): it waits no more.
            self.place = None;
        }
        if let Some(Ok(frame)) = &frame
            && let Some(data) = frame.data_ref()
            && !self.follow(data)
        {
            return Poll::Ready(Some(Err(Status::from(ServiceError::invalid(
                "request",
                "a unary call takes one request message: the request holds more",
            )))));
        }
        Poll::Ready(frame)
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn framed(messages: &[&[u8]]) -> Vec<u8> {
        let mut out = Vec::new();
        for m in messages {
            out.push(0);
            out.extend_from_slice(&(m.len() as u32).to_be_bytes());
            out.extend_from_slice(m);
        }
        out
    }

    #[test]
    fn a_second_message_is_seen_wherever_the_chunks_split() {
        let one = framed(&[b"abc"]);
        let two = framed(&[b"abc", b""]);
        for split in 0..=two.len() {
            let mut body =
                OneMessage::new(tonic::body::Body::empty(), Duration::from_secs(30), None);
            let (a, b) = two.split_at(split);
            assert!(!(body.follow(a) && body.follow(b)), "split at {split}");
        }
        for split in 0..=one.len() {
            let mut body =
                OneMessage::new(tonic::body::Body::empty(), Duration::from_secs(30), None);
            let (a, b) = one.split_at(split);
            assert!(body.follow(a) && body.follow(b), "split at {split}");
        }
    }
}
