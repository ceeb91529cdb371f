//! docs/testing-clients.md's commands for clients in any language, run as
//! written: the server started by its path, plain Python stubs generated with
//! grpcio-tools (and the program showing the seq rules with them), and a
//! restart with a durable store (`--db`) that keeps the games and ends every
//! stream with `UNAVAILABLE`, `SHUTTING_DOWN`.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use druids_contract::pb;
use druids_contract::pb::druids_service_client::DruidsServiceClient;
use druids_tests::{Lcg, TestServer, authed, create, play_random, state};
use tokio_stream::StreamExt;
use tonic::Code;

use crate::cross_language::{kits_dir, repo_root, run_ok};
use crate::faults::reason;
use crate::kit_harness::workdir;

/// Guards a hang only (pip from PyPI on a loaded machine): every wait is on
/// a condition.
const HANG: Duration = Duration::from_secs(600);

/// The fenced `sh` block of the page holding `marker`, its command lines.
fn sh_lines(marker: &str) -> Vec<String> {
    let block = crate::kit_harness::doc_blocks("sh")
        .into_iter()
        .find(|b| b.contains(marker))
        .unwrap_or_else(|| panic!("no sh block with {marker:?} in docs/testing-clients.md"));
    block
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(str::to_owned)
        .collect()
}

/// `line` run by `sh` in `dir`, as a process of its own (`exec`), its
/// stdout piped.
fn spawn_line(dir: &Path, line: &str, env: &[(&str, String)]) -> Child {
    let mut cmd = Command::new("sh");
    cmd.arg("-c")
        .arg(format!("exec {line}"))
        .current_dir(dir)
        .envs(env.iter().map(|(k, v)| (k, v.as_str())))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit());
    cmd.spawn().unwrap_or_else(|e| panic!("{line}: {e}"))
}

/// The `grpc` address of the server's ready line (its first on stdout).
fn ready_address(child: &mut Child) -> String {
    let mut line = String::new();
    BufReader::new(child.stdout.take().expect("stdout"))
        .read_line(&mut line)
        .expect("the ready line");
    let ready: serde_json::Value =
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line:?}"));
    ready["grpc"].as_str().expect("grpc").to_owned()
}

#[test]
fn the_server_starts_by_its_path_as_documented() {
    let lines = sh_lines("cargo build --release -p druids-server");
    let line = lines
        .iter()
        .find(|l| l.starts_with("target/release/druids-server"))
        .expect("the start line");
    let dir = workdir("doc-by-path");
    let mut server = spawn_line(&dir, line, &[]);
    let grpc = ready_address(&mut server);
    assert!(std::net::TcpStream::connect(&grpc).is_ok(), "{grpc}");
    let _ = server.kill();
    let _ = server.wait();
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn plain_python_stubs_from_grpcio_tools_show_the_seq_rules() {
    let dir = kits_dir().join(format!("doc-stubs-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("work dir");
    std::os::unix::fs::symlink(repo_root().join("proto"), dir.join("proto")).expect("symlink");
    druids_tests::install::python_venv();
    let installing = druids_tests::install::lock();
    for line in sh_lines("grpc_tools.protoc") {
        let mut cmd = Command::new("sh");
        cmd.arg("-c")
            .arg(&line)
            .current_dir(&dir)
            .env("PIP_CACHE_DIR", kits_dir().join("pip-cache"))
            .env("PIP_DEFAULT_TIMEOUT", "20")
            .env("PIP_DISABLE_PIP_VERSION_CHECK", "1");
        run_ok(cmd, HANG).unwrap_or_else(|e| panic!("{line}: {e}"));
    }
    drop(installing);
    let program = crate::kit_harness::doc_blocks("python")
        .into_iter()
        .find(|b| b.contains("sys.path.insert(0, \"stubs\")"))
        .expect("the plain-stubs program");
    std::fs::write(dir.join("seqs.py"), program).unwrap();
    let rt = tokio::runtime::Runtime::new().unwrap();
    let server = rt.block_on(TestServer::start());
    let mut run = Command::new(dir.join(".venv/bin/python"));
    run.arg("seqs.py")
        .arg(server.addr.to_string())
        .current_dir(&dir);
    let done = run_ok(run, HANG).unwrap_or_else(|e| panic!("seqs.py: {e}"));
    assert_eq!(done.stdout.trim(), "ok");
    rt.block_on(server.stop());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_restart_commands_keep_the_games_and_end_streams_unavailable() {
    let lines = sh_lines("restart-test.db");
    let [start, stop, again] = &lines[..] else {
        panic!("three commands: {lines:?}")
    };
    let dir = workdir("doc-restart");
    let mut first = spawn_line(&dir, start, &[]);
    let grpc = ready_address(&mut first);
    let port = grpc.rsplit(':').next().expect("a port").to_owned();
    let rt = tokio::runtime::Runtime::new().unwrap();
    let (id, tokens, version, mut stream) = rt.block_on(async {
        let mut client = DruidsServiceClient::connect(format!("http://{grpc}"))
            .await
            .expect("connect");
        let (id, tokens) = create(&mut client, pb::GameKind::Meduris, 2, 4).await;
        play_random(&mut client, &id, &tokens, &mut Lcg(3), 10)
            .await
            .expect("ten actions");
        let version = state(&mut client, &id, None).await.version;
        let mut stream = client
            .stream_events(authed(
                &tokens[0],
                pb::StreamEventsRequest {
                    game_id: id.clone(),
                    from_seq: 0,
                },
            ))
            .await
            .expect("a stream")
            .into_inner();
        let snapshot = stream.next().await.expect("the snapshot").expect("ok");
        assert!(matches!(
            snapshot.body,
            Some(pb::game_event::Body::Snapshot(_))
        ));
        (id, tokens, version, stream)
    });
    let mut kill = Command::new("sh");
    kill.arg("-c")
        .arg(stop)
        .env("SERVER_PID", first.id().to_string());
    run_ok(kill, HANG).unwrap_or_else(|e| panic!("{stop}: {e}"));
    let status = first.wait().expect("the first server exits");
    assert!(status.success(), "SIGTERM: exit {status}");
    rt.block_on(async {
        // Past what was already sent, the stream ends UNAVAILABLE, SHUTTING_DOWN.
        let end = loop {
            match stream.next().await {
                Some(Ok(_)) => continue,
                Some(Err(status)) => break status,
                None => panic!("the stream ended with OK"),
            }
        };
        assert_eq!(end.code(), Code::Unavailable, "{end:?}");
        assert_eq!(reason(&end), "SHUTTING_DOWN", "{end:?}");
    });
    let mut second = spawn_line(&dir, again, &[("PORT", port)]);
    assert_eq!(ready_address(&mut second), grpc, "the same address");
    rt.block_on(async {
        let mut client = DruidsServiceClient::connect(format!("http://{grpc}"))
            .await
            .expect("connect");
        let view = state(&mut client, &id, None).await;
        assert_eq!(view.version, version, "the game where it was");
        play_random(&mut client, &id, &tokens, &mut Lcg(5), 100_000)
            .await
            .expect("the game plays on");
        let end = state(&mut client, &id, None).await;
        assert_eq!(end.status, pb::GameStatus::Finished as i32);
    });
    let _ = Command::new("kill")
        .args(["-TERM", &second.id().to_string()])
        .status();
    let _ = second.wait();
    let _ = std::fs::remove_dir_all(&dir);
}
