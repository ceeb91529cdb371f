//! Faults on cue and chance on cue (docs/testing-clients.md): a server
//! without `--test-faults` refuses every TestingService call and changes
//! nothing; with it, a test game's plan fires at the calls and seqs it names
//! (and nowhere else: other games on the server are untouched), its ledger
//! says what fired and what the client did next; and a game's draws can be
//! scripted (`GameOptions.chance_script`, [`chance`]).

use std::sync::Arc;
use std::time::Duration;

use druids_contract::pb;
use druids_contract::pb::druids_service_client::DruidsServiceClient;
use druids_contract::pb::testing_service_client::TestingServiceClient;
use druids_server::{Limits, MemoryStore};
use druids_tests::process::ServerProcess;
use druids_tests::{TestServer, authed, create, legal, state};
use tokio_stream::StreamExt;
use tonic::Code;
use tonic::transport::Channel;
use tonic_types::StatusExt;

mod chance;

pub(crate) fn reason(status: &tonic::Status) -> String {
    status
        .get_details_error_info()
        .map(|i| i.reason)
        .unwrap_or_default()
}

pub(crate) async fn testing_server() -> TestServer {
    let limits = Limits {
        test_faults: true,
        ..Limits::unthrottled()
    };
    TestServer::with(Arc::new(MemoryStore::default()), limits).await
}

/// A two-seat Meduris game made by CreateTestGame with `faults`: its id, seat
/// tokens and test key.
pub(crate) async fn test_game(
    testing: &mut TestingServiceClient<Channel>,
    faults: Vec<pb::Fault>,
) -> (String, Vec<String>, String) {
    let made = testing
        .create_test_game(pb::CreateTestGameRequest {
            game: Some(pb::CreateGameRequest {
                kind: pb::GameKind::Meduris as i32,
                players: 2,
                seed: Some(5),
                ..Default::default()
            }),
            plan: Some(pb::FaultPlan { faults }),
        })
        .await
        .expect("CreateTestGame")
        .into_inner();
    let game = made.game.expect("the game");
    let tokens = game.seats.into_iter().map(|s| s.token).collect();
    (game.game_id, tokens, made.test_key)
}

pub(crate) async fn ledger(
    testing: &mut TestingServiceClient<Channel>,
    id: &str,
    key: &str,
) -> Vec<pb::LedgerEntry> {
    let msg = pb::GetLedgerRequest {
        game_id: id.to_owned(),
        ..Default::default()
    };
    testing
        .get_ledger(authed(key, msg))
        .await
        .expect("GetLedger")
        .into_inner()
        .entries
}

pub(crate) fn calls(entries: &[pb::LedgerEntry], method: &str) -> Vec<pb::LedgerCall> {
    entries
        .iter()
        .filter_map(|e| match &e.entry {
            Some(pb::ledger_entry::Entry::Call(c)) if c.method == method => Some(c.clone()),
            _ => None,
        })
        .collect()
}

/// A stream of `token`'s seat in game `id` from `from_seq`.
pub(crate) async fn open_stream(
    client: &mut DruidsServiceClient<Channel>,
    id: &str,
    token: &str,
    from_seq: u64,
) -> tonic::Streaming<pb::GameEvent> {
    let msg = pb::StreamEventsRequest {
        game_id: id.to_owned(),
        from_seq,
    };
    client
        .stream_events(authed(token, msg))
        .await
        .expect("StreamEvents")
        .into_inner()
}

pub(crate) fn fired(entries: &[pb::LedgerEntry]) -> Vec<u32> {
    entries
        .iter()
        .filter_map(|e| match &e.entry {
            Some(pb::ledger_entry::Entry::Fault(f)) => Some(f.fault),
            _ => None,
        })
        .collect()
}

/// The descriptions of the faults that fired, in the ledger's order.
pub(crate) fn fault_words(entries: &[pb::LedgerEntry]) -> Vec<String> {
    entries
        .iter()
        .filter_map(|e| match &e.entry {
            Some(pb::ledger_entry::Entry::Fault(f)) => Some(f.description.clone()),
            _ => None,
        })
        .collect()
}

/// Legal action 0 at version `version`.
pub(crate) fn submit(
    id: &str,
    token: &str,
    key: &str,
    version: u64,
) -> tonic::Request<pb::SubmitActionRequest> {
    authed(
        token,
        pb::SubmitActionRequest {
            game_id: id.to_owned(),
            choice: Some(pb::submit_action_request::Choice::LegalActionId(0)),
            expected_version: Some(version),
            idempotency_key: key.to_owned(),
        },
    )
}

/// The seat to act.
async fn to_act(client: &mut DruidsServiceClient<Channel>, id: &str) -> usize {
    state(client, id, None).await.to_act.expect("a seat acts") as usize
}

#[tokio::test]
async fn a_server_without_test_faults_refuses_every_testing_call() {
    let server = TestServer::start().await;
    let mut testing = TestingServiceClient::connect(server.url()).await.unwrap();
    let create = testing
        .create_test_game(pb::CreateTestGameRequest {
            game: Some(pb::CreateGameRequest {
                kind: pb::GameKind::Meduris as i32,
                players: 2,
                ..Default::default()
            }),
            plan: None,
        })
        .await
        .unwrap_err();
    let attach = testing
        .attach_fault_plan(authed(
            "key",
            pb::AttachFaultPlanRequest {
                game_id: "g".into(),
                plan: None,
            },
        ))
        .await
        .unwrap_err();
    let read = testing
        .get_ledger(authed(
            "key",
            pb::GetLedgerRequest {
                game_id: "g".into(),
                ..Default::default()
            },
        ))
        .await
        .unwrap_err();
    let advance = testing
        .advance_clock(authed(
            "key",
            pb::AdvanceClockRequest {
                game_id: "g".into(),
                by_ms: 1000,
            },
        ))
        .await
        .unwrap_err();
    for status in [create, attach, read, advance] {
        assert_eq!(status.code(), Code::FailedPrecondition, "{status:?}");
        assert_eq!(reason(&status), "TEST_FAULTS_OFF");
        assert!(status.message().contains("--test-faults"), "{status:?}");
    }
    // Nothing was created.
    let listed = server
        .client()
        .await
        .list_games(pb::ListGamesRequest::default())
        .await
        .unwrap()
        .into_inner();
    assert!(listed.games.is_empty(), "{listed:?}");
}

#[tokio::test]
async fn the_flag_and_its_variable_turn_the_mode_on_and_metrics_say_so() {
    let dir = std::env::temp_dir().join(format!("druids-faults-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let base = [
        "--listen",
        "127.0.0.1:0",
        "--metrics-listen",
        "127.0.0.1:0",
        "--http-listen",
        "off",
        "--in-memory",
    ];
    let with_flag = [&base[..], &["--test-faults"]].concat();
    for (args, envs, on) in [
        (&with_flag[..], &[][..], true),
        (&base[..], &[("DRUIDS_TEST_FAULTS", "true")][..], true),
        (&base[..], &[("DRUIDS_TEST_FAULTS", "1")][..], true),
        (&base[..], &[("DRUIDS_TEST_FAULTS", "0")][..], false),
        (&base[..], &[][..], false),
    ] {
        let server = ServerProcess::start(args, envs, &dir.join("server.log"));
        let metrics = reqwest_metrics(server.metrics.as_deref().unwrap()).await;
        let want = if on {
            "druids_test_faults 1"
        } else {
            "druids_test_faults 0"
        };
        assert!(metrics.contains(want), "{args:?} {envs:?}: {metrics}");
        let mut testing = TestingServiceClient::connect(server.url()).await.unwrap();
        let made = testing
            .create_test_game(pb::CreateTestGameRequest {
                game: Some(pb::CreateGameRequest {
                    kind: pb::GameKind::Meduris as i32,
                    players: 2,
                    ..Default::default()
                }),
                plan: None,
            })
            .await;
        assert_eq!(made.is_ok(), on, "{args:?} {envs:?}: {made:?}");
        server.kill();
    }
    let log = std::fs::read_to_string(dir.join("server.log")).unwrap();
    assert_eq!(log.matches("test-faults mode").count(), 3, "{log}");
    // Metrics are off with `off`, as the HTTP face is.
    let server = ServerProcess::start(
        &[
            "--listen",
            "127.0.0.1:0",
            "--metrics-listen",
            "off",
            "--http-listen",
            "off",
            "--in-memory",
        ],
        &[],
        &dir.join("server.log"),
    );
    assert_eq!(server.metrics, None);
    server.kill();
    let _ = std::fs::remove_dir_all(&dir);
}

/// A value the server refuses names the variable it came from, which the
/// operator set, not only the flag clap knows it by; a typed flag is not
/// blamed on a variable.
#[test]
fn a_refused_variable_is_named() {
    let run = |args: &[&str], envs: &[(&str, &str)]| {
        let out = std::process::Command::new(druids_tests::process::server_binary())
            .args([
                "--listen",
                "127.0.0.1:0",
                "--http-listen",
                "off",
                "--in-memory",
            ])
            .args(args)
            .envs(envs.iter().copied())
            .output()
            .unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let (code, err) = run(&[], &[("DRUIDS_TEST_FAULTS", "bogus")]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("'bogus' for '--test-faults'"), "{err}");
    assert!(
        err.contains("environment variable DRUIDS_TEST_FAULTS"),
        "{err}"
    );
    let (code, err) = run(&[], &[("DRUIDS_MAX_GAMES", "lots")]);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("environment variable DRUIDS_MAX_GAMES"),
        "{err}"
    );
    // Typed on the command line (the variable set too): the flag is to blame.
    let (code, err) = run(&["--max-games=lots"], &[("DRUIDS_MAX_GAMES", "5")]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("'lots' for '--max-games"), "{err}");
    assert!(!err.contains("environment variable"), "{err}");
}

/// `GET /metrics` at `addr` over plain HTTP/1.1.
async fn reqwest_metrics(addr: &str) -> String {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut tcp = tokio::net::TcpStream::connect(addr).await.unwrap();
    tcp.write_all(b"GET /metrics HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n")
        .await
        .unwrap();
    let mut response = String::new();
    tcp.read_to_string(&mut response).await.unwrap();
    response
}

#[tokio::test]
async fn a_refused_submit_applies_nothing_and_only_its_game_sees_the_fault() {
    let server = testing_server().await;
    let mut client = server.client().await;
    let mut testing = TestingServiceClient::connect(server.url()).await.unwrap();
    let refuse = |seat| pb::Fault {
        seat,
        kind: Some(pb::fault::Kind::RefuseSubmit(pb::RefuseSubmitFault {
            nth: 1,
            retry_after_ms: 300,
        })),
    };
    let (id, tokens, key) = test_game(&mut testing, vec![refuse(0), refuse(1)]).await;
    // Another game on the server: same seed, no plan; a test game without faults.
    let (other, other_tokens) = create(&mut client, pb::GameKind::Meduris, 2, 5).await;
    let (quiet, quiet_tokens, quiet_key) = test_game(&mut testing, Vec::new()).await;
    for (g, t) in [(&other, &other_tokens), (&quiet, &quiet_tokens)] {
        let seat = to_act(&mut client, g).await;
        let ok = client
            .submit_action(submit(g, &t[seat], "a", 0))
            .await
            .unwrap();
        assert_eq!(ok.into_inner().version, 1);
    }
    assert!(fired(&ledger(&mut testing, &quiet, &quiet_key).await).is_empty());

    let seat = to_act(&mut client, &id).await;
    let refused = client
        .submit_action(submit(&id, &tokens[seat], "a", 0))
        .await
        .unwrap_err();
    assert_eq!(refused.code(), Code::Unavailable, "{refused:?}");
    let retry = refused
        .get_details_retry_info()
        .unwrap()
        .retry_delay
        .unwrap();
    // The plan's delay, as the plan says it (testing.proto).
    assert_eq!(retry, Duration::from_millis(300), "{retry:?}");
    assert_eq!(
        state(&mut client, &id, None).await.version,
        0,
        "nothing applied"
    );
    // Too soon: the same answer, with what is left of the delay.
    let again = client
        .submit_action(submit(&id, &tokens[seat], "a", 0))
        .await
        .unwrap_err();
    assert_eq!(again.code(), Code::Unavailable);
    assert!(again.get_details_retry_info().unwrap().retry_delay.unwrap() <= retry);
    // Waiting what RetryInfo said is what the client is told to do.
    tokio::time::sleep(retry).await;
    let applied = client
        .submit_action(submit(&id, &tokens[seat], "a", 0))
        .await
        .unwrap();
    assert_eq!(applied.into_inner().version, 1);

    let entries = ledger(&mut testing, &id, &key).await;
    assert_eq!(fired(&entries), vec![seat as u32], "{entries:#?}");
    // A page from the end is empty and says where to resume; one from past
    // the end is refused (its next page would skip what comes between).
    let page = |from_index| {
        authed(
            &key,
            pb::GetLedgerRequest {
                game_id: id.clone(),
                from_index,
                page_size: 0,
            },
        )
    };
    let held = entries.len() as u64;
    let end = testing.get_ledger(page(held)).await.unwrap().into_inner();
    assert!(end.entries.is_empty(), "{end:?}");
    assert_eq!(end.next_index, held);
    for past in [held + 1, u64::MAX] {
        let refused = testing.get_ledger(page(past)).await.unwrap_err();
        assert_eq!(refused.code(), Code::InvalidArgument, "{refused:?}");
        assert!(refused.message().contains("from_index"), "{refused:?}");
    }
    // No game, or a game without a plan: one answer, so a token learns
    // nothing of which games are test games.
    for (game, token) in [
        ("nope", key.as_str()),
        (other.as_str(), other_tokens[0].as_str()),
    ] {
        let msg = pb::GetLedgerRequest {
            game_id: game.to_owned(),
            ..Default::default()
        };
        let refused = testing.get_ledger(authed(token, msg)).await.unwrap_err();
        assert_eq!(refused.code(), Code::Unauthenticated, "{refused:?}");
        assert_eq!(reason(&refused), "TOKEN_UNKNOWN", "{refused:?}");
    }
    let submits = calls(&entries, "SubmitAction");
    let codes: Vec<_> = submits.iter().map(|c| c.code.as_str()).collect();
    assert_eq!(codes, ["UNAVAILABLE", "UNAVAILABLE", "OK"], "{submits:#?}");
    assert_eq!(submits[0].fault, Some(seat as u32));
    assert_eq!(submits[0].retry_after_ms, Some(300));
    assert_eq!(submits[2].answered_version, Some(1));
    assert!(
        submits
            .iter()
            .all(|c| c.key_digest == submits[0].key_digest && !c.key_digest.is_empty())
    );
    // The other test game's ledger holds its own call only.
    let quiet_submits = calls(
        &ledger(&mut testing, &quiet, &quiet_key).await,
        "SubmitAction",
    );
    assert_eq!(quiet_submits.len(), 1);
    // A test key opens its own game's ledger only.
    let foreign = testing
        .get_ledger(authed(
            &quiet_key,
            pb::GetLedgerRequest {
                game_id: id.clone(),
                ..Default::default()
            },
        ))
        .await
        .unwrap_err();
    assert_eq!(foreign.code(), Code::Unauthenticated);
}

#[tokio::test]
async fn a_lost_answer_was_applied_once_and_its_retry_gets_the_original() {
    let server = testing_server().await;
    let mut client = server.client().await;
    let mut testing = TestingServiceClient::connect(server.url()).await.unwrap();
    let (probe, _, _) = test_game(&mut testing, Vec::new()).await;
    let seat = to_act(&mut client, &probe).await as u32;
    let faults = vec![
        pb::Fault {
            seat,
            kind: Some(pb::fault::Kind::LoseAnswer(pb::LoseAnswerFault { nth: 1 })),
        },
        pb::Fault {
            seat,
            kind: Some(pb::fault::Kind::Exhaust(pb::ExhaustFault {
                method: pb::FaultMethod::GetLegalActions as i32,
                nth: 1,
                retry_after_ms: 1,
            })),
        },
        pb::Fault {
            seat,
            kind: Some(pb::fault::Kind::HoldAnswer(pb::HoldAnswerFault {
                nth: 2,
                hold_ms: 50,
            })),
        },
    ];
    let (id, tokens, key) = test_game(&mut testing, faults).await;
    let token = &tokens[seat as usize];
    let exhausted = legal(&mut client, &id, token, false).await.unwrap_err();
    assert_eq!(exhausted.code(), Code::ResourceExhausted);
    assert_eq!(reason(&exhausted), "RATE_LIMITED");
    assert!(exhausted.get_details_retry_info().is_some());

    let lost = client
        .submit_action(submit(&id, token, "k1", 0))
        .await
        .unwrap_err();
    assert_eq!(lost.code(), Code::Unavailable);
    assert_eq!(reason(&lost), "", "a lost answer carries no ErrorInfo");
    assert_eq!(state(&mut client, &id, None).await.version, 1, "applied");
    let original = client
        .submit_action(submit(&id, token, "k1", 0))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(original.version, 1);
    assert_eq!(state(&mut client, &id, None).await.version, 1, "not twice");

    let entries = ledger(&mut testing, &id, &key).await;
    assert_eq!(fired(&entries), vec![1, 0, 2], "{entries:#?}");
    let submits = calls(&entries, "SubmitAction");
    assert_eq!(submits.len(), 2);
    assert_eq!(
        (submits[0].code.as_str(), submits[0].fault),
        ("UNAVAILABLE", Some(0))
    );
    assert_eq!(
        submits[0].answered_version,
        Some(1),
        "the lost answer's version"
    );
    assert_eq!(submits[1].code, "OK");
    assert_eq!(submits[1].fault, Some(2));
    assert!(submits[1].duration_ms >= 50, "held: {submits:#?}");
    assert_eq!(submits[0].key_digest, submits[1].key_digest);
    let legals = calls(&entries, "GetLegalActions");
    assert_eq!(legals[0].code, "RESOURCE_EXHAUSTED");
}

/// Reads `id`'s stream as `token` from seq 1 until it ends: the seqs seen
/// and how it ended (`None`: cleanly).
pub(crate) async fn read_stream(
    client: &mut DruidsServiceClient<Channel>,
    id: &str,
    token: &str,
) -> (Vec<u64>, Option<tonic::Status>) {
    let msg = pb::StreamEventsRequest {
        game_id: id.to_owned(),
        from_seq: 1,
    };
    let mut stream = client
        .stream_events(authed(token, msg))
        .await
        .unwrap()
        .into_inner();
    let mut seqs = Vec::new();
    while let Some(item) = stream.next().await {
        match item {
            Ok(e) => seqs.push(e.seq),
            Err(status) => return (seqs, Some(status)),
        }
    }
    (seqs, None)
}

#[tokio::test]
async fn a_stream_ends_after_the_seq_its_plan_names() {
    let server = testing_server().await;
    let mut client = server.client().await;
    let mut testing = TestingServiceClient::connect(server.url()).await.unwrap();
    let end = |seat, how: pb::StreamEnd| pb::Fault {
        seat,
        kind: Some(pb::fault::Kind::EndStream(pb::EndStreamFault {
            at: Some(pb::StreamPoint {
                point: Some(pb::stream_point::Point::AfterSeq(3)),
            }),
            how: how as i32,
        })),
    };
    let plan = vec![
        end(0, pb::StreamEnd::Unavailable),
        end(1, pb::StreamEnd::Clean),
    ];
    let (id, tokens, key) = test_game(&mut testing, plan).await;
    let (seqs, ended) = read_stream(&mut client, &id, &tokens[0]).await;
    let (last, before) = seqs.split_last().unwrap();
    assert!(*last >= 3 && before.iter().all(|&s| s < 3), "{seqs:?}");
    let ended = ended.expect("an error end");
    assert_eq!(ended.code(), Code::Unavailable);
    let (clean_seqs, clean) = read_stream(&mut client, &id, &tokens[1]).await;
    assert!(clean.is_none(), "{clean:?}");
    assert!(*clean_seqs.last().unwrap() >= 3);
    // Each fault fires once: the next stream runs on (the game waits, so it
    // is left open; a snapshot shows the events seen before).
    let entries = ledger(&mut testing, &id, &key).await;
    assert_eq!(fired(&entries), vec![0, 1], "{entries:#?}");
    let ends: Vec<_> = entries
        .iter()
        .filter_map(|e| match &e.entry {
            Some(pb::ledger_entry::Entry::StreamEnd(s)) => Some(s.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(ends.len(), 2, "{ends:#?}");
    assert!(ends.iter().all(|s| s.why == "fault" && s.from_seq == 1));
    assert_eq!(ends[0].last_sent_seq, *seqs.last().unwrap());
}

/// Every event of `id` so far, as a spectator sees them.
pub(crate) async fn events_so_far(
    client: &mut DruidsServiceClient<Channel>,
    id: &str,
) -> Vec<pb::GameEvent> {
    let last = state(client, id, None).await.last_seq;
    let msg = pb::StreamEventsRequest {
        game_id: id.to_owned(),
        from_seq: 1,
    };
    let mut stream = client.stream_events(msg).await.unwrap().into_inner();
    let mut out = Vec::new();
    while let Some(e) = stream.next().await {
        let e = e.unwrap();
        let seq = e.seq;
        out.push(e);
        if seq >= last {
            break;
        }
    }
    out
}
