//! The server process as an operator runs it: SIGINT and SIGTERM stop it
//! gracefully (open streams end, what was acknowledged is stored, the process
//! exits 0), and `--log-format json` writes one JSON object per log line.
#![cfg(unix)]

use std::time::{Duration, Instant};

use druids_contract::pb;
use druids_contract::pb::druids_service_client::DruidsServiceClient;
use druids_tests::process::ServerProcess;
use druids_tests::{Lcg, create, play_random, state};
use tonic::Code;

/// Guards a hang only: every wait below is on a condition.
const HANG: Duration = Duration::from_secs(120);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigint_and_sigterm_stop_the_server_gracefully() {
    let dir = std::env::temp_dir().join(format!("druids-shutdown-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    for signal in ["TERM", "INT"] {
        let db = dir.join(format!("{signal}.db"));
        let log = dir.join(format!("{signal}.log"));
        let db_arg = db.to_str().unwrap();
        let args = [
            "--listen",
            "127.0.0.1:0",
            "--http-listen",
            "off",
            "--db",
            db_arg,
            "--log-format",
            "json",
        ];
        let mut server = ServerProcess::start(&args, &[], &log);
        let mut client = DruidsServiceClient::connect(server.url())
            .await
            .expect("connect");
        let (id, tokens) = create(&mut client, pb::GameKind::Meduris, 2, 7).await;
        play_random(&mut client, &id, &tokens, &mut Lcg(3), 6)
            .await
            .expect("play");
        let before = state(&mut client, &id, None).await;
        let mut stream = client
            .stream_events(pb::StreamEventsRequest {
                game_id: id.clone(),
                from_seq: 1,
            })
            .await
            .expect("stream")
            .into_inner();
        // Every event so far, so that the stream is open and caught up.
        let mut seen = 0;
        while seen < before.last_seq {
            seen = stream
                .message()
                .await
                .expect("event")
                .expect("the stream is open")
                .seq;
        }

        server.signal(signal);
        let end = tokio::time::timeout(HANG, stream.message())
            .await
            .unwrap_or_else(|_| panic!("SIG{signal}: the open stream never ended"));
        match end {
            Ok(None) => {}
            Err(s) => assert_eq!(s.code(), Code::Unavailable, "SIG{signal}: {s:?}"),
            Ok(Some(e)) => panic!("SIG{signal}: an event after the stop: {e:?}"),
        }
        let deadline = Instant::now() + HANG;
        let status = loop {
            if let Some(status) = server.exited() {
                break status;
            }
            assert!(
                Instant::now() < deadline,
                "SIG{signal}: the server never exited"
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        };
        assert!(status.success(), "SIG{signal}: exit status {status}");

        // --log-format json: every line is one JSON object with a level.
        let text = std::fs::read_to_string(&log).expect("the log");
        assert!(
            text.lines().count() >= 1,
            "SIG{signal}: something was logged"
        );
        for line in text.lines() {
            let entry: serde_json::Value = serde_json::from_str(line)
                .unwrap_or_else(|e| panic!("not a JSON line ({e}): {line}"));
            assert!(entry["level"].is_string(), "a level: {line}");
        }

        // What was acknowledged is stored: a new server on the file has it.
        let again = ServerProcess::start(&args, &[], &log);
        let mut client = DruidsServiceClient::connect(again.url())
            .await
            .expect("connect");
        let after = state(&mut client, &id, None).await;
        assert_eq!(after.version, before.version, "SIG{signal}: nothing lost");
        again.kill();
    }
    let _ = std::fs::remove_dir_all(&dir);
}
