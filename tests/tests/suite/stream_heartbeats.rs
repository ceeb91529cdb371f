//! Heartbeats on `StreamEvents` (issue 27, outage 7): a quiet stream sends
//! `GameEvent.heartbeat`, which takes no seq of its own (it repeats the last
//! one sent), over gRPC and as SSE; and a client reading a stream to a
//! paused (SIGSTOPped) server sees the heartbeats stop, then go on after
//! SIGCONT, so it can tell a dead server from a quiet game.
#![cfg(unix)]

use std::time::Duration;

use druids_contract::pb;
use druids_contract::pb::druids_service_client::DruidsServiceClient;
use druids_server::{Limits, MemoryStore};
use druids_tests::heartbeats::falls_silent;
use druids_tests::process::ServerProcess;
use druids_tests::{Lcg, TestServer, authed, create, http_face, play_random};
use tokio_stream::StreamExt;
use tonic::Streaming;

/// Guards a hang only: every wait below is on a condition.
const HANG: Duration = Duration::from_secs(120);
/// The heartbeat interval of these tests' servers, in ms.
pub(crate) const EVERY_MS: u64 = 100;

fn is_heartbeat(e: &pb::GameEvent) -> bool {
    matches!(e.body, Some(pb::game_event::Body::Heartbeat(_)))
}

async fn next(stream: &mut Streaming<pb::GameEvent>) -> pb::GameEvent {
    tokio::time::timeout(HANG, stream.next())
        .await
        .expect("the stream sends something")
        .expect("the stream goes on")
        .expect("an event")
}

async fn open(
    client: &mut DruidsServiceClient<tonic::transport::Channel>,
    id: &str,
    token: &str,
    from_seq: u64,
) -> Streaming<pb::GameEvent> {
    let req = authed(
        token,
        pb::StreamEventsRequest {
            game_id: id.to_owned(),
            from_seq,
        },
    );
    client
        .stream_events(req)
        .await
        .expect("stream")
        .into_inner()
}

/// A stream on a game where nobody moves gets heartbeats that repeat the
/// last seq and version it sent; the events that follow an action carry the
/// log's own seqs, unchanged by the heartbeats before them. A stream resumed
/// at the end of the log beats with the seq its client says it has seen.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_quiet_stream_sends_heartbeats_that_take_no_seq() {
    let limits = Limits {
        stream_heartbeat_ms: EVERY_MS,
        ..Limits::unthrottled()
    };
    let server = TestServer::with(std::sync::Arc::new(MemoryStore::default()), limits).await;
    let mut client = server.client().await;
    let (id, tokens) = create(&mut client, pb::GameKind::Meduris, 2, 11).await;
    let mut stream = open(&mut client, &id, &tokens[0], 0).await;
    // The snapshot and the pending decision, then only heartbeats.
    let snapshot = next(&mut stream).await;
    assert!(matches!(
        snapshot.body,
        Some(pb::game_event::Body::Snapshot(_))
    ));
    let decision = next(&mut stream).await;
    assert!(matches!(
        decision.body,
        Some(pb::game_event::Body::DecisionNeeded(_))
    ));
    for _ in 0..3 {
        let beat = next(&mut stream).await;
        assert!(is_heartbeat(&beat), "a quiet stream beats: {beat:?}");
        assert_eq!(
            (beat.seq, beat.version),
            (decision.seq, decision.version),
            "a heartbeat repeats the last seq and version sent"
        );
    }
    // An action: its events come with the log's next seqs.
    play_random(&mut client, &id, &tokens, &mut Lcg(5), 1)
        .await
        .expect("an action");
    let last = druids_tests::state(&mut client, &id, None).await.last_seq;
    assert!(last > decision.seq, "the action logged events");
    let seen = seqs_until(&mut stream, last).await;
    // A stream opened after the action, with no heartbeat in it, sees the same.
    let mut fresh = open(&mut client, &id, &tokens[0], decision.seq + 1).await;
    let after = seqs_until(&mut fresh, last).await;
    assert_eq!(seen, after, "heartbeats took no seq of the log");
    // Resumed past the end of the log: a heartbeat says what the client saw.
    let mut resumed = open(&mut client, &id, &tokens[1], last + 1).await;
    let beat = next(&mut resumed).await;
    assert!(is_heartbeat(&beat), "{beat:?}");
    assert_eq!(beat.seq, last, "the seq before from_seq");

    // Over HTTP as SSE: a heartbeat is a data block with no id (so that
    // Last-Event-ID never moves for one).
    let base = http_face(&server).await;
    let body = sse_until(
        &base,
        &format!("/api/v1/games/{id}/events?from_seq={}", last + 1),
        "\"heartbeat\"",
    )
    .await;
    let block = body
        .split("\n\n")
        .find(|b| b.contains("\"heartbeat\""))
        .expect("a heartbeat block");
    assert!(
        block.starts_with("data: "),
        "no id on a heartbeat: {block:?}"
    );
}

/// The seqs of the events (heartbeats left out) `stream` sends up to `last`.
async fn seqs_until(stream: &mut Streaming<pb::GameEvent>, last: u64) -> Vec<u64> {
    let mut seqs = Vec::new();
    while seqs.last().is_none_or(|s| *s < last) {
        let e = next(stream).await;
        if !is_heartbeat(&e) {
            seqs.push(e.seq);
        }
    }
    seqs
}

/// Reads the SSE body at `path` until it contains `needle`.
pub(crate) async fn sse_until(base: &str, path: &str, needle: &str) -> String {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let addr = base.trim_start_matches("http://").to_owned();
    let mut conn = tokio::net::TcpStream::connect(&addr)
        .await
        .expect("connect");
    let req = format!("GET {path} HTTP/1.1\r\nhost: {addr}\r\naccept: text/event-stream\r\n\r\n");
    conn.write_all(req.as_bytes()).await.expect("send");
    let mut raw = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        let n = tokio::time::timeout(HANG, conn.read(&mut buf))
            .await
            .expect("the body goes on")
            .expect("read");
        assert!(n > 0, "the stream ended before {needle}");
        raw.extend_from_slice(&buf[..n]);
        let text = String::from_utf8_lossy(&raw).into_owned();
        if let Some((_, body)) = text.split_once("\r\n\r\n")
            && body.contains(needle)
        {
            // Chunk sizes on their own lines: keep the SSE lines only.
            return body
                .split("\r\n")
                .collect::<Vec<_>>()
                .chunks(2)
                .filter_map(|c| c.get(1).copied())
                .collect();
        }
    }
}

/// A server process (its data in memory, its log in a fresh temp dir
/// named after `name`) that beats every [`EVERY_MS`].
pub(crate) fn beating_server(name: &str) -> (ServerProcess, std::path::PathBuf) {
    let dir = std::env::temp_dir().join(format!("{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let every = EVERY_MS.to_string();
    let args = [
        "--listen",
        "127.0.0.1:0",
        "--http-listen",
        "off",
        // Nothing written to the working directory.
        "--in-memory",
        "--stream-heartbeat-ms",
        &every,
    ];
    let server = ServerProcess::start(&args, &[], &dir.join("server.log"));
    (server, dir)
}

/// A stream straight to a server process that is then SIGSTOPped: the
/// client's reading shows heartbeats, then none (once those already on the
/// way are read), then heartbeats again after SIGCONT, on the same stream.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_sees_the_heartbeats_of_a_paused_server_stop() {
    let (server, dir) = beating_server("druids-heartbeats");
    let mut client = DruidsServiceClient::connect(server.url())
        .await
        .expect("connect");
    let (id, tokens) = create(&mut client, pb::GameKind::Meduris, 2, 13).await;
    let mut stream = open(&mut client, &id, &tokens[0], 0).await;
    let mut beats = 0;
    while beats < 3 {
        if is_heartbeat(&next(&mut stream).await) {
            beats += 1;
        }
    }
    server.signal("STOP");
    // A window of many intervals: a running server beats in each, and a
    // paused one, once the beats already sent are read, in none. A client's
    // watchdog reads its stream just so.
    let window = Duration::from_millis(EVERY_MS * 20);
    assert!(
        falls_silent(&mut stream, window, 50).await,
        "the heartbeats of a paused server stop"
    );
    server.signal("CONT");
    let beat = next(&mut stream).await;
    assert!(
        is_heartbeat(&beat),
        "the woken server beats again: {beat:?}"
    );
    server.kill();
    let _ = std::fs::remove_dir_all(&dir);
}
