//! docs/testing-clients.md's kit snippets run as the docs show them: the
//! Python kit's `start_server` and `create_game_from`, the TypeScript kit's
//! `startServer` and `createGameFrom`. Each program is the doc's blocks as
//! written (sections 1 and 4), joined by a few lines of glue that play the
//! first game to its end and print what the test checks; it runs in a
//! directory where `target/release/druids-server` is this build's server.
//!
//! What is checked, through the contract against the server the kit
//! started: the game made from the replay is the old game after its first
//! 57 actions (the old game's remaining actions, submitted to the new game,
//! are all legal and end it with the old outcome); and once the program
//! leaves, the kit has stopped its server (the port refuses connections).

use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};

use druids_contract::pb;
use druids_contract::pb::druids_service_client::DruidsServiceClient;
use druids_tests::authed;
use serde_json::Value;

use crate::cross_language::{kits_dir, venv_bin};
use crate::typescript::built_kit;

/// The actions the docs' example starts the new game from.
const FROM: usize = 57;

/// The fenced blocks in `lang` of docs/testing-clients.md, in order.
pub(crate) fn doc_blocks(lang: &str) -> Vec<String> {
    druids_tests::docs::page_blocks("docs/testing-clients.md")
        .into_iter()
        .filter(|b| b.lang == lang)
        .map(|b| b.text)
        .collect()
}

/// A directory holding `target/release/druids-server` (this build's
/// server), to run the docs' programs in.
pub(crate) fn workdir(name: &str) -> PathBuf {
    let dir = kits_dir().join(format!("{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let release = dir.join("target/release");
    std::fs::create_dir_all(&release).expect("work dir");
    std::os::unix::fs::symlink(
        druids_tests::process::server_binary(),
        release.join("druids-server"),
    )
    .expect("symlink");
    dir
}

/// Starts the program (stdin and stdout piped) and reads the JSON line it
/// prints first; the program is killed when that line is not JSON.
pub(crate) fn start_printing(mut cmd: Command) -> (Child, Value) {
    let mut child: Child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("the program starts");
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .expect("its line");
    match serde_json::from_str(&line) {
        Ok(v) => (child, v),
        Err(e) => {
            let _ = child.kill();
            let status = child.wait();
            panic!("no JSON line ({e}): {line:?}, {status:?}")
        }
    }
}

/// Runs the program, which prints one JSON line (`grpc`, `old`, `new`,
/// `tokens` by seat) and then waits for a line on stdin before it leaves;
/// checks the new game against the old one meanwhile, and that the server
/// is gone once the program has left.
fn check_program(cmd: Command) {
    let (mut child, printed) = start_printing(cmd);
    let url = format!("http://{}", printed["grpc"].as_str().expect("grpc"));
    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(play_the_rest(&url, &printed));
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"done\n")
        .expect("stdin");
    let status = child.wait().expect("the program ends");
    assert!(status.success(), "{status}");
    let addr = printed["grpc"].as_str().unwrap();
    assert!(
        std::net::TcpStream::connect(addr).is_err(),
        "the kit stopped its server at {addr}"
    );
}

/// Submits the old game's actions after the first [`FROM`] to the new
/// game: each must be accepted, and the new game must end as the old did.
async fn play_the_rest(url: &str, printed: &Value) {
    let mut client = DruidsServiceClient::connect(url.to_owned())
        .await
        .expect("connect");
    let old = client
        .export_replay(pb::ExportReplayRequest {
            game_id: printed["old"].as_str().unwrap().to_owned(),
        })
        .await
        .expect("the old game's replay")
        .into_inner();
    assert!(old.actions.len() > FROM, "{} actions", old.actions.len());
    let new = printed["new"].as_str().unwrap().to_owned();
    let view = druids_tests::state(&mut client, &new, None).await;
    assert_eq!(view.kind, old.kind);
    assert_eq!(view.status, pb::GameStatus::Running as i32);
    for (i, a) in old.actions.iter().enumerate().skip(FROM) {
        let token = printed["tokens"][a.seat.to_string()]
            .as_str()
            .unwrap_or_else(|| panic!("no token for seat {}: {printed}", a.seat));
        let st = druids_tests::state(&mut client, &new, None).await;
        assert_eq!(st.to_act, Some(a.seat), "action {i}");
        client
            .submit_action(authed(
                token,
                pb::SubmitActionRequest {
                    game_id: new.clone(),
                    choice: Some(pb::submit_action_request::Choice::Action(
                        a.action.clone().expect("an action"),
                    )),
                    expected_version: Some(st.version),
                    idempotency_key: format!("replay-{i}"),
                },
            ))
            .await
            .unwrap_or_else(|s| panic!("action {i} of the old game: {s:?}"));
    }
    let end = druids_tests::state(&mut client, &new, None).await;
    assert_eq!(end.status, pb::GameStatus::Finished as i32);
    assert_eq!(end.outcome, old.outcome, "the old game's end");
}

/// Indents every line of `block` by `by` spaces.
pub(crate) fn indent(block: &str, by: usize) -> String {
    block.lines().map(|l| format!("{:by$}{l}\n", "")).collect()
}

#[test]
fn the_python_kits_start_server_and_create_game_from_as_documented() {
    let blocks = doc_blocks("python");
    let start = blocks
        .iter()
        .find(|b| b.contains("start_server("))
        .expect("the start_server example");
    let from = blocks
        .iter()
        .find(|b| b.contains("create_game_from("))
        .expect("the create_game_from example");
    // The docs' first block, then (inside its `with`) the old game played
    // out, the docs' section 4 block, and what the test reads.
    let program = format!(
        "import json, sys, threading\n\
         from druids_bot.strategies import choose_random\n\
         {start}\
         \x20   def play(token):\n\
         \x20       play_seat(client, game_id, token, choose_random)\n\
         \x20   seats = [threading.Thread(target=play, args=(t,)) for t in tokens.values()]\n\
         \x20   for s in seats: s.start()\n\
         \x20   for s in seats: s.join()\n\
         \x20   old_game_id = game_id\n\
         {from}\
         \x20   print(json.dumps({{'grpc': server.grpc, 'old': old_game_id, 'new': game_id,\n\
         \x20       'tokens': {{str(k): v for k, v in tokens.items()}}}}), flush=True)\n\
         \x20   sys.stdin.readline()\n",
        from = indent(from, 4),
    );
    let dir = workdir("doc-python");
    let script = dir.join("docs_example.py");
    std::fs::write(&script, &program).unwrap();
    let bin = venv_bin().unwrap_or_else(|e| panic!("{e}"));
    let mut cmd = Command::new(bin.join("python"));
    cmd.arg(&script)
        .current_dir(&dir)
        .env_remove("DRUIDS_SERVER_BIN");
    check_program(cmd);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_typescript_kits_start_server_and_create_game_from_as_documented() {
    let blocks = doc_blocks("ts");
    let start = blocks
        .iter()
        .find(|b| b.contains("startServer("))
        .expect("the startServer example");
    let from = blocks
        .iter()
        .find(|b| b.contains("createGameFrom("))
        .expect("the createGameFrom example");
    let (head, tail) = start
        .split_once("// ...\n")
        .expect("the example's `// ...` line");
    // The docs' block up to its `// ...`, the old game played out, the
    // docs' section 4 block, what the test reads, then the rest of the
    // docs' block (closing the client, stopping the server).
    let program = format!(
        "import {{ createInterface }} from \"node:readline\";\n\
         import {{ playSeat, chooseFirst }} from \"druids-bot\";\n\
         {head}\
         const old = await client.createGame(\"dolmen\", 2, {{ seed: 4 }});\n\
         await Promise.all([...old.tokens.values()].map((t) => playSeat(client, old.gameId, t, chooseFirst)));\n\
         const oldGameId = old.gameId;\n\
         {from}\
         console.log(JSON.stringify({{ grpc: server.grpc, old: oldGameId, new: gameId,\n\
         \x20 tokens: Object.fromEntries([...tokens].map(([k, v]) => [String(k), v])) }}));\n\
         for await (const _ of createInterface({{ input: process.stdin }})) break;\n\
         {tail}"
    );
    let kit = built_kit().unwrap_or_else(|e| panic!("{e}"));
    // Inside the kit's folder, so that `druids-bot` names the kit itself.
    let script = kit
        .join("dist")
        .join(format!("docs-example-{}.mjs", std::process::id()));
    std::fs::write(&script, &program).unwrap();
    let dir = workdir("doc-typescript");
    let mut cmd = Command::new("node");
    cmd.arg(&script)
        .current_dir(&dir)
        .env_remove("DRUIDS_SERVER_BIN");
    check_program(cmd);
    let _ = std::fs::remove_file(&script);
    let _ = std::fs::remove_dir_all(&dir);
}
