//! Requests refused before a handler runs, on the wire itself: bodies that
//! are not valid protobuf (`INVALID_ARGUMENT`, never `INTERNAL`) and bodies
//! over the size limit (`RESOURCE_EXHAUSTED`), with nothing changed.

use std::sync::Arc;

use druids_contract::pb;
use druids_server::{Limits, MemoryStore};
use druids_tests::{TestServer, create, raw, state};
use tonic::{Code, Status};

const MEDURIS: pb::GameKind = pb::GameKind::Meduris;

/// Sends `body` as the request of `method` (e.g. "CreateGame").
async fn raw_call(server: &TestServer, method: &str, body: Vec<u8>) -> Result<Vec<u8>, Status> {
    let mut grpc = raw::client(&server.url()).await;
    let path = format!("/druids.v1.DruidsService/{method}");
    raw::unary(&mut grpc, &path, tonic::Request::new(body)).await
}

#[tokio::test]
async fn malformed_bodies_are_invalid_argument_and_change_nothing() {
    let server = TestServer::start().await;
    let mut client = server.client().await;
    let (id, _) = create(&mut client, MEDURIS, 2, 1).await;
    let before = state(&mut client, &id, None).await;
    // Group starts nested far deeper than prost's recursion limit.
    let deep: Vec<u8> = std::iter::repeat_n(0xa3u8, 200).collect();
    let cases: [(&str, Vec<u8>); 4] = [
        ("garbage", vec![0xff; 16]),
        // game_id (field 1) holding bytes that are not UTF-8.
        ("invalid UTF-8", vec![0x0a, 0x02, 0xff, 0xfe]),
        // game_id sent as a varint.
        ("wrong wire type", vec![0x08, 0x01]),
        ("deep nesting", deep),
    ];
    for (what, body) in cases {
        for method in ["GetState", "SubmitAction", "CreateGame", "StreamEvents"] {
            if method == "StreamEvents" {
                continue; // server streaming: checked through GetState's path
            }
            let status = raw_call(&server, method, body.clone())
                .await
                .expect_err(what);
            assert_eq!(
                status.code(),
                Code::InvalidArgument,
                "{what}, {method}: {status:?}"
            );
        }
    }
    let games = client
        .list_games(pb::ListGamesRequest::default())
        .await
        .unwrap()
        .into_inner()
        .games;
    assert_eq!(games.len(), 1, "nothing was created");
    assert_eq!(state(&mut client, &id, None).await, before);
    server.stop().await;
}

#[tokio::test]
async fn oversized_requests_are_resource_exhausted() {
    let limits = Limits {
        max_message_bytes: 1024,
        ..Limits::unthrottled()
    };
    let server = TestServer::with(Arc::new(MemoryStore::default()), limits).await;
    let mut client = server.client().await;
    let err = client
        .create_game(pb::CreateGameRequest {
            kind: MEDURIS as i32,
            players: 2,
            seat_names: vec!["x".repeat(2000), "y".into()],
            ..Default::default()
        })
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::ResourceExhausted, "{err:?}");
    assert!(err.message().contains("larger"), "{err:?}");
    server.stop().await;
}
