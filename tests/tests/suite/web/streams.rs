//! Event streams over HTTP/1.1 (server-sent events) resume by sequence
//! number: a game's, a bot's and a tournament's; a stream's slot is freed
//! when its client goes away.

use std::sync::Arc;

use druids_contract::pb;
use druids_server::{Limits, MemoryStore};
use druids_tests::{Lcg, TestServer, create, http_face, play_random, state};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use super::{assert_error, first_sse_blocks, http, json, status_of};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn event_streams_over_http_resume_by_seq() {
    let server = TestServer::start().await;
    let base = http_face(&server).await;
    let mut client = server.client().await;
    let (game, tokens) = create(&mut client, pb::GameKind::Dolmen, 2, 6).await;
    play_random(&mut client, &game, &tokens, &mut Lcg(6), usize::MAX)
        .await
        .expect("play");
    let last = state(&mut client, &game, None).await.last_seq;
    let path = format!("/api/v1/games/{game}/events?from_seq=1");
    let sse = [("accept", "text/event-stream")];
    let (status, head, body) = http(&base, "GET", &path, &sse, "").await;
    assert_eq!(status, 200);
    assert!(head.contains("content-type: text/event-stream"), "{head}");
    assert_eq!(
        body.matches("\nid: ").count() + usize::from(body.starts_with("id: ")),
        last as usize
    );
    assert!(
        body.contains(&format!("id: {last}\ndata: ")),
        "the last event"
    );
    assert!(body.contains("\"gameFinished\""));
    // Last-Event-ID resumes right after it, whatever the query says.
    let (_, _, resumed) = http(
        &base,
        "GET",
        &path,
        &[("accept", "text/event-stream"), ("last-event-id", "40")],
        "",
    )
    .await;
    assert!(
        resumed.contains("id: 41\n") && !resumed.contains("id: 40\n"),
        "{}",
        &resumed[..200.min(resumed.len())]
    );
    // Newline-delimited JSON: one GameEvent per line, resumable by from_seq.
    let (status, head, ndjson) = http(
        &base,
        "GET",
        &format!("/api/v1/games/{game}/events?from_seq=30"),
        &[("accept", "application/x-ndjson")],
        "",
    )
    .await;
    assert_eq!(status, 200);
    assert!(
        head.contains("content-type: application/x-ndjson"),
        "{head}"
    );
    let seqs: Vec<u64> = ndjson
        .lines()
        .filter(|l| l.starts_with('{'))
        .map(|l| {
            json(l)["seq"]
                .as_str()
                .expect("seq")
                .parse()
                .expect("number")
        })
        .collect();
    assert_eq!(seqs, (30..=last).collect::<Vec<_>>());
    // POST /api/v1/StreamEvents is the same stream.
    let (status, _, posted) = http(
        &base,
        "POST",
        "/api/v1/StreamEvents",
        &[],
        &format!(r#"{{"gameId": "{game}", "fromSeq": "{last}"}}"#),
    )
    .await;
    assert_eq!(status, 200);
    assert!(posted.contains("\"gameFinished\""), "{posted}");
    // From 0 on a running game: the snapshot carries the id of the event
    // before the pending DecisionNeeded, which follows with its own id (so a
    // resumption after either repeats nothing and misses nothing).
    let (running, running_tokens) = create(&mut client, pb::GameKind::Meduris, 2, 8).await;
    play_random(&mut client, &running, &running_tokens, &mut Lcg(8), 5)
        .await
        .expect("play");
    let last_seq = state(&mut client, &running, None).await.last_seq;
    let snapshot_seq = last_seq - 1;
    let blocks = first_sse_blocks(
        &base,
        &format!("/api/v1/games/{running}/events?from_seq=0"),
        &[],
        2,
    )
    .await;
    assert!(
        blocks[0].starts_with(&format!("id: {snapshot_seq}\ndata: ")),
        "{blocks:?}"
    );
    assert!(blocks[0].contains("\"snapshot\""), "{blocks:?}");
    assert!(
        blocks[1].starts_with(&format!("id: {last_seq}\ndata: "))
            && blocks[1].contains("\"decisionNeeded\""),
        "{blocks:?}"
    );
    // An unknown game is an ordinary error, before any event.
    assert_error(
        &http(&base, "GET", "/api/v1/games/nope/events", &sse, "").await,
        404,
        "NOT_FOUND",
        "GAME_NOT_FOUND",
    );
}

/// Opens an event stream of `path` as `token`'s seat and reads its answer's
/// head: the status, and the connection (still open on a 200).
async fn open_stream(base: &str, path: &str, token: &str) -> (u16, TcpStream) {
    let addr = base.trim_start_matches("http://");
    let mut conn = TcpStream::connect(addr).await.expect("connect");
    let req = format!(
        "GET {path} HTTP/1.1\r\nhost: {addr}\r\naccept: text/event-stream\r\nauthorization: Bearer {token}\r\n\r\n"
    );
    conn.write_all(req.as_bytes()).await.expect("send");
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        let read = conn.read(&mut byte).await.expect("read the head");
        assert!(read > 0, "the connection closed before the answer's head");
        head.push(byte[0]);
    }
    (status_of(&String::from_utf8_lossy(&head)), conn)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_streams_slot_is_freed_as_soon_as_its_http_client_goes_away() {
    // Heartbeats an hour apart: nothing is written to an idle stream, so only
    // noticing the closed connection frees its slot.
    let limits = Limits {
        stream_heartbeat_ms: 3_600_000,
        max_streams_per_seat: 2,
        reserved_streams_per_seat: 2,
        ..Limits::unthrottled()
    };
    let server = TestServer::with(Arc::new(MemoryStore::default()), limits).await;
    let base = http_face(&server).await;
    let mut client = server.client().await;
    let (game, tokens) = create(&mut client, pb::GameKind::Meduris, 2, 3).await;
    let path = format!("/api/v1/games/{game}/events?from_seq=1");
    let mut held = Vec::new();
    for _ in 0..2 {
        let (status, conn) = open_stream(&base, &path, &tokens[0]).await;
        assert_eq!(status, 200);
        held.push(conn);
    }
    let (refused, _) = open_stream(&base, &path, &tokens[0]).await;
    assert_eq!(refused, 429, "a third stream of the seat is over its limit");

    // The clients go away. The slots come back, long before any heartbeat
    // would have been written (the loop's guard is against a hang only).
    drop(held);
    let mut attempts = 0;
    let reopened = loop {
        let (status, conn) = open_stream(&base, &path, &tokens[0]).await;
        if status == 200 {
            break conn;
        }
        assert_eq!(status, 429, "refused for its limit, if at all");
        attempts += 1;
        assert!(
            attempts < 600,
            "the slots of streams whose clients went away were not freed"
        );
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    };
    drop(reopened);
}
