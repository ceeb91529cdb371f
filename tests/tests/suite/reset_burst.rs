//! Outage 6 of issue 27: calls a client gave up while the server was paused
//! (SIGSTOP) reach it, on waking, as a burst of streams reset before they were
//! accepted. h2's default allowance (20) answered such a burst with GOAWAY
//! `too_many_resets`, closing the client's whole connection and every healthy
//! call on it; the server allows four times `--max-calls-per-connection`
//! (server/src/transport.rs), so the connection and its calls survive.

use std::time::Duration;

use bytes::Bytes;
use druids_tests::process::ServerProcess;

/// Calls opened and cancelled while the server is paused: well past h2's
/// default of 20, well below the server's 4 × 128.
const CANCELLED: usize = 100;

/// A deadlock guard for one wait, not a budget.
const GUARD: Duration = Duration::from_secs(90);

fn health_check(addr: &str) -> http::Request<()> {
    http::Request::post(format!("http://{addr}/grpc.health.v1.Health/Check"))
        .header("content-type", "application/grpc")
        .header("te", "trailers")
        .body(())
        .unwrap()
}

/// An empty `HealthCheckRequest` in its gRPC frame.
fn empty_message() -> Bytes {
    Bytes::from_static(&[0, 0, 0, 0, 0])
}

/// Sends a health check on `send` and waits for its answer: the server's
/// HTTP status, or the error h2 reports (a GOAWAY among them).
async fn check(
    send: h2::client::SendRequest<Bytes>,
    addr: &str,
) -> Result<http::StatusCode, h2::Error> {
    let mut send = tokio::time::timeout(GUARD, send.ready())
        .await
        .expect("ready (deadlock guard)")?;
    let (response, mut body) = send.send_request(health_check(addr), false)?;
    body.send_data(empty_message(), true)?;
    let response = tokio::time::timeout(GUARD, response)
        .await
        .expect("the answer (deadlock guard)")?;
    Ok(response.status())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn calls_cancelled_while_the_server_was_paused_do_not_close_the_connection() {
    let log = std::env::temp_dir().join(format!("druids-reset-burst-{}.log", std::process::id()));
    let server = ServerProcess::start(
        &["--listen", "127.0.0.1:0", "--http-listen", "off"],
        &[],
        &log,
    );
    let url = server.url();
    let addr = url.trim_start_matches("http://").to_owned();
    let tcp = tokio::net::TcpStream::connect(&addr).await.unwrap();
    let (send, connection) = h2::client::handshake(tcp).await.unwrap();
    let driver = tokio::spawn(connection);
    // A healthy call first: the connection works.
    assert_eq!(
        check(send.clone(), &addr)
            .await
            .expect("a call before the pause"),
        200
    );
    server.signal("STOP");
    // While it is paused: calls opened and given up, their HEADERS and
    // RST_STREAM frames queued on the connection for the server to read on
    // waking, before it accepted any of them.
    let mut cancelled = send.clone();
    for _ in 0..CANCELLED {
        cancelled = tokio::time::timeout(GUARD, cancelled.ready())
            .await
            .expect("ready (deadlock guard)")
            .expect("the connection is open");
        let (_response, mut body) = cancelled.send_request(health_check(&addr), false).unwrap();
        body.send_reset(h2::Reason::CANCEL);
    }
    server.signal("CONT");
    // A call sent after the burst is read after it: it is answered on the
    // same connection, which h2 would have gone away from.
    let after = check(send.clone(), &addr).await;
    assert!(
        matches!(after, Ok(s) if s == 200),
        "a call after {CANCELLED} cancelled calls: {after:?}"
    );
    assert!(!driver.is_finished(), "the connection is still open");
    drop(server);
    let _ = std::fs::remove_file(&log);
}
