//! The faults that break more than one call (docs/testing-clients.md): a
//! restart of the game's server at a seat's event (every stream of the game
//! ends with UNAVAILABLE, every call is refused with RetryInfo until it is
//! back (a resignation and the replays too), then the game goes on where it was, nothing lost), and a connection
//! reset under a seat's stream (no gRPC status at all; a new connection
//! resumes).

use std::time::Duration;

use druids_contract::pb;
use druids_contract::pb::testing_service_client::TestingServiceClient;
use druids_tests::{authed, state};
use tokio_stream::StreamExt;
use tonic::Code;
use tonic::transport::Channel;
use tonic_types::StatusExt;

use crate::faults::{fired, ledger, open_stream, read_stream, reason, test_game, testing_server};

/// How long the restart keeps the game "down": long enough that the calls
/// right after the restart (on a loaded machine) still find it down.
const DOWN_MS: u32 = 15_000;
/// A deadlock guard for one read of a stream, not a budget.
const GUARD: Duration = Duration::from_secs(90);

async fn next_item(
    stream: &mut tonic::Streaming<pb::GameEvent>,
) -> Option<Result<pb::GameEvent, tonic::Status>> {
    tokio::time::timeout(GUARD, stream.next())
        .await
        .expect("the stream moved (deadlock guard)")
}

fn after_seq(seq: u64) -> Option<pb::StreamPoint> {
    Some(pb::StreamPoint {
        point: Some(pb::stream_point::Point::AfterSeq(seq)),
    })
}

/// A stream of `token`'s seat from `from_seq`.
async fn open(
    channel: Channel,
    id: &str,
    token: &str,
    from_seq: u64,
) -> tonic::Streaming<pb::GameEvent> {
    let mut client = pb::druids_service_client::DruidsServiceClient::new(channel);
    open_stream(&mut client, id, token, from_seq).await
}

#[tokio::test]
async fn a_restart_ends_every_stream_refuses_calls_until_back_and_loses_nothing() {
    let server = testing_server().await;
    let mut client = server.client().await;
    let chan = Channel::from_shared(server.url())
        .unwrap()
        .connect()
        .await
        .unwrap();
    let mut testing = TestingServiceClient::new(chan.clone());
    let restart = pb::Fault {
        seat: 0,
        kind: Some(pb::fault::Kind::Restart(pb::RestartFault {
            at: after_seq(3),
            down_ms: DOWN_MS,
        })),
    };
    let (id, tokens, key) = test_game(&mut testing, vec![restart]).await;
    let before = state(&mut client, &id, None).await;
    // Seat 1's stream is open and has read the log when seat 0's reaches seq 3.
    let mut other = open(chan.clone(), &id, &tokens[1], 1).await;
    let mut other_seen = 0;
    while other_seen < before.last_seq {
        other_seen = next_item(&mut other)
            .await
            .expect("an event")
            .expect("ok")
            .seq;
    }
    let (seqs, ended) = read_stream(&mut client, &id, &tokens[0]).await;
    let last_seen = *seqs.last().expect("events before the restart");
    assert!(last_seen >= 3, "{seqs:?}");
    let ended = ended.expect("the restarted stream ends with an error");
    assert_eq!(ended.code(), Code::Unavailable, "{ended:?}");
    assert_eq!(reason(&ended), "SHUTTING_DOWN");
    let other_end = next_item(&mut other)
        .await
        .expect("an end")
        .expect_err("an error");
    assert_eq!(other_end.code(), Code::Unavailable, "seat 1's stream too");

    // Down: every call of the game is refused, with how long to wait.
    let mut state_req = pb::GetStateRequest {
        game_id: id.clone(),
    };
    let down = client
        .get_state(authed(&tokens[1], state_req.clone()))
        .await
        .expect_err("refused while down");
    assert_eq!(down.code(), Code::Unavailable);
    assert_eq!(reason(&down), "SHUTTING_DOWN");
    let wait = down
        .get_details_retry_info()
        .and_then(|r| r.retry_delay)
        .expect("RetryInfo");
    assert!(wait <= Duration::from_millis(DOWN_MS.into()) + Duration::from_millis(2));
    let submit = pb::SubmitActionRequest {
        game_id: id.clone(),
        choice: Some(pb::submit_action_request::Choice::LegalActionId(0)),
        expected_version: Some(before.version),
        idempotency_key: "k1".into(),
    };
    let actor = before.to_act.expect("a seat acts") as usize;
    let refused = client
        .submit_action(authed(&tokens[actor], submit.clone()))
        .await
        .expect_err("refused while down");
    assert_eq!(refused.code(), Code::Unavailable);
    let resign = pb::ResignRequest {
        game_id: id.clone(),
        idempotency_key: "r1".into(),
    };
    let resigned = client
        .resign(authed(&tokens[1], resign))
        .await
        .expect_err("no resignation while down");
    assert_eq!(reason(&resigned), "SHUTTING_DOWN", "{resigned:?}");
    let replay = pb::ExportReplayRequest {
        game_id: id.clone(),
    };
    let exported = client.export_replay(replay).await.expect_err("down");
    assert_eq!(reason(&exported), "SHUTTING_DOWN", "{exported:?}");
    let views = pb::GetReplayViewsRequest {
        game_id: id.clone(),
        ..Default::default()
    };
    let viewed = client.get_replay_views(views).await.expect_err("down");
    assert_eq!(reason(&viewed), "SHUTTING_DOWN", "{viewed:?}");

    // Back after the delay asked: nothing applied while down, nothing lost.
    tokio::time::sleep(wait).await;
    state_req.game_id = id.clone();
    let after = client
        .get_state(authed(&tokens[1], state_req))
        .await
        .expect("back")
        .into_inner()
        .state
        .unwrap();
    assert_eq!(after.version, before.version, "nothing applied while down");
    let mut resumed = open(chan.clone(), &id, &tokens[0], last_seen + 1).await;
    client
        .submit_action(authed(&tokens[actor], submit))
        .await
        .expect("the same submit, once back");
    let next = next_item(&mut resumed)
        .await
        .expect("an event")
        .expect("ok");
    assert_eq!(next.seq, last_seen + 1, "resumed where it was");

    let entries = ledger(&mut testing, &id, &key).await;
    assert_eq!(fired(&entries), vec![0], "{entries:#?}");
    // The fault's entry is stamped with the game's seq and version then, as
    // every entry is (not the stream's seq and version 0).
    let fault = entries
        .iter()
        .find(|e| matches!(e.entry, Some(pb::ledger_entry::Entry::Fault(_))))
        .expect("the fault's entry");
    assert_eq!(
        (fault.last_seq, fault.version),
        (before.last_seq, before.version),
        "{fault:?}"
    );
    let ends: Vec<_> = entries
        .iter()
        .filter_map(|e| match &e.entry {
            Some(pb::ledger_entry::Entry::StreamEnd(s)) if s.why == "fault" => Some(e.seat),
            _ => None,
        })
        .collect();
    assert_eq!(ends.len(), 2, "both seats' streams: {entries:#?}");
    // The ledger has the refused resignation, with its key's digest.
    let resignations: Vec<_> = entries
        .iter()
        .filter_map(|e| match &e.entry {
            Some(pb::ledger_entry::Entry::Call(c)) if c.method == "Resign" => Some(c),
            _ => None,
        })
        .collect();
    assert_eq!(resignations.len(), 1, "{entries:#?}");
    assert_eq!(resignations[0].code, "UNAVAILABLE");
    assert_eq!(resignations[0].key_digest.len(), 16);
}

#[tokio::test]
async fn a_reset_breaks_the_connection_under_the_stream_with_no_status() {
    let server = testing_server().await;
    let mut client = server.client().await;
    let mut testing = TestingServiceClient::connect(server.url()).await.unwrap();
    let reset = pb::Fault {
        seat: 0,
        kind: Some(pb::fault::Kind::EndStream(pb::EndStreamFault {
            at: after_seq(3),
            how: pb::StreamEnd::Reset as i32,
        })),
    };
    let (id, tokens, key) = test_game(&mut testing, vec![reset]).await;
    // Its own connection, as the client under test would have. What the
    // server wrote just before the RST may be lost with the connection (the
    // call itself may fail), as on a real network.
    let chan = Channel::from_shared(server.url())
        .unwrap()
        .connect()
        .await
        .unwrap();
    let mut direct = pb::druids_service_client::DruidsServiceClient::new(chan);
    let msg = pb::StreamEventsRequest {
        game_id: id.clone(),
        from_seq: 1,
    };
    let mut seqs = Vec::new();
    let ended = match direct.stream_events(authed(&tokens[0], msg)).await {
        Err(status) => status,
        Ok(stream) => {
            let mut stream = stream.into_inner();
            loop {
                match next_item(&mut stream).await {
                    Some(Ok(e)) => seqs.push(e.seq),
                    Some(Err(status)) => break status,
                    None => panic!("a clean end after {seqs:?}; a reset has no status"),
                }
            }
        }
    };
    assert!(
        seqs.iter().all(|&s| s <= 3),
        "nothing after the fault: {seqs:?}"
    );
    // No status from the server: tonic reports the broken transport (with it
    // as the source), never a status the server could have sent.
    assert!(
        std::error::Error::source(&ended).is_some() && reason(&ended).is_empty(),
        "{ended:?}"
    );
    assert!(
        matches!(ended.code(), Code::Unknown | Code::Unavailable),
        "{ended:?}"
    );
    // A new connection resumes, and the fault does not fire again.
    let chan = Channel::from_shared(server.url())
        .unwrap()
        .connect()
        .await
        .unwrap();
    let mut again = open(chan, &id, &tokens[0], 1).await;
    let first = next_item(&mut again).await.expect("an event").expect("ok");
    assert_eq!(first.seq, 1);
    let last = state(&mut client, &id, None).await.last_seq;
    let mut seen = first.seq;
    while seen < last {
        seen = next_item(&mut again)
            .await
            .expect("an event")
            .expect("ok")
            .seq;
    }
    let entries = ledger(&mut testing, &id, &key).await;
    let words: Vec<_> = entries
        .iter()
        .filter_map(|e| match &e.entry {
            Some(pb::ledger_entry::Entry::Fault(f)) => Some(f.description.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(words.len(), 1, "{words:?}");
    assert!(words[0].contains("reset the connection"), "{words:?}");
    let why: Vec<_> = entries
        .iter()
        .filter_map(|e| match &e.entry {
            Some(pb::ledger_entry::Entry::StreamEnd(s)) => Some(s.why.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(
        why.first().map(String::as_str),
        Some("reset"),
        "{entries:#?}"
    );
}
