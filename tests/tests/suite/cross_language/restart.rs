//! A kit's bot across a server restart: it resumes its event stream and its
//! pending decision on the same port and database (SQLite and PostgreSQL).

use std::net::SocketAddr;
use std::process::Command;
use std::time::{Duration, Instant};

use druids_contract::pb;
use druids_contract::pb::druids_service_client::DruidsServiceClient;
use druids_server::Limits;
use tokio::net::TcpListener;
use tokio::sync::oneshot;

use super::{GAME_TIMEOUT, assert_every_seat_decided, kit_bot, kits_dir, result_fields, venv_bin};
use crate::stores::{Backend, TestDb, on_each_store_threaded};

on_each_store_threaded!(kit_bots_resume_after_a_server_restart);

/// A server on `addr` (port 0: any) keeping its games in `db`; returns
/// where it listens, the sender that stops it and its task.
async fn serve_on(
    addr: SocketAddr,
    db: &TestDb,
) -> (SocketAddr, oneshot::Sender<()>, tokio::task::JoinHandle<()>) {
    // The old server's port may take a moment to be free again (a deadline
    // that only guards a hang).
    let deadline = Instant::now() + Duration::from_secs(60);
    let listener = loop {
        match TcpListener::bind(addr).await {
            Ok(listener) => break listener,
            Err(e) => assert!(Instant::now() < deadline, "cannot bind {addr}: {e}"),
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    let addr = listener.local_addr().expect("addr");
    let (service, _) = druids_server::start(db.open(), Limits::unthrottled()).expect("start");
    let (stop, stopped) = oneshot::channel::<()>();
    let task = tokio::spawn(async move {
        druids_server::serve_service(listener, service, None, async {
            let _ = stopped.await;
        })
        .await
        .expect("serve");
    });
    (addr, stop, task)
}

/// A bot of each kit (Python, TypeScript) plays a game while the server is
/// stopped and started again on the same port and database: each resumes its
/// event stream (and its pending decision) and plays on to the end.
async fn kit_bots_resume_after_a_server_restart(backend: Backend) {
    // Both kits at once (each is installed once per run of the test binary).
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
    let scratch = kits_dir().join(format!("restart-{backend:?}-{}", std::process::id()));
    std::fs::create_dir_all(&scratch).expect("scratch dir");
    let db = TestDb::new(backend, "kits_restart");
    // Strategies slow enough (15 ms a decision) for the restart to fall mid-game.
    let py_strategy = scratch.join("slow_bot.py");
    std::fs::write(
        &py_strategy,
        "import random, time\n\ndef choose(actions, state):\n    time.sleep(0.015)\n    return random.choice(actions)\n",
    )
    .expect("write slow_bot.py");
    let js_strategy = scratch.join("slow_bot.js");
    std::fs::write(
        &js_strategy,
        "exports.choose = async (actions) => {\n  await new Promise((r) => setTimeout(r, 15));\n  \
         return actions[Math.floor(Math.random() * actions.length)];\n};\n",
    )
    .expect("write slow_bot.js");

    let (addr, stop, task) = serve_on("127.0.0.1:0".parse().unwrap(), &db).await;
    let url = format!("http://{addr}");
    let mut client = DruidsServiceClient::connect(url.clone())
        .await
        .expect("connect");
    let (game_id, tokens) = druids_tests::create(&mut client, pb::GameKind::Meduris, 2, 5).await;
    let mut python = Command::new(bin.join("druids-bot"));
    python
        .args([
            "--server",
            &url,
            "--game-id",
            &game_id,
            "--token",
            &tokens[0],
        ])
        .arg("--strategy")
        .arg(&py_strategy);
    let mut node = Command::new("node");
    node.current_dir(&ts_kit)
        .args([
            "dist/src/cli.js",
            "--server",
            &url,
            "--game-id",
            &game_id,
            "--token",
            &tokens[1],
        ])
        .arg("--strategy")
        .arg(&js_strategy);
    let id = game_id.clone();
    let py = tokio::task::spawn_blocking(move || kit_bot(python, &id, 0));
    let id = game_id.clone();
    let js = tokio::task::spawn_blocking(move || kit_bot(node, &id, 1));

    // Let both seats decide a few times, then restart the server.
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let st = druids_tests::state(&mut client, &game_id, None).await;
        assert_eq!(
            st.status,
            pb::GameStatus::Running as i32,
            "the game is still on"
        );
        if st.version >= 6 {
            break;
        }
        assert!(Instant::now() < deadline, "the bots did not start playing");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    drop(client);
    let _ = stop.send(());
    task.await.expect("server task");
    // An outage of its own length (not a wait for anything): the bots find
    // the server gone and must keep trying until it is back.
    tokio::time::sleep(Duration::from_millis(300)).await;
    let (_, stop, task) = serve_on(addr, &db).await;

    let (py, js) = tokio::time::timeout(GAME_TIMEOUT + Duration::from_secs(5), async {
        (py.await.expect("python bot"), js.await.expect("node bot"))
    })
    .await
    .expect("the bots finish");
    let mut client = DruidsServiceClient::connect(url)
        .await
        .expect("connect again");
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
        "python slow_bot (seat 0)".to_owned(),
        "node slow_bot (seat 1)".to_owned(),
    ];
    assert_every_seat_decided(&mut client, &game_id, &names).await;
    let _ = stop.send(());
    task.await.expect("server task");
    let _ = std::fs::remove_dir_all(&scratch);
}
