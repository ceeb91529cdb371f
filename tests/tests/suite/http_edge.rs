//! The HTTP face's edge, through real HTTP/1.1: POSTs that a web page of
//! another site could make a visitor's browser send are refused before
//! anything happens (415 without `content-type: application/json`, 403
//! from a foreign `Origin`), and unknown paths and wrong methods answer as
//! `docs/http.md` says (404 `NOT_FOUND`; 405 with `Allow`). Bad input is
//! refused with the JSON error body, quoting at most 64 bytes of it.

use std::sync::Arc;

use druids_server::{Limits, MemoryStore};
use druids_tests::{TestServer, games_listed, http_face};

use crate::games::{bash, doc_blocks};
use crate::web::{assert_error, http, json};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn posts_another_site_could_send_are_refused_and_change_nothing() {
    let limits = Limits {
        http_allowed_origins: vec!["https://play.example".into()],
        practice_games_per_address: 8,
        ..Limits::unthrottled()
    };
    let server = TestServer::with(Arc::new(MemoryStore::default()), limits).await;
    let base = http_face(&server).await;
    let own_origin = base.clone();
    let routes = [
        (
            "/api/v1/CreateGame",
            r#"{"kind": "GAME_KIND_MEDURIS", "players": 2}"#,
        ),
        ("/web/v1/practice", r#"{"kind": "meduris", "players": 2}"#),
    ];
    for (path, body) in routes {
        let before = games_listed(&server).await;
        for content_type in [
            "text/plain",
            "text/plain;charset=UTF-8",
            "application/x-www-form-urlencoded",
            "multipart/form-data; boundary=x",
            "",
        ] {
            let answer = http(&base, "POST", path, &[("content-type", content_type)], body).await;
            assert_error(&answer, 415, "INVALID_ARGUMENT", "INVALID_ARGUMENT");
            assert!(
                answer.1.contains("content-type: application/json"),
                "{answer:?}"
            );
            assert!(answer.2.contains("application/json"), "{answer:?}");
        }
        for origin in [
            "https://evil.example",
            "null",
            "http://play.example",
            "https://play.example.evil.example",
        ] {
            let answer = http(&base, "POST", path, &[("origin", origin)], body).await;
            assert_error(&answer, 403, "PERMISSION_DENIED", "ORIGIN_NOT_ALLOWED");
        }
        assert_eq!(
            games_listed(&server).await,
            before,
            "a refused {path} created a game"
        );
        // No Origin (a program), the server's own origin (the viewer's
        // pages), a listed one; JSON with a charset too.
        for headers in [
            vec![],
            vec![("origin", own_origin.as_str())],
            vec![
                ("origin", "https://play.example"),
                ("content-type", "application/json; charset=utf-8"),
            ],
        ] {
            let answer = http(&base, "POST", path, &headers, body).await;
            assert_eq!(answer.0, 200, "{path} {headers:?}: {answer:?}");
        }
    }
    assert_eq!(games_listed(&server).await, 6);
    // Reads are POSTs too and are held to the same rules.
    let read = http(
        &base,
        "POST",
        "/api/v1/GetState",
        &[("content-type", "text/plain")],
        r#"{"gameId": "x"}"#,
    )
    .await;
    assert_eq!(read.0, 415, "{read:?}");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unknown_paths_are_not_found_and_wrong_methods_405_with_allow() {
    let server = TestServer::start().await;
    let base = http_face(&server).await;
    for (method, path) in [
        ("POST", "/api/v1/NoSuchMethod"),
        // Not a method's path either way, so 404 rather than 405 `Allow: POST`.
        ("GET", "/api/v1/NoSuchMethod"),
        ("GET", "/no/such/page"),
        ("PUT", "/no/such/page"),
    ] {
        let answer = http(&base, method, path, &[], "{}").await;
        assert_error(&answer, 404, "NOT_FOUND", "");
        // No method is allowed on a path that does not exist.
        assert!(
            !answer.1.to_lowercase().contains("allow:"),
            "{method} {path}: {answer:?}"
        );
    }
    for (method, path, allow) in [
        ("GET", "/api/v1/CreateGame", "POST"),
        ("PUT", "/web/v1/practice", "POST"),
        ("BREW", "/api/v1/GetState", "POST"),
        ("DELETE", "/api/v1/games", "GET,HEAD"),
        ("POST", "/api/v1/games", "GET,HEAD"),
        ("GET", "/api/v1/Seek", "POST"),
        ("POST", "/static/app.js", "GET,HEAD"),
    ] {
        let answer = http(&base, method, path, &[], "").await;
        assert_error(&answer, 405, "UNIMPLEMENTED", "");
        assert!(
            answer
                .1
                .contains(&format!("allow: {}", allow.to_lowercase()))
                || answer.1.contains(&format!("allow: {allow}")),
            "{method} {path}: {answer:?}"
        );
    }
    server.stop().await;
}

/// The two refusals `docs/http.md` shows are what the server answers, byte
/// for byte (the status lines without curl's carriage returns).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn docs_http_md_cross_site_examples_answer_as_shown() {
    let server = TestServer::start().await;
    let base = http_face(&server).await;
    let blocks = doc_blocks();
    let at = blocks
        .iter()
        .position(|(lang, text)| lang == "sh" && text.contains("elsewhere.example"))
        .expect("docs/http.md shows a refused cross-site POST");
    let (lang, documented) = blocks[at + 1].clone();
    assert_eq!(lang, "text", "the answer follows the commands");
    let script = blocks[at].1.clone();
    druids_tests::install::command("curl", "curl");
    let got = tokio::task::spawn_blocking(move || bash(&script, &base))
        .await
        .expect("curl");
    assert_eq!(got.replace('\r', ""), documented);
    for line in documented.lines().filter(|l| l.starts_with('{')) {
        assert!(json(line)["reason"].is_string());
    }
    assert_eq!(games_listed(&server).await, 0);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_paths_and_bodies_get_the_json_error_quoting_little_of_them() {
    // Messages up to 1 MiB, so that a body longer than a request head may
    // be can be sent.
    let limits = Limits {
        max_message_bytes: 1 << 20,
        ..Limits::unthrottled()
    };
    let server = TestServer::with(Arc::new(MemoryStore::default()), limits).await;
    let base = http_face(&server).await;
    // A path segment that is not UTF-8 once percent-decoded.
    for (method, path) in [
        ("POST", "/api/v1/%ff"),
        ("GET", "/api/v1/games/%ff/events"),
        ("GET", "/api/v1/bots/%ff/games"),
        ("GET", "/api/v1/tournaments/%ff/events"),
        ("GET", "/static/%ff"),
    ] {
        let headers = [("content-type", "application/json")];
        let answer = http(&base, method, path, &headers, "{}").await;
        assert!(answer.1.contains("application/json"), "{path}: {answer:?}");
        assert_error(&answer, 400, "INVALID_ARGUMENT", "INVALID_ARGUMENT");
    }
    // A 60,000-byte field name or enum value comes back cut to 64 bytes.
    let long = "f".repeat(60_000);
    for (path, body) in [
        ("/api/v1/GetState", format!(r#"{{"{long}": 1}}"#)),
        ("/api/v1/ListGames", format!(r#"{{"status": "{long}"}}"#)),
    ] {
        let headers = [("content-type", "application/json")];
        let answer = http(&base, "POST", path, &headers, &body).await;
        assert_error(&answer, 400, "INVALID_ARGUMENT", "INVALID_ARGUMENT");
        let message = json(&answer.2)["message"].as_str().unwrap_or("").to_owned();
        assert!(message.len() < 300, "{path}: {} bytes", message.len());
        assert!(message.contains("(60000 bytes)"), "{path}: {message}");
    }
    // A bad field deep in a body is named by its path (docs/http.md).
    let headers = [("content-type", "application/json")];
    let body = r#"{"game": {"players": 4294967297}}"#;
    let answer = http(&base, "POST", "/api/v1/CreateTestGame", &headers, body).await;
    assert_error(&answer, 400, "INVALID_ARGUMENT", "INVALID_ARGUMENT");
    let message = json(&answer.2)["message"].as_str().unwrap_or("").to_owned();
    assert!(
        message.ends_with("at `game.players`: out of range integral type conversion attempted"),
        "{message}"
    );
    // Headers are bounded as the gRPC port bounds metadata (16 KiB, names
    // and values summed), refused in the JSON error; a body is not bounded
    // by that, nor by the head's buffer (64 KiB): 200 KB of it is read whole.
    let pad = "p".repeat(20_000);
    let padded = [
        ("content-type", "application/json"),
        ("x-pad", pad.as_str()),
    ];
    for (path, body) in [
        (
            "/api/v1/CreateGame",
            r#"{"kind": "GAME_KIND_MEDURIS", "players": 2}"#,
        ),
        ("/api/v1/ListGameTypes", "{}"),
    ] {
        let answer = http(&base, "POST", path, &padded, body).await;
        assert_error(&answer, 431, "RESOURCE_EXHAUSTED", "LIMIT_REACHED");
        assert!(answer.2.contains("more than the 16384"), "{answer:?}");
    }
    let body = format!("{}{{}}", " ".repeat(200_000));
    let answer = http(&base, "POST", "/api/v1/ListGameTypes", &headers, &body).await;
    assert_eq!(answer.0, 200, "{answer:?}");
    assert_eq!(games_listed(&server).await, 0);
    server.stop().await;
}
