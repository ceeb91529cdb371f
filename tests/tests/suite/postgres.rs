//! The PostgreSQL store under a real server: a database that refuses writes
//! (UNAVAILABLE, nothing changed) and connections lost and found again. What
//! every store does alike is the conformance suite's ([`crate::stores`]).

use druids_contract::pb;
use druids_server::Limits;
use druids_tests::postgres::PgCluster;
use druids_tests::{Lcg, TestServer, create, play_random, state};
use tonic::Code;

use crate::stores::{Backend, TestDb};

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
