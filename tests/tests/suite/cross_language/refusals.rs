//! A kit's bot whose strategy returns an action the rules refuse ends with a
//! clear error instead of leaving its seat stuck.

use std::process::Command;

use druids_contract::pb;
use druids_tests::TestServer;

use super::{GAME_TIMEOUT, kits_dir, run_with_timeout, rust_bot, venv_bin};

/// A strategy that returns an action the rules refuse (a druid on an occupied
/// site) ends the kit's bot with a clear error (exit code 1) instead of a
/// game stuck on its seat.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kit_bots_report_an_action_the_rules_refuse() {
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
    let scratch = kits_dir().join(format!("illegal-{}", std::process::id()));
    std::fs::create_dir_all(&scratch).expect("scratch dir");
    let py_strategy = scratch.join("illegal_bot.py");
    std::fs::write(
        &py_strategy,
        "from druids_bot import dolmen_pb2, pb\n\nfirst = []\n\n\
         def choose(actions, state):\n    \
             if not first:\n        \
                 first.append(actions[0].action.dolmen.place_druid.site)\n        \
                 return actions[0]\n    \
             d = dolmen_pb2.DolmenAction\n    \
             return pb.Action(dolmen=d(place_druid=d.PlaceDruid(site=first[0])))\n",
    )
    .expect("write illegal_bot.py");
    let js_strategy = scratch.join("illegal_bot.js");
    std::fs::write(
        &js_strategy,
        "let site;\nexports.choose = (actions) => {\n  \
         if (site === undefined) { site = actions[0].action.dolmen.placeDruid.site; return actions[0]; }\n  \
         return { dolmen: { placeDruid: { site } } };\n};\n",
    )
    .expect("write illegal_bot.js");
    let server = TestServer::start().await;
    let mut client = server.client().await;
    let url = server.url();
    let mut runs = Vec::new();
    for kit in ["python", "node"] {
        let (game_id, tokens) = druids_tests::create(&mut client, pb::GameKind::Dolmen, 2, 4).await;
        let rival = tokio::spawn(rust_bot(url.clone(), game_id.clone(), tokens[1].clone(), 1));
        let mut cmd;
        if kit == "python" {
            cmd = Command::new(bin.join("druids-bot"));
            cmd.arg("--strategy").arg(&py_strategy);
        } else {
            cmd = Command::new("node");
            cmd.current_dir(&ts_kit)
                .arg("dist/src/cli.js")
                .arg("--strategy")
                .arg(&js_strategy);
        }
        cmd.args([
            "--server",
            &url,
            "--game-id",
            &game_id,
            "--token",
            &tokens[0],
        ]);
        runs.push((
            kit,
            rival,
            tokio::task::spawn_blocking(move || run_with_timeout(cmd, GAME_TIMEOUT)),
        ));
    }
    for (kit, rival, run) in runs {
        let done = run
            .await
            .expect("bot task")
            .unwrap_or_else(|e| panic!("{kit}: {e}"));
        assert_eq!(
            done.status.code(),
            Some(1),
            "{kit} exits with 1:\n{}",
            done.stderr
        );
        assert!(
            done.stderr.contains("refused the action"),
            "{kit} says the action was refused:\n{}",
            done.stderr
        );
        rival.abort();
    }
    server.stop().await;
    let _ = std::fs::remove_dir_all(&scratch);
}
