//! The one way this server leaves the async workers for blocking work: a
//! durable store's calls (and whatever makes them) run on Tokio's blocking
//! pool, at most [`BLOCKING_AT_ONCE`] at a time; later calls wait on the
//! workers without a thread. With a store that never blocks (in memory) the
//! work runs in place. Work that awaits a store without blocking (an action
//! whose queued append it awaits) runs as a task of its own
//! ([`OffTheWorkers::awaiting`]).
//!
//! A call's deadline is honoured here: a gRPC call that says how long its
//! client waits (`grpc-timeout`) runs within [`CallDeadline`], and blocking
//! work not done by a little before then (a database outage: the store is
//! still retrying) is answered `UNAVAILABLE` with a `RetryInfo`
//! ([`ServiceError::StorageLate`]) while the client still listens, instead
//! of the client's own `DEADLINE_EXCEEDED`. The work itself goes on.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use tokio::sync::Semaphore;
use tokio::time::Instant;
use tonic::Status;

use crate::error::ServiceError;

tokio::task_local! {
    /// When the current call's answer is due, if its client said.
    static DUE: Instant;
}

/// Most calls on the blocking pool at once. A durable store's writers wait
/// there for a shared commit, so this also caps a commit's batch: at 64 the
/// batches were too small for 1,000 games on a slow disk; without a cap, each
/// thread beyond the batch's need costs wake-ups and an allocator heap of its
/// own that the games' memory spreads over.
pub const BLOCKING_AT_ONCE: usize = 256;

/// Runs blocking work off the async workers.
#[derive(Clone)]
pub struct OffTheWorkers {
    permits: Arc<Semaphore>,
    /// Whether the work blocks at all (a durable store).
    blocks: bool,
}

impl OffTheWorkers {
    /// For a store that blocks on a disk (`blocks`) or not.
    pub fn new(blocks: bool) -> OffTheWorkers {
        OffTheWorkers {
            permits: Arc::new(Semaphore::new(BLOCKING_AT_ONCE)),
            blocks,
        }
    }

    /// Runs `f` on the blocking pool (in place if nothing blocks).
    pub async fn run<T: Send + 'static>(
        &self,
        f: impl FnOnce() -> T + Send + 'static,
    ) -> Result<T, Status> {
        if !self.blocks {
            return Ok(f());
        }
        let permits = Arc::clone(&self.permits);
        let work = async move {
            let permit = permits
                .acquire_owned()
                .await
                .map_err(|e| Status::internal(format!("the blocking pool is closed: {e}")))?;
            // The permit goes with the task, so a cancelled call still holds
            // it until its blocking work is done.
            tokio::task::spawn_blocking(move || {
                let out = f();
                drop(permit);
                out
            })
            .await
            .map_err(|e| Status::internal(format!("a blocking task failed: {e}")))
        };
        within_due(work).await
    }

    /// Runs `work`, which awaits a store (a queued append), as a task of its
    /// own: it goes on to its end if the call is dropped, so a write whose
    /// commit it awaits is always made or dropped. Answered like [`run`]
    /// within the call's deadline.
    ///
    /// [`run`]: OffTheWorkers::run
    pub async fn awaiting<T: Send + 'static>(
        &self,
        work: impl Future<Output = T> + Send + 'static,
    ) -> Result<T, Status> {
        self.awaiting_or(work, ServiceError::StorageLate).await
    }

    /// [`OffTheWorkers::awaiting`], answered `late` if the call's deadline
    /// comes first (a decision held for its match's other games).
    pub async fn awaiting_or<T: Send + 'static>(
        &self,
        work: impl Future<Output = T> + Send + 'static,
        late: ServiceError,
    ) -> Result<T, Status> {
        let task = tokio::spawn(work);
        within_due_or(
            async move {
                task.await
                    .map_err(|e| Status::internal(format!("a store task failed: {e}")))
            },
            late,
        )
        .await
    }
}

/// `work`'s result, or `UNAVAILABLE` ([`ServiceError::StorageLate`]) once the
/// current call's answer is due.
async fn within_due<T>(work: impl Future<Output = Result<T, Status>>) -> Result<T, Status> {
    within_due_or(work, ServiceError::StorageLate).await
}

/// `work`'s result, or `late` once the current call's answer is due.
async fn within_due_or<T>(
    work: impl Future<Output = Result<T, Status>>,
    late: ServiceError,
) -> Result<T, Status> {
    match DUE.try_with(|due| *due) {
        Ok(due) => tokio::time::timeout_at(due, work)
            .await
            .unwrap_or_else(|_| Err(late.into())),
        Err(_) => work.await,
    }
}

/// When a call whose client waits `timeout` is answered at the latest: a
/// fifth of it (at most a second) early, for the answer's way back.
fn due(timeout: Duration) -> Instant {
    Instant::now() + timeout - (timeout / 5).min(Duration::from_secs(1))
}

/// The `grpc-timeout` header's value: digits and a unit (H, M, S, m, u, n).
fn grpc_timeout(value: &str) -> Option<Duration> {
    let (digits, unit) = value.split_at(value.len().checked_sub(1)?);
    if digits.is_empty() || digits.len() > 8 {
        return None;
    }
    let n: u64 = digits.parse().ok()?;
    Some(match unit {
        "H" => Duration::from_secs(n.checked_mul(3600)?),
        "M" => Duration::from_secs(n.checked_mul(60)?),
        "S" => Duration::from_secs(n),
        "m" => Duration::from_millis(n),
        "u" => Duration::from_micros(n),
        "n" => Duration::from_nanos(n),
        _ => return None,
    })
}

/// The layer that runs each gRPC call within its deadline ([`CallDeadline`]).
#[derive(Clone, Copy, Debug, Default)]
pub struct CallDeadlineLayer;

impl<S> tower::Layer<S> for CallDeadlineLayer {
    type Service = CallDeadline<S>;

    fn layer(&self, inner: S) -> CallDeadline<S> {
        CallDeadline(inner)
    }
}

/// A gRPC service whose calls carrying `grpc-timeout` run with their answer
/// due a little before it ([`OffTheWorkers::run`] keeps to it).
#[derive(Clone, Debug)]
pub struct CallDeadline<S>(S);

impl<S, B> tower::Service<http::Request<B>> for CallDeadline<S>
where
    S: tower::Service<http::Request<B>>,
    S::Future: Send + 'static,
{
    type Response = S::Response;
    type Error = S::Error;
    type Future = Pin<Box<dyn Future<Output = Result<S::Response, S::Error>> + Send>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.0.poll_ready(cx)
    }

    fn call(&mut self, request: http::Request<B>) -> Self::Future {
        let timeout = request
            .headers()
            .get("grpc-timeout")
            .and_then(|v| v.to_str().ok())
            .and_then(grpc_timeout);
        let call = self.0.call(request);
        match timeout {
            Some(timeout) => Box::pin(DUE.scope(due(timeout), call)),
            None => Box::pin(call),
        }
    }
}

/// Blocking work run on the blocking pool at every tick of a period (the
/// referee's passes, the arena's rounds): one pass at a time, a pass that
/// overruns delays the next, until [`Periodic::stop`].
pub struct Periodic {
    stop: tokio::sync::watch::Sender<bool>,
    task: tokio::task::JoinHandle<()>,
}

impl Periodic {
    /// Runs `pass` every `period`, the first at once.
    pub fn start(period: Duration, pass: impl Fn() + Send + Sync + 'static) -> Periodic {
        let pass = Arc::new(pass);
        let (stop, mut stopping) = tokio::sync::watch::channel(false);
        let task = tokio::spawn(async move {
            let mut tick = tokio::time::interval(period);
            tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                tokio::select! {
                    _ = tick.tick() => {}
                    _ = stopping.changed() => return,
                }
                let pass = Arc::clone(&pass);
                let _ = tokio::task::spawn_blocking(move || pass()).await;
            }
        });
        Periodic { stop, task }
    }

    /// Stops the passes and waits (at most `within`) for the one in flight:
    /// aborting the task would leave that pass writing to the store after
    /// the server has stopped, behind whatever opens the store next.
    pub async fn stop(self, within: Duration) {
        let _ = self.stop.send(true);
        let _ = tokio::time::timeout(within, self.task).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grpc_timeouts_parse_in_every_unit() {
        assert_eq!(grpc_timeout("3S"), Some(Duration::from_secs(3)));
        assert_eq!(grpc_timeout("2999m"), Some(Duration::from_millis(2999)));
        assert_eq!(grpc_timeout("5000000u"), Some(Duration::from_secs(5)));
        assert_eq!(grpc_timeout("1H"), Some(Duration::from_secs(3600)));
        assert_eq!(grpc_timeout("10"), None);
        assert_eq!(grpc_timeout("S"), None);
        assert_eq!(grpc_timeout(""), None);
        assert_eq!(grpc_timeout("123456789S"), None, "at most 8 digits");
    }
}
