//! Requests refused before a handler runs, on the wire itself: bodies that
//! are not valid protobuf (`INVALID_ARGUMENT`, never `INTERNAL`), bodies
//! over the size limit (`RESOURCE_EXHAUSTED`), a unary call with two
//! request messages, another content type than gRPC's (HTTP 415) and
//! oversized metadata, each with its `ErrorInfo` reason and nothing changed.

use std::sync::Arc;

use druids_contract::pb;
use druids_server::{Limits, MemoryStore};
use druids_tests::{TestServer, create, games_listed, raw, state};
use tonic::{Code, Status};

use crate::trust::reason;

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
            assert_eq!(reason(&status), "INVALID_ARGUMENT", "{what}, {method}");
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
    assert_eq!(reason(&err), "LIMIT_REACHED");
    server.stop().await;
}

fn create_request() -> Vec<u8> {
    use prost::Message;
    pb::CreateGameRequest {
        kind: MEDURIS as i32,
        players: 2,
        ..Default::default()
    }
    .encode_to_vec()
}

#[tokio::test]
async fn a_unary_call_with_two_request_messages_is_refused() {
    let server = TestServer::start().await;
    let mut grpc = raw::client(&server.url()).await;
    grpc.ready().await.unwrap();
    let two = tokio_stream::iter([create_request(), create_request()]);
    let status = grpc
        .client_streaming(
            tonic::Request::new(two),
            "/druids.v1.DruidsService/CreateGame".parse().unwrap(),
            raw::RawCodec,
        )
        .await
        .expect_err("two messages on a unary call");
    assert_eq!(status.code(), Code::InvalidArgument, "{status:?}");
    assert_eq!(reason(&status), "INVALID_ARGUMENT");
    assert!(
        status.message().contains("one request message"),
        "{status:?}"
    );
    assert_eq!(games_listed(&server).await, 0, "nothing was created");
    // One message is served as before.
    let one = tokio_stream::iter([create_request()]);
    grpc.ready().await.unwrap();
    grpc.client_streaming(
        tonic::Request::new(one),
        "/druids.v1.DruidsService/CreateGame".parse().unwrap(),
        raw::RawCodec,
    )
    .await
    .expect("one message");
    assert_eq!(games_listed(&server).await, 1);
    server.stop().await;
}

#[tokio::test]
async fn another_content_type_on_the_grpc_port_is_415() {
    use tower::{Service, ServiceExt};
    let server = TestServer::start().await;
    let mut channel = tonic::transport::Channel::from_shared(server.url())
        .unwrap()
        .connect()
        .await
        .unwrap();
    let framed = raw::framed(false, &create_request());
    for content_type in ["text/plain", "application/json", ""] {
        let request = http::Request::builder()
            .method("POST")
            .uri(format!(
                "{}/druids.v1.DruidsService/CreateGame",
                server.url()
            ))
            .header("content-type", content_type)
            .header("te", "trailers")
            .body(tonic::body::Body::new(http_body_util::Full::new(
                bytes::Bytes::from(framed.clone()),
            )))
            .unwrap();
        let answer = channel.ready().await.unwrap().call(request).await.unwrap();
        assert_eq!(answer.status(), 415, "{content_type:?}: {answer:?}");
        let status = Status::from_header_map(answer.headers()).expect("a gRPC status");
        assert_eq!(status.code(), Code::InvalidArgument, "{status:?}");
        assert_eq!(reason(&status), "INVALID_ARGUMENT");
    }
    assert_eq!(games_listed(&server).await, 0, "nothing was created");
    server.stop().await;
}

/// An unknown method, and a request compressed in an encoding the server
/// does not take, are UNIMPLEMENTED with their reason (the plain
/// `druids-reason` trailer too), and change nothing.
#[tokio::test]
async fn unknown_methods_and_encodings_are_unimplemented_with_a_reason() {
    use tower::{Service, ServiceExt};
    let server = TestServer::start().await;
    let mut channel = tonic::transport::Channel::from_shared(server.url())
        .unwrap()
        .connect()
        .await
        .unwrap();
    let message = create_request();
    for (path, encoding) in [
        ("/druids.v1.DruidsService/NoSuchMethod", None),
        ("/druids.v9.Nothing/CreateGame", None),
        ("/druids.v1.DruidsService/CreateGame", Some("gzip")),
        ("/druids.v1.DruidsService/CreateGame", Some("br")),
    ] {
        let framed = raw::framed(encoding.is_some(), &message);
        let mut request = http::Request::builder()
            .method("POST")
            .uri(format!("{}{path}", server.url()))
            .header("content-type", "application/grpc")
            .header("te", "trailers");
        if let Some(encoding) = encoding {
            request = request.header("grpc-encoding", encoding);
        }
        let request = request
            .body(tonic::body::Body::new(http_body_util::Full::new(
                bytes::Bytes::from(framed),
            )))
            .unwrap();
        let answer = channel.ready().await.unwrap().call(request).await.unwrap();
        let status = Status::from_header_map(answer.headers()).expect("a gRPC status");
        assert_eq!(
            status.code(),
            Code::Unimplemented,
            "{path} {encoding:?}: {status:?}"
        );
        assert_eq!(reason(&status), "INVALID_ARGUMENT", "{path} {encoding:?}");
        assert!(!status.message().is_empty(), "{path}: {status:?}");
        assert_eq!(
            answer
                .headers()
                .get("druids-reason")
                .map(|v| v.to_str().unwrap()),
            Some("INVALID_ARGUMENT"),
            "{path} {encoding:?}"
        );
    }
    assert_eq!(games_listed(&server).await, 0, "nothing was created");
    server.stop().await;
}

#[tokio::test]
async fn oversized_metadata_is_resource_exhausted() {
    let server = TestServer::start().await;
    let mut client = server.client().await;
    let mut request = tonic::Request::new(pb::CreateGameRequest {
        kind: MEDURIS as i32,
        players: 2,
        ..Default::default()
    });
    request
        .metadata_mut()
        .insert("x-padding", "x".repeat(20_000).parse().unwrap());
    let status = client.create_game(request).await.unwrap_err();
    assert_eq!(status.code(), Code::ResourceExhausted, "{status:?}");
    assert_eq!(reason(&status), "LIMIT_REACHED");
    assert_eq!(games_listed(&server).await, 0, "nothing was created");
    // Ordinary metadata still passes.
    create(&mut client, MEDURIS, 2, 3).await;
    server.stop().await;
}
