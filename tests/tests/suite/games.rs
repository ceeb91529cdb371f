//! The games a server hosts, as clients learn them: `ListGameTypes` over
//! gRPC, `GET /api/v1/games` over HTTP exactly as `docs/http.md` shows it,
//! each game described from its engine and the one list of strategies.

use std::process::Command;

use druids_contract::pb;
use druids_tests::{TestServer, http_face};

/// The fenced blocks of `docs/http.md` as (language, text), in order.
pub(crate) fn doc_blocks() -> Vec<(String, String)> {
    druids_tests::docs::page_blocks("docs/http.md")
        .into_iter()
        .map(|b| (b.lang, b.text))
        .collect()
}

/// Runs `script` in bash with `DRUIDS_HTTP` set to `base`; its stdout.
pub(crate) fn bash(script: &str, base: &str) -> String {
    let out = Command::new("bash")
        .args(["-euo", "pipefail", "-c", script])
        .env("DRUIDS_HTTP", base)
        .output()
        .expect("bash runs");
    assert!(
        out.status.success(),
        "{script} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn list_game_types_describes_every_game_from_its_engine() {
    let server = TestServer::start().await;
    let mut client = server.client().await;
    let types = client
        .list_game_types(pb::ListGameTypesRequest {})
        .await
        .expect("ListGameTypes")
        .into_inner()
        .game_types;
    let facts: Vec<_> = types
        .iter()
        .map(|t| {
            (
                t.kind,
                t.name.as_str(),
                t.display_name.as_str(),
                t.min_players,
                t.max_players,
                t.dice_driven,
            )
        })
        .collect();
    assert_eq!(
        facts,
        [
            (
                pb::GameKind::Meduris as i32,
                "meduris",
                "Meduris",
                2,
                4,
                true
            ),
            (
                pb::GameKind::Dolmen as i32,
                "dolmen",
                "Die Dolmengötter",
                2,
                5,
                false
            ),
        ]
    );
    for t in &types {
        let strategies: Vec<_> = t.strategies.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(strategies, ["random", "greedy", "mcts"], "{}", t.name);
        assert!(t.strategies.iter().all(|s| !s.description.is_empty()));
        assert!(t.summary.len() > 100, "{}: {}", t.name, t.summary);
        assert!(t.rules.starts_with("README.md#"), "{}", t.rules);
    }
    // Each one is the game CreateGame plays: its bounds are the engine's.
    for t in &types {
        for (players, ok) in [
            (t.min_players - 1, false),
            (t.min_players, true),
            (t.max_players, true),
            (t.max_players + 1, false),
        ] {
            let created = client
                .create_game(pb::CreateGameRequest {
                    kind: t.kind,
                    players,
                    ..Default::default()
                })
                .await;
            assert_eq!(created.is_ok(), ok, "{} with {players}", t.name);
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn docs_http_md_shows_what_get_api_v1_games_answers() {
    let server = TestServer::start().await;
    let base = http_face(&server).await;
    let blocks = doc_blocks();
    let at = blocks
        .iter()
        .position(|(lang, text)| lang == "sh" && text.contains("/api/v1/games\""))
        .expect("docs/http.md shows GET /api/v1/games");
    let (lang, documented) = &blocks[at + 1];
    assert_eq!(lang, "json", "the answer follows the command");
    let documented: serde_json::Value = serde_json::from_str(documented).expect("JSON");
    let script = blocks[at].1.clone();
    druids_tests::install::command("curl", "curl");
    let (got, post) = tokio::task::spawn_blocking(move || {
        let post = "curl -s -f \"$DRUIDS_HTTP/api/v1/ListGameTypes\" --json '{}'";
        (bash(&script, &base), bash(post, &base))
    })
    .await
    .expect("curl");
    let got: serde_json::Value = serde_json::from_str(&got).expect("the answer is JSON");
    assert_eq!(got, documented);
    let post: serde_json::Value = serde_json::from_str(&post).expect("JSON");
    assert_eq!(
        post, documented,
        "POST /api/v1/ListGameTypes answers the same"
    );
}

/// Every other JSON example of `docs/http.md` is what the server answers or
/// takes: the error body is the one `GetState` of an unknown game answers,
/// byte for byte; the practice request starts the game it says. A JSON
/// example this test does not know fails it (so a new one gets a check).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn docs_http_md_json_examples_are_what_the_server_says() {
    let server = TestServer::start().await;
    let base = http_face(&server).await;
    let blocks = doc_blocks();
    let mut checked = 0;
    for (i, (lang, text)) in blocks.iter().enumerate() {
        if lang != "json" {
            continue;
        }
        let example: serde_json::Value = serde_json::from_str(text)
            .unwrap_or_else(|e| panic!("docs/http.md: not JSON ({e}):\n{text}"));
        let script = if i > 0 && blocks[i - 1].1.contains("/api/v1/games\"") {
            // docs_http_md_shows_what_get_api_v1_games_answers checks it.
            continue;
        } else if example.get("code").is_some() {
            "curl -s \"$DRUIDS_HTTP/api/v1/GetState\" --json '{\"gameId\": \"nope\"}'".to_owned()
        } else if example.get("strategy").is_some() {
            format!(
                "curl -s -f \"$DRUIDS_HTTP/web/v1/practice\" --json '{}'",
                text.trim()
            )
        } else {
            panic!("docs/http.md: a JSON example no test checks:\n{text}");
        };
        let base = base.clone();
        let got = tokio::task::spawn_blocking(move || bash(&script, &base))
            .await
            .expect("curl");
        let got: serde_json::Value = serde_json::from_str(&got).expect("the answer is JSON");
        if example.get("code").is_some() {
            assert_eq!(got, example, "the error body");
        } else {
            // `{"gameId": "…", "seat": 0, "token": "…"}`, a game of the kind,
            // players and seed asked for.
            let keys: Vec<&str> = got
                .as_object()
                .unwrap()
                .keys()
                .map(|k| k.as_str())
                .collect();
            assert_eq!(keys, ["gameId", "seat", "token"], "{got}");
            assert_eq!(got["seat"], 0);
            let mut client = server.client().await;
            let st = druids_tests::state(&mut client, got["gameId"].as_str().unwrap(), None).await;
            assert_eq!(st.kind, pb::GameKind::Meduris as i32);
            assert_eq!(
                st.seats.len(),
                example["players"].as_u64().unwrap() as usize
            );
        }
        checked += 1;
    }
    assert_eq!(checked, 2, "the error body and the practice request");
}
