//! Turn clocks through the contract, on a manual clock (no real sleeps): a seat
//! that never answers cannot freeze a game; an answer just in time is never
//! overruled; a late answer changes nothing; deadlines are visible; timeouts
//! and autopilot are events, and they survive a restart.

use std::sync::Arc;

use druids_contract::pb;
use druids_contract::pb::game_event::Body;
use druids_server::{Limits, ManualClock, MemoryStore, Store};
use druids_tests::{Lcg, TestServer, authed, play_random, state};
use tokio_stream::StreamExt;
use tonic::Code;

const T0: u64 = 1_700_000_000_000;
const DECISION_MS: u32 = 2_000;

async fn clocked(store: Arc<dyn Store>) -> (TestServer, Arc<ManualClock>) {
    let clock = Arc::new(ManualClock::at(T0));
    let server = TestServer::with_clock(store, Limits::unthrottled(), clock.clone()).await;
    (server, clock)
}

async fn create_clocked(
    client: &mut druids_contract::pb::druids_service_client::DruidsServiceClient<
        tonic::transport::Channel,
    >,
    players: u32,
    autopilot_after: u32,
) -> (String, Vec<String>) {
    let reply = client
        .create_game(pb::CreateGameRequest {
            kind: pb::GameKind::Meduris as i32,
            players,
            seed: Some(99),
            options: Some(pb::GameOptions {
                decision_ms: Some(DECISION_MS),
                autopilot_after: Some(autopilot_after),
                ..Default::default()
            }),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    (
        reply.game_id,
        reply.seats.into_iter().map(|s| s.token).collect(),
    )
}

async fn full_log(
    client: &mut druids_contract::pb::druids_service_client::DruidsServiceClient<
        tonic::transport::Channel,
    >,
    id: &str,
) -> Vec<pb::GameEvent> {
    let last = state(client, id, None).await.last_seq;
    let mut stream = client
        .stream_events(pb::StreamEventsRequest {
            game_id: id.to_owned(),
            from_seq: 1,
        })
        .await
        .unwrap()
        .into_inner();
    let mut out = Vec::new();
    while (out.len() as u64) < last {
        out.push(stream.next().await.unwrap().unwrap());
    }
    out
}

#[tokio::test]
async fn a_silent_seat_cannot_freeze_the_game() {
    let (server, clock) = clocked(Arc::new(MemoryStore::default())).await;
    let mut client = server.client().await;
    let (id, tokens) = create_clocked(&mut client, 3, 3).await;
    let silent = 2u32;
    let mut rng = Lcg(17);
    loop {
        let st = state(&mut client, &id, None).await;
        let Some(seat) = st.to_act else { break };
        if seat == silent && st.autopilot_seats.contains(&silent) {
            // On autopilot the server decides at once, without waiting for
            // the clock (the referee may already have done it).
            server.service.expire_due();
        } else if seat == silent {
            // Nothing happens before the deadline...
            clock.advance(DECISION_MS as u64 - 1);
            assert_eq!(server.service.expire_due(), 0);
            // ...and at the deadline the server decides (here, or in the
            // referee's next round).
            clock.advance(1);
            server.service.expire_due();
            assert!(state(&mut client, &id, None).await.version > st.version);
        } else {
            play_random(&mut client, &id, &tokens, &mut rng, 1)
                .await
                .unwrap();
        }
    }
    let st = state(&mut client, &id, None).await;
    assert_eq!(st.status, pb::GameStatus::Finished as i32);
    let log = full_log(&mut client, &id).await;
    let timed_out: Vec<_> = log
        .iter()
        .filter_map(|e| match &e.body {
            Some(Body::TimedOut(t)) => Some(t.clone()),
            _ => None,
        })
        .collect();
    assert!(timed_out.len() > 10, "the silent seat had many decisions");
    assert!(timed_out.iter().all(|t| t.seat == silent));
    assert!(timed_out.iter().all(|t| t.action.is_some()));
    // Three timeouts in a row put the seat on autopilot; later decisions are
    // the autopilot's.
    let on = log
        .iter()
        .position(
            |e| matches!(&e.body, Some(Body::AutopilotChanged(a)) if a.seat == silent && a.on),
        )
        .expect("autopilot switched on");
    let before: Vec<_> = log[..on]
        .iter()
        .filter(|e| matches!(&e.body, Some(Body::TimedOut(_))))
        .collect();
    assert_eq!(before.len(), 3);
    assert!(
        log[on..]
            .iter()
            .any(|e| matches!(&e.body, Some(Body::TimedOut(t)) if t.autopilot))
    );
    server.stop().await;
}

#[tokio::test]
async fn just_in_time_wins_and_late_loses() {
    let (server, clock) = clocked(Arc::new(MemoryStore::default())).await;
    let mut client = server.client().await;
    let (id, tokens) = create_clocked(&mut client, 2, 0).await;
    // The deadline is visible everywhere.
    let legal = druids_tests::legal(&mut client, &id, &tokens[0], false)
        .await
        .unwrap();
    let deadline = T0 + DECISION_MS as u64;
    assert_eq!(legal.deadline_unix_ms, Some(deadline));
    assert_eq!(
        state(&mut client, &id, None).await.deadline_unix_ms,
        Some(deadline)
    );
    let mut live = client
        .stream_events(pb::StreamEventsRequest {
            game_id: id.clone(),
            from_seq: 1,
        })
        .await
        .unwrap()
        .into_inner();
    let mut last_decision = None;
    while let Some(e) = live.next().await {
        if let Some(Body::DecisionNeeded(d)) = e.unwrap().body {
            last_decision = Some(d);
            break;
        }
    }
    assert_eq!(last_decision.unwrap().deadline_unix_ms, Some(deadline));

    // One millisecond before the deadline the seat answers: it stands.
    clock.advance(DECISION_MS as u64 - 1);
    play_random(&mut client, &id, &tokens, &mut Lcg(1), 1)
        .await
        .unwrap();
    clock.advance(1);
    assert_eq!(
        server.service.expire_due(),
        0,
        "an answer in time is never overruled"
    );
    assert_eq!(state(&mut client, &id, None).await.version, 1);

    // Now seat 1 lets its clock run out; its late answer is refused.
    let legal = druids_tests::legal(&mut client, &id, &tokens[1], false)
        .await
        .unwrap();
    // Seat 1's clock started when seat 0 answered, at T0 + DECISION_MS - 1.
    assert_eq!(
        legal.deadline_unix_ms,
        Some(T0 + 2 * DECISION_MS as u64 - 1)
    );
    clock.advance(DECISION_MS as u64);
    server.service.expire_due();
    let after_timeout = state(&mut client, &id, None).await;
    assert_eq!(after_timeout.version, 2);
    let late = client
        .submit_action(authed(
            &tokens[1],
            pb::SubmitActionRequest {
                game_id: id.clone(),
                choice: Some(pb::submit_action_request::Choice::LegalActionId(0)),
                expected_version: Some(legal.version),
                idempotency_key: "late".into(),
            },
        ))
        .await;
    // Refused as late, not as a race (issue 29): the clock decided for it.
    let late = late.unwrap_err();
    assert_eq!(late.code(), Code::Aborted, "{late:?}");
    assert_eq!(crate::trust::reason(&late), "DEADLINE_PASSED", "{late:?}");
    assert!(
        late.message().contains("past its deadline"),
        "{}",
        late.message()
    );
    assert_eq!(state(&mut client, &id, None).await, after_timeout);
    server.stop().await;
}

crate::stores::on_each_store!(timeouts_and_clocks_survive_a_restart);

async fn timeouts_and_clocks_survive_a_restart(backend: crate::stores::Backend) {
    let db = crate::stores::TestDb::new(backend, "clocks");
    let (server, clock) = clocked(db.open()).await;
    let mut client = server.client().await;
    let (id, tokens) = create_clocked(&mut client, 2, 2).await;
    // Seat 0 places a worker; seat 1 times out twice (autopilot), and so on.
    for _ in 0..6 {
        let st = state(&mut client, &id, None).await;
        if st.to_act == Some(0) {
            play_random(&mut client, &id, &tokens, &mut Lcg(3), 1)
                .await
                .unwrap();
        } else {
            clock.advance(DECISION_MS as u64);
            server.service.expire_due();
        }
    }
    let before = full_log(&mut client, &id).await;
    let view = state(&mut client, &id, Some(&tokens[0])).await;
    assert!(
        before
            .iter()
            .any(|e| matches!(e.body, Some(Body::TimedOut(_))))
    );
    server.stop().await;

    let clock = Arc::new(ManualClock::at(T0 + 3_600_000));
    let server = TestServer::with_clock(db.open(), Limits::unthrottled(), clock.clone()).await;
    let mut client = server.client().await;
    let after = full_log(&mut client, &id).await;
    // Deadlines are stamped live, not stored: compare the logs without them.
    let strip = |log: &[pb::GameEvent]| -> Vec<pb::GameEvent> {
        log.iter()
            .cloned()
            .map(|mut e| {
                if let Some(Body::DecisionNeeded(d)) = &mut e.body {
                    d.deadline_unix_ms = None;
                }
                e
            })
            .collect()
    };
    // (The autopilot may already have moved on after the restart: the old log
    // is a prefix of the new one.)
    assert!(after.len() >= before.len());
    assert_eq!(
        strip(&after[..before.len()]),
        strip(&before),
        "timeouts replay exactly"
    );
    let again = state(&mut client, &id, Some(&tokens[0])).await;
    assert_eq!(again.autopilot_seats, view.autopilot_seats);
    assert!(view.to_act.is_some() && view.deadline_unix_ms.is_some());
    // The server's own referee may already have decided the pending
    // decision; if not, it still carries the deadline it was announced with
    // (the turn clocks replay as they ran: README, "Turn clocks").
    if again.version == view.version {
        assert_eq!(
            again.deadline_unix_ms, view.deadline_unix_ms,
            "the pending decision keeps its deadline across a restart"
        );
    }
    // That deadline passed while the server was down: it is due at once.
    server.service.expire_due();
    let decided = state(&mut client, &id, None).await;
    assert!(
        decided.version > view.version,
        "a deadline that passed during the restart is decided at once"
    );
    server.stop().await;
}
