//! The PostgreSQL store under a real server: a database that refuses writes
//! (UNAVAILABLE, nothing changed) and connections lost and found again. What
//! every store does alike is the conformance suite's ([`crate::stores`]).
//! And the arena's writes retried after a connection lost just after their
//! commit, while another server wrote meanwhile ([`PgRelay`]).

use druids_contract::engine::Seat;
use druids_contract::pb;
use druids_server::Limits;
use druids_store::postgres::PostgresStore;
use druids_store::{
    Accounts, ActionRecord, BotRecord, ChallengeRecord, Claim, Epoch, Games, Leases, Lifecycle,
    Matches, StoreError, Sync, TokenHash,
};
use druids_tests::pg_relay::PgRelay;
use druids_tests::postgres::PgCluster;
use std::time::Duration;

use druids_contract::pb::druids_service_client::DruidsServiceClient;
use druids_tests::process::ServerProcess;
use druids_tests::{Lcg, TestServer, authed, create, play_random, state};
use tonic::Code;
use tonic::transport::Channel;
use tonic_types::StatusExt;

use crate::stores::{Backend, TestDb, action, bot, game};

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
        // Which refusal, not tokio-postgres' bare "db error".
        assert!(
            status.message().contains("db error (SQLSTATE 25006)"),
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

/// A key rotation whose connection is lost just after it committed, while
/// another server revokes the bot: the store's retry finds its key stored and
/// leaves the revocation alone (it came after the rotation).
#[test]
fn a_retried_key_rotation_keeps_a_revocation_made_meanwhile() {
    let db = TestDb::new(Backend::Postgres, "retried_key");
    let other = db.postgres();
    other.register_bot(&bot("b1", "beta", 1)).unwrap();
    let cut = PgRelay::new(db.pg_url());
    let store = PostgresStore::open(cut.url(), Sync::Full).unwrap();
    cut.arm("UPDATE", move || {
        other.revoke_bot("b1", 1_700_000_009_000).unwrap();
    });
    store.set_bot_key("b1", &TokenHash([2; 32])).unwrap();
    assert!(
        cut.fired(),
        "the rotation's connection was cut after its commit"
    );
    let bots = db.postgres().bots().unwrap();
    assert_eq!(
        bots,
        [BotRecord {
            revoked_unix_ms: Some(1_700_000_009_000),
            ..bot("b1", "beta", 2)
        }],
        "the new key, revoked after it"
    );
}

/// A challenge saved on a connection lost just after the save committed,
/// while another server removes the challenge (it was answered): the store's
/// retry does not bring it back, nor does any later save of it.
#[test]
fn a_retried_challenge_save_does_not_restore_a_removed_challenge() {
    let db = TestDb::new(Backend::Postgres, "retried_challenge");
    let other = db.postgres();
    let challenge = |accepted: &[&str]| ChallengeRecord {
        id: "c1".into(),
        info: vec![1, 2, 3],
        accepted: accepted.iter().map(|a| (*a).to_owned()).collect(),
    };
    let cut = PgRelay::new(db.pg_url());
    let store = PostgresStore::open(cut.url(), Sync::Full).unwrap();
    store.save_challenge(&challenge(&[])).unwrap();
    cut.arm("INSERT", move || other.remove_challenge("c1").unwrap());
    store.save_challenge(&challenge(&["b2"])).unwrap();
    assert!(
        cut.fired(),
        "the save's connection was cut after its commit"
    );
    assert_eq!(db.postgres().challenges().unwrap(), [], "still removed");
    store.save_challenge(&challenge(&["b2", "b3"])).unwrap();
    assert_eq!(
        db.postgres().challenges().unwrap(),
        [],
        "a removed challenge stays removed"
    );
    store
        .save_challenge(&ChallengeRecord {
            id: "c2".into(),
            ..challenge(&[])
        })
        .unwrap();
    assert_eq!(
        db.postgres().challenges().unwrap().len(),
        1,
        "others are saved"
    );
}

/// A game taken over from A by B and back by A: a room of A built before
/// B's action, writing that version under A's new lease, is refused as
/// fenced (the client is told GAME_MOVED and retries), not as a storage
/// failure ("another action has this version").
#[test]
fn a_write_behind_another_owners_action_is_refused_as_fenced() {
    let db = TestDb::new(Backend::Postgres, "fenced_behind");
    let store = db.postgres();
    store.create_game(&game("g1", 1, 2)).unwrap();
    let first = store.claim("g1", "a", Claim::New).unwrap().unwrap();
    let write = |version: u64, seat: u8, epoch: Epoch| {
        store.append_action(
            "g1",
            &ActionRecord {
                seat: Seat(seat),
                epoch,
                ..action(version)
            },
        )
    };
    write(1, 0, first).unwrap();
    let by_b = store
        .claim("g1", "b", Claim::Takeover { seen: Some(first) })
        .unwrap()
        .expect("B takes the game over");
    write(2, 1, by_b).unwrap();
    let back = store
        .claim("g1", "a", Claim::Takeover { seen: Some(by_b) })
        .unwrap()
        .expect("A takes it back");
    let refused = write(2, 0, back);
    assert!(
        matches!(refused, Err(StoreError::Fenced { .. })),
        "refused as fenced: {refused:?}"
    );
    assert_eq!(store.load_game("g1").unwrap().unwrap().actions.len(), 2);
}

/// During a database outage a call that says how long its client waits
/// (`grpc-timeout`) is answered `UNAVAILABLE` with a `RetryInfo` before
/// then, not held in the store's retries past it (the client would see its
/// own `DEADLINE_EXCEEDED`). Once the database is back, the same keyed
/// submission is answered and stored once; the log says "database lost" once
/// and "database back" once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_outage_is_answered_unavailable_within_the_clients_deadline() {
    let db = TestDb::new(Backend::Postgres, "outage_deadline");
    let relay = PgRelay::new(db.pg_url());
    let dir = std::env::temp_dir().join(format!("druids-outage-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let server = ServerProcess::start(
        &[
            "--listen",
            "127.0.0.1:0",
            "--http-listen",
            "off",
            "--db",
            relay.url(),
        ],
        &[("DRUIDS_MAX_SUBMITS_PER_SECOND", "0")],
        &dir.join("server.log"),
    );
    let mut client =
        DruidsServiceClient::new(Channel::from_shared(server.url()).unwrap().connect_lazy());
    let (id, tokens) = create(&mut client, pb::GameKind::Meduris, 2, 4).await;
    let submit = |version: u64, seat: u32| {
        let mut request = authed(
            &tokens[seat as usize],
            pb::SubmitActionRequest {
                game_id: id.clone(),
                choice: Some(pb::submit_action_request::Choice::LegalActionId(0)),
                expected_version: Some(version),
                idempotency_key: format!("k{version}"),
            },
        );
        // Longer than a loaded machine's pause, shorter than the store's
        // retries (about 6 s).
        request.set_timeout(Duration::from_secs(3));
        request
    };
    let now = state(&mut client, &id, None).await;
    relay.cut_off();
    let refused = client
        .submit_action(submit(now.version, now.to_act.unwrap()))
        .await
        .expect_err("no database");
    assert_eq!(refused.code(), Code::Unavailable, "{refused:?}");
    assert_eq!(
        refused.get_details_error_info().map(|i| i.reason),
        Some("STORAGE_UNAVAILABLE".to_owned()),
        "{refused:?}"
    );
    assert!(
        refused
            .get_details_retry_info()
            .is_some_and(|r| r.retry_delay.is_some()),
        "with a RetryInfo: {refused:?}"
    );
    relay.restore();
    let mut answered = None;
    for _ in 0..600 {
        match client
            .submit_action(submit(now.version, now.to_act.unwrap()))
            .await
        {
            Ok(reply) => {
                answered = Some(reply.into_inner());
                break;
            }
            Err(s) if druids_tests::retry_allowed(&s) => {
                tokio::time::sleep(Duration::from_millis(100)).await
            }
            Err(s) => panic!("{s:?}"),
        }
    }
    let answered = answered.expect("answered once the database is back");
    assert_eq!(answered.version, now.version + 1);
    assert_eq!(
        PgCluster::shared().sql(db.pg_name(), "SELECT count(*) FROM actions"),
        "1"
    );
    // The operator reads the outage as two lines, not one per retry.
    let log = std::fs::read_to_string(dir.join("server.log")).unwrap();
    let lines = |what: &str| log.lines().filter(|l| l.contains(what)).count();
    assert_eq!(lines("database lost"), 1, "{log}");
    assert_eq!(lines("database back after"), 1, "{log}");
    assert_eq!(lines("trying again"), 0, "retries at debug level: {log}");
    let _ = std::fs::remove_dir_all(&dir);
}
