//! A kit's bot that keeps missing its turn clock: late submissions are
//! refused and it plays on to the server's outcome.

use std::process::Command;
use std::time::Duration;

use druids_contract::pb;
use druids_tests::TestServer;

use super::{GAME_TIMEOUT, assert_every_seat_decided, kit_bot, kits_dir, result_fields, venv_bin};

/// A bot of each kit plays a game with a 60 ms turn clock and misses it on
/// every third decision (it thinks for 120 ms): the server applies the default
/// action, the late submission is refused, and the kit reads the game again
/// and plays on. Both must still report the server's outcome, and each seat
/// has timed out and decided itself. The strategies also check that the
/// deadline reaches them (`StateView.deadline_unix_ms`).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kit_bots_play_on_through_clock_timeouts() {
    let venv = tokio::task::spawn_blocking(venv_bin);
    let ts = tokio::task::spawn_blocking(crate::typescript::built_kit);
    let bin = venv
        .await
        .expect("setup task")
        .unwrap_or_else(|e| panic!("Python kit: {e}"));
    let ts_kit = ts
        .await
        .expect("setup task")
        .unwrap_or_else(|e| panic!("TypeScript kit: {e}"));
    let scratch = kits_dir().join(format!("clock-{}", std::process::id()));
    std::fs::create_dir_all(&scratch).expect("scratch dir");
    let py_strategy = scratch.join("late_bot.py");
    std::fs::write(
        &py_strategy,
        "import itertools, random, time\n\ncalls = itertools.count(1)\n\n\
         def choose(actions, state):\n    \
             if not state.HasField('deadline_unix_ms'):\n        \
                 raise RuntimeError('no deadline in the state')\n    \
             if next(calls) % 3 == 0:\n        time.sleep(0.12)\n    \
             return random.choice(actions)\n",
    )
    .expect("write late_bot.py");
    let js_strategy = scratch.join("late_bot.js");
    std::fs::write(
        &js_strategy,
        "let calls = 0;\nexports.choose = async (actions, state) => {\n  \
         if (state.deadlineUnixMs === undefined) throw new Error('no deadline in the state');\n  \
         if (++calls % 3 === 0) await new Promise((r) => setTimeout(r, 120));\n  \
         return actions[Math.floor(Math.random() * actions.length)];\n};\n",
    )
    .expect("write late_bot.js");

    let server = TestServer::start().await;
    let mut client = server.client().await;
    let created = client
        .create_game(pb::CreateGameRequest {
            kind: pb::GameKind::Dolmen as i32,
            players: 2,
            seed: Some(13),
            options: Some(pb::GameOptions {
                decision_ms: Some(60),
                ..Default::default()
            }),
            ..Default::default()
        })
        .await
        .expect("create_game")
        .into_inner();
    let game_id = created.game_id;
    let url = server.url();
    let mut python = Command::new(bin.join("druids-bot"));
    python
        .args(["--server", &url, "--game-id", &game_id])
        .args(["--token", &created.seats[0].token])
        .arg("--strategy")
        .arg(&py_strategy);
    let mut node = Command::new("node");
    node.current_dir(&ts_kit)
        .args(["dist/src/cli.js", "--server", &url, "--game-id", &game_id])
        .args(["--token", &created.seats[1].token])
        .arg("--strategy")
        .arg(&js_strategy);
    let id = game_id.clone();
    let py = tokio::task::spawn_blocking(move || kit_bot(python, &id, 0));
    let id = game_id.clone();
    let js = tokio::task::spawn_blocking(move || kit_bot(node, &id, 1));
    let (py, js) = tokio::time::timeout(GAME_TIMEOUT + Duration::from_secs(5), async {
        (py.await.expect("python bot"), js.await.expect("node bot"))
    })
    .await
    .expect("the bots finish");
    let st = druids_tests::state(&mut client, &game_id, None).await;
    assert_eq!(
        st.status,
        pb::GameStatus::Finished as i32,
        "the game is over"
    );
    let outcome = result_fields(st.outcome.expect("outcome"));
    assert_eq!(py.unwrap_or_else(|e| panic!("python bot: {e}")), outcome);
    assert_eq!(js.unwrap_or_else(|e| panic!("node bot: {e}")), outcome);
    let names = [
        "python late_bot (seat 0)".to_owned(),
        "node late_bot (seat 1)".to_owned(),
    ];
    assert_every_seat_decided(&mut client, &game_id, &names).await;
    let replay = client
        .export_replay(pb::ExportReplayRequest {
            game_id: game_id.clone(),
        })
        .await
        .expect("export_replay")
        .into_inner();
    for (seat, name) in names.iter().enumerate() {
        let timeouts = replay
            .actions
            .iter()
            .filter(|a| a.seat == seat as u32 && a.timeout)
            .count();
        assert!(
            timeouts > 0,
            "{name} never missed its clock: the test proves nothing"
        );
    }
    server.stop().await;
    let _ = std::fs::remove_dir_all(&scratch);
}
