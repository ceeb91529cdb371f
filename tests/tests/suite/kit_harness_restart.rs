//! docs/testing-clients.md's "From the kits' harnesses" blocks run as
//! written: each kit's harness starts a durable `--test-faults` server,
//! makes a game with a fault plan (seat 0's first submit refused), the
//! doc's own assertions read the ledger back, and the harness restarts the
//! server on the same addresses while the kit's bots are mid-game.
//!
//! Between the doc's lines, a few lines of glue play both seats with the
//! kit's `SeatPlayer` and pause them (one of them inside its strategy, its
//! decision read but not yet sent) before the ledger is read; after the
//! restart they go on. What is checked from outside, through the contract:
//! a new server process answered on the same addresses with the game at the
//! version it had before (the store was kept), the paused game ended there
//! with the outcome the bots saw, and once the program leaves the kit has
//! stopped its server and removed its store.

use std::io::Write;
use std::path::Path;
use std::process::Command;

use druids_contract::pb;
use druids_contract::pb::druids_service_client::DruidsServiceClient;

use crate::cross_language::venv_bin;
use crate::kit_harness::{doc_blocks, indent, start_printing, workdir};
use crate::typescript::built_kit;

/// The doc's two placeholder lines, where the glue goes.
const PLAYS: &str = "your client plays";
const PLAYS_ON: &str = "your client reconnects and plays on";

/// The doc block of `lang` that restarts a server, cut after each of its
/// two placeholder lines: (up to the first, up to the second, the rest).
fn restart_block(lang: &str) -> (String, String, String) {
    let block = doc_blocks(lang)
        .into_iter()
        .find(|b| b.contains("restart()"))
        .unwrap_or_else(|| panic!("no {lang} block with restart() in docs/testing-clients.md"));
    let cut = |text: &str, marker: &str| -> (String, String) {
        let at = text
            .find(marker)
            .unwrap_or_else(|| panic!("the {lang} block has no {marker:?} line"));
        let end = at + text[at..].find('\n').map_or(text.len() - at, |n| n + 1);
        (text[..end].to_owned(), text[end..].to_owned())
    };
    let (head, rest) = cut(&block, PLAYS);
    let (middle, tail) = cut(&rest, PLAYS_ON);
    (head, middle, tail)
}

/// Runs the program, which prints one JSON line and then waits for a line
/// on stdin before it leaves; checks the game and the restart meanwhile,
/// and that the server and its store are gone once the program has left.
fn check_program(cmd: Command) {
    let (mut child, printed) = start_printing(cmd);
    let (before, after) = (&printed["before"], &printed["after"]);
    assert_ne!(before["pid"], after["pid"], "a new process: {printed}");
    assert_eq!(before["addresses"], after["addresses"], "{printed}");
    assert_eq!(
        before["version"], after["version"],
        "the restarted server has the game where it was: {printed}"
    );
    let store = before["store"].as_str().expect("the store folder");
    let grpc = after["addresses"]["grpc"]
        .as_str()
        .expect("grpc")
        .to_owned();
    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(async {
        let mut client = DruidsServiceClient::connect(format!("http://{grpc}"))
            .await
            .expect("connect");
        let game = printed["game"].as_str().expect("game");
        let end = druids_tests::state(&mut client, game, None).await;
        assert_eq!(end.status, pb::GameStatus::Finished as i32, "{printed}");
        assert!(
            end.version > before["version"].as_u64().expect("version"),
            "the game went on after the restart: {printed}"
        );
        let scores = end.outcome.expect("an outcome").scores;
        for seen in printed["scores"].as_array().expect("scores") {
            assert_eq!(seen, &serde_json::json!(scores), "{printed}");
        }
    });
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"done\n")
        .expect("stdin");
    let status = child.wait().expect("the program ends");
    assert!(status.success(), "{status}");
    assert!(
        std::net::TcpStream::connect(&grpc).is_err(),
        "the kit stopped its server at {grpc}"
    );
    assert!(
        !Path::new(store).exists(),
        "the kit removed its store {store}"
    );
}

#[test]
fn the_python_kits_harness_takes_a_plan_reads_the_ledger_and_restarts() {
    let (head, middle, tail) = restart_block("python");
    // Both seats played by the kit, paused at the 6th decision (inside the
    // strategy) until the restart is done.
    let plays = "client = Client(server.grpc, retries=12)\n\
        paused, go, lock, chosen = threading.Semaphore(0), threading.Event(), threading.Lock(), [0]\n\
        def choose(actions, state):\n\
        \x20   with lock:\n\
        \x20       chosen[0] += 1\n\
        \x20       pause = chosen[0] == 6\n\
        \x20   if pause:\n\
        \x20       paused.release()\n\
        \x20       go.wait()\n\
        \x20   return choose_random(actions, state)\n\
        outcomes = {}\n\
        def play(seat):\n\
        \x20   player = SeatPlayer(client, game.game_id, game.tokens[seat], choose, max_reconnects=12)\n\
        \x20   outcomes[seat] = player.play()\n\
        seats = [threading.Thread(target=play, args=(s,), daemon=True) for s in game.tokens]\n\
        for s in seats: s.start()\n\
        paused.acquire()\n\
        before = {'pid': server.process.pid, 'addresses': dict(server.addresses),\n\
        \x20   'version': client.state(game.game_id).version, 'store': server.store_dir}\n";
    let plays_on = "after = {'pid': server.process.pid, 'addresses': dict(server.addresses),\n\
        \x20   'version': client.state(game.game_id).version}\n\
        go.set()\n\
        for s in seats: s.join()\n\
        print(json.dumps({'game': game.game_id, 'before': before, 'after': after,\n\
        \x20   'scores': [list(o.scores) for o in outcomes.values()]}), flush=True)\n\
        sys.stdin.readline()\n";
    let program = format!(
        "import json, sys, threading\n\
         from druids_bot import Client, SeatPlayer\n\
         from druids_bot.strategies import choose_random\n\
         {head}{plays}{middle}{plays_on}{tail}",
        plays = indent(plays, 4),
        plays_on = indent(plays_on, 4),
    );
    let dir = workdir("doc-python-restart");
    let script = dir.join("docs_restart.py");
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
fn the_typescript_kits_harness_takes_a_plan_reads_the_ledger_and_restarts() {
    let (head, middle, tail) = restart_block("ts");
    let plays = "const client = new DruidsClient(server.grpc, { retries: 12 });\n\
        let chosen = 0;\n\
        let go, paused;\n\
        const going = new Promise((resolve) => (go = resolve));\n\
        const pausing = new Promise((resolve) => (paused = resolve));\n\
        const choose = async (actions, state) => {\n\
        \x20 if (++chosen === 6) {\n\
        \x20   paused();\n\
        \x20   await going;\n\
        \x20 }\n\
        \x20 return chooseRandom(actions, state);\n\
        };\n\
        const plays = [...game.tokens.values()].map((t) =>\n\
        \x20 new SeatPlayer(client, game.gameId, t, choose, { maxReconnects: 12 }).play());\n\
        await pausing;\n\
        const before = { pid: server.process.pid, addresses: { ...server.addresses },\n\
        \x20 version: Number((await client.state(game.gameId)).version), store: server.storeDir };\n";
    let plays_on = "const after = { pid: server.process.pid, addresses: { ...server.addresses },\n\
        \x20 version: Number((await client.state(game.gameId)).version) };\n\
        go();\n\
        const outcomes = await Promise.all(plays);\n\
        console.log(JSON.stringify({ game: game.gameId, before, after,\n\
        \x20 scores: outcomes.map((o) => o.scores) }));\n\
        for await (const _ of createInterface({ input: process.stdin })) break;\n\
        client.close();\n";
    let program = format!(
        "import {{ createInterface }} from \"node:readline\";\n\
         import {{ DruidsClient, SeatPlayer, chooseRandom }} from \"druids-bot\";\n\
         {head}{plays}{middle}{plays_on}{tail}"
    );
    let kit = built_kit().unwrap_or_else(|e| panic!("{e}"));
    // Inside the kit's folder, so that `druids-bot` names the kit itself.
    let script = kit
        .join("dist")
        .join(format!("docs-restart-{}.mjs", std::process::id()));
    std::fs::write(&script, &program).unwrap();
    let dir = workdir("doc-typescript-restart");
    let mut cmd = Command::new("node");
    cmd.arg(&script)
        .current_dir(&dir)
        .env_remove("DRUIDS_SERVER_BIN");
    check_program(cmd);
    let _ = std::fs::remove_file(&script);
    let _ = std::fs::remove_dir_all(&dir);
}
