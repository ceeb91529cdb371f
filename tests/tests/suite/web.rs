//! The HTTP/JSON face, end to end: `docs/http.md` run as written with bash
//! and curl, errors, limits and event streams (the game's, a bot's, a
//! tournament's) over plain HTTP/1.1. The viewer in a real browser is
//! [`crate::browser`].

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::time::Duration;

use druids_contract::pb;
use druids_server::{Limits, MemoryStore};
use druids_tests::{Lcg, TestServer, create, http_face, play_random, state};

/// The workspace's `target/` directory.
pub(crate) fn target_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../target"))
}

/// The section of `docs/http.md` run against a `--test-faults` server.
const FAULTS_SECTION: &str = "## Faults on cue with curl (test servers)";

/// The shell blocks of `docs/http.md`, in order, as one script (but those
/// of [`FAULTS_SECTION`]).
fn doc_script() -> String {
    let faults: Vec<String> = druids_tests::docs::section_blocks("docs/http.md", FAULTS_SECTION)
        .into_iter()
        .map(|b| b.text)
        .collect();
    druids_tests::docs::page_blocks("docs/http.md")
        .into_iter()
        .filter(|b| b.lang == "sh" && !faults.contains(&b.text))
        .map(|b| b.text)
        .collect()
}

/// Runs `script` with bash in a temp dir, `DRUIDS_HTTP` set to `base`; its
/// stdout, or a panic with what it said.
async fn run_doc_script(script: String, base: &str, tag: &str) -> String {
    let dir = std::env::temp_dir().join(format!("druids-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let base = base.to_owned();
    let out = tokio::task::spawn_blocking(move || {
        Command::new("bash")
            .args(["-euo", "pipefail", "-c", &script])
            .current_dir(&dir)
            .env("DRUIDS_HTTP", &base)
            .output()
            .expect("bash runs")
    })
    .await
    .expect("script task");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "docs/http.md failed: {}\n{stdout}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn faults_with_curl_as_in_docs_http_md() {
    let limits = Limits {
        test_faults: true,
        ..Limits::unthrottled()
    };
    let server = TestServer::with(Arc::new(MemoryStore::default()), limits).await;
    let base = http_face(&server).await;
    let script: String = druids_tests::docs::section_blocks("docs/http.md", FAULTS_SECTION)
        .into_iter()
        .filter(|b| b.lang == "sh")
        .map(|b| b.text)
        .collect();
    let stdout = run_doc_script(script, &base, "http-faults-doc").await;
    // The stream ended after seq 3, not at the game's end.
    let ids: Vec<u64> = stdout
        .lines()
        .filter_map(|l| l.strip_prefix("id: "))
        .map(|n| n.trim().parse().expect("a seq"))
        .collect();
    assert!(ids.last().is_some_and(|&l| l >= 3), "{stdout}");
    assert!(ids[..ids.len() - 1].iter().all(|&s| s < 3), "{stdout}");
    assert!(stdout.contains("HTTP/1.1 503"), "{stdout}");
    assert!(stdout.to_lowercase().contains("retry-after: 2"), "{stdout}");
    assert!(
        stdout.contains("\"version\":\"1\""),
        "applied once back: {stdout}"
    );
    assert!(
        stdout.contains("ended the stream of seat 0 after seq")
            && stdout.contains("answered SubmitAction #1 of seat 0 with UNAVAILABLE"),
        "{stdout}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn curl_walk_through_of_docs_http_md() {
    let server = TestServer::start().await;
    let base = http_face(&server).await;
    let script = doc_script();
    assert!(script.contains("CreateGame"), "no shell blocks found");
    let stdout = run_doc_script(script, &base, "http-doc").await;
    assert!(stdout.contains("\"gameFinished\""), "{stdout}");
    assert!(stdout.contains("HTTP/1.1 404"), "{stdout}");
    // The game the script played is over, by the rules.
    let mut client = server.client().await;
    let games = client
        .list_games(pb::ListGamesRequest::default())
        .await
        .expect("list")
        .into_inner()
        .games;
    assert_eq!(games.len(), 1);
    let st = state(&mut client, &games[0].game_id, None).await;
    assert_eq!(st.status, pb::GameStatus::Finished as i32);
    assert!(!st.outcome.expect("outcome").by_safeguard);
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
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .expect("status");
    (status, head.to_lowercase(), body.to_owned())
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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rpcs_over_http_fail_as_over_grpc() {
    let server = TestServer::start().await;
    let base = http_face(&server).await;
    let created = http(
        &base,
        "POST",
        "/api/v1/CreateGame",
        &[],
        r#"{"kind": "GAME_KIND_DOLMEN", "players": 2, "seed": "4"}"#,
    )
    .await;
    assert_eq!(created.0, 200, "{created:?}");
    let created = json(&created.2);
    let game = created["gameId"].as_str().expect("game id").to_owned();
    let token = created["seats"][0]["token"]
        .as_str()
        .expect("token")
        .to_owned();
    let bearer = format!("Bearer {token}");
    let auth = [("authorization", bearer.as_str())];
    let body = format!(r#"{{"gameId": "{game}"}}"#);

    assert_error(
        &http(
            &base,
            "POST",
            "/api/v1/GetState",
            &[],
            r#"{"gameId": "nope"}"#,
        )
        .await,
        404,
        "NOT_FOUND",
        "GAME_NOT_FOUND",
    );
    assert_error(
        &http(&base, "POST", "/api/v1/GetLegalActions", &[], &body).await,
        401,
        "UNAUTHENTICATED",
        "TOKEN_MISSING",
    );
    assert_error(
        &http(
            &base,
            "POST",
            "/api/v1/GetLegalActions",
            &[("authorization", "Bearer 00")],
            &body,
        )
        .await,
        401,
        "UNAUTHENTICATED",
        "TOKEN_UNKNOWN",
    );
    let other = json(
        &http(
            &base,
            "POST",
            "/api/v1/CreateGame",
            &[],
            r#"{"kind": "GAME_KIND_MEDURIS", "players": 2}"#,
        )
        .await
        .2,
    );
    let other_bearer = format!(
        "Bearer {}",
        other["seats"][0]["token"].as_str().expect("token")
    );
    assert_error(
        &http(
            &base,
            "POST",
            "/api/v1/GetLegalActions",
            &[("authorization", &other_bearer)],
            &body,
        )
        .await,
        403,
        "PERMISSION_DENIED",
        "TOKEN_OF_OTHER_GAME",
    );
    assert_error(
        &http(&base, "POST", "/api/v1/GetState", &[], "{not json").await,
        400,
        "INVALID_ARGUMENT",
        "INVALID_ARGUMENT",
    );
    assert_error(
        &http(&base, "POST", "/api/v1/GetState", &[], r#"{"gameId": 7}"#).await,
        400,
        "INVALID_ARGUMENT",
        "INVALID_ARGUMENT",
    );
    assert_error(
        &http(&base, "POST", "/api/v1/NoSuchMethod", &[], "{}").await,
        404,
        "NOT_FOUND",
        "",
    );
    let huge = format!(r#"{{"gameId": "{}"}}"#, "x".repeat(70_000));
    assert_error(
        &http(&base, "POST", "/api/v1/GetState", &[], &huge).await,
        413,
        "RESOURCE_EXHAUSTED",
        "LIMIT_REACHED",
    );
    // A stale version, then an illegal action, then a good one.
    let stale = format!(
        r#"{{"gameId": "{game}", "legalActionId": 0, "expectedVersion": "5", "idempotencyKey": "a"}}"#
    );
    assert_error(
        &http(&base, "POST", "/api/v1/SubmitAction", &auth, &stale).await,
        409,
        "ABORTED",
        "STALE_VERSION",
    );
    let illegal = format!(
        r#"{{"gameId": "{game}", "action": {{"dolmen": {{"passDolmen": {{}}}}}}, "expectedVersion": "0", "idempotencyKey": "b"}}"#
    );
    assert_error(
        &http(&base, "POST", "/api/v1/SubmitAction", &auth, &illegal).await,
        400,
        "FAILED_PRECONDITION",
        "ILLEGAL_ACTION",
    );
    let good = format!(
        r#"{{"gameId": "{game}", "legalActionId": 0, "expectedVersion": "0", "idempotencyKey": "c"}}"#
    );
    let applied = http(&base, "POST", "/api/v1/SubmitAction", &auth, &good).await;
    assert_eq!(applied.0, 200, "{applied:?}");
    assert_eq!(json(&applied.2)["version"], "1");
    // The same request over gRPC sees the same game.
    let mut client = server.client().await;
    assert_eq!(state(&mut client, &game, None).await.version, 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn per_address_limits_apply_over_http_with_retry_after() {
    let limits = druids_server::Limits {
        max_anonymous_reads_per_second: 2,
        ..Default::default()
    };
    let server = TestServer::with(Arc::new(druids_server::MemoryStore::default()), limits).await;
    let base = http_face(&server).await;
    let created = json(
        &http(
            &base,
            "POST",
            "/api/v1/CreateGame",
            &[],
            r#"{"kind": "GAME_KIND_MEDURIS", "players": 2}"#,
        )
        .await
        .2,
    );
    let body = format!(
        r#"{{"gameId": "{}"}}"#,
        created["gameId"].as_str().expect("id")
    );
    // The peer address reaches the service as over gRPC: this address's
    // spectator budget runs out, and the answer says when to come back.
    let mut answers = Vec::new();
    for _ in 0..4 {
        answers.push(http(&base, "POST", "/api/v1/GetState", &[], &body).await);
    }
    let limited = answers
        .iter()
        .find(|a| a.0 == 429)
        .unwrap_or_else(|| panic!("no 429 among {answers:?}"));
    assert_error(limited, 429, "RESOURCE_EXHAUSTED", "RATE_LIMITED");
    assert!(limited.1.contains("\r\nretry-after: "), "{}", limited.1);
}

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

/// The arena over HTTP (its calls, a bot's and a tournament's event logs as
/// streams), and the viewer's pages: each page path is the viewer's
/// document, an unknown path a 404 page for a browser and a JSON error for
/// anyone else.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_arena_and_the_pages_over_http() {
    // Only the operator names a tournament's entrants (docs/ratings.md).
    let mut limits = Limits::unthrottled();
    limits.arena.operator_key = Some(crate::arena::OPERATOR.into());
    let server = TestServer::with(Arc::new(MemoryStore::default()), limits).await;
    let base = http_face(&server).await;
    for page in [
        "/",
        "/ladder",
        "/ladder/dolmen/2",
        "/bots/00000000000000aa",
        "/tournaments",
        "/tournaments/x",
        "/me",
    ] {
        let (status, head, body) = http(&base, "GET", page, &[], "").await;
        assert_eq!(status, 200, "{page}");
        assert!(head.contains("content-type: text/html"), "{page}: {head}");
        assert!(body.contains("/static/app.js"), "{page}");
    }
    let html = [("accept", "text/html,application/xhtml+xml")];
    let (status, head, body) = http(&base, "GET", "/no/such/page", &html, "").await;
    assert_eq!(status, 404);
    assert!(head.contains("content-type: text/html") && body.contains("/static/app.js"));
    assert_error(
        &http(&base, "GET", "/no/such/page", &[], "").await,
        404,
        "NOT_FOUND",
        "",
    );
    let unknown = http(&base, "POST", "/api/v1/NoSuchMethod", &[], "{}").await;
    assert_eq!(unknown.0, 404);
    assert!(unknown.2.contains("ArenaService"), "{}", unknown.2);

    let register = |name: &str| {
        let body = format!(r#"{{"name": "{name}"}}"#);
        let base = base.clone();
        async move {
            let reply = json(
                &http(&base, "POST", "/api/v1/RegisterBot", &[], &body)
                    .await
                    .2,
            );
            let id = reply["botId"].as_str().expect("id").to_owned();
            let key = reply["apiKey"].as_str().expect("key").to_owned();
            (id, format!("Bearer {key}"))
        }
    };
    let (ada, ada_key) = register("ada").await;
    let (bob, bob_key) = register("bob").await;
    let me = json(
        &http(
            &base,
            "POST",
            "/api/v1/GetBot",
            &[("authorization", &ada_key)],
            "{}",
        )
        .await
        .2,
    );
    assert_eq!(me["bot"]["botId"], ada.as_str());
    assert_eq!(me["lastEventSeq"], "0");
    assert_error(
        &http(&base, "POST", "/api/v1/GetBot", &[], "{}").await,
        401,
        "UNAUTHENTICATED",
        "BOT_KEY_UNKNOWN",
    );
    let challenge = format!(r#"{{"kind": "GAME_KIND_DOLMEN", "opponents": ["{ada}"]}}"#);
    let sent = http(
        &base,
        "POST",
        "/api/v1/Challenge",
        &[("authorization", &bob_key)],
        &challenge,
    )
    .await;
    assert_eq!(sent.0, 200, "{sent:?}");
    let blocks = first_sse_blocks(
        &base,
        "/api/v1/bot/events?from_seq=1",
        &[("authorization", &ada_key)],
        1,
    )
    .await;
    assert!(blocks[0].starts_with("id: 1\ndata: "), "{blocks:?}");
    assert!(
        blocks[0].contains("\"challengeReceived\"") && blocks[0].contains("\"bob\""),
        "{blocks:?}"
    );
    assert_error(
        &http(&base, "GET", "/api/v1/bot/events", &[], "").await,
        401,
        "UNAUTHENTICATED",
        "BOT_KEY_UNKNOWN",
    );
    let tournament = format!(
        r#"{{"name": "cup", "kind": "GAME_KIND_DOLMEN", "players": 2, "entrants": ["{ada}", "{bob}"], "roundRobin": {{}}}}"#
    );
    let created = json(
        &http(
            &base,
            "POST",
            "/api/v1/CreateTournament",
            &[(
                "authorization",
                &format!("Bearer {}", crate::arena::OPERATOR),
            )],
            &tournament,
        )
        .await
        .2,
    );
    let id = created["tournament"]["tournamentId"]
        .as_str()
        .expect("a tournament");
    let blocks = first_sse_blocks(
        &base,
        &format!("/api/v1/tournaments/{id}/events?from_seq=1"),
        &[],
        2,
    )
    .await;
    assert!(
        blocks[0].starts_with("id: 1\ndata: ") && blocks[0].contains("\"started\""),
        "{blocks:?}"
    );
    assert!(blocks[1].contains("\"roundStarted\""), "{blocks:?}");
    let listed = json(
        &http(&base, "POST", "/api/v1/ListTournaments", &[], "{}")
            .await
            .2,
    );
    assert_eq!(listed["tournaments"][0]["tournamentId"], id);
    server.stop().await;
}
