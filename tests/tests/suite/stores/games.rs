//! [`druids_store::Games`]: appends of many writers at once, each with its
//! own result, through the timing wrapper the server uses.

use std::sync::{Arc, Barrier};

use druids_server::metrics::{Metrics, TimedGames};
use druids_store::Games;
use druids_tests::postgres::PgCluster;

use super::{Backend, TestDb, action, game, on_every_store};

on_every_store!(concurrent_appends_share_commits_and_keep_their_own_results);

/// Many writers at once, on each store, through the wrapper that times
/// appends: each append returns its own row's result (a duplicate fails
/// alone, inside a batch others commit in), and every acknowledged row is
/// stored (and timed).
async fn concurrent_appends_share_commits_and_keep_their_own_results(backend: Backend) {
    let db = TestDb::new(backend, "group");
    let store = db.open();
    let metrics = Metrics::new();
    let games: Arc<dyn Games> = Arc::new(TimedGames::new(Arc::clone(&store) as _, &metrics));
    for g in 0..8 {
        games.create_game(&game(&format!("g{g}"), 0, 0)).unwrap();
    }
    let stored = |id: &str| store.load_game(id).unwrap().unwrap().actions.len();
    let start = Arc::new(Barrier::new(8));
    let writers: Vec<_> = (0..8)
        .map(|g| {
            let (games, start) = (Arc::clone(&games), Arc::clone(&start));
            std::thread::spawn(move || {
                start.wait();
                let id = format!("g{g}");
                let mut results = Vec::new();
                for v in 1..=40 {
                    results.push(games.append_action(&id, &action(v)).is_ok());
                    // Writer 0 also repeats a version: that row alone fails.
                    if g == 0 && v == 20 {
                        results.push(games.append_action(&id, &action(v)).is_ok());
                    }
                }
                results
            })
        })
        .collect();
    for (g, w) in writers.into_iter().enumerate() {
        let results = w.join().unwrap();
        let failed = results.iter().filter(|ok| !**ok).count();
        assert_eq!(failed, usize::from(g == 0), "writer {g}: {results:?}");
        assert_eq!(stored(&format!("g{g}")), 40);
    }
    assert_eq!(
        metrics.persist_latency.get_sample_count(),
        321,
        "every append is timed"
    );
    // A row of an unknown game fails alone too.
    assert!(games.append_action("nope", &action(1)).is_err());
    drop((games, store));
    let reopened = db.open();
    let games = reopened.load_in_play().unwrap();
    assert_eq!(games.len(), 8);
    assert!(games.iter().all(|g| g.actions.len() == 40));
    if backend == Backend::Postgres {
        // Every row has the fencing epoch, 0 until leases exist.
        let cluster = PgCluster::shared();
        assert_eq!(
            cluster.sql(db.pg_name(), "SELECT count(*) FROM actions WHERE epoch = 0"),
            "320"
        );
    }
}
