//! [`druids_store::Tournaments`]: tournaments in creation order, finished
//! once, with the matches of their rounds, across a reopen.

use druids_store::TournamentRecord;

use super::{Backend, TestDb, bot, on_every_store, record, refused};

on_every_store!(tournaments_keep_their_order_and_matches_across_a_restart);

pub(super) fn tournament(id: &str, settings: &[u8]) -> TournamentRecord {
    TournamentRecord {
        id: id.to_owned(),
        settings: settings.to_vec(),
        // The same instant for both: the order is creation's, not time's.
        created_unix_ms: 1_700_000_002_000,
        finished_unix_ms: None,
    }
}

/// Tournaments come back in creation order (not by id), a finished one with
/// the time it first finished, and matches with the tournament and round they
/// belong to (or none), from a store opened again.
async fn tournaments_keep_their_order_and_matches_across_a_restart(backend: Backend) {
    let db = TestDb::new(backend, "arena_tournaments");
    let store = db.open();
    assert!(store.tournaments().unwrap().is_empty());
    for (i, name) in ["a", "b"].iter().enumerate() {
        assert!(store.register_bot(&bot(name, name, i as u8)).unwrap());
    }
    store
        .create_tournament(&tournament("t2", b"\x08\x01"))
        .unwrap();
    store
        .create_tournament(&tournament("t1", &[0, 255, 7]))
        .unwrap();
    assert!(
        refused(store.create_tournament(&tournament("t2", b"other"))),
        "the id is taken"
    );

    let mut in_t1 = record("m2r", &["a", "b"], 2);
    in_t1.tournament = Some(("t1".into(), 2));
    store.create_match(&in_t1).unwrap();
    store.create_match(&record("m1", &["b", "a"], 1)).unwrap();

    store.finish_tournament("t1", 1_700_000_009_000).unwrap();
    store
        .finish_tournament("t1", 1_700_000_009_999)
        .expect("finishing again is no change");
    assert!(
        refused(store.finish_tournament("nope", 1)),
        "no such tournament"
    );
    let finished_t1 = TournamentRecord {
        finished_unix_ms: Some(1_700_000_009_000),
        ..tournament("t1", &[0, 255, 7])
    };
    let expected = vec![tournament("t2", b"\x08\x01"), finished_t1];
    assert_eq!(store.tournaments().unwrap(), expected);
    let before = store.matches().unwrap();
    drop(store);

    let store = db.open();
    assert_eq!(store.tournaments().unwrap(), expected, "after a reopen");
    let matches = store.matches().unwrap();
    assert_eq!(matches, before, "after a reopen");
    assert_eq!(matches.len(), 2);
    assert_eq!(matches[0].record, in_t1);
    assert_eq!(matches[0].record.tournament, Some(("t1".into(), 2)));
    assert_eq!(matches[1].record, record("m1", &["b", "a"], 1));
    assert_eq!(matches[1].record.tournament, None);

    // Creation order goes on after the restart; the other one finishes now.
    store.create_tournament(&tournament("t0", b"")).unwrap();
    store.finish_tournament("t2", 1_700_000_010_000).unwrap();
    let tournaments = store.tournaments().unwrap();
    let ids: Vec<&str> = tournaments.iter().map(|t| t.id.as_str()).collect();
    assert_eq!(ids, ["t2", "t1", "t0"]);
    assert_eq!(tournaments[0].finished_unix_ms, Some(1_700_000_010_000));
    assert_eq!(tournaments[1].finished_unix_ms, Some(1_700_000_009_000));
    assert_eq!(tournaments[2], tournament("t0", b""));
}
