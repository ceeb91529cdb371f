//! [`druids_store::Games`]: appends of many writers at once, each with its
//! own result, through the timing wrapper the server uses; an action's one
//! record read back as written; logs stored before that record still load.

use std::sync::{Arc, Barrier};

use druids_contract::engine::Seat;
use druids_contract::pb;
use druids_server::metrics::{Metrics, TimedGames};
use druids_store::{ActionRecord, Games, Origin, SubmissionKey};
use druids_tests::postgres::PgCluster;
use prost::Message;

use super::{Backend, TestDb, action, game, on_each_store, on_every_store};

on_every_store!(concurrent_appends_share_commits_and_keep_their_own_results);

/// Many writers at once, on each store, through the wrapper that times
/// appends: each append returns its own row's result (a duplicate fails
/// alone, inside a batch others commit in), and every acknowledged row is
/// stored (and timed).
async fn concurrent_appends_share_commits_and_keep_their_own_results(backend: Backend) {
    let db = TestDb::new(backend, "group");
    let store = db.open();
    let metrics = Metrics::new();
    let games: Arc<dyn Games> = Arc::new(TimedGames::new(Arc::clone(&store) as _, &metrics, None));
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

on_every_store!(appended_actions_read_back_as_written);

/// The one record of an action comes back as appended: its seat, origin
/// (a resignation's too), canonical action and, on a durable store, its
/// submission key and when it was made (the memory store keeps neither:
/// nothing is rebuilt from it after a restart).
async fn appended_actions_read_back_as_written(backend: Backend) {
    let db = TestDb::new(backend, "records");
    let store = db.open();
    store.create_game(&game("g", 1, 2)).unwrap();
    let choice = pb::submit_action_request::Choice::LegalActionId(3);
    let records = [
        ActionRecord {
            key: Some(SubmissionKey::of("first", Some(choice), Some(0))),
            ..action(1)
        },
        ActionRecord {
            seat: Seat(1),
            origin: Origin::Timeout,
            action: pb::Action {
                game: Some(pb::action::Game::Dolmen(pb::DolmenAction::default())),
            },
            ..action(2)
        },
        ActionRecord {
            origin: Origin::Autopilot,
            key: Some(SubmissionKey::of(&"k".repeat(128), None, Some(u64::MAX))),
            at_ms: 1_764_172_800_123,
            ..action(3)
        },
        ActionRecord {
            seat: Seat(1),
            origin: Origin::Resigned,
            key: Some(SubmissionKey::of("resign", None, None)),
            at_ms: u64::from(u32::MAX) * 1000,
            ..action(4)
        },
    ];
    for r in &records {
        store.append_action("g", r).unwrap();
    }
    drop(store);
    let store = db.open();
    let read = store.load_game("g").unwrap().unwrap().actions;
    let kept: Vec<ActionRecord> = records
        .iter()
        .map(|r| ActionRecord {
            key: r.key.filter(|_| store.is_durable()),
            at_ms: if store.is_durable() { r.at_ms } else { 0 },
            ..r.clone()
        })
        .collect();
    assert_eq!(read, kept);
}

on_each_store!(a_log_stored_before_submission_keys_still_loads);

/// A database from before submission keys, whose action rows kept a copy of
/// their whole request, opened by this store: its game in play comes back
/// with each keyed submission's key (a retry after the upgrade is still
/// recognised), an ended game without keys (never used again), and the
/// copies are gone.
async fn a_log_stored_before_submission_keys_still_loads(backend: Backend) {
    let db = TestDb::new(backend, "legacy_requests");
    let store = db.open();
    store.create_game(&game("live", 1, 2)).unwrap();
    store.create_game(&game("over", 2, 2)).unwrap();
    store.finish("over", 2, &Default::default(), 3).unwrap();
    drop(store);
    let request = |version: u64, key: &str| pb::SubmitActionRequest {
        game_id: String::new(),
        choice: Some(pb::submit_action_request::Choice::LegalActionId(
            version as u32,
        )),
        expected_version: Some(version - 1),
        idempotency_key: key.to_owned(),
    };
    // Back to the schema before submission keys (and results and removed
    // challenges, the arena's lease and action times, which came after), with rows as it wrote them:
    // keyed, unkeyed, and the server's own (no key, but a request).
    let rows = [
        ("live", 1, request(1, "k1")),
        ("live", 2, request(2, "")),
        ("live", 3, request(3, "k3")),
        ("over", 1, request(1, "k1")),
        ("over", 2, request(2, "k2")),
    ];
    let hex = |bytes: &[u8]| bytes.iter().map(|b| format!("{b:02x}")).collect::<String>();
    let inserts: String = rows
        .iter()
        .map(|(id, v, r)| {
            let blob = hex(&r.encode_to_vec());
            match backend {
                Backend::Sqlite => format!(
                    "INSERT INTO actions (game_id, version, seat, origin, action, request) VALUES ('{id}', {v}, 0, 0, x'', x'{blob}');"
                ),
                _ => format!(
                    "INSERT INTO actions (game_id, version, seat, origin, action, request, epoch) VALUES ('{id}', {v}, 0, 0, '', '\\x{blob}', 0);"
                ),
            }
        })
        .collect();
    match backend {
        Backend::Sqlite => {
            let conn = rusqlite::Connection::open(db.sqlite_path()).unwrap();
            conn.execute_batch(&format!(
                "DROP INDEX match_games_game;
                 ALTER TABLE games DROP COLUMN outcome;
                 ALTER TABLE actions DROP COLUMN submission_key;
                 ALTER TABLE actions DROP COLUMN at_ms;
                 ALTER TABLE actions ADD COLUMN request BLOB NOT NULL DEFAULT x'';
                 PRAGMA user_version = 6;
                 {inserts}"
            ))
            .unwrap();
        }
        _ => {
            PgCluster::shared().sql(
                db.pg_name(),
                &format!(
                    "DROP INDEX match_games_game;
                     ALTER TABLE challenges DROP COLUMN removed_at;
                     ALTER TABLE games DROP COLUMN outcome;
                     ALTER TABLE actions DROP COLUMN submission_key;
                     ALTER TABLE actions DROP COLUMN at_ms;
                     ALTER TABLE actions ADD COLUMN request BYTEA NOT NULL DEFAULT '';
                     DROP TABLE arena_lease;
                     DROP FUNCTION arena_fence() CASCADE;
                     DROP INDEX bots_key_hash;
                     DELETE FROM refinery_schema_history WHERE version >= 6;
                     {inserts}"
                ),
            );
        }
    }

    let store = db.open();
    let keys = |id: &str| -> Vec<Option<SubmissionKey>> {
        let game = store.load_game(id).unwrap().unwrap();
        game.actions.iter().map(|a| a.key).collect()
    };
    let key_of = |r: &pb::SubmitActionRequest| {
        SubmissionKey::of(&r.idempotency_key, r.choice.clone(), r.expected_version)
    };
    assert_eq!(
        keys("live"),
        [Some(key_of(&rows[0].2)), None, Some(key_of(&rows[2].2))]
    );
    assert_eq!(
        keys("over"),
        [None, None],
        "an ended game's keys are dropped"
    );
    // The log goes on in the new form; the copies are gone.
    store.append_action("live", &action(4)).unwrap();
    assert_eq!(store.load_in_play().unwrap()[0].actions.len(), 4);
    drop(store);
    match backend {
        Backend::Sqlite => {
            let conn = rusqlite::Connection::open(db.sqlite_path()).unwrap();
            assert!(conn.prepare("SELECT request FROM actions").is_err());
        }
        _ => assert_eq!(
            PgCluster::shared().sql(
                db.pg_name(),
                "SELECT count(*) FROM information_schema.columns
                  WHERE table_name = 'actions' AND column_name = 'request'"
            ),
            "0"
        ),
    }
    let reopened = db.open().load_game("live").unwrap().unwrap();
    assert_eq!(
        reopened.actions.len(),
        4,
        "opened again: nothing left to migrate"
    );
}
