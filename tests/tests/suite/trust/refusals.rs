//! Every refusal names its reason: each documented status code and
//! `ErrorInfo` reason of a malformed or refused request, sent over gRPC to
//! a server on a manual clock.

use super::*;

#[tokio::test]
async fn every_refusal_names_its_reason() {
    use druids_server::ManualClock;
    let clock = Arc::new(ManualClock::at(1_000_000));
    let limits = Limits {
        idle_game_secs: 60,
        ..Limits::unthrottled()
    };
    let server =
        TestServer::with_clock(Arc::new(MemoryStore::default()), limits, clock.clone()).await;
    let mut client = server.client().await;
    let (id, tokens) = create(&mut client, MEDURIS, 2, 21).await;
    let (other, other_tokens) = create(&mut client, MEDURIS, 2, 22).await;
    let legal_of = |token: Option<&str>, game: &str| {
        let msg = pb::GetLegalActionsRequest {
            game_id: game.to_owned(),
            ..Default::default()
        };
        match token {
            Some(t) => authed(t, msg),
            None => tonic::Request::new(msg),
        }
    };
    refused(
        client.get_legal_actions(legal_of(None, &id)).await,
        Code::Unauthenticated,
        "TOKEN_MISSING",
    );
    refused(
        client
            .get_legal_actions(legal_of(Some("forged"), &id))
            .await,
        Code::Unauthenticated,
        "TOKEN_UNKNOWN",
    );
    refused(
        client
            .get_legal_actions(legal_of(Some(&other_tokens[0]), &id))
            .await,
        Code::PermissionDenied,
        "TOKEN_OF_OTHER_GAME",
    );
    let st = state(&mut client, &id, None).await;
    let to_act = st.to_act.unwrap() as usize;
    let waiting = 1 - to_act;
    let first = legal(&mut client, &id, &tokens[to_act], false)
        .await
        .unwrap()
        .actions[0]
        .action
        .clone()
        .unwrap();
    let choice = pb::submit_action_request::Choice::Action(first);
    refused(
        submit(
            &mut client,
            &id,
            &tokens[to_act],
            st.version + 5,
            choice.clone(),
        )
        .await,
        Code::Aborted,
        "STALE_VERSION",
    );
    refused(
        submit(&mut client, &id, &tokens[waiting], st.version, choice).await,
        Code::FailedPrecondition,
        "NOT_YOUR_TURN",
    );
    // A "+1" good is not a worker placement.
    let wrong = pb::Action {
        game: Some(pb::action::Game::Meduris(pb::MedurisAction {
            kind: Some(pb::meduris_action::Kind::TakeGood(
                pb::meduris_action::TakeGood {
                    good: pb::MedurisGood::Wood as i32,
                },
            )),
        })),
    };
    refused(
        submit(
            &mut client,
            &id,
            &tokens[to_act],
            st.version,
            pb::submit_action_request::Choice::Action(wrong),
        )
        .await,
        Code::FailedPrecondition,
        "ILLEGAL_ACTION",
    );
    // Open seats: not started; a taken seat; no open seat once started.
    let open = client
        .create_game(pb::CreateGameRequest {
            kind: MEDURIS as i32,
            players: 2,
            open_seats: vec![1],
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    refused(
        submit(
            &mut client,
            &open.game_id,
            &open.seats[0].token,
            0,
            pb::submit_action_request::Choice::LegalActionId(0),
        )
        .await,
        Code::FailedPrecondition,
        "NOT_STARTED",
    );
    let join = |seat| pb::JoinGameRequest {
        game_id: open.game_id.clone(),
        seat: Some(seat),
        ..Default::default()
    };
    refused(
        client.join_game(join(0)).await,
        Code::AlreadyExists,
        "SEAT_TAKEN",
    );
    client.join_game(join(1)).await.unwrap();
    refused(
        client.join_game(join(1)).await,
        Code::FailedPrecondition,
        "NO_OPEN_SEAT",
    );
    // Over, and abandoned.
    play_random(&mut client, &id, &tokens, &mut Lcg(21), 100_000)
        .await
        .unwrap();
    let over = state(&mut client, &id, None).await.version;
    refused(
        submit(
            &mut client,
            &id,
            &tokens[0],
            over,
            pb::submit_action_request::Choice::LegalActionId(0),
        )
        .await,
        Code::FailedPrecondition,
        "GAME_OVER",
    );
    clock.advance(61_000);
    server.service.expire_due();
    let abandoned = state(&mut client, &other, None).await;
    refused(
        submit(
            &mut client,
            &other,
            &other_tokens[abandoned.to_act.unwrap_or(0) as usize],
            abandoned.version,
            pb::submit_action_request::Choice::LegalActionId(0),
        )
        .await,
        Code::FailedPrecondition,
        "GAME_ABANDONED",
    );
    // A stream open while the server stops ends with SHUTTING_DOWN.
    let (live, live_tokens) = create(&mut client, MEDURIS, 2, 23).await;
    let _ = live_tokens;
    let mut stream = client
        .stream_events(pb::StreamEventsRequest {
            game_id: live,
            from_seq: 0,
        })
        .await
        .unwrap()
        .into_inner();
    stream.next().await.unwrap().unwrap();
    stream.next().await.unwrap().unwrap();
    server.service.shutdown();
    let end = tokio::time::timeout(Duration::from_secs(10), stream.next())
        .await
        .expect("the stream ends")
        .expect("with a status");
    refused(end, Code::Unavailable, "SHUTTING_DOWN");
    server.stop().await;
}
