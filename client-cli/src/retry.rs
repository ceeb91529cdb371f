//! Which failed calls are worth making again, and after how long: one policy
//! for every command (single calls, event streams, seeks, the bridge).
//!
//! A call is made again only when the contract says a retry can succeed:
//! `UNAVAILABLE` (nothing was applied; also a game moving between nodes),
//! `RESOURCE_EXHAUSTED` (a rate or a quota, with the server's
//! `google.rpc.RetryInfo` delay when it gives one), and a connection that
//! broke under the call (`CANCELLED`, `DEADLINE_EXCEEDED`, or an `UNKNOWN`
//! or `INTERNAL` that tonic made from a transport error rather than one the
//! server sent: tonic says `INTERNAL` for a call that a GOAWAY reported as
//! not processed). Everything else — a server's own `INTERNAL` or
//! `UNKNOWN`, refusals — is final. Only calls that are safe to repeat go through here: reads, and
//! submissions that carry an idempotency key.

use std::future::Future;
use std::time::Duration;

use tonic::{Code, Status};
use tonic_types::StatusExt;

/// Whether the call that failed with `s` may succeed when made again.
pub fn transient(s: &Status) -> bool {
    match s.code() {
        Code::Unavailable | Code::ResourceExhausted | Code::Cancelled | Code::DeadlineExceeded => {
            true
        }
        // tonic reports a broken connection as UNKNOWN, and a call that a
        // GOAWAY reported as not processed as INTERNAL, each with the
        // transport's error as its source; a status the server sent has none.
        Code::Unknown | Code::Internal => std::error::Error::source(s).is_some(),
        _ => false,
    }
}

/// The delay the server asks for in its `google.rpc.RetryInfo`, if any.
pub fn asked_delay(s: &Status) -> Option<Duration> {
    s.get_details_retry_info().and_then(|r| r.retry_delay)
}

/// Times one call is made again before its last error is returned.
const TRIES: u32 = 50;

/// Makes `call` again while it fails [`transient`]ly, after the delay the
/// server asks for (else a short growing pause), at most [`TRIES`] times.
/// `who` names the caller in a line on stderr per retry ("" for none).
pub async fn patiently<T, F, Fut>(who: &str, mut call: F) -> Result<T, Status>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<tonic::Response<T>, Status>>,
{
    let mut tries = 0;
    loop {
        match call().await {
            Ok(r) => return Ok(r.into_inner()),
            Err(s) if transient(&s) && tries < TRIES => {
                tries += 1;
                let pause = asked_delay(&s)
                    .unwrap_or(Duration::from_millis(10 * u64::from(tries)))
                    .clamp(Duration::from_millis(1), Duration::from_secs(5));
                if !who.is_empty() {
                    eprintln!(
                        "{who}: {}: {}; retrying in {pause:.1?}",
                        code_name(s.code()),
                        s.message()
                    );
                }
                tokio::time::sleep(pause).await;
            }
            Err(s) => return Err(s),
        }
    }
}

/// The gRPC name of a status code, as bot authors know it.
pub fn code_name(code: Code) -> &'static str {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_what_the_contract_calls_passing_is_retried() {
        for code in [
            Code::Unavailable,
            Code::ResourceExhausted,
            Code::Cancelled,
            Code::DeadlineExceeded,
        ] {
            assert!(transient(&Status::new(code, "x")), "{code:?}");
        }
        for code in [
            Code::Internal,
            Code::Unknown,
            Code::Aborted,
            Code::FailedPrecondition,
            Code::InvalidArgument,
            Code::NotFound,
        ] {
            assert!(!transient(&Status::new(code, "x")), "{code:?}");
        }
        let broken = Status::from_error(Box::new(std::io::Error::other("connection reset")));
        assert_eq!(broken.code(), Code::Unknown);
        assert!(transient(&broken), "a broken connection is retried");
        let goaway = Status::from_error(Box::new(h2::Error::from(h2::Reason::NO_ERROR)));
        assert_eq!(goaway.code(), Code::Internal);
        assert!(
            transient(&goaway),
            "a call a GOAWAY did not process is retried"
        );
    }
}
