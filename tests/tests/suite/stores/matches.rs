//! [`druids_store::Matches`]: matches with their games and results, and
//! pending challenges, read back in the order they were formed (saved) by a
//! store opened again on the same database. The arena rebuilds itself from
//! these reads at start-up, so each is checked after a reopen.

use druids_contract::engine::Seat;
use druids_contract::pb;
use druids_store::{ChallengeRecord, GameRecord, PlacementRecord, TokenHash};

use super::{Backend, TestDb, bot, on_every_store, record, refused};

on_every_store!(
    matches_keep_their_games_and_results_across_a_restart,
    challenges_keep_their_order_when_replaced_across_a_restart,
);

fn placement(bot_id: &str, rank: u32, score: i64) -> PlacementRecord {
    PlacementRecord {
        bot_id: bot_id.to_owned(),
        rank,
        score,
    }
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
            kind: druids_contract::Kind::Meduris,
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
/// again.
async fn challenges_keep_their_order_when_replaced_across_a_restart(backend: Backend) {
    let db = TestDb::new(backend, "arena_challenges");
    let store = db.open();
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
