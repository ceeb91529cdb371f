//! Appends a durable store queues ([`druids_store::Games::append_later`]):
//! the server's rooms await them instead of holding a blocking thread per
//! `SubmitAction`. Rows queued together are committed together by the
//! store's writer; each gets its own result (a bad row fails alone), a game's
//! rows are stored in the order they were queued, and the timing wrapper the
//! server uses times each.

use std::sync::Arc;

use druids_server::metrics::{Metrics, TimedGames};
use druids_store::Games;

use crate::stores::{Backend, TestDb, action, game};

#[tokio::test]
async fn queued_appends_commit_together_in_order_and_fail_alone() {
    let db = TestDb::new(Backend::Sqlite, "queued");
    let store = db.open();
    let metrics = Metrics::new();
    let games: Arc<dyn Games> = Arc::new(TimedGames::new(Arc::clone(&store) as _, &metrics));
    assert!(games.queues_appends(), "SQLite queues its appends");
    games.create_game(&game("a", 0, 0)).unwrap();
    games.create_game(&game("b", 0, 0)).unwrap();
    // Every row is queued before any is awaited.
    let queued: Vec<_> = [
        ("a", 1),
        ("a", 2),
        ("b", 1),
        ("a", 2),
        ("nope", 1),
        ("a", 3),
    ]
    .into_iter()
    .map(|(id, v)| {
        games
            .append_later(id, &action(v))
            .expect("a queuing store queues")
    })
    .collect();
    let mut results = Vec::new();
    for q in queued {
        results.push(q.await.is_ok());
    }
    // The repeated version and the unknown game fail alone.
    assert_eq!(results, [true, true, true, false, false, true]);
    assert_eq!(metrics.persist_latency.get_sample_count(), 6);
    let versions = |id: &str| -> Vec<u64> {
        let stored = store.load_game(id).unwrap().unwrap();
        stored.actions.iter().map(|a| a.version).collect()
    };
    assert_eq!(versions("a"), [1, 2, 3]);
    assert_eq!(versions("b"), [1]);
    // What was acknowledged is on disk: a reopened store reads it back.
    drop((games, store));
    assert_eq!(db.open().load_game("a").unwrap().unwrap().actions.len(), 3);
}
