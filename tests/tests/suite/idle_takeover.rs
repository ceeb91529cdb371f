//! A game whose creation no client learned (issue 27, outage 1): committed,
//! then its node killed, nobody ever plays it. The node that takes it over
//! counts its idleness from what the store dates (its creation here), not
//! from the takeover, so `--idle-game-secs` abandons it at once instead of
//! letting every takeover start its idle time again: it does not stay
//! "running" for good, listed by `ListGames`.
#![cfg(unix)]

use std::time::Duration;

use druids_contract::pb;
use druids_contract::pb::druids_service_client::DruidsServiceClient;
use druids_tests::postgres::PgCluster;
use druids_tests::process::ServerProcess;

/// Guards a hang only: every wait below is on a condition.
const HANG: Duration = Duration::from_secs(120);
/// The nodes' idle limit: far longer than the test, so only idleness
/// counted from the game's creation can abandon the game within it.
const IDLE_SECS: &str = "600";

fn node(db: &str, dir: &std::path::Path, i: usize) -> ServerProcess {
    let id = format!("node-{i}");
    let args = [
        "--listen",
        "127.0.0.1:0",
        "--http-listen",
        "off",
        "--db",
        db,
        "--node-id",
        &id,
        "--lease-secs",
        "2",
        "--idle-game-secs",
        IDLE_SECS,
    ];
    let envs = [
        ("DRUIDS_MAX_READS_PER_SECOND", "0"),
        ("DRUIDS_MAX_ANONYMOUS_READS_PER_SECOND", "0"),
        ("DRUIDS_MAX_SETUPS_PER_SECOND", "0"),
    ];
    ServerProcess::start(&args, &envs, &dir.join(format!("{id}.log")))
}

fn sql(db: &str, query: &str) -> String {
    PgCluster::shared().sql(PgCluster::db_name(db), query)
}

/// Node A commits a create and is SIGKILLed as soon as the game is in the
/// database (the answer, if it left at all, is dropped). The game's
/// creation is dated an hour back, standing for an hour of being taken over
/// again and again with nobody playing. B takes it over and abandons it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_game_whose_creation_nobody_learned_is_abandoned_on_takeover() {
    let db = PgCluster::shared().database("idle_takeover");
    let dir = std::env::temp_dir().join(format!("druids-idle-takeover-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let a = node(&db, &dir, 0);
    let b = node(&db, &dir, 1);
    let mut to_a = DruidsServiceClient::connect(a.url())
        .await
        .expect("connect");
    let create = tokio::spawn(async move {
        to_a.create_game(pb::CreateGameRequest {
            kind: pb::GameKind::Meduris as i32,
            players: 2,
            request_id: "lost-answer".into(),
            ..Default::default()
        })
        .await
    });
    let deadline = tokio::time::Instant::now() + HANG;
    let id = loop {
        let id = sql(&db, "SELECT id FROM games");
        if !id.is_empty() {
            break id;
        }
        assert!(tokio::time::Instant::now() < deadline, "the create commits");
        tokio::time::sleep(Duration::from_millis(2)).await;
    };
    sql(
        &db,
        &format!("UPDATE games SET created_unix_ms = created_unix_ms - 3600000 WHERE id = '{id}'"),
    );
    a.kill();
    create.abort(); // nobody learns the answer
    let mut to_b = DruidsServiceClient::connect(b.url())
        .await
        .expect("connect");
    let deadline = tokio::time::Instant::now() + HANG;
    loop {
        let state = match to_b
            .get_state(pb::GetStateRequest {
                game_id: id.clone(),
            })
            .await
        {
            Ok(r) => r.into_inner().state.expect("a state"),
            // Until B takes it over: the dead owner cannot answer.
            Err(s) if s.code() == tonic::Code::Unavailable => pb::StateView::default(),
            Err(s) => panic!("GetState: {s:?}"),
        };
        if state.status == pb::GameStatus::Abandoned as i32 {
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "the game nobody learned of is abandoned by the node that took it over"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let reason = sql(
        &db,
        &format!("SELECT abandoned FROM games WHERE id = '{id}'"),
    );
    assert!(reason.starts_with("no action for"), "{reason:?}");
    let listed = to_b
        .list_games(pb::ListGamesRequest::default())
        .await
        .expect("list")
        .into_inner();
    assert!(
        listed
            .games
            .iter()
            .all(|g| g.game_id != id || g.status != pb::GameStatus::Running as i32),
        "an abandoned game is not listed as running"
    );
    b.kill();
    let _ = std::fs::remove_dir_all(&dir);
}
