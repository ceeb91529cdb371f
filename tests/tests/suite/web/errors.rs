//! Failures over HTTP: each RPC fails as it does over gRPC (status, code,
//! reason), and per-address limits answer with `Retry-After`.

use std::sync::Arc;

use druids_tests::{TestServer, games_listed, http_face, state};

use super::{assert_error, http, json};

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
    let missing = http(&base, "POST", "/api/v1/GetLegalActions", &[], &body).await;
    assert_error(&missing, 401, "UNAUTHENTICATED", "TOKEN_MISSING");
    assert!(
        missing.1.contains("\r\nwww-authenticate: bearer"),
        "{}",
        missing.1
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

/// A body naming one field twice (the same key twice, or its JSON name and
/// its proto name) is refused: which value was meant cannot be known. So
/// is a query parameter given twice, or one the route does not read.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_field_given_twice_is_refused_and_changes_nothing() {
    let server = TestServer::start().await;
    let base = http_face(&server).await;
    for body in [
        r#"{"kind": "GAME_KIND_DOLMEN", "players": 2, "players": 5}"#,
        r#"{"kind": "GAME_KIND_DOLMEN", "players": 2, "seatNames": ["a", "b"], "seat_names": ["c", "d"]}"#,
        r#"{"kind": "GAME_KIND_DOLMEN", "players": 2, "options": {"maxTurns": 9, "max_turns": 900}}"#,
    ] {
        let refused = http(&base, "POST", "/api/v1/CreateGame", &[], body).await;
        assert_error(&refused, 400, "INVALID_ARGUMENT", "INVALID_ARGUMENT");
        assert!(
            json(&refused.2)["message"]
                .as_str()
                .unwrap()
                .contains("twice"),
            "{refused:?}"
        );
    }
    // A compressed body is refused for what it is, not as "not JSON".
    let gzipped = http(
        &base,
        "POST",
        "/api/v1/CreateGame",
        &[("content-encoding", "gzip")],
        "\u{1f}\u{8b}",
    )
    .await;
    assert_eq!(gzipped.0, 415, "{gzipped:?}");
    assert!(
        gzipped
            .2
            .contains("content-encoding \\\"gzip\\\" is not read"),
        "{gzipped:?}"
    );
    assert_eq!(games_listed(&server).await, 0, "no game was made");

    let created = http(
        &base,
        "POST",
        "/api/v1/CreateGame",
        &[],
        r#"{"kind": "GAME_KIND_DOLMEN", "players": 2}"#,
    )
    .await;
    let created = json(&created.2);
    let game = created["gameId"].as_str().expect("game id").to_owned();
    let bearer = format!("Bearer {}", created["seats"][0]["token"].as_str().unwrap());
    let auth = [("authorization", bearer.as_str())];
    for body in [
        format!(
            r#"{{"gameId": "{game}", "legalActionId": 0, "legalActionId": 1, "expectedVersion": "0", "idempotencyKey": "a"}}"#
        ),
        format!(
            r#"{{"gameId": "{game}", "legalActionId": 0, "legal_action_id": 1, "expectedVersion": "0", "idempotencyKey": "b"}}"#
        ),
    ] {
        let refused = http(&base, "POST", "/api/v1/SubmitAction", &auth, &body).await;
        assert_error(&refused, 400, "INVALID_ARGUMENT", "INVALID_ARGUMENT");
    }
    // So is a query parameter given twice, or one the route does not read
    // (which would otherwise be read as its default).
    for (query, says) in [
        ("from_seq=1&from_seq=5", "from_seq is given more than once"),
        ("from_seq=1&fromSeq=5", "from_seq is given more than once"),
        ("from_sq=5", "unknown query parameter \\\"from_sq\\\""),
    ] {
        let path = format!("/api/v1/games/{game}/events?{query}");
        let refused = http(&base, "GET", &path, &auth, "").await;
        assert_error(&refused, 400, "INVALID_ARGUMENT", "INVALID_ARGUMENT");
        assert!(refused.2.contains(says), "{query}: {refused:?}");
    }
    let refused = http(&base, "GET", "/api/v1/games?x=1", &[], "").await;
    assert_error(&refused, 400, "INVALID_ARGUMENT", "INVALID_ARGUMENT");
    assert!(refused.2.contains("this route reads: none"), "{refused:?}");
    let path = "/api/v1/bots/any/games?max=1&max=100";
    let refused = http(&base, "GET", path, &[], "").await;
    assert_error(&refused, 400, "INVALID_ARGUMENT", "INVALID_ARGUMENT");
    let mut client = server.client().await;
    assert_eq!(
        state(&mut client, &game, None).await.version,
        0,
        "no action was applied"
    );
    server.stop().await;
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
