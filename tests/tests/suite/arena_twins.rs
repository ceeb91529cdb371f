//! The decision hold of a duplicate match (docs/ratings.md, "Copying across
//! a duplicate match"): its games share a seed and are played at once, so
//! while two of them are the same game a bot could wait for its opponent's
//! decision in one and play it in the other. A decision at a position
//! another game of the match stands at undecided is held (its game says
//! `waiting_for_match`, no clock runs, nothing is applied) until that game's
//! decision is made; games that went different ways hold nothing.

use std::time::Duration;

use druids_contract::pb;
use druids_contract::pb::druids_service_client::DruidsServiceClient;
use druids_tests::heartbeats::next_event;
use druids_tests::state;
use tonic::Code;
use tonic::transport::Channel;

use crate::arena::submit_pick;
use crate::arena_gate_wait::{a_match, game, key_of};
use crate::trust::reason;

/// The game's state once a seat must decide in it (its match's dice gate
/// released the set-up's draws): looked at again at every event its
/// spectators' stream sends.
pub(crate) async fn deciding(
    client: &mut DruidsServiceClient<Channel>,
    game_id: &str,
) -> pb::StateView {
    let mut stream = client
        .stream_events(pb::StreamEventsRequest {
            game_id: game_id.to_owned(),
            from_seq: 1,
        })
        .await
        .expect("a spectator's stream")
        .into_inner();
    loop {
        let view = state(client, game_id, None).await;
        if view.to_act.is_some() && !view.waiting_for_match {
            return view;
        }
        next_event(&mut stream)
            .await
            .expect("the stream runs")
            .expect("the game goes on");
    }
}

/// The game's state once a decision in it is held. A hold logs no event:
/// its state is read until it says so, call after call (an iteration
/// budget, not a time limit).
async fn until_held(client: &mut DruidsServiceClient<Channel>, game_id: &str) -> pb::StateView {
    for _ in 0..100_000 {
        let view = state(client, game_id, None).await;
        if view.waiting_for_match {
            return view;
        }
        tokio::task::yield_now().await;
    }
    panic!("no decision of game {game_id} was held");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_decision_waits_for_the_same_position_of_the_other_game() {
    // No clock decides for anyone here.
    let (server, _streams, games) = a_match().await;
    let (g0, g1) = (game(&games, 0), game(&games, 1));
    let key_of = |game_id: &str, seat: u32| key_of(&games, game_id, seat);
    let mut client = DruidsServiceClient::connect(server.url()).await.unwrap();
    let v0 = deciding(&mut client, &g0).await;
    let v1 = deciding(&mut client, &g1).await;
    assert_eq!((v0.to_act, v1.to_act), (Some(0), Some(0)));
    assert_ne!(key_of(&g0, 0), key_of(&g1, 0), "seats are rotated");
    assert!(v0.deadline_unix_ms.is_some());

    // Seat 0 of game 0 decides first: held, as game 1 stands at the same
    // position undecided.
    let mut held_client = client.clone();
    let (g0_, key0) = (g0.clone(), key_of(&g0, 0));
    let held =
        tokio::spawn(
            async move { submit_pick(&mut held_client, &key0, &g0_, 1, v0.version).await },
        );
    let waiting = until_held(&mut client, &g0).await;
    assert_eq!(waiting.version, v0.version, "nothing is applied");
    assert_eq!(waiting.last_seq, v0.last_seq, "nothing is shown");
    assert_eq!(waiting.deadline_unix_ms, None, "no clock runs");
    assert!(!held.is_finished());
    // Another submission of the held seat (another choice, another key)
    // is told to retry: the held one stands.
    let again = client
        .submit_action(druids_tests::authed(
            &key_of(&g0, 0),
            pb::SubmitActionRequest {
                game_id: g0.clone(),
                choice: Some(pb::submit_action_request::Choice::LegalActionId(2)),
                expected_version: Some(v0.version),
                idempotency_key: "another".into(),
            },
        ))
        .await
        .unwrap_err();
    assert_eq!(again.code(), Code::Unavailable, "{again:?}");
    assert_eq!(reason(&again), "WAITING_FOR_MATCH");
    assert!(
        again.message().contains("holds this seat's decision"),
        "{again:?}"
    );
    // A retry of the held one whose client cannot wait is told so (the
    // decision will be made), not that a database was late.
    let mut short = druids_tests::authed(
        &key_of(&g0, 0),
        pb::SubmitActionRequest {
            game_id: g0.clone(),
            choice: Some(pb::submit_action_request::Choice::LegalActionId(1)),
            expected_version: Some(v0.version),
            idempotency_key: format!("v{}", v0.version),
        },
    );
    // (The server answers a fifth, at most a second, before the deadline.)
    short.set_timeout(Duration::from_secs(5));
    let late = client.submit_action(short).await.unwrap_err();
    assert_eq!(reason(&late), "WAITING_FOR_MATCH", "{late:?}");
    assert!(late.message().contains("it will be made"), "{late:?}");
    // A retry of the held one (its client timed out) waits with it.
    let mut retry_client = client.clone();
    let (g0_, key0) = (g0.clone(), key_of(&g0, 0));
    let retry =
        tokio::spawn(
            async move { submit_pick(&mut retry_client, &key0, &g0_, 1, v0.version).await },
        );
    // Game 1 has seen nothing of it; its seat decides otherwise.
    assert_eq!(state(&mut client, &g1, None).await.version, v1.version);
    submit_pick(&mut client, &key_of(&g1, 0), &g1, 3, v1.version)
        .await
        .expect("game 1's decision");
    // Then the held decision is made and answered.
    let made = held.await.unwrap().expect("the held decision").into_inner();
    assert_eq!(made.version, v0.version + 1);
    let retried = retry.await.unwrap().expect("the retry").into_inner();
    assert_eq!(retried, made, "the retry is answered as the held one was");
    let after = state(&mut client, &g0, None).await;
    assert_eq!(after.version, v0.version + 1);
    assert!(!after.waiting_for_match);
    assert!(after.deadline_unix_ms.is_some(), "the clock runs again");

    // The games went different ways: game 0 plays on alone, nothing held.
    let next = deciding(&mut client, &g0).await;
    let seat = next.to_act.unwrap();
    submit_pick(&mut client, &key_of(&g0, seat), &g0, 0, next.version)
        .await
        .expect("a decision of a game no other game stands with");
    assert_eq!(
        state(&mut client, &g0, None).await.version,
        next.version + 1
    );
    server.stop().await;
}
