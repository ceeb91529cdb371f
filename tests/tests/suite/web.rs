//! The HTTP/JSON face and the web viewer, end to end: `docs/http.md` run as
//! written with bash and curl, and the viewer in a real browser (Debian's
//! headless Chromium driven by playwright-core, `tests/web/run.mjs`).
//!
//! The browser test installs what it needs (the `chromium` package with
//! apt-get, playwright-core from the npm registry into `target/web-tests/`)
//! and fails, never skips, when it cannot. Every page is visited in one
//! browser launch; screenshots land in `target/screenshots/`.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::time::{Duration, Instant};

use druids_contract::pb;
use druids_tests::{Lcg, TestServer, all_events, create, http_face, play_random, state};

/// The workspace's `target/` directory.
fn target_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../target"))
}

/// The shell blocks of `docs/http.md`, in order, as one script.
fn doc_script() -> String {
    let doc =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/http.md"))
            .expect("docs/http.md");
    let mut script = String::new();
    let mut in_sh = false;
    for line in doc.lines() {
        match (in_sh, line.trim_end()) {
            (false, "```sh") => in_sh = true,
            (true, "```") => in_sh = false,
            (true, l) => {
                script.push_str(l);
                script.push('\n');
            }
            _ => {}
        }
    }
    script
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn curl_walk_through_of_docs_http_md() {
    let server = TestServer::start().await;
    let base = http_face(&server).await;
    let script = doc_script();
    assert!(script.contains("CreateGame"), "no shell blocks found");
    let dir = std::env::temp_dir().join(format!("druids-http-doc-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
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
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "docs/http.md failed: {}\n{stdout}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
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
async fn http(
    base: &str,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> (u16, String, String) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let addr = base.trim_start_matches("http://").to_owned();
    let mut conn = tokio::net::TcpStream::connect(&addr)
        .await
        .expect("connect");
    let mut req = format!(
        "{method} {path} HTTP/1.1\r\nhost: {addr}\r\nconnection: close\r\ncontent-length: {}\r\n",
        body.len()
    );
    for (k, v) in headers {
        req.push_str(&format!("{k}: {v}\r\n"));
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
async fn first_sse_blocks(base: &str, path: &str, n: usize) -> Vec<String> {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let addr = base.trim_start_matches("http://").to_owned();
    let mut conn = tokio::net::TcpStream::connect(&addr)
        .await
        .expect("connect");
    let req = format!("GET {path} HTTP/1.1\r\nhost: {addr}\r\naccept: text/event-stream\r\n\r\n");
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
fn json(body: &str) -> serde_json::Value {
    serde_json::from_str(body).unwrap_or_else(|e| panic!("not JSON ({e}): {body}"))
}

/// Asserts an error answer: HTTP status, gRPC code name and the reason of the
/// status's ErrorInfo (empty: the status has none).
fn assert_error(answer: &(u16, String, String), status: u16, code: &str, reason: &str) {
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
        "UNIMPLEMENTED",
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
    // From 0 on a running game: the snapshot carries the id, the pending
    // DecisionNeeded repeated after it none (a resumption must not go back).
    let (running, running_tokens) = create(&mut client, pb::GameKind::Meduris, 2, 8).await;
    play_random(&mut client, &running, &running_tokens, &mut Lcg(8), 5)
        .await
        .expect("play");
    let snapshot_seq = state(&mut client, &running, None).await.last_seq;
    let blocks = first_sse_blocks(
        &base,
        &format!("/api/v1/games/{running}/events?from_seq=0"),
        2,
    )
    .await;
    assert!(
        blocks[0].starts_with(&format!("id: {snapshot_seq}\ndata: ")),
        "{blocks:?}"
    );
    assert!(blocks[0].contains("\"snapshot\""), "{blocks:?}");
    assert!(
        blocks[1].starts_with("data: ") && blocks[1].contains("\"decisionNeeded\""),
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

/// Makes sure Chromium and playwright-core are there; returns the directory
/// holding `node_modules/playwright-core` and the test script.
fn browser_tools() -> PathBuf {
    let runs = |cmd: &str| {
        Command::new(cmd)
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success())
    };
    // Debian packages, installed as CI does (as root); apt's lists are
    // refreshed only when a first attempt fails.
    let apt = |package: &str| {
        let ok = |args: &[&str]| {
            Command::new("apt-get")
                .args(args)
                .env("DEBIAN_FRONTEND", "noninteractive")
                .status()
                .is_ok_and(|s| s.success())
        };
        ok(&["install", "-y", "-q", package])
            || (ok(&["update", "-q"]) && ok(&["install", "-y", "-q", package]))
    };
    if !Path::new("/usr/bin/chromium").exists() {
        assert!(
            apt("chromium") && Path::new("/usr/bin/chromium").exists(),
            "the browser tests need /usr/bin/chromium: `apt-get install -y chromium` failed \
             (run as root, with Debian's package mirrors reachable)"
        );
    }
    if !runs("node") || !runs("npm") {
        assert!(
            apt("nodejs") && apt("npm") && runs("node") && runs("npm"),
            "the browser tests need Node.js and npm: `apt-get install -y nodejs npm` failed \
             (run as root, with Debian's package mirrors reachable)"
        );
    }
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("web");
    let dir = target_dir().join("web-tests");
    std::fs::create_dir_all(&dir).expect("target/web-tests");
    let lock = std::fs::read(src.join("package-lock.json")).expect("tests/web/package-lock.json");
    let installed_lock = std::fs::read(dir.join("package-lock.json")).ok();
    if installed_lock.as_deref() != Some(&lock[..])
        || !dir.join("node_modules/playwright-core").exists()
    {
        std::fs::copy(src.join("package.json"), dir.join("package.json")).expect("copy");
        std::fs::copy(src.join("package-lock.json"), dir.join("package-lock.json")).expect("copy");
        let status = Command::new("npm")
            .args(["ci", "--ignore-scripts", "--no-audit", "--no-fund"])
            .current_dir(&dir)
            .status();
        assert!(
            status.is_ok_and(|s| s.success()),
            "the browser tests need playwright-core: `npm ci` in {} failed (is npm installed \
             and the npm registry reachable?)",
            dir.display()
        );
    }
    std::fs::copy(src.join("run.mjs"), dir.join("run.mjs")).expect("copy run.mjs");
    dir
}

/// Plays random actions until a seat other than `seat` has a dolmen on the
/// board (its value hidden from `seat`), with the game still running.
async fn until_foreign_dolmen(
    client: &mut druids_contract::pb::druids_service_client::DruidsServiceClient<
        tonic::transport::Channel,
    >,
    game_id: &str,
    tokens: &[String],
    seat: u32,
) {
    let mut rng = Lcg(5);
    for _ in 0..2000 {
        let st = state(client, game_id, None).await;
        let Some(pb::state_view::Game::Dolmen(v)) = &st.game else {
            panic!("not a dolmen game")
        };
        if v.circles
            .iter()
            .any(|c| c.stack.iter().any(|d| d.seat != seat))
        {
            return;
        }
        assert_eq!(
            st.status,
            pb::GameStatus::Running as i32,
            "game over too early"
        );
        play_random(client, game_id, tokens, &mut rng, 1)
            .await
            .expect("play");
    }
    panic!("no dolmen of another seat after 2000 actions");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_viewer_in_a_real_browser() {
    let tools = tokio::task::spawn_blocking(browser_tools)
        .await
        .expect("install task");
    let started = Instant::now();
    let server = TestServer::start().await;
    let base = http_face(&server).await;
    let mut client = server.client().await;

    // A finished game to replay.
    let (replay_id, replay_tokens) = create(&mut client, pb::GameKind::Meduris, 2, 3).await;
    play_random(
        &mut client,
        &replay_id,
        &replay_tokens,
        &mut Lcg(3),
        usize::MAX,
    )
    .await
    .expect("play");
    // Seats with secrets: Meduris goods, dolmens of other seats.
    let (med_id, med_tokens) = create(&mut client, pb::GameKind::Meduris, 3, 5).await;
    play_random(&mut client, &med_id, &med_tokens, &mut Lcg(5), 40)
        .await
        .expect("play");
    let (dol_id, dol_tokens) = create(&mut client, pb::GameKind::Dolmen, 3, 5).await;
    until_foreign_dolmen(&mut client, &dol_id, &dol_tokens, 0).await;
    // A live game, played once the spectator's page follows it.
    let (live_id, live_tokens) = create(&mut client, pb::GameKind::Dolmen, 2, 11).await;
    let player = {
        let service = Arc::clone(&server.service);
        let mut client = server.client().await;
        let (id, tokens) = (live_id.clone(), live_tokens.clone());
        tokio::spawn(async move {
            while service.open_streams() == 0 {
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
            play_random(&mut client, &id, &tokens, &mut Lcg(11), usize::MAX)
                .await
                .expect("play the live game");
        })
    };

    let screenshots = target_dir().join("screenshots");
    let user_data = tempdir("druids-chromium");
    let plan = serde_json::json!({
        "base": base,
        "screenshots": screenshots,
        "userDataDir": user_data,
        "spectate": {"gameId": live_id},
        // The Dolmen game is the live one, over by the time it is replayed.
        "replays": [{"name": "meduris", "gameId": replay_id}, {"name": "dolmen", "gameId": live_id}],
        "human": [{"kind": "meduris", "seed": 7}, {"kind": "dolmen", "seed": 8}],
        "secrets": [
            {"name": "meduris", "gameId": med_id, "token": med_tokens[0], "seat": 0},
            {"name": "dolmen", "gameId": dol_id, "token": dol_tokens[0], "seat": 0},
        ],
    });
    let plan_file = user_data.with_extension("json");
    std::fs::write(&plan_file, plan.to_string()).expect("plan");
    let out = tokio::task::spawn_blocking(move || {
        Command::new("node")
            .arg(tools.join("run.mjs"))
            .arg(&plan_file)
            .current_dir(&tools)
            .output()
            .expect("node runs (is Node.js installed?)")
    })
    .await
    .expect("browser task");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "run.mjs failed: {stderr}\n{stdout}");
    let results: serde_json::Value = serde_json::from_str(stdout.lines().last().unwrap_or(""))
        .unwrap_or_else(|e| panic!("run.mjs printed no results ({e}): {stdout}\n{stderr}"));
    assert!(results["error"].is_null(), "browser: {}", results["error"]);
    assert_eq!(results["problems"], serde_json::json!([]), "page problems");
    // Every page's state, computed from the events, is the server's state.
    let none = serde_json::json!([]);
    assert_eq!(
        results["spectate"]["diffs"], none,
        "spectator page vs GetState"
    );
    for replay in results["replays"].as_array().expect("replays") {
        assert_eq!(replay["diffs"], none, "replay at its end vs GetState");
    }
    for human in results["human"].as_array().expect("human games") {
        assert_eq!(human["diffs"], none, "player's page vs GetState");
    }
    player.await.expect("live game played");

    // The spectator's page ended on the scores of the GameFinished event.
    let events = all_events(&mut client, &live_id, None).await;
    let finished = events
        .iter()
        .find_map(|e| match &e.body {
            Some(pb::game_event::Body::GameFinished(f)) => f.outcome.clone(),
            _ => None,
        })
        .expect("the live game finished");
    assert_eq!(
        results["spectate"]["scores"],
        serde_json::json!(finished.scores),
        "spectator page"
    );
    assert!(
        results["spectate"]["outcome"]
            .as_str()
            .is_some_and(|s| s.starts_with("Game over")),
        "{}",
        results["spectate"]
    );

    // The list showed the games, its status filter worked, and it pages.
    let pages = &results["list"]["pages"];
    assert_eq!(pages[0].as_array().map(Vec::len), Some(2), "{pages}");
    assert_eq!(pages[1].as_array().map(Vec::len), Some(2), "{pages}");
    assert!(
        pages[1]
            .as_array()
            .expect("page")
            .iter()
            .all(|g| !pages[0].as_array().expect("page").contains(g))
    );
    assert!(
        results["list"]["games"].as_u64() >= Some(4),
        "{}",
        results["list"]
    );
    assert!(
        results["list"]["finished"].as_u64() >= Some(2),
        "{}",
        results["list"]
    );

    // Each replay, stepped and played to its end, shows the recorded outcome.
    let replays = results["replays"].as_array().expect("replays");
    assert_eq!(replays.len(), 2);
    for shown in replays {
        let replay = client
            .export_replay(pb::ExportReplayRequest {
                game_id: shown["gameId"].as_str().expect("id").to_owned(),
            })
            .await
            .expect("export")
            .into_inner();
        let recorded = replay.outcome.expect("recorded outcome");
        assert_eq!(shown["afterSteps"], 2);
        assert!(shown["afterScore"].as_u64() > Some(2));
        assert_eq!(
            shown["scores"],
            serde_json::json!(recorded.scores),
            "replay at its end"
        );
        let winners: Vec<String> = recorded
            .winners
            .iter()
            .map(|w| format!("seat {w}"))
            .collect();
        assert!(
            shown["outcome"]
                .as_str()
                .is_some_and(|s| s.contains(&format!("Winner: {}", winners.join(" and ")))),
            "{shown}"
        );
    }

    // A person played a whole game of each kind by clicks, to the real end.
    for human in results["human"].as_array().expect("human games") {
        let id = human["gameId"].as_str().expect("game id");
        let st = state(&mut client, id, None).await;
        assert_eq!(st.status, pb::GameStatus::Finished as i32, "{human}");
        let outcome = st.outcome.expect("outcome");
        assert_eq!(
            human["scores"],
            serde_json::json!(outcome.scores),
            "{human}"
        );
        assert!(human["boardClicks"].as_u64() > Some(0), "{human}");
        let replay = client
            .export_replay(pb::ExportReplayRequest {
                game_id: id.to_owned(),
            })
            .await
            .expect("export")
            .into_inner();
        let mine = replay.actions.iter().filter(|a| a.seat == 0).count() as u64;
        assert_eq!(
            human["clicks"].as_u64(),
            Some(mine),
            "one click per decision: {human}"
        );
    }
    assert_eq!(results["human"].as_array().map(Vec::len), Some(2));

    // A seat's page shows that seat's secrets and no other seat's.
    let secrets = results["secrets"].as_array().expect("secrets");
    assert_eq!(secrets.len(), 2);
    for page in secrets {
        assert_eq!(
            page["secretRows"],
            serde_json::json!([0]),
            "only seat 0's secrets"
        );
        assert!(page["ownSecret"].as_str().is_some_and(|s| !s.is_empty()));
    }
    let med_page = &secrets[0];
    for (seat, token) in med_tokens.iter().enumerate().skip(1) {
        let other = state(&mut client, &med_id, Some(token)).await;
        let Some(pb::state_view::Game::Meduris(v)) = other.game else {
            panic!("meduris")
        };
        let goods = v.seats[seat].goods.expect("own goods");
        let line = format!(
            "goods: wood {}, wool {}, copper {}, stone {}",
            goods.wood, goods.wool, goods.copper, goods.stone
        );
        let own = med_page["ownSecret"].as_str().unwrap_or("");
        if line != own {
            assert!(!med_page["text"].as_str().unwrap_or("").contains(&line));
        }
    }
    let dol_page = &secrets[1];
    let dolmens = dol_page["dolmens"].as_array().expect("dolmens");
    let foreign: Vec<_> = dolmens
        .iter()
        .filter(|d| !d["cls"].as_str().unwrap_or("").contains("seat-0"))
        .collect();
    assert!(
        !foreign.is_empty(),
        "the page shows the other seats' dolmens"
    );
    for d in foreign {
        assert!(d["cls"].as_str().unwrap_or("").contains("back"), "{d}");
        assert!(d["text"].as_str().unwrap_or("").ends_with(":?"), "{d}");
    }
    // The SVG itself carries no value of another seat's dolmen either.
    let dolmen_view = state(&mut client, &dol_id, Some(&dol_tokens[1])).await;
    let Some(pb::state_view::Game::Dolmen(v)) = dolmen_view.game else {
        panic!("dolmen")
    };
    let svg = dol_page["svg"].as_str().unwrap_or("");
    for c in &v.circles {
        for d in c.stack.iter().filter(|d| d.seat == 1) {
            let shown = format!("1:{}", d.value.expect("seat 1 sees its own values"));
            assert!(
                !svg.contains(&format!(">{shown}<")),
                "seat 1's value shown to seat 0"
            );
        }
    }

    eprintln!(
        "browser tests: {:.1} s after the installs",
        started.elapsed().as_secs_f64()
    );
    let _ = std::fs::remove_dir_all(&user_data);
    server.stop().await;
}

/// A fresh directory under the system's temp dir.
fn tempdir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "{name}-{}-{}",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0)
    ));
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}
