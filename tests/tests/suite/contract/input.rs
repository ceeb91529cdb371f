//! Input checked at the edge: `CreateGame` and `JoinGame` reject what they
//! cannot honour, and the server's limits answer `RESOURCE_EXHAUSTED`.

use super::{MEDURIS, assert_code, place_worker, submit};
use druids_contract::pb;
use druids_contract::pb::game_event::Body;
use druids_server::Limits;
use druids_tests::{TestServer, authed, create, state};
use tokio_stream::StreamExt;
use tonic::Code;

#[tokio::test]
async fn create_and_join_validate_their_input() {
    let server = TestServer::start().await;
    let mut client = server.client().await;
    let base = pb::CreateGameRequest {
        kind: MEDURIS as i32,
        players: 3,
        ..Default::default()
    };
    assert_code(
        client
            .create_game(pb::CreateGameRequest {
                kind: 0,
                ..base.clone()
            })
            .await,
        Code::InvalidArgument,
        "kind is required",
    );
    assert_code(
        client
            .create_game(pb::CreateGameRequest {
                kind: pb::GameKind::Dolmen as i32,
                players: 6,
                ..base.clone()
            })
            .await,
        Code::InvalidArgument,
        "2 to 5 players",
    );
    assert_code(
        client
            .create_game(pb::CreateGameRequest {
                players: 7,
                ..base.clone()
            })
            .await,
        Code::InvalidArgument,
        "2 to 4 players",
    );
    assert_code(
        client
            .create_game(pb::CreateGameRequest {
                seat_names: vec!["a".into()],
                ..base.clone()
            })
            .await,
        Code::InvalidArgument,
        "seat_names",
    );
    assert_code(
        client
            .create_game(pb::CreateGameRequest {
                open_seats: vec![5],
                ..base.clone()
            })
            .await,
        Code::InvalidArgument,
        "open_seats",
    );
    assert_code(
        client
            .create_game(pb::CreateGameRequest {
                options: Some(pb::GameOptions {
                    start_seat: Some(3),
                    ..Default::default()
                }),
                ..base.clone()
            })
            .await,
        Code::InvalidArgument,
        "start_seat",
    );
    let listed = client
        .list_games(pb::ListGamesRequest::default())
        .await
        .unwrap()
        .into_inner();
    assert!(
        listed.games.is_empty(),
        "rejected creations leave no game behind"
    );

    // Open seats: the game waits, then starts with the last join.
    // A name for an open seat would be lost at its JoinGame: refused.
    assert_code(
        client
            .create_game(pb::CreateGameRequest {
                open_seats: vec![1, 2],
                seat_names: vec!["ann".into(), "bob".into(), String::new()],
                ..base.clone()
            })
            .await,
        Code::InvalidArgument,
        "seat_names",
    );
    let reply = client
        .create_game(pb::CreateGameRequest {
            open_seats: vec![1, 2],
            seat_names: vec!["ann".into(), String::new(), String::new()],
            ..base.clone()
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(reply.seats.len(), 1);
    let id = reply.game_id;
    let host = reply.seats[0].token.clone();
    let st = state(&mut client, &id, None).await;
    assert_eq!(st.status, pb::GameStatus::WaitingForPlayers as i32);
    assert_eq!(st.to_act, None);
    assert_code(
        client
            .submit_action(authed(
                &host,
                submit(&id, place_worker(pb::MedurisGood::Wood), Some(0), ""),
            ))
            .await,
        Code::FailedPrecondition,
        "has not started",
    );
    let legal = druids_tests::legal(&mut client, &id, &host, false)
        .await
        .unwrap();
    assert!(legal.actions.is_empty(), "nobody may act before the start");
    assert_code(
        client
            .join_game(pb::JoinGameRequest {
                game_id: id.clone(),
                seat: Some(0),
                name: "x".into(),
                ..Default::default()
            })
            .await,
        Code::AlreadyExists,
        "seat 0",
    );
    // A seat past this game's, or past every game's: the same words.
    for seat in [3, 9] {
        let refused = client
            .join_game(pb::JoinGameRequest {
                game_id: id.clone(),
                seat: Some(seat),
                name: "x".into(),
                ..Default::default()
            })
            .await;
        let words = format!("seat {seat} does not exist");
        assert_code(refused, Code::InvalidArgument, &words);
    }
    let bob = client
        .join_game(pb::JoinGameRequest {
            game_id: id.clone(),
            seat: Some(2),
            name: "bob".into(),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert!(!bob.started);
    assert_eq!(bob.seat.as_ref().unwrap().seat, 2);
    let cid = client
        .join_game(pb::JoinGameRequest {
            game_id: id.clone(),
            seat: None,
            name: "cid".into(),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert!(cid.started);
    assert_eq!(cid.seat.as_ref().unwrap().seat, 1);
    assert_code(
        client
            .join_game(pb::JoinGameRequest {
                game_id: id.clone(),
                seat: None,
                name: "late".into(),
                ..Default::default()
            })
            .await,
        Code::FailedPrecondition,
        "started",
    );
    let st = state(&mut client, &id, None).await;
    assert_eq!(st.status, pb::GameStatus::Running as i32);
    let names: Vec<_> = st.seats.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["ann", "cid", "bob"]);
    assert_eq!(st.to_act, Some(0));
    // The log tells the story: the joins, the start, then the first decision.
    let mut stream = client
        .stream_events(pb::StreamEventsRequest {
            game_id: id.clone(),
            from_seq: 1,
        })
        .await
        .unwrap()
        .into_inner();
    let mut bodies = Vec::new();
    for _ in 0..st.last_seq {
        bodies.push(stream.next().await.unwrap().unwrap().body.unwrap());
    }
    let tail: Vec<_> = bodies.iter().rev().take(4).rev().cloned().collect();
    assert!(matches!(&tail[0], Body::SeatJoined(j) if j.seat == 2 && j.name == "bob"));
    assert!(matches!(&tail[1], Body::SeatJoined(j) if j.seat == 1 && j.name == "cid"));
    assert!(matches!(tail[2], Body::GameStarted(_)));
    assert!(matches!(&tail[3], Body::DecisionNeeded(d) if d.seat == 0));

    let games = client
        .list_games(pb::ListGamesRequest {
            status: pb::GameStatus::Running as i32,
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner()
        .games;
    assert_eq!(games.len(), 1);
    assert_eq!(games[0].game_id, id);
    server.stop().await;
}

#[tokio::test]
async fn limits_answer_resource_exhausted() {
    let limits = Limits {
        max_games: 2,
        max_spectator_streams_per_game: 1,
        max_message_bytes: 1024,
        max_submits_per_second: 0,
        ..Limits::unthrottled()
    };
    let server = TestServer::with(
        std::sync::Arc::new(druids_server::MemoryStore::default()),
        limits,
    )
    .await;
    let mut client = server.client().await;
    let (id, _) = create(&mut client, MEDURIS, 2, 1).await;
    create(&mut client, MEDURIS, 2, 2).await;
    assert_code(
        client
            .create_game(pb::CreateGameRequest {
                kind: MEDURIS as i32,
                players: 2,
                ..Default::default()
            })
            .await,
        Code::ResourceExhausted,
        "2 games",
    );
    let _open = client
        .stream_events(pb::StreamEventsRequest {
            game_id: id.clone(),
            from_seq: 0,
        })
        .await
        .unwrap()
        .into_inner();
    assert_code(
        client
            .stream_events(pb::StreamEventsRequest {
                game_id: id.clone(),
                from_seq: 0,
            })
            .await,
        Code::ResourceExhausted,
        "streams",
    );
    let huge = pb::CreateGameRequest {
        kind: MEDURIS as i32,
        players: 2,
        seat_names: vec!["x".repeat(2000), "y".into()],
        ..Default::default()
    };
    let err = client.create_game(huge).await.unwrap_err();
    assert!(
        matches!(err.code(), Code::ResourceExhausted | Code::OutOfRange),
        "oversized message: {err:?}"
    );
    server.stop().await;
}
