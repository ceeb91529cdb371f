//! `POST /api/v1/<Method>` and the event streams: each HTTP request becomes a
//! `tonic::Request` for the same `DruidsService` method the gRPC face calls.
//!
//! Building the request here, rather than calling the service's internals,
//! is what keeps the faces identical: the method validates, authenticates,
//! applies limits and fails exactly as it does for gRPC.

use std::convert::Infallible;
use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::extract::{ConnectInfo, Path, RawQuery, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use druids_contract::json::{from_json, to_json};
use druids_contract::pb::{self, druids_service_server::DruidsService};
use tokio::sync::mpsc;
use tokio_stream::StreamExt;
use tonic::metadata::AsciiMetadataValue;
use tonic::transport::server::TcpConnectInfo;
use tonic::{Code, Request, Status};

use super::{ApiError, Ctx};
use crate::service::{EventStream, Service};

/// How often an idle event stream sends a keep-alive line, so that proxies
/// and browsers do not close a stream of a game where nobody moves.
const KEEPALIVE: Duration = Duration::from_secs(15);

/// `msg` as a request of the gRPC face: the `authorization` header becomes
/// metadata and the peer address goes where tonic puts it, so per-address
/// limits see HTTP clients as they see gRPC clients.
pub(super) fn grpc_request<T>(
    local: Option<SocketAddr>,
    peer: SocketAddr,
    headers: &HeaderMap,
    msg: T,
) -> Result<Request<T>, ApiError> {
    let mut req = Request::new(msg);
    if let Some(value) = headers.get(header::AUTHORIZATION) {
        let value = value
            .to_str()
            .ok()
            .and_then(|v| AsciiMetadataValue::try_from(v).ok())
            .ok_or_else(|| {
                ApiError::new(
                    Code::InvalidArgument,
                    "the authorization header is not ASCII",
                    "INVALID_ARGUMENT",
                )
            })?;
        req.metadata_mut().insert("authorization", value);
    }
    req.extensions_mut().insert(TcpConnectInfo {
        local_addr: local,
        remote_addr: Some(peer),
    });
    Ok(req)
}

/// The body as JSON, refusing bodies over the server's largest message with
/// 413 (an empty body is `{}`: every field at its default).
pub(super) async fn read_json(
    service: &Service,
    headers: &HeaderMap,
    body: Body,
) -> Result<serde_json::Value, ApiError> {
    let limit = service.limits().max_message_bytes;
    let declared = headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|n| n > limit as u64) {
        return Err(ApiError::too_large(limit));
    }
    // A body without a length is cut off at the limit while it arrives.
    let bytes = axum::body::to_bytes(body, limit)
        .await
        .map_err(|_| ApiError::too_large(limit))?;
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Ok(serde_json::json!({}));
    }
    serde_json::from_slice(&bytes)
        .map_err(|e| ApiError::bad_json(format!("the body is not JSON: {e}")))
}

/// The message `M` in `json`, or INVALID_ARGUMENT.
pub(super) fn message<M: prost::Name + Default>(json: &serde_json::Value) -> Result<M, ApiError> {
    from_json::<M>(json).map_err(|e| ApiError::bad_json(e.to_string()))
}

/// A JSON 200 response holding `msg`.
fn ok<M: prost::Name>(msg: &M) -> Response {
    (
        [(header::CONTENT_TYPE, "application/json")],
        to_json(msg).to_string(),
    )
        .into_response()
}

/// What one HTTP request carries, besides its body.
struct Call {
    service: Arc<Service>,
    local: Option<SocketAddr>,
    peer: SocketAddr,
    headers: HeaderMap,
    json: serde_json::Value,
}

impl Call {
    /// Runs the unary method `f` on the body read as `Req`.
    async fn unary<Req, Resp, F, Fut>(self, f: F) -> Result<Response, ApiError>
    where
        Req: prost::Name + Default,
        Resp: prost::Name,
        F: FnOnce(Arc<Service>, Request<Req>) -> Fut,
        Fut: Future<Output = Result<tonic::Response<Resp>, Status>>,
    {
        let msg = message::<Req>(&self.json)?;
        let req = grpc_request(self.local, self.peer, &self.headers, msg)?;
        let resp = f(self.service, req).await?;
        Ok(ok(resp.get_ref()))
    }
}

/// `POST /api/v1/<Method>`: one RPC of the contract, JSON in, JSON out.
pub(super) async fn rpc(
    State(ctx): State<Ctx>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    Path(method): Path<String>,
    headers: HeaderMap,
    body: Body,
) -> Response {
    let json = match read_json(&ctx.service, &headers, body).await {
        Ok(json) => json,
        Err(e) => return e.into_response(),
    };
    let call = Call {
        service: Arc::clone(&ctx.service),
        local: ctx.local,
        peer,
        headers,
        json,
    };
    let result = match method.as_str() {
        "CreateGame" => {
            call.unary(|s, r: Request<pb::CreateGameRequest>| async move { s.create_game(r).await })
                .await
        }
        "JoinGame" => {
            call.unary(|s, r: Request<pb::JoinGameRequest>| async move { s.join_game(r).await })
                .await
        }
        "GetLegalActions" => {
            call.unary(|s, r: Request<pb::GetLegalActionsRequest>| async move {
                s.get_legal_actions(r).await
            })
            .await
        }
        "SubmitAction" => {
            call.unary(
                |s, r: Request<pb::SubmitActionRequest>| async move { s.submit_action(r).await },
            )
            .await
        }
        "GetState" => {
            call.unary(|s, r: Request<pb::GetStateRequest>| async move { s.get_state(r).await })
                .await
        }
        "ListGames" => {
            call.unary(|s, r: Request<pb::ListGamesRequest>| async move { s.list_games(r).await })
                .await
        }
        "ExportReplay" => {
            call.unary(
                |s, r: Request<pb::ExportReplayRequest>| async move { s.export_replay(r).await },
            )
            .await
        }
        "ListGameTypes" => {
            call.unary(|s, r: Request<pb::ListGameTypesRequest>| async move {
                s.list_game_types(r).await
            })
            .await
        }
        "StreamEvents" => match message::<pb::StreamEventsRequest>(&call.json) {
            Ok(msg) => stream(&ctx, peer, &call.headers, msg).await,
            Err(e) => Err(e),
        },
        other => Err(ApiError {
            http_status: Some(StatusCode::NOT_FOUND),
            ..ApiError::new(
                Code::Unimplemented,
                format!(
                    "no method {:?} in druids.v1.DruidsService",
                    other.chars().take(64).collect::<String>()
                ),
                "",
            )
        }),
    };
    result.unwrap_or_else(IntoResponse::into_response)
}

/// `GET /api/v1/games`: ListGameTypes, the games this server hosts, for
/// clients that only read (the web viewer's forms and boards).
pub(super) async fn game_types(
    State(ctx): State<Ctx>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    headers: HeaderMap,
) -> Response {
    let answer = async {
        let req = grpc_request(ctx.local, peer, &headers, pb::ListGameTypesRequest {})?;
        let resp = ctx.service.list_game_types(req).await?;
        Ok::<_, ApiError>(ok(resp.get_ref()))
    };
    answer.await.unwrap_or_else(IntoResponse::into_response)
}

/// `GET /api/v1/games/{id}/events?from_seq=N`: StreamEvents as Server-Sent
/// Events (`Accept: text/event-stream`) or newline-delimited JSON (anything
/// else). `Last-Event-ID`, which browsers send when they reconnect, resumes
/// after that seq and wins over `from_seq`.
pub(super) async fn events(
    State(ctx): State<Ctx>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    Path(game_id): Path<String>,
    RawQuery(query): RawQuery,
    headers: HeaderMap,
) -> Response {
    let from_seq = match from_seq(query.as_deref(), &headers) {
        Ok(n) => n,
        Err(e) => return e.into_response(),
    };
    let msg = pb::StreamEventsRequest { game_id, from_seq };
    stream(&ctx, peer, &headers, msg)
        .await
        .unwrap_or_else(IntoResponse::into_response)
}

/// The seq to stream from: after `Last-Event-ID` if sent, else `from_seq` of
/// the query (default 0: a snapshot first).
fn from_seq(query: Option<&str>, headers: &HeaderMap) -> Result<u64, ApiError> {
    let bad = |what: &str| ApiError::bad_json(format!("{what} is not a sequence number"));
    if let Some(last) = headers.get("last-event-id") {
        let last: u64 = last
            .to_str()
            .ok()
            .and_then(|v| v.trim().parse().ok())
            .ok_or_else(|| bad("Last-Event-ID"))?;
        return Ok(last + 1);
    }
    for pair in query.unwrap_or("").split('&') {
        if let Some(("from_seq" | "fromSeq", value)) = pair.split_once('=') {
            return value.parse().map_err(|_| bad("from_seq"));
        }
    }
    Ok(0)
}

/// How the events of a stream are framed.
#[derive(Clone, Copy)]
enum Framing {
    Sse,
    Ndjson,
}

impl Framing {
    fn of(headers: &HeaderMap) -> Framing {
        let accept = headers
            .get(header::ACCEPT)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("");
        if accept.contains("text/event-stream") {
            Framing::Sse
        } else {
            Framing::Ndjson
        }
    }

    fn content_type(self) -> &'static str {
        match self {
            Framing::Sse => "text/event-stream",
            Framing::Ndjson => "application/x-ndjson",
        }
    }

    /// One event: its seq is the SSE id, so that `Last-Event-ID` resumes;
    /// except for an event not newer than one already sent (the pending
    /// DecisionNeeded repeated after a snapshot), which carries no id so that
    /// the browser's last id stays the snapshot's and a resumption repeats
    /// nothing the snapshot covered.
    fn event(self, event: &pb::GameEvent, newest: u64) -> Bytes {
        let json = to_json(event).to_string();
        Bytes::from(match self {
            Framing::Sse if event.seq <= newest => format!("data: {json}\n\n"),
            Framing::Sse => format!("id: {}\ndata: {json}\n\n", event.seq),
            Framing::Ndjson => format!("{json}\n"),
        })
    }

    /// An error that ended the stream (e.g. the server is shutting down).
    fn error(self, e: &ApiError) -> Bytes {
        Bytes::from(match self {
            Framing::Sse => format!("event: druids-error\ndata: {}\n\n", e.body()),
            Framing::Ndjson => format!("{}\n", serde_json::json!({ "error": e.body() })),
        })
    }

    /// A line that carries nothing, to keep an idle connection open (an SSE
    /// comment; an empty line in NDJSON, as Lichess does).
    fn keepalive(self) -> Bytes {
        Bytes::from_static(match self {
            Framing::Sse => b": keep-alive\n\n",
            Framing::Ndjson => b"\n",
        })
    }
}

/// Opens StreamEvents and turns it into a streaming HTTP body. Errors before
/// the first event (unknown game, bad token, too many streams) are ordinary
/// HTTP errors; the stream ends when the game is over, as over gRPC.
async fn stream(
    ctx: &Ctx,
    peer: SocketAddr,
    headers: &HeaderMap,
    msg: pb::StreamEventsRequest,
) -> Result<Response, ApiError> {
    let framing = Framing::of(headers);
    let req = grpc_request(ctx.local, peer, headers, msg)?;
    let events: EventStream = ctx.service.stream_events(req).await?.into_inner();
    let (tx, rx) = mpsc::channel::<Result<Bytes, Infallible>>(16);
    // A task, not a merged stream: it stops reading the service's stream (and
    // so frees the stream's slot) as soon as the client goes away.
    tokio::spawn(forward(events, tx, framing));
    Ok((
        [
            (header::CONTENT_TYPE, framing.content_type()),
            (header::CACHE_CONTROL, "no-cache"),
            // nginx and friends: pass each event on at once.
            (header::HeaderName::from_static("x-accel-buffering"), "no"),
        ],
        Body::from_stream(tokio_stream::wrappers::ReceiverStream::new(rx)),
    )
        .into_response())
}

async fn forward(
    mut events: EventStream,
    tx: mpsc::Sender<Result<Bytes, Infallible>>,
    framing: Framing,
) {
    let mut tick = tokio::time::interval_at(tokio::time::Instant::now() + KEEPALIVE, KEEPALIVE);
    let mut newest = 0;
    loop {
        let chunk = tokio::select! {
            item = events.next() => match item {
                None => break,
                Some(Ok(event)) => {
                    let chunk = framing.event(&event, newest);
                    newest = newest.max(event.seq);
                    chunk
                }
                Some(Err(status)) => {
                    let _ = tx.send(Ok(framing.error(&ApiError::from(status)))).await;
                    break;
                }
            },
            _ = tick.tick() => framing.keepalive(),
        };
        if tx.send(Ok(chunk)).await.is_err() {
            break;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn last_event_id_resumes_after_it_and_wins_over_the_query() {
        let mut headers = HeaderMap::new();
        assert_eq!(from_seq(None, &headers).unwrap(), 0);
        assert_eq!(from_seq(Some("from_seq=7"), &headers).unwrap(), 7);
        assert_eq!(from_seq(Some("x=1&fromSeq=3"), &headers).unwrap(), 3);
        assert!(from_seq(Some("from_seq=x"), &headers).is_err());
        headers.insert("last-event-id", "41".parse().unwrap());
        assert_eq!(from_seq(Some("from_seq=7"), &headers).unwrap(), 42);
    }
}
