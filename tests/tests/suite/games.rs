//! The games a server hosts, as clients learn them: `ListGameTypes` over
//! gRPC, `GET /api/v1/games` over HTTP exactly as `docs/http.md` shows it,
//! each game described from its engine and the one list of strategies.

use std::path::Path;
use std::process::Command;

use druids_contract::pb;
use druids_tests::{TestServer, http_face};

/// The fenced blocks of `docs/http.md` as (language, text), in order.
fn doc_blocks() -> Vec<(String, String)> {
    let doc =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/http.md"))
            .expect("docs/http.md");
    let mut blocks = Vec::new();
    let mut open: Option<(String, String)> = None;
    for line in doc.lines() {
        match (&mut open, line.trim_end()) {
            (None, l) if l.starts_with("```") => open = Some((l[3..].to_owned(), String::new())),
            (Some(_), "```") => blocks.extend(open.take()),
            (Some((_, text)), l) => {
                text.push_str(l);
                text.push('\n');
            }
            _ => {}
        }
    }
    blocks
}

/// Runs `script` in bash with `DRUIDS_HTTP` set to `base`; its stdout.
fn bash(script: &str, base: &str) -> String {
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
    let (got, post) = tokio::task::spawn_blocking(move || {
        let post = "curl -s -f \"$DRUIDS_HTTP/api/v1/ListGameTypes\" -d '{}'";
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
