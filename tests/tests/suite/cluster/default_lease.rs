//! A node SIGKILLed under the default lease (10 s): a `druids bot` following
//! one of its games through another node rides out the takeover, since the
//! server answers `UNAVAILABLE` / `GAME_MOVED` with a `RetryInfo` all along
//! (README "Several nodes": retry), and the game is played to its end.

use std::time::Duration;

use crate::arena_kits::{assert_ok, druids, run};

use super::*;

/// Longest a bot may take, takeover included.
const BOT_TIMEOUT: Duration = Duration::from_secs(240);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bot_rides_out_a_takeover_at_the_default_lease() {
    let mut nodes = Nodes::start_leased("cluster_default_lease", 3, &[], None);
    let game = nodes.create_on(0).await;
    let token = |seat: usize| game.seats[seat].token.clone();
    let urls: Vec<String> = (0..3).map(|i| nodes.node(i).url()).collect();
    let bot = |node: usize, seat: usize| {
        druids(
            &urls[node],
            &[
                "bot",
                "--game-id",
                &game.game_id,
                "--token",
                &token(seat),
                "--strategy",
                "random",
            ],
        )
    };
    // Seat 0's bot plays through node 1 until it waits for seat 1, which
    // nobody plays yet.
    let first = tokio::spawn(run(bot(1, 0), BOT_TIMEOUT));
    let mut events = nodes
        .client(1)
        .stream_events(pb::StreamEventsRequest {
            game_id: game.game_id.clone(),
            from_seq: 0,
        })
        .await
        .expect("the game's events, through node 1")
        .into_inner();
    tokio::time::timeout(HANG, druids_tests::seat_asked(&mut events, 1, 0))
        .await
        .expect("seat 0's bot gets to wait for seat 1");
    drop(events);
    // Its owner dies; the bot's stream through node 1 breaks, and node 1
    // answers GAME_MOVED until another node takes the game over, a lease
    // later.
    nodes.kill(0);
    let taken_over = |nodes: &Nodes| {
        nodes.metric(1, "druids_node_takeovers_total")
            + nodes.metric(2, "druids_node_takeovers_total")
    };
    wait_until("node 0's game is taken over", || taken_over(&nodes) >= 1.0).await;
    // A bot that gave up during the takeover has ended already.
    if first.is_finished() {
        let done = first.await.expect("seat 0's bot");
        assert_ok("seat 0's bot, across the takeover", &done);
        panic!("seat 0's bot ended before its game: {}", done.stdout);
    }
    let second = run(bot(2, 1), BOT_TIMEOUT).await;
    assert_ok("seat 1's bot", &second);
    let first = first.await.expect("seat 0's bot");
    assert_ok("seat 0's bot, across the takeover", &first);
    for done in [&first, &second] {
        let result: serde_json::Value =
            serde_json::from_str(done.stdout.lines().last().unwrap_or_default())
                .unwrap_or_else(|e| panic!("a result line ({e}): {}", done.stdout));
        assert!(result["outcome"].is_object(), "{result}");
    }
    assert!(
        first.stderr.contains("stream interrupted"),
        "the bot met the takeover: {}",
        first.stderr
    );
}
