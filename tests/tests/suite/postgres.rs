//! The stores at the store level, against a real PostgreSQL cluster and a
//! SQLite file: group commit under concurrent appends and the reads and
//! deletions that the server's lifecycle relies on (both stores); a database
//! that refuses writes (UNAVAILABLE, nothing changed) and connections lost
//! and found again (PostgreSQL).

use std::sync::{Arc, Barrier};

use druids_contract::engine::Seat;
use druids_contract::pb;
use druids_server::Limits;
use druids_server::auth::TokenHash;
use druids_server::store::{
    ActionRecord, EndedQuery, Epoch, GameRecord, Origin, RequestRecord, Store,
};
use druids_tests::postgres::PgCluster;
use druids_tests::{Lcg, TestServer, create, play_random, state};
use tonic::Code;

use crate::stores::{Backend, TestDb, on_each_store};

fn game(id: &str, created: u64, seats: usize) -> GameRecord {
    GameRecord {
        id: id.to_owned(),
        kind: pb::GameKind::Meduris,
        players: 2,
        seed: u64::MAX - created,
        seed_chosen: true,
        request: None,
        options: pb::GameOptions::default(),
        created_unix_ms: created,
        seats: (0..seats)
            .map(|s| (Seat(s as u8), format!("p{s}"), TokenHash([s as u8; 32])))
            .collect(),
    }
}

fn action(version: u64) -> ActionRecord {
    ActionRecord {
        version,
        seat: Seat(0),
        origin: Origin::Seat,
        action: pb::Action::default(),
        request: pb::SubmitActionRequest::default(),
        epoch: Epoch::NONE,
    }
}

/// Many writers at once, on each store: each append returns its own row's
/// result (a duplicate fails alone, inside a batch others commit in), and
/// every acknowledged row is stored.
async fn concurrent_appends_share_commits_and_keep_their_own_results(backend: Backend) {
    let db = TestDb::new(backend, "group");
    let store = db.open();
    for g in 0..8 {
        store.create_game(&game(&format!("g{g}"), 0, 0)).unwrap();
    }
    let stored = |store: &dyn Store, id: &str| store.load_game(id).unwrap().unwrap().actions.len();
    let start = Arc::new(Barrier::new(8));
    let writers: Vec<_> = (0..8)
        .map(|g| {
            let (store, start) = (Arc::clone(&store), Arc::clone(&start));
            std::thread::spawn(move || {
                start.wait();
                let id = format!("g{g}");
                let mut results = Vec::new();
                for v in 1..=40 {
                    results.push(store.append_action(&id, &action(v)).is_ok());
                    // Writer 0 also repeats a version: that row alone fails.
                    if g == 0 && v == 20 {
                        results.push(store.append_action(&id, &action(v)).is_ok());
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
        assert_eq!(stored(store.as_ref(), &format!("g{g}")), 40);
    }
    // A row of an unknown game fails alone too.
    assert!(store.append_action("nope", &action(1)).is_err());
    drop(store);
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

on_each_store!(concurrent_appends_share_commits_and_keep_their_own_results);

/// A database that refuses writes (here: read-only) makes SubmitAction fail
/// with UNAVAILABLE and changes nothing; once it takes writes again, the game
/// goes on from where it stood. The store's connections are cut both times,
/// so this also shows it reconnecting.
#[tokio::test]
async fn a_read_only_database_refuses_actions_with_unavailable() {
    let db = TestDb::new(Backend::Postgres, "read_only");
    let cluster = PgCluster::shared();
    let name = db.pg_name().to_owned();
    let server = TestServer::with(db.open(), Limits::unthrottled()).await;
    let mut client = server.client().await;
    let (id, tokens) = create(&mut client, pb::GameKind::Meduris, 2, 9).await;
    play_random(&mut client, &id, &tokens, &mut Lcg(1), 3)
        .await
        .unwrap();
    let stored = || cluster.sql(&name, "SELECT count(*) FROM actions");
    assert_eq!(stored(), "3");

    cluster.sql(
        "postgres",
        &format!("ALTER DATABASE {name} SET default_transaction_read_only = on"),
    );
    cluster.disconnect_all(&name);
    let stuck = state(&mut client, &id, None).await;
    for _ in 0..2 {
        let status = play_random(&mut client, &id, &tokens, &mut Lcg(2), 1)
            .await
            .unwrap_err();
        assert_eq!(status.code(), Code::Unavailable, "{status:?}");
        assert_eq!(crate::trust::reason(&status), "STORAGE_UNAVAILABLE");
        assert!(
            status.message().contains("nothing was applied"),
            "{}",
            status.message()
        );
        assert_eq!(state(&mut client, &id, None).await, stuck);
    }
    assert_eq!(stored(), "3", "a refused action left a row");

    cluster.sql(
        "postgres",
        &format!("ALTER DATABASE {name} SET default_transaction_read_only = off"),
    );
    cluster.disconnect_all(&name);
    play_random(&mut client, &id, &tokens, &mut Lcg(3), 5)
        .await
        .unwrap();
    assert_eq!(
        state(&mut client, &id, None).await.version,
        stuck.version + 5
    );
    assert_eq!(stored(), (stuck.version + 5).to_string());
    server.stop().await;
}

/// Connections cut in the middle of a game: the next calls reconnect, and
/// every action is stored exactly once.
#[tokio::test]
async fn lost_connections_are_found_again() {
    let db = TestDb::new(Backend::Postgres, "reconnect");
    let cluster = PgCluster::shared();
    let server = TestServer::with(db.open(), Limits::unthrottled()).await;
    let mut client = server.client().await;
    let (id, tokens) = create(&mut client, pb::GameKind::Meduris, 3, 5).await;
    let mut rng = Lcg(6);
    for _ in 0..4 {
        play_random(&mut client, &id, &tokens, &mut rng, 5)
            .await
            .unwrap();
        cluster.disconnect_all(db.pg_name());
    }
    let version = state(&mut client, &id, None).await.version;
    assert_eq!(version, 20);
    assert_eq!(
        cluster.sql(db.pg_name(), "SELECT count(*) FROM actions"),
        "20"
    );
    server.stop().await;
}

on_each_store!(the_store_reads_back_lists_and_deletes);

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
            kind: Some(pb::GameKind::Dolmen),
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
