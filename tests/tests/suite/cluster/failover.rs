//! `druids bot --server a,b` (and the Python kit's `druids-bot --server a,b`):
//! nodes of one cluster behind one flag. The
//! node the bot talks through is SIGKILLed while the bot waits for another
//! seat; the bot goes on through the next node it was given (every node
//! serves every game) and plays its game to the end. With one node only,
//! its calls to the dead node fail and it gives up.

use std::time::Duration;

use crate::arena_kits::{assert_ok, druids, run};

use super::*;

/// Longest a bot may take.
const BOT_TIMEOUT: Duration = Duration::from_secs(240);

/// Which program plays seat 0 through the list of nodes.
#[derive(Clone, Copy)]
enum Listed {
    /// `druids bot`.
    Cli,
    /// The Python kit's `druids-bot`.
    PythonKit,
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bot_given_several_nodes_goes_on_through_another_when_its_node_dies() {
    goes_on_through_another_node("cluster_failover", Listed::Cli).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_python_kit_bot_given_several_nodes_goes_on_through_another() {
    goes_on_through_another_node("cluster_failover_py", Listed::PythonKit).await;
}

async fn goes_on_through_another_node(name: &str, listed_bot: Listed) {
    let python = match listed_bot {
        Listed::PythonKit => Some(
            tokio::task::spawn_blocking(crate::cross_language::venv_bin)
                .await
                .expect("setup task")
                .unwrap_or_else(|e| panic!("cannot install the Python kit: {e}")),
        ),
        Listed::Cli => None,
    };
    let mut nodes = Nodes::start(name, 3);
    // Node 0 owns the game and stays up; the bot talks through node 1 first.
    let game = nodes.create_on(0).await;
    let token = |seat: usize| game.seats[seat].token.clone();
    let urls: Vec<String> = (0..3).map(|i| nodes.node(i).url()).collect();
    let seat_args = |seat: usize| {
        [
            "--game-id".to_string(),
            game.game_id.clone(),
            "--token".to_string(),
            token(seat),
            "--strategy".to_string(),
            "random".to_string(),
        ]
    };
    let bot = |server: &str, seat: usize| {
        let args = seat_args(seat);
        let mut all = vec!["bot"];
        all.extend(args.iter().map(String::as_str));
        druids(server, &all)
    };
    let listed = format!("{},{}", urls[1], urls[2]);
    let first = match &python {
        Some(bin) => {
            let mut kit = std::process::Command::new(bin.join("druids-bot"));
            kit.args(["--server", &listed])
                .args(seat_args(0))
                .env_remove("DRUIDS_SERVER")
                .env_remove("DRUIDS_TOKEN");
            kit
        }
        None => bot(&listed, 0),
    };
    let first = tokio::spawn(run(first, BOT_TIMEOUT));
    let mut events = nodes
        .client(0)
        .stream_events(pb::StreamEventsRequest {
            game_id: game.game_id.clone(),
            from_seq: 0,
        })
        .await
        .expect("the game's events, from its owner")
        .into_inner();
    tokio::time::timeout(HANG, druids_tests::seat_asked(&mut events, 1, 0))
        .await
        .expect("seat 0's bot gets to wait for seat 1");
    drop(events);
    nodes.kill(1);
    // Seat 1's bot plays through node 0; seat 0's, if it gives up, says so
    // at once (seat 1's would wait for it until the clock decides).
    let second = tokio::spawn(run(bot(&urls[0], 1), BOT_TIMEOUT));
    let first = first.await.expect("seat 0's bot");
    assert_ok("seat 0's bot, after its node died", &first);
    let second = second.await.expect("seat 1's bot");
    assert_ok("seat 1's bot", &second);
    for done in [&first, &second] {
        let result: serde_json::Value =
            serde_json::from_str(done.stdout.lines().last().unwrap_or_default())
                .unwrap_or_else(|e| panic!("a result line ({e}): {}", done.stdout));
        assert!(result["outcome"].is_object(), "{result}");
    }
    if python.is_none() {
        assert!(
            first.stderr.contains("stream interrupted"),
            "the bot met its node's death: {}",
            first.stderr
        );
    }
}
