//! `docs/http.md` run as written: its curl walk-through and its faults
//! section, with bash and curl against a real server.

use std::process::Command;
use std::sync::Arc;

use druids_contract::pb;
use druids_server::{Limits, MemoryStore};
use druids_tests::{TestServer, http_face, state};

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
    assert!(stdout.contains("\"resigned\":[1]"), "{stdout}");
    // The game the script played is over, by the rules; the one seat 1
    // resigned is over with seat 1 last (the list is newest first).
    let mut client = server.client().await;
    let games = client
        .list_games(pb::ListGamesRequest::default())
        .await
        .expect("list")
        .into_inner()
        .games;
    assert_eq!(games.len(), 2);
    let st = state(&mut client, &games[1].game_id, None).await;
    assert_eq!(st.status, pb::GameStatus::Finished as i32);
    assert!(!st.outcome.expect("outcome").by_safeguard);
    let resigned = state(&mut client, &games[0].game_id, None).await;
    let outcome = resigned.outcome.expect("outcome");
    assert_eq!((outcome.resigned, outcome.ranking), (vec![1], vec![0, 1]));
}
