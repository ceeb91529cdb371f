//! The HTTP listener holds the same connection limits as the gRPC one
//! (`--max-connections`, `--handshake-timeout-secs`, `--idle-connection-secs`),
//! a request head must arrive whole within the handshake timeout (slowloris),
//! and a server out of file descriptors keeps serving its open connections,
//! accepts again once some close, and logs the trouble once per interval.
//!
//! Waits are on conditions (a closed connection, an answered call), bounded
//! by iteration counts, never by fixed sleeps.

use std::sync::Arc;
use std::time::Duration;

use druids_contract::pb;
use druids_contract::pb::druids_service_client::DruidsServiceClient;
use druids_server::{Limits, MemoryStore};
use druids_tests::TestServer;
use druids_tests::process::ServerProcess;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// Serves `server`'s HTTP face on an ephemeral port; its address.
async fn http_face(server: &TestServer) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("addr").to_string();
    let service = Arc::clone(&server.service);
    let stopped = service.stopped();
    tokio::spawn(druids_server::http::serve_http(listener, service, stopped));
    addr
}

/// Whether the server closed `conn`: reads until the end (true) or until
/// `patience` reads of 100 ms found nothing (false).
async fn closed_by_server(conn: &mut TcpStream, patience: usize) -> bool {
    let mut buf = [0u8; 4096];
    for _ in 0..patience {
        match tokio::time::timeout(Duration::from_millis(100), conn.read(&mut buf)).await {
            Ok(Ok(0)) | Ok(Err(_)) => return true,
            Ok(Ok(_)) | Err(_) => {}
        }
    }
    false
}

/// One HTTP request on `conn` (kept alive); whether a response came.
async fn answered(conn: &mut TcpStream) -> bool {
    let req = "GET /static/nothing HTTP/1.1\r\nhost: localhost\r\n\r\n";
    if conn.write_all(req.as_bytes()).await.is_err() {
        return false;
    }
    let mut buf = [0u8; 4096];
    matches!(
        tokio::time::timeout(Duration::from_secs(30), conn.read(&mut buf)).await,
        Ok(Ok(n)) if n > 0 && buf.starts_with(b"HTTP/1.1")
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_http_listener_bounds_connections_like_the_grpc_one() {
    let limits = Limits {
        max_connections: 3,
        handshake_timeout_secs: 2,
        idle_connection_secs: 3,
        ..Limits::unthrottled()
    };
    let server = TestServer::with(Arc::new(MemoryStore::default()), limits).await;
    let addr = http_face(&server).await;

    // Three connections are served; a fourth is closed unanswered.
    let mut held = Vec::new();
    for _ in 0..3 {
        let mut c = TcpStream::connect(&addr).await.unwrap();
        assert!(answered(&mut c).await, "a connection within the limit");
        held.push(c);
    }
    let mut fourth = TcpStream::connect(&addr).await.unwrap();
    assert!(
        !answered(&mut fourth).await,
        "a connection beyond the limit"
    );
    // A connection that closes makes room.
    drop(held.pop());
    let mut served = false;
    for _ in 0..100 {
        let mut c = TcpStream::connect(&addr).await.unwrap();
        if answered(&mut c).await {
            served = true;
            held.push(c);
            break;
        }
    }
    assert!(served, "a closed connection's place is given back");

    // Slowloris: a request head that never ends is cut off, however steadily
    // it trickles in.
    drop(held);
    let mut slow = TcpStream::connect(&addr).await.unwrap();
    slow.write_all(b"GET / HTTP/1.1\r\nhost: localhost\r\n")
        .await
        .unwrap();
    let mut cut = false;
    for i in 0..600 {
        if slow
            .write_all(format!("x-slow-{i}: y\r\n").as_bytes())
            .await
            .is_err()
            || closed_by_server(&mut slow, 1).await
        {
            cut = true;
            break;
        }
    }
    assert!(cut, "a request head trickling in for a minute is cut off");

    // A silent connection, and one silent after its answer, are closed.
    let mut silent = TcpStream::connect(&addr).await.unwrap();
    assert!(
        closed_by_server(&mut silent, 600).await,
        "a connection that sends nothing"
    );
    let mut idle = TcpStream::connect(&addr).await.unwrap();
    assert!(answered(&mut idle).await);
    assert!(
        closed_by_server(&mut idle, 600).await,
        "a connection idle after its request"
    );
    server.stop().await;
}

/// A body trickled in a byte at a time is cut off at its deadline (three
/// handshake timeouts) with a 408, long before it would be whole.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_trickled_body_is_cut_off_at_its_deadline() {
    let limits = Limits {
        handshake_timeout_secs: 1,
        ..Limits::unthrottled()
    };
    let server = TestServer::with(Arc::new(MemoryStore::default()), limits).await;
    let addr = http_face(&server).await;
    let mut conn = TcpStream::connect(&addr).await.unwrap();
    // 1,000 bytes announced; one sent every 100 ms would take 100 s.
    let head = format!(
        "POST /api/v1/ListGames HTTP/1.1\r\nhost: {addr}\r\ncontent-type: application/json\r\ncontent-length: 1000\r\n\r\n{{"
    );
    conn.write_all(head.as_bytes()).await.unwrap();
    let mut answer = Vec::new();
    let mut buf = [0u8; 4096];
    let mut sent = 1;
    while sent < 1000 && !answer.windows(4).any(|w| w == b"\r\n\r\n") {
        match tokio::time::timeout(Duration::from_millis(100), conn.read(&mut buf)).await {
            Ok(Ok(0)) | Ok(Err(_)) => break,
            Ok(Ok(n)) => answer.extend_from_slice(&buf[..n]),
            Err(_) => {
                if conn.write_all(b" ").await.is_err() {
                    break;
                }
                sent += 1;
            }
        }
    }
    let answer = String::from_utf8_lossy(&answer);
    assert!(
        answer.starts_with("HTTP/1.1 408"),
        "after {sent} of 1000 bytes: {answer:?}"
    );
    assert!(sent < 1000, "the body was sent whole before any answer");
    assert!(
        closed_by_server(&mut conn, 100).await,
        "the connection stays open: {answer:?}"
    );
    // Other clients are served meanwhile and after.
    let mut other = TcpStream::connect(&addr).await.unwrap();
    assert!(answered(&mut other).await);
    server.stop().await;
}

/// The same on the gRPC port: a request message trickled (here: one byte of
/// a hundred, then nothing) is refused at its deadline, INVALID_ARGUMENT,
/// rather than holding its stream for as long as the client answers pings.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_trickled_grpc_request_is_refused_at_its_deadline() {
    let limits = Limits {
        handshake_timeout_secs: 1,
        ..Limits::unthrottled()
    };
    let server = TestServer::with(Arc::new(MemoryStore::default()), limits).await;
    let tcp = TcpStream::connect(server.addr).await.unwrap();
    let (send, connection) = h2::client::handshake(tcp).await.unwrap();
    tokio::spawn(connection);
    let mut send = send.ready().await.unwrap();
    let request = http::Request::post(format!(
        "http://{}/druids.v1.DruidsService/GetState",
        server.addr
    ))
    .header("content-type", "application/grpc")
    .header("te", "trailers")
    .body(())
    .unwrap();
    let (response, mut body) = send.send_request(request, false).unwrap();
    body.send_data(bytes::Bytes::from_static(&[0, 0, 0, 0, 100, 10]), false)
        .unwrap();
    // A guard against hanging, far beyond the three seconds' deadline.
    let response = tokio::time::timeout(Duration::from_secs(120), response)
        .await
        .expect("an answer before the guard")
        .unwrap();
    let code = match response.headers().get("grpc-status") {
        Some(code) => code.clone(),
        None => {
            let mut answer = response.into_body();
            let trailers = tokio::time::timeout(Duration::from_secs(120), answer.trailers())
                .await
                .expect("trailers before the guard")
                .unwrap()
                .expect("trailers");
            trailers.get("grpc-status").expect("a grpc-status").clone()
        }
    };
    assert_eq!(code, "3", "INVALID_ARGUMENT");
    drop(body);
    server.stop().await;
}

/// The grpc-status of an h2 response: in its headers (trailers-only) or
/// its trailers.
async fn grpc_status(response: http::Response<h2::RecvStream>) -> String {
    if let Some(code) = response.headers().get("grpc-status") {
        return code.to_str().unwrap().to_owned();
    }
    let mut body = response.into_body();
    // Read the body (an answer's message) to reach the trailers.
    while let Some(chunk) = body.data().await {
        let chunk = chunk.unwrap();
        let _ = body.flow_control().release_capacity(chunk.len());
    }
    let trailers = body.trailers().await.unwrap().expect("trailers");
    let code = trailers.get("grpc-status").expect("a grpc-status");
    code.to_str().unwrap().to_owned()
}

/// Calls whose request message never comes hold memory until their deadline:
/// at most `--max-waiting-calls-per-address` of them from one address; one
/// more is refused at once (RESOURCE_EXHAUSTED, retry shortly), while other
/// addresses are served; the places come back as requests end.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn calls_waiting_for_their_request_are_bounded_per_address() {
    let limits = Limits {
        max_waiting_calls_per_address: 3,
        ..Limits::unthrottled()
    };
    let server = TestServer::with(Arc::new(MemoryStore::default()), limits).await;
    let tcp = TcpStream::connect(server.addr).await.unwrap();
    let (send, connection) = h2::client::handshake(tcp).await.unwrap();
    tokio::spawn(connection);
    let request = || {
        http::Request::post(format!(
            "http://{}/druids.v1.DruidsService/GetState",
            server.addr
        ))
        .header("content-type", "application/grpc")
        .header("te", "trailers")
        .body(())
        .unwrap()
    };
    let message = bytes::Bytes::from(druids_tests::raw::framed(
        false,
        &prost::Message::encode_to_vec(&pb::GetStateRequest {
            game_id: "no-such-game".into(),
        }),
    ));
    // Four calls that send their headers only: three wait, one is refused.
    let (answers, mut answer) = tokio::sync::mpsc::unbounded_channel();
    let mut bodies = Vec::new();
    for i in 0..4 {
        let mut send = send.clone().ready().await.unwrap();
        let (response, body) = send.send_request(request(), false).unwrap();
        bodies.push(body);
        let answers = answers.clone();
        tokio::spawn(async move {
            let _ = answers.send((i, response.await));
        });
    }
    // A guard against hanging, far below the waiting calls' own deadline.
    let (refused_at, refused) = tokio::time::timeout(Duration::from_secs(20), answer.recv())
        .await
        .expect("one call refused at once")
        .unwrap();
    let refused = refused.unwrap();
    assert_eq!(
        refused
            .headers()
            .get("druids-reason")
            .map(|v| v.to_str().unwrap()),
        Some("RATE_LIMITED"),
        "{refused:?}"
    );
    assert!(refused.headers().contains_key("druids-retry-after-ms"));
    assert_eq!(grpc_status(refused).await, "8", "RESOURCE_EXHAUSTED");
    // Another address has places of its own: served meanwhile.
    let other = tonic::transport::Endpoint::from_shared(format!("http://{}", server.addr))
        .unwrap()
        .local_address(Some("127.0.0.2".parse().unwrap()))
        .connect()
        .await
        .unwrap();
    let mut client = DruidsServiceClient::new(other);
    let (id, _) = druids_tests::create(&mut client, pb::GameKind::Meduris, 2, 1).await;
    druids_tests::state(&mut client, &id, None).await;
    // The three waiting calls get their messages, and answers.
    for (i, body) in bodies.iter_mut().enumerate() {
        if i != refused_at {
            body.send_data(message.clone(), true).unwrap();
        }
    }
    for _ in 0..3 {
        let (i, response) = tokio::time::timeout(Duration::from_secs(60), answer.recv())
            .await
            .expect("an answer")
            .unwrap();
        assert_ne!(i, refused_at);
        assert_ne!(grpc_status(response.unwrap()).await, "8");
    }
    // Their places came back with their answers: three may wait again.
    let mut again = Vec::new();
    for _ in 0..3 {
        let mut send = send.clone().ready().await.unwrap();
        again.push(send.send_request(request(), false).unwrap());
    }
    for (response, mut body) in again {
        body.send_data(message.clone(), true).unwrap();
        let response = tokio::time::timeout(Duration::from_secs(60), response)
            .await
            .expect("an answer")
            .unwrap();
        assert_ne!(grpc_status(response).await, "8");
    }
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn out_of_file_descriptors_the_server_serves_its_open_connections() {
    let dir = std::env::temp_dir().join(format!("druids-fds-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let log = dir.join("server.log");
    let _ = std::fs::remove_file(&log);
    let server = ServerProcess::start_with_files(
        &[
            "--in-memory",
            "--listen",
            "127.0.0.1:0",
            "--http-listen",
            "127.0.0.1:0",
            "--handshake-timeout-secs",
            "60",
            "--max-setups-per-second",
            "0",
        ],
        64,
        &log,
    );
    let mut client = DruidsServiceClient::connect(server.url()).await.unwrap();
    let (id, _) = druids_tests::create(&mut client, pb::GameKind::Meduris, 2, 1).await;
    // Far more connections than descriptors, on both listeners.
    let http = server.http.clone().unwrap();
    let mut flood = Vec::new();
    for i in 0..300 {
        let to = if i % 2 == 0 { &http } else { &server.addr };
        // A full backlog leaves a connect waiting on SYN retries: not for long.
        if let Ok(Ok(c)) =
            tokio::time::timeout(Duration::from_secs(1), TcpStream::connect(to)).await
        {
            flood.push(c);
        }
    }
    // The open connection is served all along.
    for _ in 0..20 {
        druids_tests::state(&mut client, &id, None).await;
    }
    // When each listener logged the trouble, seconds of the day.
    let logged_at = || -> Vec<f64> {
        std::fs::read_to_string(&log)
            .unwrap_or_default()
            .lines()
            .filter(|l| l.contains("cannot accept a connection"))
            .filter_map(|l| {
                let time = l.split_once('T')?.1.split_once('Z')?.0;
                let mut hms = time.split(':').map(|x| x.parse::<f64>().ok());
                Some(hms.next()?? * 3600.0 + hms.next()?? * 60.0 + hms.next()??)
            })
            .collect()
    };
    let log_lines = || logged_at().len();
    // The listeners have run out (they log it), but at most once per 10 s each.
    let mut failures = 0;
    for _ in 0..200 {
        failures = log_lines();
        if failures > 0 {
            break;
        }
        druids_tests::state(&mut client, &id, None).await;
    }
    assert!(failures > 0, "the listeners ran out of descriptors");
    // Two listeners, each at most one line per 10 s, however long this took.
    let rate_kept = || {
        let at = logged_at();
        for (i, t) in at.iter().enumerate() {
            let within = at[i..].iter().filter(|&&u| u - t < 9.9).count();
            assert!(
                within <= 2,
                "{within} lines about failed accepts within 10 s: {at:?}"
            );
        }
    };
    rate_kept();
    // Once the flood is gone, new connections are taken again.
    drop(flood);
    let mut again = None;
    for _ in 0..200 {
        if let Ok(Ok(mut c)) = tokio::time::timeout(
            Duration::from_secs(5),
            DruidsServiceClient::connect(server.url()),
        )
        .await
        {
            let got = c
                .get_state(pb::GetStateRequest {
                    game_id: id.clone(),
                })
                .await;
            if got.is_ok() {
                again = Some(c);
                break;
            }
        }
    }
    assert!(
        again.is_some(),
        "a new connection is served once descriptors are free"
    );
    // And so on to the end, on a slow machine too (more lines, no faster).
    rate_kept();
    drop(server);
}
