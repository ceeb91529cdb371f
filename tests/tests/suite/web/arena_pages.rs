//! The arena's HTTP routes and the pages the server serves.

use std::sync::Arc;

use druids_server::{Limits, MemoryStore};
use druids_tests::{TestServer, http_face};

use super::{assert_error, first_sse_blocks, http, json};

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
        assert!(
            head.contains("x-frame-options: deny") && head.contains("frame-ancestors 'none'"),
            "{page}: no other site may frame it: {head}"
        );
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
