//! Durable games through the real stores, SQLite and PostgreSQL: a restarted
//! server carries on every game where it stood, and a store that cannot write
//! refuses actions with UNAVAILABLE while changing nothing.

use std::path::PathBuf;
use std::sync::Arc;

use druids_contract::pb;
use druids_server::Limits;
use druids_store::{Sync, sqlite::SqliteStore};
use druids_tests::{Lcg, TestServer, create, play_random, state};
use tonic::Code;

use crate::stores::{Backend, TestDb, on_each_store};

on_each_store!(
    a_restarted_server_carries_on_every_game,
    idle_games_are_abandoned_and_kept
);

fn temp_db(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("druids-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir.join("games.db")
}

async fn a_restarted_server_carries_on_every_game(backend: Backend) {
    let db = TestDb::new(backend, "restart");
    let store = db.open();
    let server = TestServer::with(store, Limits::unthrottled()).await;
    let mut client = server.client().await;
    let (id, tokens) = create(&mut client, pb::GameKind::Meduris, 3, 77).await;
    // A second game waits for a player.
    let waiting = druids_tests::create_waiting(&mut client).await;
    let started = std::time::Instant::now();
    let n = play_random(&mut client, &id, &tokens, &mut Lcg(4), 60)
        .await
        .unwrap();
    eprintln!("{n} durable actions in {:?}", started.elapsed());
    let before: Vec<_> = [None, Some(tokens[0].as_str()), Some(tokens[2].as_str())]
        .into_iter()
        .collect();
    let mut views = Vec::new();
    for t in &before {
        views.push(state(&mut client, &id, *t).await);
    }
    server.stop().await;

    let server = TestServer::with(db.open(), Limits::unthrottled()).await;
    let mut client = server.client().await;
    for (t, view) in before.iter().zip(&views) {
        assert_eq!(
            &state(&mut client, &id, *t).await,
            view,
            "the same state after the restart"
        );
    }
    // Tokens still work, and the game plays on to its end.
    let rest = play_random(&mut client, &id, &tokens, &mut Lcg(5), 100_000)
        .await
        .unwrap();
    assert!(rest > 0);
    assert_eq!(
        state(&mut client, &id, None).await.status,
        pb::GameStatus::Finished as i32
    );
    // The waiting game can still be joined, and starts.
    let joined = client
        .join_game(pb::JoinGameRequest {
            game_id: waiting.game_id.clone(),
            seat: None,
            name: "late".into(),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert!(joined.started);
    server.stop().await;

    // Finished games stay queryable after yet another restart.
    let server = TestServer::with(db.open(), Limits::unthrottled()).await;
    let mut client = server.client().await;
    let over = state(&mut client, &id, None).await;
    assert_eq!(over.status, pb::GameStatus::Finished as i32);
    assert_eq!(over.version, (n + rest) as u64);
    server.stop().await;
}

#[tokio::test]
async fn a_full_database_refuses_actions_with_unavailable() {
    let db = temp_db("full");
    let store = Arc::new(SqliteStore::open(&db, Sync::Normal).unwrap());
    let server = TestServer::with(store.clone(), Limits::unthrottled()).await;
    let mut client = server.client().await;
    let (id, tokens) = create(&mut client, pb::GameKind::Meduris, 2, 9).await;
    play_random(&mut client, &id, &tokens, &mut Lcg(1), 3)
        .await
        .unwrap();
    // The disk is now "full": SQLite may not grow the file by a single page.
    let pages: u64 = std::fs::metadata(&db).unwrap().len() / 4096;
    store.set_max_pages(pages.max(1)).unwrap();
    // Fill the remaining free pages, if any, until a submission fails.
    let mut failure = None;
    for _ in 0..10_000 {
        match play_random(&mut client, &id, &tokens, &mut Lcg(2), 1).await {
            Ok(_) => continue,
            Err(status) => {
                failure = Some(status);
                break;
            }
        }
    }
    let status = failure.expect("a full database must refuse a submission");
    assert_eq!(status.code(), Code::Unavailable, "{status:?}");
    assert_eq!(crate::trust::reason(&status), "STORAGE_UNAVAILABLE");
    assert!(
        status.message().contains("nothing was applied"),
        "{}",
        status.message()
    );
    // The refused action left no trace, and the game goes on once there is room.
    let stuck = state(&mut client, &id, None).await;
    let again = play_random(&mut client, &id, &tokens, &mut Lcg(2), 1).await;
    assert_eq!(again.unwrap_err().code(), Code::Unavailable);
    assert_eq!(state(&mut client, &id, None).await, stuck);
    store.set_max_pages(1 << 30).unwrap();
    let legal = druids_tests::legal(
        &mut client,
        &id,
        &tokens[stuck.to_act.unwrap() as usize],
        false,
    )
    .await
    .unwrap();
    assert_eq!(legal.version, stuck.version);
    play_random(&mut client, &id, &tokens, &mut Lcg(3), 5)
        .await
        .unwrap();
    assert_eq!(
        state(&mut client, &id, None).await.version,
        stuck.version + 5
    );
    server.stop().await;
    let _ = std::fs::remove_dir_all(db.parent().unwrap());
}

async fn idle_games_are_abandoned_and_kept(backend: Backend) {
    use druids_contract::pb::game_event::Body;
    use druids_server::ManualClock;
    use tokio_stream::StreamExt;

    let db = TestDb::new(backend, "idle");
    let limits = Limits {
        idle_game_secs: 60,
        ..Limits::unthrottled()
    };
    let clock = Arc::new(ManualClock::at(5_000_000));
    let server = TestServer::with_clock(db.open(), limits.clone(), clock.clone()).await;
    let mut client = server.client().await;
    let (id, tokens) = create(&mut client, pb::GameKind::Meduris, 2, 31).await;
    let (busy, busy_tokens) = create(&mut client, pb::GameKind::Meduris, 2, 32).await;
    // A game whose pending decision runs on a turn clock (10 minutes) is
    // moved by the clock, never idle.
    let clocked = client
        .create_game(pb::CreateGameRequest {
            kind: pb::GameKind::Meduris as i32,
            players: 2,
            options: Some(pb::GameOptions {
                decision_ms: Some(600_000),
                time_bank_ms: Some(0),
                ..Default::default()
            }),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner()
        .game_id;
    play_random(&mut client, &id, &tokens, &mut Lcg(1), 2)
        .await
        .unwrap();
    clock.advance(59_999);
    play_random(&mut client, &busy, &busy_tokens, &mut Lcg(1), 1)
        .await
        .unwrap();
    server.service.expire_due();
    assert_eq!(
        state(&mut client, &id, None).await.status,
        pb::GameStatus::Running as i32
    );
    clock.advance(1);
    server.service.expire_due();
    let st = state(&mut client, &id, None).await;
    assert_eq!(st.status, pb::GameStatus::Abandoned as i32);
    assert_eq!(
        state(&mut client, &busy, None).await.status,
        pb::GameStatus::Running as i32,
        "a game with recent activity is kept going"
    );
    clock.advance(120_000);
    server.service.expire_due();
    assert_eq!(
        state(&mut client, &clocked, None).await.status,
        pb::GameStatus::Running as i32,
        "a decision on a turn clock is the clock's to take"
    );
    let err = play_random(&mut client, &id, &tokens, &mut Lcg(2), 1)
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::FailedPrecondition);
    assert!(err.message().contains("abandoned"), "{}", err.message());
    // The log ends with the reason, and the stream closes there.
    let mut stream = client
        .stream_events(pb::StreamEventsRequest {
            game_id: id.clone(),
            from_seq: st.last_seq,
        })
        .await
        .unwrap()
        .into_inner();
    let last = stream.next().await.unwrap().unwrap();
    assert!(matches!(last.body, Some(Body::GameAbandoned(ref a)) if a.reason.contains("60 s")));
    assert!(stream.next().await.is_none());
    server.stop().await;

    // Abandoned, not deleted: still there, still abandoned, after a restart.
    let server = TestServer::with_clock(db.open(), limits, clock).await;
    let mut client = server.client().await;
    let again = state(&mut client, &id, None).await;
    assert_eq!(again, st);
    let listed = client
        .list_games(pb::ListGamesRequest {
            status: pb::GameStatus::Abandoned as i32,
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner()
        .games;
    // (The busy game went idle too in the 2 minutes the clocked one waited.)
    let mut abandoned: Vec<&str> = listed.iter().map(|g| g.game_id.as_str()).collect();
    abandoned.sort_unstable();
    let mut expected = [id.as_str(), busy.as_str()];
    expected.sort_unstable();
    assert_eq!(abandoned, expected);
    server.stop().await;
}
