//! What happens to ended games over time: with `--retain-finished-days`, games
//! that ended longer ago than the window are deleted (and answer NOT_FOUND)
//! while younger ended games and every game in play are untouched; and
//! `druids-server export-all` writes the ended games of a database as the
//! same replays `ExportReplay` answers, resumably. The retention test runs on
//! SQLite and PostgreSQL.

use std::path::PathBuf;
use std::process::Command;
use std::sync::Arc;
use std::time::Duration;

use druids_contract::engine::Seat;
use druids_contract::pb;
use druids_contract::pb::druids_service_client::DruidsServiceClient;
use druids_server::auth::TokenHash;
use druids_server::retention::DAY_MS;
use druids_server::{Limits, ManualClock};
use druids_store::postgres::PostgresStore;
use druids_store::sqlite::SqliteStore;
use druids_store::{GameRecord, Store, Sync};
use druids_tests::process::server_binary;
use druids_tests::{Lcg, TestServer, create, play_random, state};

use crate::stores::{Backend, TestDb, on_each_store};
use tonic::Code;
use tonic::transport::Channel;

fn temp_db(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("druids-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir.join("games.db")
}

/// Plays a 2-player Meduris game of `seed` to its end over the contract.
async fn finished_game(client: &mut DruidsServiceClient<Channel>, seed: u64) -> String {
    let (id, tokens) = create(client, pb::GameKind::Meduris, 2, seed).await;
    play_random(client, &id, &tokens, &mut Lcg(seed), usize::MAX)
        .await
        .unwrap();
    assert_eq!(
        state(client, &id, None).await.status,
        pb::GameStatus::Finished as i32
    );
    id
}

/// The code of `GetState` of `id`: OK or the error's.
async fn get_state_code(client: &mut DruidsServiceClient<Channel>, id: &str) -> Code {
    match client
        .get_state(pb::GetStateRequest {
            game_id: id.to_owned(),
        })
        .await
    {
        Ok(_) => Code::Ok,
        Err(e) => e.code(),
    }
}

on_each_store!(games_that_ended_before_the_window_are_deleted_and_nothing_else);

async fn games_that_ended_before_the_window_are_deleted_and_nothing_else(backend: Backend) {
    let db = TestDb::new(backend, "retention");
    let start = 1_000 * DAY_MS;
    let clock = Arc::new(ManualClock::at(start));
    let store = db.open();
    // A game abandoned long ago, stored before this server started.
    store
        .create_game(&GameRecord {
            id: "abandoned-long-ago".into(),
            kind: druids_contract::Kind::Meduris,
            players: 2,
            seed: 3,
            seed_chosen: true,
            options: pb::GameOptions::default(),
            created_unix_ms: start - 3 * DAY_MS,
            seats: (0..2)
                .map(|s| (Seat(s), format!("p{s}"), TokenHash::of("t")))
                .collect(),
            request: None,
        })
        .unwrap();
    store
        .abandon("abandoned-long-ago", "idle", start - 2 * DAY_MS)
        .unwrap();
    let limits = Limits {
        retain_finished_days: Some(7),
        // The clock jumps days: the games kept in play must not go idle.
        idle_game_secs: 0,
        ..Limits::unthrottled()
    };
    let server = TestServer::with_clock(Arc::clone(&store), limits, clock.clone()).await;
    let mut client = server.client().await;
    let old = [
        finished_game(&mut client, 11).await,
        finished_game(&mut client, 12).await,
    ];
    clock.advance(5 * DAY_MS);
    let young = finished_game(&mut client, 13).await;
    let (running, tokens) = create(&mut client, pb::GameKind::Meduris, 3, 14).await;
    play_random(&mut client, &running, &tokens, &mut Lcg(14), 5)
        .await
        .unwrap();
    let waiting = druids_tests::create_waiting(&mut client).await.game_id;
    // Eight days after the first games ended, three after the young one.
    clock.advance(3 * DAY_MS);
    // The referee's round (also run every tick): ended games past their grace
    // period leave memory, so the store answers for them.
    server.service.expire_due();
    // Read back from the store (and kept among the recently read) before the sweep.
    assert_eq!(get_state_code(&mut client, &old[0]).await, Code::Ok);
    // The task `druids_server::start` spawns; its first sweep runs at once.
    druids_server::spawn_retention(Arc::clone(&store), &server.service);

    let deleted = ["abandoned-long-ago", &old[0], &old[1]];
    // Asked for before the sweep reaches them, they would be read back from
    // the store: wait for the store first.
    // (A deadline that only guards a hang.)
    let deadline = std::time::Instant::now() + Duration::from_secs(120);
    while !deleted
        .iter()
        .all(|id| store.load_game(id).unwrap().is_none())
        && std::time::Instant::now() < deadline
    {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    server.service.expire_due();
    for id in deleted {
        assert!(
            store.load_game(id).unwrap().is_none(),
            "{id} ended more than 7 days ago: deleted from the store"
        );
        assert_eq!(
            get_state_code(&mut client, id).await,
            Code::NotFound,
            "{id} was deleted: GetState answers NOT_FOUND"
        );
    }
    for id in [&young, &running, &waiting] {
        assert!(store.load_game(id).unwrap().is_some(), "{id} is kept");
    }
    assert_eq!(
        state(&mut client, &young, None).await.status,
        pb::GameStatus::Finished as i32
    );
    let st = state(&mut client, &running, None).await;
    assert_eq!(st.status, pb::GameStatus::Running as i32);
    assert_eq!(st.version, 5);
    assert_eq!(
        state(&mut client, &waiting, None).await.status,
        pb::GameStatus::WaitingForPlayers as i32
    );
    // The running game plays on.
    play_random(&mut client, &running, &tokens, &mut Lcg(15), 3)
        .await
        .unwrap();
    server.stop().await;
}

/// Runs `druids-server export-all --db db [--after after]`; its JSON lines.
fn export_all(db: &std::ffi::OsStr, after: Option<&str>) -> Vec<pb::Replay> {
    let mut cmd = Command::new(server_binary());
    cmd.arg("export-all").arg("--db").arg(db);
    if let Some(after) = after {
        cmd.args(["--after", after]);
    }
    let out = cmd.output().expect("druids-server runs");
    assert!(
        out.status.success(),
        "export-all failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| {
            let json: serde_json::Value = serde_json::from_str(l).expect("a JSON line");
            druids_contract::json::from_json::<pb::Replay>(&json).expect("a Replay")
        })
        .collect()
}

#[tokio::test]
async fn export_all_writes_each_ended_game_as_export_replay_answers_it() {
    let db = temp_db("export");
    let store = Arc::new(SqliteStore::open(&db, Sync::Normal).unwrap());
    exports_match_export_replay(store, db.as_os_str()).await;

    let missing = Command::new(server_binary())
        .args(["export-all", "--db"])
        .arg(db.with_file_name("no-such.db"))
        .output()
        .unwrap();
    assert!(!missing.status.success(), "a missing database is an error");
    assert!(String::from_utf8_lossy(&missing.stderr).contains("no database"));
    let _ = std::fs::remove_dir_all(db.parent().unwrap());
}

/// `export-all --db postgres://…` as on SQLite.
#[tokio::test]
async fn export_all_reads_a_postgres_database_too() {
    let url = druids_tests::postgres::PgCluster::shared().database("export");
    let store = Arc::new(PostgresStore::open(&url, Sync::Normal).unwrap());
    exports_match_export_replay(store, std::ffi::OsStr::new(&url)).await;
}

/// Three ended games and a running one on a server over `store`; `export-all`
/// on `db` (the same database) writes exactly the ended ones, each as
/// ExportReplay answers it, and resumes after `--after`.
async fn exports_match_export_replay(store: Arc<dyn Store>, db: &std::ffi::OsStr) {
    let server = TestServer::with(store, Limits::unthrottled()).await;
    let mut client = server.client().await;
    let mut ended = Vec::new();
    for seed in 21..24 {
        ended.push(finished_game(&mut client, seed).await);
    }
    let (running, tokens) = create(&mut client, pb::GameKind::Meduris, 2, 30).await;
    play_random(&mut client, &running, &tokens, &mut Lcg(30), 4)
        .await
        .unwrap();
    ended.sort();
    let mut replays = Vec::new();
    for id in &ended {
        replays.push(
            client
                .export_replay(pb::ExportReplayRequest {
                    game_id: id.clone(),
                })
                .await
                .expect("the replay of an ended game")
                .into_inner(),
        );
    }

    let all = export_all(db, None);
    let ids: Vec<&str> = all.iter().map(|r| r.game_id.as_str()).collect();
    assert_eq!(ids, ended, "one line per ended game, in id order");
    assert!(
        !ids.contains(&running.as_str()),
        "the running game is not exported"
    );
    assert_eq!(all, replays, "each line is the game's ExportReplay answer");

    let rest = export_all(db, Some(&ended[0]));
    assert_eq!(rest, replays[1..], "--after resumes after that id");
    assert!(export_all(db, Some(&ended[2])).is_empty());
    server.stop().await;
}
