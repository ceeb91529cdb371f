//! Resigning through the contract (`Resign`): a seat gives up, the game ends
//! at once whatever the player count, the seat is ranked last; the
//! resignation is stored and replayed (a restart, ExportReplay), a retry
//! gets the first answer, and a refused resignation changes nothing.

use druids_contract::pb;
use druids_server::Limits;
use druids_tests::{Lcg, TestServer, authed, create, play_random, state};
use tonic::transport::Channel;
use tonic::{Code, Status};

use crate::cli_commands::{druids, ok};
use crate::stores::{Backend, TestDb, on_each_store};
use crate::trust::refused;

type Client = pb::druids_service_client::DruidsServiceClient<Channel>;

on_each_store!(a_resignation_survives_a_restart_and_its_retry_is_answered_again);

async fn resign(
    client: &mut Client,
    game_id: &str,
    token: &str,
    key: &str,
) -> Result<pb::ResignResponse, Status> {
    Ok(client
        .resign(authed(
            token,
            pb::ResignRequest {
                game_id: game_id.to_owned(),
                idempotency_key: key.to_owned(),
            },
        ))
        .await?
        .into_inner())
}

async fn replay(client: &mut Client, game_id: &str) -> pb::Replay {
    client
        .export_replay(pb::ExportReplayRequest {
            game_id: game_id.to_owned(),
        })
        .await
        .expect("a finished game exports")
        .into_inner()
}

/// The outcome a resignation's answer carries, after checking its events:
/// `SeatResigned` for `seat`, then `GameFinished`.
fn resigned_outcome(answer: &pb::ResignResponse, seat: u32) -> pb::Outcome {
    use pb::game_event::Body;
    let bodies: Vec<_> = answer.events.iter().map(|e| e.body.clone()).collect();
    match bodies.as_slice() {
        [
            Some(Body::SeatResigned(r)),
            Some(Body::GameFinished(pb::GameFinished { outcome: Some(o) })),
        ] => {
            assert_eq!(r.seat, seat);
            o.clone()
        }
        other => panic!("a resignation's events are SeatResigned, GameFinished: {other:?}"),
    }
}

/// The checks every resignation passes: the seat is last, never a winner,
/// listed as resigned; the game is over; the replay ends with it and
/// re-runs to the same outcome.
async fn check_resigned(client: &mut Client, game_id: &str, seat: u32, outcome: &pb::Outcome) {
    assert_eq!(outcome.resigned, vec![seat]);
    assert_eq!(outcome.ranking.last(), Some(&seat), "{outcome:?}");
    assert!(!outcome.winners.contains(&seat), "{outcome:?}");
    assert!(!outcome.winners.is_empty(), "{outcome:?}");
    let players = outcome.scores.len() as u32;
    let mut ranked = outcome.ranking.clone();
    ranked.sort();
    assert_eq!(ranked, (0..players).collect::<Vec<_>>());
    let view = state(client, game_id, None).await;
    assert_eq!(view.status, pb::GameStatus::Finished as i32);
    assert_eq!(view.to_act, None);
    assert_eq!(view.outcome.as_ref(), Some(outcome));
    let replay = replay(client, game_id).await;
    let last = replay
        .actions
        .last()
        .expect("the resignation is in the replay");
    assert!(last.resigned && last.action.is_none() && last.seat == seat);
    assert_eq!(replay.actions.len() as u64, view.version);
    assert_eq!(replay.outcome.as_ref(), Some(outcome));
    assert_eq!(
        druids_contract::replay::verify(&replay).expect("the replay re-runs"),
        Some(outcome.clone())
    );
}

#[tokio::test]
async fn a_two_player_resignation_ends_the_game_with_the_seat_last() {
    let server = TestServer::start().await;
    let mut client = server.client().await;
    let (id, tokens) = create(&mut client, pb::GameKind::Dolmen, 2, 41).await;
    play_random(&mut client, &id, &tokens, &mut Lcg(3), 7)
        .await
        .unwrap();
    let before = state(&mut client, &id, None).await;
    // The seat not to act resigns: any time, its turn or not.
    let seat = 1 - before.to_act.expect("in play");
    let answer = resign(&mut client, &id, &tokens[seat as usize], "")
        .await
        .unwrap();
    assert_eq!(answer.version, before.version + 1);
    let outcome = resigned_outcome(&answer, seat);
    assert_eq!(outcome.winners, vec![1 - seat]);
    check_resigned(&mut client, &id, seat, &outcome).await;
    // Nothing more is played, by either seat.
    let other = &tokens[(1 - seat) as usize];
    let submit = client
        .submit_action(authed(
            other,
            pb::SubmitActionRequest {
                game_id: id.clone(),
                choice: Some(pb::submit_action_request::Choice::LegalActionId(0)),
                expected_version: Some(answer.version),
                idempotency_key: String::new(),
            },
        ))
        .await;
    refused(submit, Code::FailedPrecondition, "GAME_OVER");
    // The stream shows the same two events, to a spectator too.
    let events = druids_tests::all_events(&mut client, &id, None).await;
    let tail: Vec<_> = events[events.len() - 2..].to_vec();
    assert_eq!(tail, answer.events);
    server.stop().await;
}

#[tokio::test]
async fn a_four_player_resignation_ends_the_game_for_everyone() {
    let server = TestServer::start().await;
    let mut client = server.client().await;
    let (id, tokens) = create(&mut client, pb::GameKind::Meduris, 4, 5).await;
    play_random(&mut client, &id, &tokens, &mut Lcg(8), 25)
        .await
        .unwrap();
    let answer = resign(&mut client, &id, &tokens[2], "give-up")
        .await
        .unwrap();
    let outcome = resigned_outcome(&answer, 2);
    assert_eq!(outcome.scores.len(), 4);
    check_resigned(&mut client, &id, 2, &outcome).await;
    server.stop().await;
}

#[tokio::test]
async fn a_refused_resignation_changes_nothing() {
    let server = TestServer::start().await;
    let mut client = server.client().await;
    // A game still waiting for a player: NOT_STARTED.
    let waiting = druids_tests::create_waiting(&mut client).await;
    let token = &waiting.seats[0].token;
    let before = state(&mut client, &waiting.game_id, Some(token)).await;
    let early = resign(&mut client, &waiting.game_id, token, "").await;
    refused(early, Code::FailedPrecondition, "NOT_STARTED");
    assert_eq!(
        state(&mut client, &waiting.game_id, Some(token)).await,
        before
    );

    // A game in play: another game's token, no token, a malformed key.
    let (id, tokens) = create(&mut client, pb::GameKind::Dolmen, 2, 3).await;
    play_random(&mut client, &id, &tokens, &mut Lcg(1), 3)
        .await
        .unwrap();
    let before = state(&mut client, &id, None).await;
    let foreign = resign(&mut client, &id, token, "").await;
    refused(foreign, Code::PermissionDenied, "TOKEN_OF_OTHER_GAME");
    let anonymous = client
        .resign(pb::ResignRequest {
            game_id: id.clone(),
            idempotency_key: String::new(),
        })
        .await;
    assert_eq!(anonymous.unwrap_err().code(), Code::Unauthenticated);
    let long = resign(&mut client, &id, &tokens[0], &"k".repeat(129)).await;
    refused(long, Code::InvalidArgument, "INVALID_ARGUMENT");
    assert_eq!(state(&mut client, &id, None).await, before);

    // A finished game: GAME_OVER, for the seat that resigned and the other.
    let first = resign(&mut client, &id, &tokens[0], "").await.unwrap();
    let after = state(&mut client, &id, None).await;
    for token in &tokens {
        let again = resign(&mut client, &id, token, "").await;
        refused(again, Code::FailedPrecondition, "GAME_OVER");
    }
    assert_eq!(state(&mut client, &id, None).await, after);
    assert_eq!(after.version, first.version);
    server.stop().await;
}

async fn a_resignation_survives_a_restart_and_its_retry_is_answered_again(backend: Backend) {
    let db = TestDb::new(backend, "resign");
    let server = TestServer::with(db.open(), Limits::unthrottled()).await;
    let mut client = server.client().await;
    let (id, tokens) = create(&mut client, pb::GameKind::Meduris, 3, 12).await;
    play_random(&mut client, &id, &tokens, &mut Lcg(6), 10)
        .await
        .unwrap();
    let first = resign(&mut client, &id, &tokens[0], "r1").await.unwrap();
    // A retry with the key: the first answer, nothing applied twice.
    let again = resign(&mut client, &id, &tokens[0], "r1").await.unwrap();
    assert_eq!(again, first);
    let view = state(&mut client, &id, Some(&tokens[1])).await;
    let exported = replay(&mut client, &id).await;
    server.stop().await;

    let server = TestServer::with(db.open(), Limits::unthrottled()).await;
    let mut client = server.client().await;
    assert_eq!(state(&mut client, &id, Some(&tokens[1])).await, view);
    assert_eq!(replay(&mut client, &id).await, exported);
    let outcome = resigned_outcome(&first, 0);
    check_resigned(&mut client, &id, 0, &outcome).await;
    // Within the game's grace period the key is still honoured.
    let after_restart = resign(&mut client, &id, &tokens[0], "r1").await.unwrap();
    assert_eq!(after_restart, first);
    // The same key for another request of the seat is refused.
    let reused = client
        .submit_action(authed(
            &tokens[0],
            pb::SubmitActionRequest {
                game_id: id.clone(),
                choice: Some(pb::submit_action_request::Choice::LegalActionId(0)),
                expected_version: Some(first.version),
                idempotency_key: "r1".into(),
            },
        ))
        .await;
    assert_eq!(reused.unwrap_err().code(), Code::AlreadyExists);
    server.stop().await;
}

/// `druids resign` gives the seat up and prints the events and the ranking;
/// run again it prints the same (one key per seat), and without a token it
/// is refused before it calls.
#[tokio::test]
async fn druids_resign_gives_the_seat_up_once() {
    let server = TestServer::start().await;
    let mut client = server.client().await;
    let (id, tokens) = create(&mut client, pb::GameKind::Dolmen, 2, 2).await;
    let url = server.url();
    let run = {
        let (url, id, token) = (url.clone(), id.clone(), tokens[0].clone());
        move || {
            let args = ["resign", "--game-id", &id, "--token", &token];
            (ok(&url, &args), ok(&url, &args))
        }
    };
    let (first, second) = tokio::task::spawn_blocking(run).await.unwrap();
    assert!(first.contains("seat 0 resigned"), "{first}");
    assert_eq!(first, second);
    let (url2, id2) = (url.clone(), id.clone());
    let (done, _, err) =
        tokio::task::spawn_blocking(move || druids(&url2, &["resign", "--game-id", &id2]))
            .await
            .unwrap();
    assert!(!done && err.contains("needs a seat token"), "{err}");
    let outcome = state(&mut client, &id, None).await.outcome.unwrap();
    check_resigned(&mut client, &id, 0, &outcome).await;
    server.stop().await;
}
