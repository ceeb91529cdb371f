//! The HTTP/JSON face, end to end: `docs/http.md` run as written with bash
//! and curl, errors, limits and event streams (the game's, a bot's, a
//! tournament's) over plain HTTP/1.1. The viewer in a real browser is
//! [`crate::browser`].
//!
//! One submodule per concern; the HTTP helpers they and other modules
//! share live here.

mod arena_pages;
mod docs_http;
mod errors;
mod streams;

use std::path::{Path, PathBuf};
use std::time::Duration;

/// The workspace's `target/` directory.
pub(crate) fn target_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../target"))
}

/// An HTTP/1.1 exchange over a plain TCP connection (`Connection: close`):
/// the status, the head (lower-cased) and the body as received (streams are
/// chunked; their events are whole within a chunk).
pub(crate) async fn http(
    base: &str,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> (u16, String, String) {
    http_from(None, base, method, path, headers, body).await
}

/// A practice game made by `POST /web/v1/practice` with `body` (the
/// request's JSON) on the HTTP face at `base`: its id, the person's token
/// and seat.
pub(crate) async fn practice(base: &str, body: serde_json::Value) -> (String, String, u32) {
    let (status, _, answer) = http(
        base,
        "POST",
        "/web/v1/practice",
        &[("content-type", "application/json")],
        &body.to_string(),
    )
    .await;
    assert_eq!(status, 200, "{answer}");
    let json: serde_json::Value = serde_json::from_str(&answer).expect("JSON");
    let id = json["gameId"].as_str().expect("gameId").to_owned();
    let token = json["token"].as_str().expect("token").to_owned();
    let seat = json["seat"].as_u64().expect("seat") as u32;
    (id, token, seat)
}

/// [`http`] from local address `from` (any address of 127/8 reaches the
/// loopback interface, so per-address limits see another client).
pub(crate) async fn http_from(
    from: Option<std::net::Ipv4Addr>,
    base: &str,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> (u16, String, String) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let addr = base.trim_start_matches("http://").to_owned();
    let socket = tokio::net::TcpSocket::new_v4().expect("socket");
    if let Some(ip) = from {
        socket.bind((ip, 0).into()).expect("bind the local address");
    }
    let mut conn = socket
        .connect(addr.parse().expect("an address"))
        .await
        .expect("connect");
    let mut req = format!(
        "{method} {path} HTTP/1.1\r\nhost: {addr}\r\nconnection: close\r\ncontent-length: {}\r\n",
        body.len()
    );
    for (k, v) in headers {
        req.push_str(&format!("{k}: {v}\r\n"));
    }
    // A POST says its body is JSON, as the server requires, unless the
    // test says otherwise.
    if method == "POST"
        && !headers
            .iter()
            .any(|(k, _)| k.eq_ignore_ascii_case("content-type"))
    {
        req.push_str("content-type: application/json\r\n");
    }
    req.push_str("\r\n");
    req.push_str(body);
    conn.write_all(req.as_bytes()).await.expect("send");
    let mut raw = Vec::new();
    tokio::time::timeout(Duration::from_secs(20), conn.read_to_end(&mut raw))
        .await
        .expect("the answer ends")
        .expect("read");
    let raw = String::from_utf8_lossy(&raw).into_owned();
    let (head, body) = raw.split_once("\r\n\r\n").expect("an HTTP answer");
    (status_of(head), head.to_lowercase(), body.to_owned())
}

/// The status code of an HTTP answer's head.
pub(crate) fn status_of(head: &str) -> u16 {
    head.split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .expect("a status")
}

/// The first `n` Server-Sent Events blocks of a stream that stays open (the
/// chunked framing removed), e.g. of a running game.
async fn first_sse_blocks(
    base: &str,
    path: &str,
    headers: &[(&str, &str)],
    n: usize,
) -> Vec<String> {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let addr = base.trim_start_matches("http://").to_owned();
    let mut conn = tokio::net::TcpStream::connect(&addr)
        .await
        .expect("connect");
    let mut req = format!("GET {path} HTTP/1.1\r\nhost: {addr}\r\naccept: text/event-stream\r\n");
    for (k, v) in headers {
        req.push_str(&format!("{k}: {v}\r\n"));
    }
    req.push_str("\r\n");
    conn.write_all(req.as_bytes()).await.expect("send");
    let mut raw = Vec::new();
    let mut buf = [0u8; 4096];
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    loop {
        let text = String::from_utf8_lossy(&raw).into_owned();
        if let Some((_, body)) = text.split_once("\r\n\r\n") {
            // Each chunk is "<size>\r\n<data>\r\n"; events never span chunks.
            let data: String = body
                .split("\r\n")
                .collect::<Vec<_>>()
                .chunks(2)
                .filter_map(|c| c.get(1).copied())
                .collect();
            let blocks: Vec<String> = data
                .split("\n\n")
                .filter(|b| !b.is_empty())
                .map(str::to_owned)
                .collect();
            if blocks.len() > n || (blocks.len() == n && data.ends_with("\n\n")) {
                return blocks.into_iter().take(n).collect();
            }
        }
        let read = tokio::time::timeout_at(deadline, conn.read(&mut buf))
            .await
            .expect("the events come in time")
            .expect("read");
        assert!(read > 0, "the stream ended early");
        raw.extend_from_slice(&buf[..read]);
    }
}

/// The JSON body of an answer (not chunked: unary answers have a length).
pub(crate) fn json(body: &str) -> serde_json::Value {
    serde_json::from_str(body).unwrap_or_else(|e| panic!("not JSON ({e}): {body}"))
}

/// Asserts an error answer: HTTP status, gRPC code name and the reason of the
/// status's ErrorInfo (empty: the status has none).
pub(crate) fn assert_error(answer: &(u16, String, String), status: u16, code: &str, reason: &str) {
    assert_eq!(answer.0, status, "{answer:?}");
    let body = json(&answer.2);
    assert_eq!(body["code"], code, "{body}");
    let got = body["reason"].as_str().expect("reason is always there");
    assert_eq!(got, reason, "{body}");
    assert!(!body["message"].as_str().unwrap_or("").is_empty(), "{body}");
}
