//! Requests forwarded to a game's owner: reads are charged to the node they
//! arrive at, and a forwarded stream to a paused owner ends with
//! `GAME_MOVED`.

use druids_contract::pb;
use druids_tests::authed;
use tonic::Code;
use tonic_types::StatusExt;

use super::{HANG, Nodes};

/// Reads forwarded to the owner of their game (`GetState`, `ExportReplay`,
/// `GetLegalActions`) are charged to the caller's quotas on the node they
/// reached: at one read a second, a burst through a node that does not own
/// the game is refused `RESOURCE_EXHAUSTED` / `RATE_LIMITED` with a retry
/// delay, as it would be on the owner.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn forwarded_reads_are_charged_where_they_arrive() {
    let nodes = Nodes::start_with(
        "cluster_read_quota",
        2,
        &[
            ("DRUIDS_MAX_READS_PER_SECOND", "1"),
            ("DRUIDS_MAX_ANONYMOUS_READS_PER_SECOND", "1"),
        ],
    );
    let created = nodes.create_on(0).await;
    let id = created.game_id;
    let token = created.seats[0].token.clone();
    let mut b = nodes.client(1);
    /// Calls `$call` until it is refused (at most 100 times): the refusal.
    macro_rules! until_refused {
        ($call:expr) => {{
            let mut refused = None;
            for _ in 0..100 {
                if let Err(s) = $call.await {
                    refused = Some(s);
                    break;
                }
            }
            refused.expect("a burst of forwarded reads is refused")
        }};
    }
    let refusals = [
        until_refused!(b.get_state(pb::GetStateRequest {
            game_id: id.clone()
        })),
        until_refused!(b.export_replay(pb::ExportReplayRequest {
            game_id: id.clone()
        })),
        until_refused!(b.get_legal_actions(authed(
            &token,
            pb::GetLegalActionsRequest {
                game_id: id.clone(),
                ..Default::default()
            }
        ))),
    ];
    for refused in refusals {
        assert_eq!(refused.code(), Code::ResourceExhausted, "{refused:?}");
        assert_eq!(
            refused.get_details_error_info().map(|i| i.reason),
            Some("RATE_LIMITED".to_owned()),
            "{refused:?}"
        );
    }
    assert!(
        nodes.metric(1, "druids_node_forwarded_total") >= 1.0,
        "B forwarded the reads to A"
    );
}

/// A stream forwarded to the owner of its game ends with `UNAVAILABLE` /
/// `GAME_MOVED` when the owner stops answering (SIGSTOP): the entry node
/// pings the owner's connection and gives up on it within about a lease, so
/// the client resumes elsewhere without a watchdog of its own.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_forwarded_stream_to_a_paused_owner_ends_with_game_moved() {
    let nodes = Nodes::start("cluster_paused_stream", 2);
    let created = nodes.create_on(0).await;
    let mut stream = nodes
        .client(1)
        .stream_events(pb::StreamEventsRequest {
            game_id: created.game_id.clone(),
            from_seq: 0,
        })
        .await
        .expect("a stream through B")
        .into_inner();
    let first = stream
        .message()
        .await
        .expect("an event")
        .expect("a snapshot");
    assert!(first.seq > 0, "{first:?}");
    nodes.node(0).signal("STOP");
    let ended = tokio::time::timeout(HANG, async {
        loop {
            match stream.message().await {
                Ok(Some(_)) => continue,
                Ok(None) => panic!("the stream ended without an error"),
                Err(s) => break s,
            }
        }
    })
    .await;
    nodes.node(0).signal("CONT");
    let ended = ended.expect("the stream to a paused owner ends");
    assert_eq!(ended.code(), Code::Unavailable, "{ended:?}");
    assert_eq!(
        ended.get_details_error_info().map(|i| i.reason),
        Some("GAME_MOVED".to_owned()),
        "{ended:?}"
    );
}
