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
use std::time::{Duration, Instant};

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

/// How long retries that the server asks for (its status carries a
/// `RetryInfo`) go on in a row. A game moving to another node after its
/// owner died waits for the owner's lease to lapse (10 s by default,
/// `--lease-secs`); the server says to retry all along.
pub const PATIENCE: Duration = Duration::from_secs(60);

/// Failures in a row of one call or stream, and when to give up on it: a
/// retry the server asked for waits what it asked, for at most
/// [`PATIENCE`] from the first such failure; any other failure counts, at
/// most `limit` in a row.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Failures {
    limit: u32,
    unasked: u32,
    asked_since: Option<Instant>,
}

impl Failures {
    /// None yet; at most `limit` failures without a `RetryInfo` in a row.
    pub fn new(limit: u32) -> Failures {
        Failures {
            limit,
            unasked: 0,
            asked_since: None,
        }
    }

    /// The call or stream went on: the count starts again.
    pub fn cleared(&mut self) {
        self.unasked = 0;
        self.asked_since = None;
    }

    /// Failures without a `RetryInfo` in a row.
    #[cfg(test)]
    pub fn unasked(&self) -> u32 {
        self.unasked
    }

    /// One more failure, `asked` the delay its status asked for: the pause
    /// before trying again (`unasked_pause` of the count of unasked
    /// failures, for one that asked nothing), or None to give up.
    pub fn next(
        &mut self,
        asked: Option<Duration>,
        unasked_pause: impl FnOnce(u32) -> Duration,
    ) -> Option<Duration> {
        match asked {
            Some(delay) => {
                let since = *self.asked_since.get_or_insert_with(Instant::now);
                (since.elapsed() + delay <= PATIENCE).then_some(delay)
            }
            None if self.unasked < self.limit => {
                self.unasked += 1;
                Some(unasked_pause(self.unasked))
            }
            None => None,
        }
    }
}

/// Times one call is made again, without the server asking, before its
/// last error is returned.
const TRIES: u32 = 50;

/// Makes `call` again while it fails [`transient`]ly, after the delay the
/// server asks for (for at most [`PATIENCE`]), else after a short growing
/// pause (at most [`TRIES`] times). `who` names the caller in a line on
/// stderr per retry ("" for none).
pub async fn patiently<T, F, Fut>(who: &str, mut call: F) -> Result<T, Status>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<tonic::Response<T>, Status>>,
{
    let mut failures = Failures::new(TRIES);
    loop {
        match call().await {
            Ok(r) => return Ok(r.into_inner()),
            Err(s) if transient(&s) => {
                let Some(pause) = failures.next(asked_delay(&s), |n| {
                    Duration::from_millis(10 * u64::from(n))
                }) else {
                    return Err(s);
                };
                let pause = pause.clamp(Duration::from_millis(1), Duration::from_secs(5));
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
    fn retries_the_server_asks_for_go_on_for_a_while_others_are_counted() {
        let mut f = Failures::new(3);
        let asked = Some(Duration::from_millis(200));
        // Far more asked retries than the limit: a takeover's worth.
        for _ in 0..100 {
            assert_eq!(f.next(asked, |_| Duration::ZERO), asked);
        }
        assert_eq!(
            f.next(Some(PATIENCE), |_| Duration::ZERO),
            None,
            "past PATIENCE"
        );
        let pause = |n| Duration::from_millis(u64::from(n));
        for n in 1..=3 {
            assert_eq!(f.next(None, pause), Some(Duration::from_millis(n)));
        }
        assert_eq!(f.next(None, pause), None, "the limit of unasked failures");
        f.cleared();
        assert_eq!(
            (f.unasked(), f.next(None, pause)),
            (0, Some(Duration::from_millis(1)))
        );
    }

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
