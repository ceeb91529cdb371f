//! The arena's part of the durable stores ([`druids_server::arena_store`]),
//! on a SQLite file and on a real PostgreSQL database: bots under unique
//! names with rotating keys, matches with their games and results read back
//! in formation order by a store opened again on the same database, and bot
//! event logs paged from a seq, tournaments in creation order with their
//! matches and event logs, revoked keys, pending challenges in the order they
//! were first saved. The arena rebuilds itself from these reads
//! at start-up, so each is checked after a reopen.

use std::sync::Arc;

use druids_contract::engine::Seat;
use druids_contract::pb;
use druids_server::Store;
use druids_server::arena_store::{
    BotRecord, ChallengeRecord, MatchRecord, PlacementRecord, TournamentRecord,
};
use druids_server::auth::TokenHash;
use druids_server::metrics::{Metrics, TimedStore};
use druids_server::store::{GameRecord, StoreError};

use crate::stores::{Backend, TestDb, on_each_store};

fn bot(id: &str, name: &str, key: u8) -> BotRecord {
    BotRecord {
        id: id.to_owned(),
        name: name.to_owned(),
        description: format!("{name}, a bot"),
        owner_contact: format!("{name}@example.org"),
        key_hash: TokenHash([key; 32]),
        // The same instant for all: the order is registration's, not time's.
        registered_unix_ms: 1_700_000_000_000,
        revoked_unix_ms: None,
    }
}

fn record(id: &str, bots: &[&str], games: u32) -> MatchRecord {
    MatchRecord {
        id: id.to_owned(),
        kind: pb::GameKind::Meduris,
        rated: id.ends_with('r'),
        seed: u64::MAX - games as u64,
        options: pb::GameOptions {
            decision_ms: Some(2_500),
            ..Default::default()
        },
        bots: bots.iter().map(|b| (*b).to_owned()).collect(),
        games,
        created_unix_ms: 1_700_000_001_000,
        tournament: None,
    }
}

fn placement(bot_id: &str, rank: u32, score: i64) -> PlacementRecord {
    PlacementRecord {
        bot_id: bot_id.to_owned(),
        rank,
        score,
    }
}

fn refused<T: std::fmt::Debug>(result: Result<T, StoreError>) -> bool {
    matches!(result, Err(StoreError::Database { .. }))
}

on_each_store!(
    bots_register_under_unique_names_and_rotate_keys,
    matches_keep_their_games_and_results_across_a_restart,
    bot_event_logs_page_from_a_seq,
    tournaments_keep_their_order_and_matches_across_a_restart,
    revocations_keep_their_first_time_until_a_new_key,
    tournament_event_logs_page_from_a_seq,
    challenges_keep_their_order_when_replaced_across_a_restart,
);

/// A taken name registers nothing; a key rotation replaces the hash; bots are
/// listed in registration order (not by id, not by time), also by a store
/// opened again, and also through the metrics wrapper the server uses.
async fn bots_register_under_unique_names_and_rotate_keys(backend: Backend) {
    let db = TestDb::new(backend, "arena_bots");
    let store: Arc<dyn Store> = Arc::new(TimedStore::new(db.open(), Arc::new(Metrics::new())));
    assert!(store.register_bot(&bot("c3", "gamma", 1)).unwrap());
    assert!(store.register_bot(&bot("a1", "alpha", 2)).unwrap());
    assert!(
        !store.register_bot(&bot("d4", "alpha", 3)).unwrap(),
        "the name is taken"
    );
    assert!(
        refused(store.register_bot(&bot("a1", "delta", 4))),
        "the id is taken"
    );
    assert!(store.register_bot(&bot("b2", "beta", 5)).unwrap());

    store.set_bot_key("a1", &TokenHash([42; 32])).unwrap();
    store.set_bot_key("a1", &TokenHash([43; 32])).unwrap();
    assert!(refused(store.set_bot_key("zz", &TokenHash([1; 32]))));

    let expected = vec![
        bot("c3", "gamma", 1),
        bot("a1", "alpha", 43),
        bot("b2", "beta", 5),
    ];
    assert_eq!(store.bots().unwrap(), expected);
    drop(store);

    let store = db.open();
    assert_eq!(store.bots().unwrap(), expected, "after a reopen");
    assert!(store.register_bot(&bot("e5", "epsilon", 6)).unwrap());
    let ids: Vec<String> = store.bots().unwrap().into_iter().map(|b| b.id).collect();
    assert_eq!(ids, ["c3", "a1", "b2", "e5"], "registration order goes on");
}

/// Matches come back in the order they were formed, with their games by
/// index and their results, from a store opened again on the same database;
/// deleting old games (retention) leaves them alone.
async fn matches_keep_their_games_and_results_across_a_restart(backend: Backend) {
    let db = TestDb::new(backend, "arena_matches");
    let store = db.open();
    for (i, name) in ["a", "b", "c"].iter().enumerate() {
        assert!(store.register_bot(&bot(name, name, i as u8)).unwrap());
    }
    // Formed in this order, which is neither the ids' nor the games'.
    store.create_match(&record("m3r", &["a", "b"], 2)).unwrap();
    store
        .create_match(&record("m1", &["c", "a", "b"], 1))
        .unwrap();
    store.create_match(&record("m2r", &["b", "c"], 3)).unwrap();
    assert!(
        refused(store.create_match(&record("m1", &["a"], 1))),
        "the id is taken"
    );

    // Game 1 of m3r is stored before game 0: they are read back by index.
    store.add_match_game("m3r", 1, "g-m3r-1").unwrap();
    store.add_match_game("m3r", 0, "g-m3r-0").unwrap();
    store.add_match_game("m2r", 0, "g-m2r-0").unwrap();
    assert!(
        refused(store.add_match_game("m3r", 0, "g-other")),
        "the index is taken"
    );
    assert!(
        refused(store.add_match_game("nope", 0, "g")),
        "no such match"
    );

    let result = vec![placement("b", 1, 41), placement("a", 2, -3)];
    store
        .finish_match("m3r", &result, 1_700_000_009_000)
        .unwrap();
    store
        .finish_match("m3r", &result, 1_700_000_009_999)
        .expect("the same result again is no change");
    assert!(
        refused(store.finish_match("m3r", &[placement("a", 1, 0)], 1)),
        "another result"
    );
    assert!(refused(store.finish_match("nope", &result, 1)), "no match");
    // A three-way tie, for a match with one game.
    store.add_match_game("m1", 0, "g-m1-0").unwrap();
    let tie = vec![
        placement("c", 1, 7),
        placement("a", 1, 7),
        placement("b", 1, 7),
    ];
    store.finish_match("m1", &tie, 1_700_000_008_000).unwrap();
    let before = store.matches().unwrap();
    drop(store);

    let store = db.open();
    let matches = store.matches().unwrap();
    assert_eq!(matches, before, "after a reopen");
    let ids: Vec<&str> = matches.iter().map(|m| m.record.id.as_str()).collect();
    assert_eq!(ids, ["m3r", "m1", "m2r"]);
    assert_eq!(matches[0].record, record("m3r", &["a", "b"], 2));
    assert_eq!(matches[0].game_ids, ["g-m3r-0", "g-m3r-1"]);
    assert_eq!(matches[0].placements, Some(result));
    assert_eq!(matches[0].finished_unix_ms, Some(1_700_000_009_000));
    assert_eq!(matches[1].record, record("m1", &["c", "a", "b"], 1));
    assert_eq!(matches[1].placements, Some(tie));
    assert_eq!(matches[2].record, record("m2r", &["b", "c"], 3));
    assert!(matches[2].record.rated && !matches[1].record.rated);
    assert_eq!(matches[2].game_ids, ["g-m2r-0"]);
    assert_eq!(matches[2].placements, None);
    assert_eq!(matches[2].finished_unix_ms, None);

    // The unfinished match goes on after the restart, and a match formed now
    // comes after the others.
    store.add_match_game("m2r", 1, "g-m2r-1").unwrap();
    store.create_match(&record("m0", &["a", "c"], 1)).unwrap();
    let matches = store.matches().unwrap();
    let ids: Vec<&str> = matches.iter().map(|m| m.record.id.as_str()).collect();
    assert_eq!(ids, ["m3r", "m1", "m2r", "m0"]);
    assert_eq!(matches[2].game_ids, ["g-m2r-0", "g-m2r-1"]);

    // Retention deletes a match's ended game; the match keeps its id.
    store
        .create_game(&GameRecord {
            id: "g-m1-0".into(),
            kind: pb::GameKind::Meduris,
            players: 3,
            seed: 5,
            seed_chosen: false,
            options: pb::GameOptions::default(),
            created_unix_ms: 1_000,
            seats: vec![(Seat(0), "c".into(), TokenHash([0; 32]))],
            request: None,
        })
        .unwrap();
    store
        .finish("g-m1-0", 0, &Default::default(), 2_000)
        .unwrap();
    assert_eq!(store.delete_ended_before(3_000, 10).unwrap(), 1);
    assert!(store.load_game("g-m1-0").unwrap().is_none());
    assert_eq!(store.matches().unwrap()[1].game_ids, ["g-m1-0"]);
}

/// Each bot's log: appended by seq, read from a seq with a limit, its last
/// seq known (0 for none), a stored seq never overwritten, all after a reopen.
async fn bot_event_logs_page_from_a_seq(backend: Backend) {
    let db = TestDb::new(backend, "arena_events");
    let store = db.open();
    assert!(store.register_bot(&bot("a", "a", 1)).unwrap());
    assert!(store.register_bot(&bot("b", "b", 2)).unwrap());
    assert_eq!(store.last_bot_event("a").unwrap(), 0);
    assert!(store.bot_events("a", 0, 10).unwrap().is_empty());
    let event = |bot: &str, seq: u64| format!("{bot}:{seq}").into_bytes();
    for seq in 1..=10 {
        store.append_bot_event("a", seq, &event("a", seq)).unwrap();
    }
    for seq in 1..=3 {
        store.append_bot_event("b", seq, &event("b", seq)).unwrap();
    }
    assert!(
        refused(store.append_bot_event("a", 4, b"other")),
        "a stored seq is kept"
    );
    assert!(
        refused(store.append_bot_event("nobody", 1, b"x")),
        "no such bot"
    );
    drop(store);

    let store = db.open();
    let page = |from: u64, limit: usize| store.bot_events("a", from, limit).unwrap();
    assert_eq!(page(4, 3), [4, 5, 6].map(|s| (s, event("a", s))));
    assert_eq!(page(0, 2), [1, 2].map(|s| (s, event("a", s))));
    assert_eq!(page(9, 100), [9, 10].map(|s| (s, event("a", s))));
    assert!(page(11, 100).is_empty());
    assert!(page(1, 0).is_empty());
    assert_eq!(page(1, usize::MAX).len(), 10);
    assert!(page(u64::MAX, 1).is_empty());
    assert_eq!(
        store.bot_events("b", 2, 10).unwrap(),
        [2, 3].map(|s| (s, event("b", s)))
    );
    assert_eq!(store.last_bot_event("a").unwrap(), 10);
    assert_eq!(store.last_bot_event("b").unwrap(), 3);
    assert_eq!(store.last_bot_event("nobody").unwrap(), 0);

    store.append_bot_event("b", 4, &event("b", 4)).unwrap();
    assert_eq!(store.last_bot_event("b").unwrap(), 4);
}

fn tournament(id: &str, settings: &[u8]) -> TournamentRecord {
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
/// belong to (or none), from a store opened again, also through the metrics
/// wrapper the server uses.
async fn tournaments_keep_their_order_and_matches_across_a_restart(backend: Backend) {
    let db = TestDb::new(backend, "arena_tournaments");
    let store: Arc<dyn Store> = Arc::new(TimedStore::new(db.open(), Arc::new(Metrics::new())));
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

/// A revocation keeps its first time (revoking again is no change), an
/// unknown bot is refused, it is read back after a reopen, and a new key
/// clears it, also through the metrics wrapper the server uses.
async fn revocations_keep_their_first_time_until_a_new_key(backend: Backend) {
    let db = TestDb::new(backend, "arena_revoke");
    let store: Arc<dyn Store> = Arc::new(TimedStore::new(db.open(), Arc::new(Metrics::new())));
    assert!(store.register_bot(&bot("a1", "alpha", 1)).unwrap());
    assert!(store.register_bot(&bot("b2", "beta", 2)).unwrap());
    store.revoke_bot("b2", 1_700_000_003_000).unwrap();
    store
        .revoke_bot("b2", 1_700_000_004_000)
        .expect("revoking again is no change");
    assert!(refused(store.revoke_bot("zz", 1)), "no such bot");
    let revoked = BotRecord {
        revoked_unix_ms: Some(1_700_000_003_000),
        ..bot("b2", "beta", 2)
    };
    let expected = vec![bot("a1", "alpha", 1), revoked.clone()];
    assert_eq!(store.bots().unwrap(), expected);
    drop(store);

    let store = db.open();
    assert_eq!(store.bots().unwrap(), expected, "after a reopen");
    store.set_bot_key("b2", &TokenHash([7; 32])).unwrap();
    assert_eq!(
        store.bots().unwrap(),
        [bot("a1", "alpha", 1), bot("b2", "beta", 7)],
        "a new key clears the revocation"
    );
    store.revoke_bot("b2", 1_700_000_005_000).unwrap();
    drop(store);

    let store = db.open();
    assert_eq!(
        store.bots().unwrap()[1].revoked_unix_ms,
        Some(1_700_000_005_000),
        "revoked again after the new key, read after a reopen"
    );
}

/// Each tournament's log: appended by seq, read from a seq with a limit, its
/// last seq known (0 for none), a stored seq never overwritten, an unknown
/// tournament refused, all after a reopen.
async fn tournament_event_logs_page_from_a_seq(backend: Backend) {
    let db = TestDb::new(backend, "arena_tournament_events");
    let store: Arc<dyn Store> = Arc::new(TimedStore::new(db.open(), Arc::new(Metrics::new())));
    store.create_tournament(&tournament("t1", b"1")).unwrap();
    store.create_tournament(&tournament("t2", b"2")).unwrap();
    assert_eq!(store.last_tournament_event("t1").unwrap(), 0);
    assert!(store.tournament_events("t1", 0, 10).unwrap().is_empty());
    let event = |t: &str, seq: u64| format!("{t}:{seq}").into_bytes();
    for seq in 1..=10 {
        store
            .append_tournament_event("t1", seq, &event("t1", seq))
            .unwrap();
    }
    for seq in 1..=3 {
        store
            .append_tournament_event("t2", seq, &event("t2", seq))
            .unwrap();
    }
    assert!(
        refused(store.append_tournament_event("t1", 4, b"other")),
        "a stored seq is kept"
    );
    assert!(
        refused(store.append_tournament_event("nope", 1, b"x")),
        "no such tournament"
    );
    assert_eq!(
        store.tournament_events("t1", 4, 1).unwrap(),
        [(4, event("t1", 4))],
        "the refused append changed nothing"
    );
    assert!(store.tournament_events("nope", 0, 10).unwrap().is_empty());
    drop(store);

    let store = db.open();
    let page = |from: u64, limit: usize| store.tournament_events("t1", from, limit).unwrap();
    assert_eq!(page(4, 3), [4, 5, 6].map(|s| (s, event("t1", s))));
    assert_eq!(page(0, 2), [1, 2].map(|s| (s, event("t1", s))));
    assert_eq!(page(9, 100), [9, 10].map(|s| (s, event("t1", s))));
    assert!(page(11, 100).is_empty());
    assert!(page(1, 0).is_empty());
    assert_eq!(page(1, usize::MAX).len(), 10);
    assert!(page(u64::MAX, 1).is_empty());
    assert_eq!(
        store.tournament_events("t2", 2, 10).unwrap(),
        [2, 3].map(|s| (s, event("t2", s)))
    );
    assert_eq!(store.last_tournament_event("t1").unwrap(), 10);
    assert_eq!(store.last_tournament_event("t2").unwrap(), 3);
    assert_eq!(store.last_tournament_event("nope").unwrap(), 0);
    assert!(store.tournament_events("nope", 0, 10).unwrap().is_empty());

    store
        .append_tournament_event("t2", 4, &event("t2", 4))
        .unwrap();
    assert_eq!(store.last_tournament_event("t2").unwrap(), 4);
}

fn challenge(id: &str, info: &[u8], accepted: &[&str]) -> ChallengeRecord {
    ChallengeRecord {
        id: id.to_owned(),
        info: info.to_vec(),
        accepted: accepted.iter().map(|a| (*a).to_owned()).collect(),
    }
}

/// Pending challenges come back in the order they were first saved (not by
/// id), a replaced one in its first place with its new content, a removed
/// one gone (removing one not stored is no change), from a store opened
/// again, also through the metrics wrapper the server uses.
async fn challenges_keep_their_order_when_replaced_across_a_restart(backend: Backend) {
    let db = TestDb::new(backend, "arena_challenges");
    let store: Arc<dyn Store> = Arc::new(TimedStore::new(db.open(), Arc::new(Metrics::new())));
    assert!(store.challenges().unwrap().is_empty());
    store
        .save_challenge(&challenge("c3", b"\x08\x01", &[]))
        .unwrap();
    store
        .save_challenge(&challenge("c1", &[0, 255], &["a"]))
        .unwrap();
    store.save_challenge(&challenge("c2", b"", &[])).unwrap();
    // A new acceptance replaces c3: it keeps its place.
    store
        .save_challenge(&challenge("c3", b"\x08\x02", &["b", "a\"q"]))
        .unwrap();
    store.remove_challenge("c2").unwrap();
    store
        .remove_challenge("c2")
        .expect("removing again is no change");
    store
        .remove_challenge("never")
        .expect("removing one never saved is no change");
    let expected = vec![
        challenge("c3", b"\x08\x02", &["b", "a\"q"]),
        challenge("c1", &[0, 255], &["a"]),
    ];
    assert_eq!(store.challenges().unwrap(), expected);
    drop(store);

    let store = db.open();
    assert_eq!(store.challenges().unwrap(), expected, "after a reopen");
    // The order goes on after the restart; replacing after it keeps places.
    store.save_challenge(&challenge("c0", b"0", &[])).unwrap();
    store
        .save_challenge(&challenge("c1", &[0, 255], &["a", "c"]))
        .unwrap();
    let expected = vec![
        challenge("c3", b"\x08\x02", &["b", "a\"q"]),
        challenge("c1", &[0, 255], &["a", "c"]),
        challenge("c0", b"0", &[]),
    ];
    assert_eq!(store.challenges().unwrap(), expected);
    store.remove_challenge("c3").unwrap();
    drop(store);

    let store = db.open();
    assert_eq!(store.challenges().unwrap(), expected[1..], "after a reopen");
}
