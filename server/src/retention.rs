//! Retention: with `--retain-finished-days N`, games that ended (finished or
//! abandoned) more than N days ago are deleted from the store, with their logs,
//! so that a long-running server's database does not grow without bound.
//!
//! Off by default: nothing is ever deleted unless an operator asks. Deleting
//! writes to the same database that play commits to, so a sweep deletes in
//! small batches, each off the async workers, with a pause between batches in
//! which queued actions commit; a sweep runs every few minutes. Games in play
//! are never deleted (the store's contract).

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use crate::store::{Lifecycle, StoreError};

/// One day in milliseconds.
pub const DAY_MS: u64 = 24 * 60 * 60 * 1000;

/// How a sweep paces itself.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Schedule {
    /// Most games deleted in one store call (one transaction).
    pub batch: usize,
    /// Wait between two batches of one sweep, so play's commits get the
    /// database in between.
    pub pause: Duration,
    /// Wait between two sweeps.
    pub every: Duration,
}

impl Default for Schedule {
    /// 100 games a batch (a few thousand rows: milliseconds of SQLite work),
    /// a quarter second between batches, a sweep every ten minutes.
    fn default() -> Self {
        Schedule {
            batch: 100,
            pause: Duration::from_millis(250),
            every: Duration::from_secs(600),
        }
    }
}

/// Why a sweep stopped early. Deleted batches stay deleted; the next sweep
/// goes on where this one stopped.
#[derive(Debug, thiserror::Error)]
pub enum RetentionError {
    /// The store failed to delete a batch.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The blocking task of a batch panicked or was cancelled.
    #[error("a deletion batch did not complete: {0}")]
    Task(#[from] tokio::task::JoinError),
}

/// The end time before which games are deleted at `now_ms`: `days` earlier.
pub fn cutoff(now_ms: u64, days: u64) -> u64 {
    now_ms.saturating_sub(days.saturating_mul(DAY_MS))
}

/// One sweep: calls `delete(batch)` (which deletes at most `batch` old games
/// and says how many) off the async workers until a call deletes fewer than
/// `batch`, pausing `pause` between calls. Returns how many were deleted.
pub async fn sweep<F>(delete: F, batch: usize, pause: Duration) -> Result<usize, RetentionError>
where
    F: Fn(usize) -> Result<usize, StoreError> + Clone + Send + 'static,
{
    let batch = batch.max(1);
    let mut total = 0;
    loop {
        let delete = delete.clone();
        let n = tokio::task::spawn_blocking(move || delete(batch)).await??;
        total += n;
        // A short batch means nothing older is left (or the store deletes
        // less than asked): either way this sweep is done.
        if n < batch {
            return Ok(total);
        }
        tokio::time::sleep(pause).await;
    }
}

/// Deletes, from now on, the games of `store` that ended more than `days` days
/// before `now_ms()` (the service's clock), one sweep at once and one every
/// `schedule.every`, until `stopped` completes. Logs what each sweep deleted.
pub fn spawn(
    store: Arc<dyn Lifecycle>,
    now_ms: impl Fn() -> u64 + Send + 'static,
    days: u64,
    schedule: Schedule,
    stopped: impl Future<Output = ()> + Send + 'static,
) -> tokio::task::JoinHandle<()> {
    tracing::info!(
        days,
        "retention: games that ended more than {days} days ago are deleted"
    );
    tokio::spawn(async move {
        let mut stopped = std::pin::pin!(stopped);
        loop {
            let before_ms = cutoff(now_ms(), days);
            let s = Arc::clone(&store);
            let delete = move |limit| s.delete_ended_before(before_ms, limit);
            let started = std::time::Instant::now();
            tokio::select! {
                result = sweep(delete, schedule.batch, schedule.pause) => match result {
                    Ok(0) => tracing::debug!("retention: no game to delete"),
                    Ok(n) => tracing::info!(
                        deleted = n,
                        before_ms,
                        ms = started.elapsed().as_millis() as u64,
                        "retention: deleted old ended games"
                    ),
                    Err(e) => tracing::warn!("retention: sweep stopped: {e}"),
                },
                _ = &mut stopped => return,
            }
            tokio::select! {
                _ = tokio::time::sleep(schedule.every) => {}
                _ = &mut stopped => return,
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::MemoryStore;
    use crate::auth::TokenHash;
    use crate::store::{GameRecord, Games, Store};
    use druids_contract::pb;
    use druids_engine::Seat;
    use std::sync::Mutex;

    /// Games left and the batch sizes deleted so far, of a fake store.
    type Fake = Arc<Mutex<(usize, Vec<usize>)>>;

    /// A fake store of `left` old games that records every batch deleted.
    fn fake(
        left: usize,
    ) -> (
        Fake,
        impl Fn(usize) -> Result<usize, StoreError> + Clone + Send + 'static,
    ) {
        let state: Fake = Arc::new(Mutex::new((left, Vec::new())));
        let s = Arc::clone(&state);
        (state, move |limit: usize| {
            let mut st = s.lock().unwrap();
            let n = st.0.min(limit);
            st.0 -= n;
            st.1.push(n);
            Ok(n)
        })
    }

    #[tokio::test]
    async fn deletes_in_batches_until_a_short_one() {
        let (state, delete) = fake(250);
        let n = sweep(delete, 100, Duration::ZERO).await.unwrap();
        assert_eq!(n, 250);
        assert_eq!(state.lock().unwrap().1, vec![100, 100, 50]);
    }

    #[tokio::test]
    async fn an_exact_multiple_ends_on_an_empty_batch() {
        let (state, delete) = fake(200);
        assert_eq!(sweep(delete, 100, Duration::ZERO).await.unwrap(), 200);
        assert_eq!(state.lock().unwrap().1, vec![100, 100, 0]);
    }

    #[tokio::test]
    async fn nothing_old_is_one_call() {
        let (state, delete) = fake(0);
        assert_eq!(sweep(delete, 100, Duration::ZERO).await.unwrap(), 0);
        assert_eq!(state.lock().unwrap().1, vec![0]);
    }

    #[tokio::test]
    async fn a_store_error_stops_the_sweep() {
        let calls = Arc::new(Mutex::new(0));
        let c = Arc::clone(&calls);
        let delete = move |limit: usize| {
            let mut calls = c.lock().unwrap();
            *calls += 1;
            if *calls == 2 {
                Err(StoreError::Corrupt("disk".into()))
            } else {
                Ok(limit)
            }
        };
        let e = sweep(delete, 10, Duration::ZERO).await.unwrap_err();
        assert!(matches!(e, RetentionError::Store(_)), "{e}");
        assert_eq!(*calls.lock().unwrap(), 2);
    }

    #[test]
    fn the_cutoff_is_days_before_now_and_never_underflows() {
        assert_eq!(cutoff(10 * DAY_MS + 5, 7), 3 * DAY_MS + 5);
        assert_eq!(cutoff(DAY_MS, 7), 0);
        assert_eq!(cutoff(u64::MAX, u64::MAX), 0);
    }

    fn record(id: &str) -> GameRecord {
        GameRecord {
            id: id.into(),
            kind: druids_contract::Kind::Meduris,
            players: 2,
            seed: 1,
            seed_chosen: true,
            options: pb::GameOptions::default(),
            created_unix_ms: 0,
            seats: (0..2)
                .map(|s| (Seat(s), format!("p{s}"), TokenHash::of("t")))
                .collect(),
            request: None,
        }
    }

    #[tokio::test]
    async fn a_sweep_of_a_store_deletes_only_old_ended_games() {
        let store = Arc::new(MemoryStore::default());
        for i in 0..230 {
            let id = format!("old{i:03}");
            store.create_game(&record(&id)).unwrap();
            if i % 2 == 0 {
                store.finish(&id, 0, &Default::default(), 1_000).unwrap();
            } else {
                store.abandon(&id, "idle", 1_000).unwrap();
            }
        }
        store.create_game(&record("young")).unwrap();
        store
            .finish("young", 0, &Default::default(), 5_000)
            .unwrap();
        store.create_game(&record("running")).unwrap();
        let s = Arc::clone(&store);
        let delete = move |limit| s.delete_ended_before(2_000, limit);
        assert_eq!(sweep(delete, 100, Duration::ZERO).await.unwrap(), 230);
        assert_eq!(store.ended_ids("", 1000).unwrap(), vec!["young".to_owned()]);
        assert!(store.load_game("running").unwrap().is_some());
    }

    #[tokio::test]
    async fn the_task_sweeps_at_once_and_stops_with_the_server() {
        let store = Arc::new(MemoryStore::default());
        store.create_game(&record("old")).unwrap();
        store.finish("old", 0, &Default::default(), 0).unwrap();
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let task = spawn(
            Arc::clone(&store) as Arc<dyn Store>,
            || 2 * DAY_MS,
            1,
            Schedule {
                batch: 10,
                pause: Duration::ZERO,
                every: Duration::from_millis(5),
            },
            async {
                let _ = stopped.await;
            },
        );
        for _ in 0..200 {
            if store.load_game("old").unwrap().is_none() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        assert!(store.load_game("old").unwrap().is_none());
        stop.send(()).unwrap();
        task.await.unwrap();
    }
}
