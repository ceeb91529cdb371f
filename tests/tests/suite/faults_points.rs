//! Fault points keyed to a seat's decisions and submits (issue 34): an
//! `end_stream` fault `before_decision` N ends the seat's stream right
//! before its N-th `DecisionNeeded`, one `after_submit` K right after the
//! first event of its K-th own action, both counted over the game's log; the
//! client reopens from the next seq and plays on. Bad points are refused
//! and change nothing.

use std::time::Duration;

use druids_contract::pb;
use druids_contract::pb::druids_service_client::DruidsServiceClient;
use druids_contract::pb::game_event::Body;
use druids_contract::pb::testing_service_client::TestingServiceClient;
use druids_tests::{TestServer, authed, games_listed, state};
use tokio_stream::StreamExt;
use tonic::Code;
use tonic::transport::Channel;

use crate::faults::{
    events_so_far, fault_words, fired, ledger, open_stream, submit, test_game, testing_server,
};

/// Deadlock guard only: a stream that should end or go on does so long before.
const GUARD: Duration = Duration::from_secs(120);
/// Most moves a test plays before its stream must have ended.
const MAX_MOVES: usize = 200;

fn end_stream(point: pb::stream_point::Point, how: pb::StreamEnd) -> pb::Fault {
    pb::Fault {
        seat: 0,
        kind: Some(pb::fault::Kind::EndStream(pb::EndStreamFault {
            at: Some(pb::StreamPoint { point: Some(point) }),
            how: how as i32,
        })),
    }
}

/// Reads seat 0's stream from seq 1 in a task while the test plays legal
/// action 0 for whichever seat decides, until the stream ends: its events,
/// its end (`None`: clean) and seat 0's answers to its own submits.
async fn play_until_the_stream_ends(
    server: &TestServer,
    id: &str,
    tokens: &[String],
) -> (
    Vec<pb::GameEvent>,
    Option<tonic::Status>,
    Vec<pb::SubmitActionResponse>,
) {
    let mut reader_client = server.client().await;
    let mut stream = open_stream(&mut reader_client, id, &tokens[0], 1).await;
    let reader = tokio::spawn(async move {
        let mut events = Vec::new();
        while let Some(item) = stream.next().await {
            match item {
                Ok(e) => events.push(e),
                Err(status) => return (events, Some(status)),
            }
        }
        (events, None)
    });
    let mut client = server.client().await;
    let mut mine = Vec::new();
    for _ in 0..MAX_MOVES {
        if reader.is_finished() {
            break;
        }
        let (seat, answer) = play_one(&mut client, id, tokens).await;
        if seat == 0 {
            mine.push(answer);
        }
    }
    let (events, end) = tokio::time::timeout(GUARD, reader)
        .await
        .expect("the stream ends")
        .unwrap();
    (events, end, mine)
}

/// Plays legal action 0 for the seat that decides: the seat and its answer.
async fn play_one(
    client: &mut DruidsServiceClient<Channel>,
    id: &str,
    tokens: &[String],
) -> (usize, pb::SubmitActionResponse) {
    let st = state(client, id, None).await;
    let seat = st.to_act.expect("a seat decides") as usize;
    let key = format!("v{}", st.version);
    let answer = client
        .submit_action(submit(id, &tokens[seat], &key, st.version))
        .await
        .expect("SubmitAction")
        .into_inner();
    (seat, answer)
}

/// Reopens seat 0's stream from `from_seq` and plays one more move: the
/// stream goes on past it (the fault fired once). Returns the first event.
async fn reopen_and_play_on(
    server: &TestServer,
    id: &str,
    tokens: &[String],
    from_seq: u64,
) -> pb::GameEvent {
    let mut client = server.client().await;
    let mut stream = open_stream(&mut client, id, &tokens[0], from_seq).await;
    let first = tokio::time::timeout(GUARD, stream.next())
        .await
        .expect("an event")
        .expect("the stream goes on")
        .expect("an event, not an error");
    let last = state(&mut client, id, None).await.last_seq;
    play_one(&mut client, id, tokens).await;
    let mut seq = first.seq;
    while seq <= last {
        let next = tokio::time::timeout(GUARD, stream.next()).await;
        seq = next
            .expect("an event")
            .expect("the stream goes on")
            .expect("an event, not an error")
            .seq;
    }
    first
}

fn decision_of(e: &pb::GameEvent) -> Option<u32> {
    match &e.body {
        Some(Body::DecisionNeeded(d)) => Some(d.seat),
        _ => None,
    }
}

#[tokio::test]
async fn a_stream_ends_right_before_the_seats_third_decision() {
    let server = testing_server().await;
    let mut testing = TestingServiceClient::connect(server.url()).await.unwrap();
    let point = pb::stream_point::Point::BeforeDecision(3);
    let plan = vec![end_stream(point, pb::StreamEnd::Unavailable)];
    let (id, tokens, key) = test_game(&mut testing, plan).await;
    let (events, end, _) = play_until_the_stream_ends(&server, &id, &tokens).await;
    let end = end.expect("an error end");
    assert_eq!(end.code(), Code::Unavailable, "{end:?}");
    // The third DecisionNeeded of seat 0 in the game's log.
    let mut client = server.client().await;
    let log = events_so_far(&mut client, &id).await;
    let due = log
        .iter()
        .filter(|e| decision_of(e) == Some(0))
        .nth(2)
        .expect("seat 0 decided three times")
        .seq;
    let last = events.last().expect("events before the end").seq;
    assert!(last < due, "sent {last}, the decision is {due}");
    assert_eq!(
        events.iter().filter(|e| decision_of(e) == Some(0)).count(),
        2,
        "{events:#?}"
    );
    // Reopened from the next seq, the stream starts with that decision: the
    // stream ended right before it, and once only.
    let first = reopen_and_play_on(&server, &id, &tokens, last + 1).await;
    assert_eq!(first.seq, due);
    assert_eq!(decision_of(&first), Some(0));
    let entries = ledger(&mut testing, &id, &key).await;
    assert_eq!(fired(&entries), vec![0]);
    let words = fault_words(&entries);
    assert!(words[0].contains("DecisionNeeded #3"), "{words:?}");
}

#[tokio::test]
async fn a_stream_ends_right_after_the_seats_third_own_action() {
    let server = testing_server().await;
    let mut testing = TestingServiceClient::connect(server.url()).await.unwrap();
    let point = pb::stream_point::Point::AfterSubmit(3);
    let plan = vec![end_stream(point, pb::StreamEnd::Clean)];
    let (id, tokens, key) = test_game(&mut testing, plan).await;
    let (events, end, mine) = play_until_the_stream_ends(&server, &id, &tokens).await;
    assert!(end.is_none(), "a clean end: {end:?}");
    let third = mine.get(2).expect("seat 0 acted three times");
    let recorded = third.events.first().expect("the action's events");
    let last = events.last().expect("events before the end");
    assert_eq!(
        (last.seq, last.version),
        (recorded.seq, third.version),
        "{events:#?}"
    );
    let first = reopen_and_play_on(&server, &id, &tokens, last.seq + 1).await;
    assert_eq!(first.seq, last.seq + 1);
    let entries = ledger(&mut testing, &id, &key).await;
    assert_eq!(fired(&entries), vec![0]);
    let words = fault_words(&entries);
    assert!(words[0].contains("own action #3"), "{words:?}");
}

#[tokio::test]
async fn bad_points_are_refused_and_change_nothing() {
    use pb::stream_point::Point as P;
    let server = testing_server().await;
    let mut testing = TestingServiceClient::connect(server.url()).await.unwrap();
    let (id, _tokens, key) = test_game(&mut testing, Vec::new()).await;
    let restart = |at| pb::Fault {
        seat: 0,
        kind: Some(pb::fault::Kind::Restart(pb::RestartFault {
            at,
            down_ms: 100,
        })),
    };
    let point = |p| Some(pb::StreamPoint { point: Some(p) });
    let cases = [
        (
            end_stream(P::BeforeDecision(0), pb::StreamEnd::Reset),
            "plan.faults[0].end_stream.at.before_decision",
        ),
        (
            end_stream(P::AfterSubmit(0), pb::StreamEnd::Goaway),
            "plan.faults[0].end_stream.at.after_submit",
        ),
        (
            restart(point(P::AfterSubmit(0))),
            "plan.faults[0].restart.at.after_submit",
        ),
        (
            restart(point(P::BeforeDecision(100_001))),
            "plan.faults[0].restart.at.before_decision",
        ),
        (
            restart(Some(pb::StreamPoint { point: None })),
            "plan.faults[0].restart.at needs a point",
        ),
        (restart(None), "plan.faults[0].restart.at needs a point"),
    ];
    let listed = games_listed(&server).await;
    let before = ledger(&mut testing, &id, &key).await;
    for (fault, words) in cases {
        let create = pb::CreateTestGameRequest {
            game: Some(pb::CreateGameRequest {
                kind: pb::GameKind::Meduris as i32,
                players: 2,
                ..Default::default()
            }),
            plan: Some(pb::FaultPlan {
                faults: vec![fault],
            }),
        };
        let refused = testing.create_test_game(create).await.unwrap_err();
        assert_eq!(refused.code(), Code::InvalidArgument, "{refused:?}");
        assert!(refused.message().contains(words), "{refused:?}");
        let attach = pb::AttachFaultPlanRequest {
            game_id: id.clone(),
            plan: Some(pb::FaultPlan {
                faults: vec![fault],
            }),
        };
        let refused = testing
            .attach_fault_plan(authed(&key, attach))
            .await
            .unwrap_err();
        assert_eq!(refused.code(), Code::InvalidArgument, "{refused:?}");
        assert!(refused.message().contains(words), "{refused:?}");
    }
    // A refusal names the fault of the plan, and the game's fields as the
    // request's `game`.
    let lose = |nth| pb::Fault {
        seat: 0,
        kind: Some(pb::fault::Kind::LoseAnswer(pb::LoseAnswerFault { nth })),
    };
    let bad_third = pb::CreateTestGameRequest {
        game: Some(pb::CreateGameRequest {
            kind: pb::GameKind::Meduris as i32,
            players: 2,
            ..Default::default()
        }),
        plan: Some(pb::FaultPlan {
            faults: vec![lose(1), lose(2), lose(0)],
        }),
    };
    let refused = testing.create_test_game(bad_third).await.unwrap_err();
    assert_eq!(
        refused.message(),
        "plan.faults[2].lose_answer.nth must be at least 1"
    );
    assert_eq!(violated_field(&refused), "plan.faults[2].lose_answer.nth");
    let no_kind = pb::CreateTestGameRequest {
        game: Some(pb::CreateGameRequest::default()),
        plan: None,
    };
    let refused = testing.create_test_game(no_kind).await.unwrap_err();
    assert_eq!(refused.code(), Code::InvalidArgument, "{refused:?}");
    assert!(refused.message().starts_with("game.kind "), "{refused:?}");
    assert_eq!(violated_field(&refused), "game.kind");
    assert_eq!(games_listed(&server).await, listed);
    assert_eq!(ledger(&mut testing, &id, &key).await, before);
}

/// The field a refusal's BadRequest detail names.
fn violated_field(refused: &tonic::Status) -> String {
    use tonic_types::StatusExt;
    let bad = refused
        .get_details_bad_request()
        .expect("a BadRequest detail");
    bad.field_violations[0].field.clone()
}
