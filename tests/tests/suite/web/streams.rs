//! Event streams over HTTP/1.1 (server-sent events) resume by sequence
//! number: a game's, a bot's and a tournament's.

use druids_contract::pb;
use druids_tests::{Lcg, TestServer, create, http_face, play_random, state};

use super::{assert_error, first_sse_blocks, http, json};

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
