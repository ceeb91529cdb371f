//! One HTTP request as a call of the contract: the JSON body read (bounded)
//! and decoded into the method's message, the `authorization` header and the
//! peer address carried over as a gRPC face would, the answer written back
//! as JSON. Both services' HTTP routes (`api.rs`, `arena.rs`) go through it.

use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;

use axum::body::Body;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use druids_contract::json::{from_json, to_json};
use tonic::metadata::AsciiMetadataValue;
use tonic::transport::server::TcpConnectInfo;
use tonic::{Code, Request, Status};

use super::ApiError;
use crate::service::Service;

/// `msg` as a request of the gRPC face: the `authorization` header becomes
/// metadata and the peer address goes where tonic puts it, so per-address
/// limits see HTTP clients as they see gRPC clients. Headers over the gRPC
/// port's metadata limit are refused as there (431 here).
pub(super) fn grpc_request<T>(
    local: Option<SocketAddr>,
    peer: SocketAddr,
    headers: &HeaderMap,
    msg: T,
) -> Result<Request<T>, ApiError> {
    if let Some(e) = crate::grpc_edge::oversized_metadata(headers) {
        return Err(ApiError {
            http_status: Some(StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE),
            ..e.into()
        });
    }
    let mut req = Request::new(msg);
    if headers
        .get_all(header::AUTHORIZATION)
        .iter()
        .nth(1)
        .is_some()
    {
        return Err(ApiError::new(
            Code::InvalidArgument,
            "the request has more than one authorization header: send one",
            "INVALID_ARGUMENT",
        ));
    }
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

/// A POST's body as JSON, once its headers pass the checks against other
/// sites' pages ([`super::cross_site`]: 403, 415), refusing bodies over the
/// server's largest message with 413 (an empty body is `{}`: every field at
/// its default).
pub(super) async fn read_json(
    service: &Service,
    headers: &HeaderMap,
    body: Body,
) -> Result<serde_json::Value, ApiError> {
    super::cross_site::check_post(headers, &service.limits().http_allowed_origins)?;
    let limit = service.limits().max_message_bytes;
    let declared = headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|n| n > limit as u64) {
        return Err(ApiError::too_large(limit));
    }
    // A body without a length is cut off at the limit while it arrives, and
    // a body trickled in is cut off at its deadline: a connection is not
    // held for days by a byte every few seconds.
    let deadline = crate::transport::body_deadline(service.limits());
    let bytes = tokio::time::timeout(deadline, axum::body::to_bytes(body, limit))
        .await
        .map_err(|_| ApiError::slow_body(deadline))?
        .map_err(|e| unread(&e, limit))?;
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Ok(serde_json::json!({}));
    }
    // A key given twice is refused, not read as its last value.
    druids_contract::json::parse(&bytes)
        .map_err(|e| ApiError::bad_json(format!("the body is not JSON: {e}")))
}

/// Why a body could not be read: it grew past `limit` (413), or it ended
/// early or was malformed on the way (400: a client's error, not a limit).
fn unread(e: &axum::Error, limit: usize) -> ApiError {
    let mut cause: Option<&(dyn std::error::Error + 'static)> = Some(e);
    while let Some(c) = cause {
        if c.is::<http_body_util::LengthLimitError>() {
            return ApiError::too_large(limit);
        }
        cause = c.source();
    }
    ApiError::bad_json(
        "the body could not be read whole: it ended before its length, or its chunked encoding is malformed",
    )
}

/// The message `M` in `json`, or INVALID_ARGUMENT.
pub(super) fn message<M: prost::Name + Default>(json: &serde_json::Value) -> Result<M, ApiError> {
    from_json::<M>(json).map_err(|e| ApiError::bad_json(e.to_string()))
}

/// A JSON 200 response holding `msg`.
pub(super) fn ok<M: prost::Name>(msg: &M) -> Response {
    (
        [(header::CONTENT_TYPE, "application/json")],
        to_json(msg).to_string(),
    )
        .into_response()
}

/// What one HTTP request carries, besides its body.
pub(super) struct Call {
    pub(super) service: Arc<Service>,
    pub(super) local: Option<SocketAddr>,
    pub(super) peer: SocketAddr,
    pub(super) headers: HeaderMap,
    pub(super) json: serde_json::Value,
}

impl Call {
    /// Runs the unary method `f` on the body read as `Req`.
    pub(super) async fn unary<Req, Resp, F, Fut>(self, f: F) -> Result<Response, ApiError>
    where
        Req: prost::Name + Default,
        Resp: prost::Name,
        F: FnOnce(Arc<Service>, Request<Req>) -> Fut,
        Fut: Future<Output = Result<tonic::Response<Resp>, Status>>,
    {
        let service = Arc::clone(&self.service);
        self.unary_on(service, f).await
    }

    /// Runs the unary method `f` of `server` (a service of the contract)
    /// on the body read as `Req`.
    pub(super) async fn unary_on<S, Req, Resp, F, Fut>(
        self,
        server: S,
        f: F,
    ) -> Result<Response, ApiError>
    where
        Req: prost::Name + Default,
        Resp: prost::Name,
        F: FnOnce(S, Request<Req>) -> Fut,
        Fut: Future<Output = Result<tonic::Response<Resp>, Status>>,
    {
        let msg = message::<Req>(&self.json)?;
        let req = grpc_request(self.local, self.peer, &self.headers, msg)?;
        let resp = f(server, req).await?;
        Ok(ok(resp.get_ref()))
    }
}
