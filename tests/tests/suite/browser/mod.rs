//! The web viewer in a real browser: Debian's Chromium (found on `PATH`,
//! installed with apt-get when missing) driven by playwright-core
//! (`tests/web/run.mjs`, from the npm registry into `target/web-tests/`). The
//! test fails, never skips, when it cannot run.
//!
//! It sets a server up with games of every kind and size, a ladder played
//! by bots, a tournament and a bot ready to be challenged; the script visits
//! every page once, at 360, 768 and 1280 px, plays two complete games by
//! real clicks, sends a challenge and watches its game, and prints what the
//! pages showed. Everything shown is compared here with the server's own
//! answers (GetState, GetReplayViews, GetLeaderboard, GetRatingHistory, ...),
//! never with the page's own code. Screenshots land in `target/screenshots/`.

mod arena_pages;
mod checks;
mod generic;
mod outages;
mod scene;
mod shown;
mod tools;

use std::sync::Arc;
use std::time::Instant;

use druids_server::MemoryStore;
use druids_tests::TestServer;

use crate::arena::arena;
use crate::web::target_dir;
use druids_tests::http_face;

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_viewer_in_a_real_browser() {
    // Run as a task so that a failure's reason can be said again after its
    // backtrace: CI shows the end of a long output, and this test's reasons
    // (what the page showed when a wait hung) are what a reader needs.
    if let Err(e) = tokio::spawn(in_a_browser()).await {
        let Ok(payload) = e.try_into_panic() else {
            panic!("the browser test was cancelled");
        };
        let reason = payload
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| payload.downcast_ref::<&str>().copied())
            .unwrap_or("(no message)");
        let end = reason.floor_char_boundary(4000);
        eprintln!("\nthe browser test failed: {}", &reason[..end]);
        std::panic::resume_unwind(payload);
    }
}

async fn in_a_browser() {
    let (chromium, dir) = tokio::task::spawn_blocking(tools::install)
        .await
        .expect("install task");
    let started = Instant::now();
    let server = TestServer::with(Arc::new(MemoryStore::default()), crate::arena::limits()).await;
    let base = http_face(&server).await;
    let mut client = server.client().await;
    let mut a = arena(&server).await;
    let mut scene = scene::Scene::set_up(&server, &mut a).await;
    let user_data = tools::tempdir("druids-chromium");
    let plan = scene.plan(
        &base,
        &chromium,
        &target_dir().join("screenshots"),
        &user_data,
    );
    let results = tools::run(dir, &plan, user_data.with_extension("json")).await;
    assert!(results["error"].is_null(), "browser: {}", results["error"]);
    assert_eq!(results["problems"], serde_json::json!([]), "page problems");
    scene.stop_bots().await;
    checks::all(&results, &scene, &mut client, &mut a).await;
    eprintln!(
        "browser tests: {:.1} s after the installs",
        started.elapsed().as_secs_f64()
    );
    let _ = std::fs::remove_dir_all(&user_data);
    server.stop().await;
}
