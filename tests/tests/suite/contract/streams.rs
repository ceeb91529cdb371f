//! Event streams: a stream carries every event after its snapshot and resumes
//! from any sequence number a client saw last.

use super::{MEDURIS, assert_code};
use druids_contract::pb;
use druids_contract::pb::game_event::Body;
use druids_tests::{Lcg, TestServer, authed, create, play_random, state};
use tokio_stream::StreamExt;
use tonic::{Code, Request};

/// The snapshot is the state when `StreamEvents` is answered: a client that
/// acts as soon as the call returns still gets its action's events on the
/// stream. (They were lost when the snapshot was taken later, in the stream's
/// own task; that stalled the load bench at 1,000 games.) The service is called
/// directly, on one thread, so that the action is applied before the stream's
/// task has had a chance to run — the one ordering that matters here.
#[tokio::test]
async fn a_stream_opened_before_an_action_carries_its_events() {
    use pb::druids_service_server::DruidsService;
    let server = TestServer::start().await;
    let service = &server.service;
    let created = service
        .create_game(Request::new(pb::CreateGameRequest {
            kind: MEDURIS as i32,
            players: 2,
            seed: Some(3),
            ..Default::default()
        }))
        .await
        .unwrap()
        .into_inner();
    let id = created.game_id;
    let token = &created.seats[0].token;
    let mut stream = service
        .stream_events(Request::new(pb::StreamEventsRequest {
            game_id: id.clone(),
            from_seq: 0,
        }))
        .await
        .unwrap()
        .into_inner();
    let submit = pb::SubmitActionRequest {
        game_id: id.clone(),
        choice: Some(pb::submit_action_request::Choice::LegalActionId(0)),
        expected_version: Some(0),
        idempotency_key: String::new(),
    };
    service.submit_action(authed(token, submit)).await.unwrap();
    let snapshot = stream.next().await.unwrap().unwrap();
    assert!(matches!(snapshot.body, Some(Body::Snapshot(_))));
    assert_eq!(snapshot.version, 0, "the snapshot predates the action");
    // The pending decision's event follows the snapshot, numbered after it.
    let pending = stream.next().await.unwrap().unwrap();
    assert!(matches!(pending.body, Some(Body::DecisionNeeded(_))));
    assert_eq!(pending.seq, snapshot.seq + 1);
    let next = tokio::time::timeout(std::time::Duration::from_secs(60), stream.next())
        .await
        .expect("the action's events arrive")
        .unwrap()
        .unwrap();
    assert_eq!(next.seq, pending.seq + 1);
    assert_eq!(next.version, 1, "an event of the action");
    server.stop().await;
}

#[tokio::test]
async fn streams_resume_from_any_sequence_number() {
    let server = TestServer::start().await;
    let mut client = server.client().await;
    let (id, tokens) = create(&mut client, MEDURIS, 3, 21).await;
    play_random(&mut client, &id, &tokens, &mut Lcg(5), 40)
        .await
        .unwrap();
    // A seat reads part of its stream, disconnects, and resumes.
    let mut stream = client
        .stream_events(authed(
            &tokens[1],
            pb::StreamEventsRequest {
                game_id: id.clone(),
                from_seq: 1,
            },
        ))
        .await
        .unwrap()
        .into_inner();
    let mut seen = Vec::new();
    for _ in 0..25 {
        seen.push(stream.next().await.unwrap().unwrap());
    }
    drop(stream);
    // More happens while it is away.
    play_random(&mut client, &id, &tokens, &mut Lcg(6), 30)
        .await
        .unwrap();
    let last_seq = state(&mut client, &id, None).await.last_seq;
    let mut resumed = client
        .stream_events(authed(
            &tokens[1],
            pb::StreamEventsRequest {
                game_id: id.clone(),
                from_seq: seen.last().unwrap().seq + 1,
            },
        ))
        .await
        .unwrap()
        .into_inner();
    while seen.last().unwrap().seq < last_seq {
        seen.push(resumed.next().await.unwrap().unwrap());
    }
    let mut full = client
        .stream_events(authed(
            &tokens[1],
            pb::StreamEventsRequest {
                game_id: id.clone(),
                from_seq: 1,
            },
        ))
        .await
        .unwrap()
        .into_inner();
    let mut whole = Vec::new();
    while whole.len() < seen.len() {
        whole.push(full.next().await.unwrap().unwrap());
    }
    assert_eq!(seen, whole, "resuming loses and repeats nothing");
    assert_code(
        client
            .stream_events(pb::StreamEventsRequest {
                game_id: id.clone(),
                from_seq: last_seq + 2,
            })
            .await,
        Code::InvalidArgument,
        "from_seq",
    );

    // A live stream starts with a snapshot and then follows the game.
    let mut live = client
        .stream_events(pb::StreamEventsRequest {
            game_id: id.clone(),
            from_seq: 0,
        })
        .await
        .unwrap()
        .into_inner();
    let first = live.next().await.unwrap().unwrap();
    let Some(Body::Snapshot(snap)) = first.body else {
        panic!("a stream from 0 starts with a snapshot");
    };
    // The pending decision's DecisionNeeded is the last event; the snapshot
    // is numbered as the one before it (the state is the same), and the
    // DecisionNeeded follows with its own seq.
    assert_eq!(first.seq, last_seq - 1);
    assert_eq!(
        snap.state.unwrap().version,
        state(&mut client, &id, None).await.version
    );
    let pending = live.next().await.unwrap().unwrap();
    assert!(matches!(pending.body, Some(Body::DecisionNeeded(_))));
    assert_eq!(pending.seq, last_seq);
    play_random(&mut client, &id, &tokens, &mut Lcg(7), 1)
        .await
        .unwrap();
    let next = live.next().await.unwrap().unwrap();
    assert_eq!(next.seq, last_seq + 1);
    server.stop().await;
}
