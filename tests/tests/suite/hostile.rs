//! Careless and hostile clients: a seat that floods submissions is throttled
//! with RESOURCE_EXHAUSTED; streams that are never read, or dropped half way,
//! neither stall the game nor stay behind on the server.

use std::sync::Arc;
use std::time::Duration;

use druids_contract::pb;
use druids_server::{Limits, ManualClock, MemoryStore};
use druids_tests::{Lcg, TestServer, authed, create, play_random, state};
use tokio_stream::StreamExt;
use tonic::Code;

#[tokio::test]
async fn a_flooding_seat_is_throttled() {
    let clock = Arc::new(ManualClock::at(1_000_000));
    let limits = Limits {
        max_submits_per_second: 5,
        ..Limits::unthrottled()
    };
    let server =
        TestServer::with_clock(Arc::new(MemoryStore::default()), limits, clock.clone()).await;
    let mut client = server.client().await;
    let (id, tokens) = create(&mut client, pb::GameKind::Meduris, 2, 3).await;
    // Five stale submissions spend the budget (rejected, but counted)...
    for _ in 0..5 {
        let r = client
            .submit_action(authed(
                &tokens[0],
                pb::SubmitActionRequest {
                    game_id: id.clone(),
                    choice: Some(pb::submit_action_request::Choice::LegalActionId(0)),
                    expected_version: Some(99),
                    idempotency_key: String::new(),
                },
            ))
            .await;
        assert_eq!(r.unwrap_err().code(), Code::Aborted);
    }
    // ...and the sixth in the same second is refused before anything else.
    let before = state(&mut client, &id, None).await;
    let err = play_random(&mut client, &id, &tokens, &mut Lcg(1), 1)
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::ResourceExhausted);
    assert!(err.message().contains("per second"), "{}", err.message());
    assert_eq!(state(&mut client, &id, None).await, before);
    // The other seat has its own budget; a second later seat 0 has one again.
    clock.advance(1_000);
    assert_eq!(
        play_random(&mut client, &id, &tokens, &mut Lcg(1), 3)
            .await
            .unwrap(),
        3
    );
    server.stop().await;
}

#[tokio::test]
async fn stuck_and_vanishing_streams_do_not_stall_games_or_linger() {
    let server = TestServer::start().await;
    let mut client = server.client().await;
    let (id, tokens) = create(&mut client, pb::GameKind::Meduris, 4, 12).await;
    // Sixteen spectators that never read a single message, each on its own
    // connection, and sixteen that read a little and hang up.
    let mut stuck = Vec::new();
    for _ in 0..16 {
        let mut c = server.client().await;
        let s = c
            .stream_events(pb::StreamEventsRequest {
                game_id: id.clone(),
                from_seq: 1,
            })
            .await
            .unwrap()
            .into_inner();
        stuck.push((c, s));
    }
    for i in 0..16 {
        let mut c = server.client().await;
        let mut s = c
            .stream_events(authed(
                &tokens[i % 4],
                pb::StreamEventsRequest {
                    game_id: id.clone(),
                    from_seq: 0,
                },
            ))
            .await
            .unwrap()
            .into_inner();
        s.next().await.unwrap().unwrap();
        drop(s);
    }
    // The game is played to its end regardless.
    play_random(&mut client, &id, &tokens, &mut Lcg(2), 100_000)
        .await
        .unwrap();
    let st = state(&mut client, &id, None).await;
    assert_eq!(st.status, pb::GameStatus::Finished as i32);
    assert!(
        st.last_seq > 500,
        "more events than one stream buffers (64)"
    );
    // A stuck reader still gets everything once it reads.
    let (_, mut first) = stuck.pop().unwrap();
    let mut n = 0;
    while let Some(e) = first.next().await {
        e.unwrap();
        n += 1;
    }
    assert_eq!(n, st.last_seq);
    drop(stuck);
    // Every stream is gone from the server once its client is (the server
    // notices each disconnect asynchronously: poll, at least 60 s as a guard
    // against a hang only).
    for _ in 0..6_000 {
        if server.service.open_streams() == 0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(server.service.open_streams(), 0);
    server.stop().await;
}

#[tokio::test]
async fn one_seat_cannot_hog_a_games_streams() {
    let limits = Limits {
        max_streams_per_seat: 2,
        ..Limits::unthrottled()
    };
    let server = TestServer::with(Arc::new(MemoryStore::default()), limits).await;
    let mut client = server.client().await;
    let (id, tokens) = create(&mut client, pb::GameKind::Meduris, 2, 4).await;
    let open = |token: String| {
        let mut c = client.clone();
        let id = id.clone();
        async move {
            c.stream_events(authed(
                &token,
                pb::StreamEventsRequest {
                    game_id: id,
                    from_seq: 0,
                },
            ))
            .await
            .map(|s| s.into_inner())
        }
    };
    let first = open(tokens[0].clone()).await.unwrap();
    let _second = open(tokens[0].clone()).await.unwrap();
    let err = open(tokens[0].clone()).await.unwrap_err();
    assert_eq!(err.code(), Code::ResourceExhausted);
    assert!(err.message().contains("one seat"), "{}", err.message());
    // Another seat has its own allowance; a closed stream frees a slot.
    let _other = open(tokens[1].clone()).await.unwrap();
    drop(first);
    let mut reopened = None;
    for _ in 0..6_000 {
        if let Ok(s) = open(tokens[0].clone()).await {
            reopened = Some(s);
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert!(reopened.is_some(), "the closed stream's slot is given back");
    server.stop().await;
}
