//! Talking to a druids server: connecting, attaching the seat token, and the
//! errors a command can end with.

use druids::pb::druids_service_client::DruidsServiceClient;
use tonic::transport::Channel;
use tonic::{Request, Status};

/// A client of the druids service.
pub type Client = DruidsServiceClient<Channel>;

/// Why a command failed.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    /// The server could not be reached.
    #[error("cannot reach the server at {url}: {source}")]
    Connect {
        /// The URL tried.
        url: String,
        /// Why.
        source: tonic::transport::Error,
    },
    /// The server refused a request.
    #[error("{}: {}", code_name(.0.code()), .0.message())]
    Status(#[from] Status),
    /// The command line does not make sense.
    #[error("{0}")]
    Usage(String),
    /// Reading or writing a file or the terminal failed.
    #[error("{0}")]
    Io(#[from] std::io::Error),
    /// The server sent something this client cannot use (a malformed view or
    /// action, a game it does not know).
    #[error("unexpected answer from the server: {0}")]
    Protocol(String),
}

/// The gRPC name of a status code, as bot authors know it.
pub fn code_name(code: tonic::Code) -> &'static str {
    use tonic::Code::*;
    match code {
        Ok => "OK",
        Cancelled => "CANCELLED",
        Unknown => "UNKNOWN",
        InvalidArgument => "INVALID_ARGUMENT",
        DeadlineExceeded => "DEADLINE_EXCEEDED",
        NotFound => "NOT_FOUND",
        AlreadyExists => "ALREADY_EXISTS",
        PermissionDenied => "PERMISSION_DENIED",
        ResourceExhausted => "RESOURCE_EXHAUSTED",
        FailedPrecondition => "FAILED_PRECONDITION",
        Aborted => "ABORTED",
        OutOfRange => "OUT_OF_RANGE",
        Unimplemented => "UNIMPLEMENTED",
        Internal => "INTERNAL",
        Unavailable => "UNAVAILABLE",
        DataLoss => "DATA_LOSS",
        Unauthenticated => "UNAUTHENTICATED",
    }
}

/// Connects to `url` (e.g. `http://127.0.0.1:50051`).
pub async fn connect(url: &str) -> Result<Client, CliError> {
    DruidsServiceClient::connect(url.to_owned())
        .await
        .map_err(|source| CliError::Connect {
            url: url.to_owned(),
            source,
        })
}

/// `message` carrying `token` (if any) as `authorization: Bearer <token>`.
pub fn authed<T>(token: Option<&str>, message: T) -> Result<Request<T>, CliError> {
    let mut req = Request::new(message);
    if let Some(t) = token {
        let value = format!("Bearer {t}")
            .parse()
            .map_err(|_| CliError::Usage("the token must be plain ASCII".into()))?;
        req.metadata_mut().insert("authorization", value);
    }
    Ok(req)
}
