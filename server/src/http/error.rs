//! gRPC statuses as HTTP errors: the one table from status code to HTTP
//! status, and the JSON body every error of the HTTP face has.
//!
//! The mapping is google.rpc's (the one grpc-gateway and Google APIs use), so
//! HTTP clients can branch on the status as they would anywhere else;
//! FAILED_PRECONDITION is 400 as there (not 412: no HTTP precondition header
//! is involved). The body carries the gRPC code's name, the message and the
//! `reason` of the status's google.rpc.ErrorInfo detail, which is what
//! programs should branch on.

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use tonic::{Code, Status};
use tonic_types::StatusExt;

/// An error of the HTTP face, rendered as `{"code", "message", "reason"}`.
#[derive(Debug)]
pub struct ApiError {
    /// The gRPC code.
    pub code: Code,
    /// What was wrong, in words.
    pub message: String,
    /// The ErrorInfo reason ("GAME_NOT_FOUND", ...), empty when unknown.
    pub reason: String,
    /// Seconds to wait before retrying, from a RetryInfo detail.
    pub retry_after_secs: Option<u64>,
    /// Overrides the status derived from `code` (413 for oversized bodies).
    pub http_status: Option<StatusCode>,
}

impl ApiError {
    /// An error of `code` with `message` and `reason`.
    pub fn new(code: Code, message: impl Into<String>, reason: &str) -> ApiError {
        ApiError {
            code,
            message: message.into(),
            reason: reason.to_owned(),
            retry_after_secs: None,
            http_status: None,
        }
    }

    /// The body is not the JSON of the expected message.
    pub fn bad_json(message: impl Into<String>) -> ApiError {
        ApiError::new(Code::InvalidArgument, message, "INVALID_ARGUMENT")
    }

    /// The body is larger than the server's largest message.
    pub fn too_large(limit: usize) -> ApiError {
        ApiError {
            http_status: Some(StatusCode::PAYLOAD_TOO_LARGE),
            ..ApiError::new(
                Code::ResourceExhausted,
                format!("limit reached: the body is larger than {limit} bytes"),
                "LIMIT_REACHED",
            )
        }
    }

    /// The body did not arrive whole within `deadline`: 408.
    pub fn slow_body(deadline: std::time::Duration) -> ApiError {
        ApiError {
            http_status: Some(StatusCode::REQUEST_TIMEOUT),
            ..ApiError::new(
                Code::DeadlineExceeded,
                format!(
                    "the body did not arrive within {} s of its request",
                    deadline.as_secs()
                ),
                // No ErrorReason: the call never reached the contract.
                "",
            )
        }
    }

    /// The JSON body of the error.
    pub fn body(&self) -> serde_json::Value {
        serde_json::json!({
            "code": code_name(self.code),
            "message": self.message,
            "reason": self.reason,
        })
    }

    /// The HTTP status of the error.
    pub fn status(&self) -> StatusCode {
        self.http_status.unwrap_or_else(|| http_status(self.code))
    }
}

impl From<Status> for ApiError {
    fn from(status: Status) -> ApiError {
        let reason = status
            .get_details_error_info()
            .map(|info| info.reason)
            .unwrap_or_default();
        // Round up: retrying a little late is fine, a little early is refused.
        let retry_after_secs = status
            .get_details_retry_info()
            .and_then(|r| r.retry_delay)
            .map(|d| d.as_secs() + u64::from(d.subsec_nanos() > 0));
        ApiError {
            code: status.code(),
            message: status.message().to_owned(),
            reason,
            retry_after_secs,
            http_status: None,
        }
    }
}

impl From<crate::error::ServiceError> for ApiError {
    fn from(e: crate::error::ServiceError) -> ApiError {
        ApiError::from(Status::from(e))
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let mut response = (
            self.status(),
            [(header::CONTENT_TYPE, "application/json")],
            self.body().to_string(),
        )
            .into_response();
        if let Some(secs) = self.retry_after_secs {
            response
                .headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from(secs));
        }
        // RFC 9110: a 401 names the scheme that would do.
        if response.status() == StatusCode::UNAUTHORIZED {
            response
                .headers_mut()
                .insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
        }
        response
    }
}

/// The HTTP status of a gRPC code (google.rpc.Code's documented mapping).
pub fn http_status(code: Code) -> StatusCode {
    match code {
        Code::Ok => StatusCode::OK,
        Code::InvalidArgument | Code::FailedPrecondition | Code::OutOfRange => {
            StatusCode::BAD_REQUEST
        }
        Code::Unauthenticated => StatusCode::UNAUTHORIZED,
        Code::PermissionDenied => StatusCode::FORBIDDEN,
        Code::NotFound => StatusCode::NOT_FOUND,
        Code::AlreadyExists | Code::Aborted => StatusCode::CONFLICT,
        Code::ResourceExhausted => StatusCode::TOO_MANY_REQUESTS,
        Code::Cancelled => StatusCode::from_u16(499).expect("499 is a valid status"),
        Code::Unimplemented => StatusCode::NOT_IMPLEMENTED,
        Code::Unavailable => StatusCode::SERVICE_UNAVAILABLE,
        Code::DeadlineExceeded => StatusCode::GATEWAY_TIMEOUT,
        Code::Unknown | Code::Internal | Code::DataLoss => StatusCode::INTERNAL_SERVER_ERROR,
    }
}

/// The canonical name of a gRPC code ("NOT_FOUND").
pub fn code_name(code: Code) -> &'static str {
    match code {
        Code::Ok => "OK",
        Code::Cancelled => "CANCELLED",
        Code::Unknown => "UNKNOWN",
        Code::InvalidArgument => "INVALID_ARGUMENT",
        Code::DeadlineExceeded => "DEADLINE_EXCEEDED",
        Code::NotFound => "NOT_FOUND",
        Code::AlreadyExists => "ALREADY_EXISTS",
        Code::PermissionDenied => "PERMISSION_DENIED",
        Code::ResourceExhausted => "RESOURCE_EXHAUSTED",
        Code::FailedPrecondition => "FAILED_PRECONDITION",
        Code::Aborted => "ABORTED",
        Code::OutOfRange => "OUT_OF_RANGE",
        Code::Unimplemented => "UNIMPLEMENTED",
        Code::Internal => "INTERNAL",
        Code::Unavailable => "UNAVAILABLE",
        Code::DataLoss => "DATA_LOSS",
        Code::Unauthenticated => "UNAUTHENTICATED",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_map_to_the_google_rpc_statuses() {
        assert_eq!(http_status(Code::InvalidArgument), 400);
        assert_eq!(http_status(Code::FailedPrecondition), 400);
        assert_eq!(http_status(Code::Unauthenticated), 401);
        assert_eq!(http_status(Code::PermissionDenied), 403);
        assert_eq!(http_status(Code::NotFound), 404);
        assert_eq!(http_status(Code::AlreadyExists), 409);
        assert_eq!(http_status(Code::Aborted), 409);
        assert_eq!(http_status(Code::ResourceExhausted), 429);
        assert_eq!(http_status(Code::Unavailable), 503);
        assert_eq!(http_status(Code::Internal), 500);
    }

    #[test]
    fn error_info_and_retry_info_are_read_from_the_status() {
        use tonic_types::{ErrorDetails, StatusExt};
        let mut details = ErrorDetails::with_error_info("RATE_LIMITED", "druids.dev", []);
        details.set_retry_info(Some(std::time::Duration::from_millis(1500)));
        let status = Status::with_error_details(Code::ResourceExhausted, "slow down", details);
        let e = ApiError::from(status);
        assert_eq!(e.reason, "RATE_LIMITED");
        assert_eq!(e.retry_after_secs, Some(2));
        assert_eq!(e.status(), 429);
        assert_eq!(e.body()["code"], "RESOURCE_EXHAUSTED");
    }
}
