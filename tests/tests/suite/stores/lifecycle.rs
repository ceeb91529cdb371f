//! [`druids_store::Lifecycle`] with the writes it reads back
//! ([`druids_store::Games`]) and the request ids kept in their commits
//! ([`druids_store::Requests`]): games in play and ended, pages of ended
//! games, ids for exports, the secret, and retention.

use druids_contract::engine::Seat;
use druids_contract::pb;
use druids_store::{EndedQuery, Epoch, RequestRecord, TokenHash};

use super::{Backend, TestDb, action, game, on_every_store};

on_every_store!(the_store_reads_back_lists_and_deletes);

/// The store alone: games in play and ended, pages of ended games, ids for
/// exports, request ids, the secret, and retention.
async fn the_store_reads_back_lists_and_deletes(backend: Backend) {
    let db = TestDb::new(backend, "store_api");
    let store = db.open();
    let secret = store.secret().unwrap();
    for (i, id) in ["a", "b", "c", "d", "e"].iter().enumerate() {
        store
            .create_game(&game(id, 1000 + i as u64 / 2, 1))
            .unwrap();
    }
    let request = RequestRecord {
        key: [7; 32],
        fingerprint: [8; 32],
        game_id: "b".into(),
        seat: Some(Seat(1)),
        started: true,
        at_ms: 5000,
    };
    store
        .claim_seat(
            "b",
            Seat(1),
            "late",
            &TokenHash([9; 32]),
            Some(&request),
            Epoch::NONE,
        )
        .unwrap();
    assert!(
        store
            .claim_seat(
                "b",
                Seat(1),
                "again",
                &TokenHash([9; 32]),
                None,
                Epoch::NONE
            )
            .is_err(),
        "a seat is claimed once"
    );
    for v in 1..=3 {
        store.append_action("b", &action(v)).unwrap();
    }
    store.finish("b", 3, &Default::default(), 9000).unwrap();
    store.finish("b", 3, &Default::default(), 9999).unwrap();
    store.abandon("c", "idle", 8000).unwrap();
    store.finish("d", 0, &Default::default(), 7000).unwrap();

    let b = store.load_game("b").unwrap().expect("b is stored");
    assert_eq!(b.record.seed, u64::MAX - 1000);
    assert_eq!(b.record.seats.len(), 1);
    assert_eq!(b.joins, vec![(Seat(1), "late".into(), TokenHash([9; 32]))]);
    assert_eq!(b.actions.len(), 3);
    assert_eq!(b.ended_unix_ms, Some(9000), "the first end counts");
    assert!(store.load_game("zz").unwrap().is_none());
    let in_play: Vec<String> = store
        .load_in_play()
        .unwrap()
        .into_iter()
        .map(|g| g.record.id)
        .collect();
    assert_eq!(in_play, ["a", "e"]);

    let page = |q: EndedQuery| -> Vec<String> {
        store
            .list_ended(&q)
            .unwrap()
            .into_iter()
            .map(|g| g.game_id)
            .collect()
    };
    // Newest first, then by id.
    assert_eq!(
        page(EndedQuery {
            limit: 10,
            ..Default::default()
        }),
        ["c", "d", "b"]
    );
    assert_eq!(
        page(EndedQuery {
            limit: 10,
            after: Some((1001, "c".into())),
            ..Default::default()
        }),
        ["d", "b"]
    );
    assert_eq!(
        page(EndedQuery {
            status: Some(pb::GameStatus::Abandoned),
            limit: 10,
            ..Default::default()
        }),
        ["c"]
    );
    assert!(
        page(EndedQuery {
            kind: Some(druids_contract::Kind::Dolmen),
            limit: 10,
            ..Default::default()
        })
        .is_empty()
    );
    let listed = store
        .list_ended(&EndedQuery {
            limit: 1,
            after: Some((1001, "d".into())),
            ..Default::default()
        })
        .unwrap();
    assert_eq!(listed[0].game_id, "b");
    assert_eq!(listed[0].version, 3);
    assert!(listed[0].seats.iter().all(|s| s.claimed));
    assert_eq!(listed[0].seats[1].name, "late");
    assert_eq!(store.ended_ids("", 2).unwrap(), ["b", "c"]);
    assert_eq!(store.ended_ids("c", 10).unwrap(), ["d"]);

    assert_eq!(store.requests_since(0).unwrap(), vec![request]);
    assert!(store.requests_since(5001).unwrap().is_empty(), "forgotten");
    // Retention: games ended before 8500, at most 1 at a time, never in play.
    assert_eq!(store.delete_ended_before(8500, 1).unwrap(), 1);
    assert_eq!(store.delete_ended_before(8500, 10).unwrap(), 1);
    assert_eq!(store.delete_ended_before(8500, 10).unwrap(), 0);
    assert_eq!(store.ended_ids("", 10).unwrap(), ["b"]);
    assert_eq!(store.load_in_play().unwrap().len(), 2);
    drop(store);
    assert_eq!(db.open().secret().unwrap(), secret, "the secret is kept");
}
