//! The one way this server leaves the async workers for blocking work: a
//! durable store's calls (and whatever makes them) run on Tokio's blocking
//! pool, at most [`BLOCKING_AT_ONCE`] at a time; later calls wait on the
//! workers without a thread. With a store that never blocks (in memory) the
//! work runs in place.

use std::sync::Arc;

use tokio::sync::Semaphore;
use tonic::Status;

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
        let permit = Arc::clone(&self.permits)
            .acquire_owned()
            .await
            .map_err(|e| Status::internal(format!("the blocking pool is closed: {e}")))?;
        // The permit goes with the task, so a cancelled call still holds it
        // until its blocking work is done.
        tokio::task::spawn_blocking(move || {
            let out = f();
            drop(permit);
            out
        })
        .await
        .map_err(|e| Status::internal(format!("a blocking task failed: {e}")))
    }
}
