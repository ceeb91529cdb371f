//! A turn clock across a restart of the real server process: the pending
//! decision keeps the deadline its `DecisionNeeded` announced (a retried
//! answer carries that same deadline, and `GetState` shows it), so a restart
//! neither refills a seat's clock nor moves a deadline a bot was told.

use druids_contract::pb;
use druids_tests::authed;
use druids_tests::process::ServerProcess;
use pb::druids_service_client::DruidsServiceClient;
use tonic::transport::Channel;

use crate::stores::{Backend, TestDb, on_each_store};

on_each_store!(a_retried_answer_after_a_restart_carries_the_same_deadline);

/// The real server on `db`, on a free port, without a submission limit.
fn start(db: &TestDb, log: &std::path::Path) -> ServerProcess {
    ServerProcess::start(
        &[
            "--listen",
            "127.0.0.1:0",
            "--http-listen",
            "off",
            "--db",
            db.db_arg(),
        ],
        &[("DRUIDS_MAX_SUBMITS_PER_SECOND", "0")],
        log,
    )
}

async fn connect(server: &ServerProcess) -> DruidsServiceClient<Channel> {
    DruidsServiceClient::connect(server.url())
        .await
        .expect("the server answers")
}

/// The deadline on the answer's `DecisionNeeded`.
fn announced(answer: &pb::SubmitActionResponse) -> u64 {
    answer
        .events
        .iter()
        .find_map(|e| match &e.body {
            Some(pb::game_event::Body::DecisionNeeded(d)) => d.deadline_unix_ms,
            _ => None,
        })
        .expect("the answer announces the next decision with its deadline")
}

async fn a_retried_answer_after_a_restart_carries_the_same_deadline(backend: Backend) {
    let db = TestDb::new(backend, "clock-restart");
    let dir = std::env::temp_dir().join(format!("druids-clock-restart-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let log = dir.join(format!("{backend:?}.log"));
    let server = start(&db, &log);
    let mut client = connect(&server).await;
    // A clock long enough never to run out during the test (a deadlock guard
    // only), with a bank that a refill would show.
    let created = client
        .create_game(pb::CreateGameRequest {
            kind: pb::GameKind::Dolmen as i32,
            players: 2,
            options: Some(pb::GameOptions {
                decision_ms: Some(600_000),
                time_bank_ms: Some(60_000),
                ..Default::default()
            }),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    let id = created.game_id;
    let tokens: Vec<String> = created.seats.into_iter().map(|s| s.token).collect();
    let mut answer = None;
    let mut request = None;
    for n in 0..4 {
        let view = druids_tests::state(&mut client, &id, None).await;
        let seat = view.to_act.expect("in play") as usize;
        let submit = pb::SubmitActionRequest {
            game_id: id.clone(),
            choice: Some(pb::submit_action_request::Choice::LegalActionId(0)),
            expected_version: Some(view.version),
            idempotency_key: format!("k{n}"),
        };
        let reply = client
            .submit_action(authed(&tokens[seat], submit.clone()))
            .await
            .unwrap()
            .into_inner();
        answer = Some(reply);
        request = Some((seat, submit));
    }
    let (answer, (seat, submit)) = (answer.unwrap(), request.unwrap());
    let deadline = announced(&answer);
    let pending = druids_tests::state(&mut client, &id, None).await;
    assert_eq!(pending.deadline_unix_ms, Some(deadline));
    server.kill();

    let server = start(&db, &log);
    let mut client = connect(&server).await;
    let again = client
        .submit_action(authed(&tokens[seat], submit))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(
        again, answer,
        "the retry gets the first answer, deadline and all"
    );
    let view = druids_tests::state(&mut client, &id, None).await;
    assert_eq!(
        (view.version, view.deadline_unix_ms),
        (pending.version, Some(deadline)),
        "the pending decision keeps its deadline across the restart"
    );
    server.kill();
}
