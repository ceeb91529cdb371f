//! The contract, over real TCP: a `druids-server` on an ephemeral port driven by
//! the generated client. Complete games; every error code provoked, with the
//! state checked unchanged afterwards; idempotent retries; stream resume;
//! hidden information kept hidden.

use druids_contract::pb;
use druids_contract::pb::druids_service_client::DruidsServiceClient;
use druids_contract::pb::game_event::Body;
use druids_server::Limits;
use druids_tests::{Lcg, TestServer, authed, create, play_random, state};
use tokio_stream::StreamExt;
use tonic::transport::Channel;
use tonic::{Code, Request};

const MEDURIS: pb::GameKind = pb::GameKind::Meduris;

fn take_good(good: pb::MedurisGood) -> pb::Action {
    pb::Action {
        game: Some(pb::action::Game::Meduris(pb::MedurisAction {
            kind: Some(pb::meduris_action::Kind::TakeGood(
                pb::meduris_action::TakeGood { good: good as i32 },
            )),
        })),
    }
}

fn place_worker(good: pb::MedurisGood) -> pb::Action {
    pb::Action {
        game: Some(pb::action::Game::Meduris(pb::MedurisAction {
            kind: Some(pb::meduris_action::Kind::PlaceWorker(
                pb::meduris_action::PlaceWorker {
                    plateau: good as i32,
                },
            )),
        })),
    }
}

fn submit(
    game_id: &str,
    action: pb::Action,
    version: Option<u64>,
    key: &str,
) -> pb::SubmitActionRequest {
    pb::SubmitActionRequest {
        game_id: game_id.to_owned(),
        choice: Some(pb::submit_action_request::Choice::Action(action)),
        expected_version: version,
        idempotency_key: key.to_owned(),
    }
}

/// Everything every viewer can observe of a game: compared before and after a
/// rejected request to show it changed nothing.
async fn observe(
    client: &mut DruidsServiceClient<Channel>,
    id: &str,
    tokens: &[String],
) -> Vec<String> {
    let mut seen = vec![format!("{:?}", state(client, id, None).await)];
    for t in tokens {
        seen.push(format!("{:?}", state(client, id, Some(t)).await));
        let legal = druids_tests::legal(client, id, t, true).await.unwrap();
        seen.push(format!("{legal:?}"));
    }
    seen
}

fn assert_code<T: std::fmt::Debug>(result: Result<T, tonic::Status>, code: Code, needle: &str) {
    match result {
        Ok(v) => panic!("expected {code:?}, got a reply: {v:?}"),
        Err(status) => {
            assert_eq!(status.code(), code, "wrong code for {:?}", status.message());
            assert!(
                status.message().contains(needle),
                "message {:?} should mention {needle:?}",
                status.message()
            );
        }
    }
}

#[tokio::test]
async fn complete_meduris_games_for_every_player_count() {
    let server = TestServer::start().await;
    let mut client = server.client().await;
    for players in 2..=4u32 {
        let (id, tokens) = create(&mut client, MEDURIS, players, 40 + players as u64).await;
        let mut rng = Lcg(players as u64);
        let n = play_random(&mut client, &id, &tokens, &mut rng, 100_000)
            .await
            .unwrap();
        assert!(n > 20, "a game takes more than 20 decisions, took {n}");
        let st = state(&mut client, &id, None).await;
        assert_eq!(st.status, pb::GameStatus::Finished as i32);
        assert_eq!(st.version, n as u64);
        assert_eq!(st.to_act, None);
        let outcome = st.outcome.expect("outcome");
        assert_eq!(outcome.scores.len(), players as usize);
        assert!(!outcome.winners.is_empty());
        // The full replay ends with the result, and the stream then closes.
        let events = druids_tests::all_events(&mut client, &id, None).await;
        for (i, e) in events.iter().enumerate() {
            assert_eq!(
                e.seq,
                i as u64 + 1,
                "a spectator sees every Meduris event, in order"
            );
        }
        assert_eq!(events.len() as u64, st.last_seq);
        match events.last().and_then(|e| e.body.clone()) {
            Some(Body::GameFinished(f)) => assert_eq!(f.outcome.unwrap(), outcome),
            other => panic!("the log should end with GameFinished, not {other:?}"),
        }
    }
    server.stop().await;
}

#[tokio::test]
async fn every_error_code_leaves_the_game_unchanged() {
    let server = TestServer::start().await;
    let mut client = server.client().await;
    let (id, tokens) = create(&mut client, MEDURIS, 3, 7).await;
    let (other_id, other_tokens) = create(&mut client, MEDURIS, 2, 8).await;
    play_random(&mut client, &id, &tokens, &mut Lcg(1), 5)
        .await
        .unwrap();
    let before = observe(&mut client, &id, &tokens).await;
    let st = state(&mut client, &id, None).await;
    let to_act = st.to_act.unwrap() as usize;
    let waiting = tokens[(to_act + 1) % 3].clone();
    let actor = tokens[to_act].clone();
    let version = st.version;

    // INVALID_ARGUMENT: malformed requests.
    assert_code(
        client
            .submit_action(authed(
                &actor,
                submit("", take_good(pb::MedurisGood::Wood), Some(version), ""),
            ))
            .await,
        Code::InvalidArgument,
        "game_id",
    );
    let mut bad = take_good(pb::MedurisGood::Wood);
    if let Some(pb::action::Game::Meduris(m)) = &mut bad.game
        && let Some(pb::meduris_action::Kind::TakeGood(t)) = &mut m.kind
    {
        t.good = 9;
    }
    assert_code(
        client
            .submit_action(authed(&actor, submit(&id, bad, Some(version), "")))
            .await,
        Code::InvalidArgument,
        "take_good.good",
    );
    assert_code(
        client
            .submit_action(authed(
                &actor,
                submit(&id, pb::Action { game: None }, Some(version), ""),
            ))
            .await,
        Code::InvalidArgument,
        "action.game",
    );
    let dolmen = pb::Action {
        game: Some(pb::action::Game::Dolmen(Default::default())),
    };
    assert_code(
        client
            .submit_action(authed(&actor, submit(&id, dolmen, Some(version), "")))
            .await,
        Code::InvalidArgument,
        "meduris",
    );
    assert_code(
        client
            .submit_action(authed(
                &actor,
                submit(&id, take_good(pb::MedurisGood::Wood), None, ""),
            ))
            .await,
        Code::InvalidArgument,
        "expected_version",
    );
    let by_id = pb::SubmitActionRequest {
        game_id: id.clone(),
        choice: Some(pb::submit_action_request::Choice::LegalActionId(9999)),
        expected_version: Some(version),
        idempotency_key: String::new(),
    };
    assert_code(
        client.submit_action(authed(&actor, by_id)).await,
        Code::InvalidArgument,
        "9999",
    );
    let no_choice = pb::SubmitActionRequest {
        game_id: id.clone(),
        choice: None,
        expected_version: Some(version),
        idempotency_key: String::new(),
    };
    assert_code(
        client.submit_action(authed(&actor, no_choice)).await,
        Code::InvalidArgument,
        "choice",
    );
    let long_key = "k".repeat(200);
    assert_code(
        client
            .submit_action(authed(
                &actor,
                submit(
                    &id,
                    take_good(pb::MedurisGood::Wood),
                    Some(version),
                    &long_key,
                ),
            ))
            .await,
        Code::InvalidArgument,
        "idempotency_key",
    );

    // FAILED_PRECONDITION: not this seat's decision; an action the rules forbid now.
    assert_code(
        client
            .submit_action(authed(
                &waiting,
                submit(&id, place_worker(pb::MedurisGood::Wood), Some(version), ""),
            ))
            .await,
        Code::FailedPrecondition,
        "not your decision",
    );
    let hut_now = pb::Action {
        game: Some(pb::action::Game::Meduris(pb::MedurisAction {
            kind: Some(pb::meduris_action::Kind::BuildHut(
                pb::meduris_action::BuildHut {
                    field: 0,
                    payment: None,
                },
            )),
        })),
    };
    assert_code(
        client
            .submit_action(authed(&actor, submit(&id, hut_now, Some(version), "")))
            .await,
        Code::FailedPrecondition,
        "pending decision",
    );

    // ABORTED: a stale expected_version.
    assert_code(
        client
            .submit_action(authed(
                &actor,
                submit(
                    &id,
                    place_worker(pb::MedurisGood::Wood),
                    Some(version - 1),
                    "",
                ),
            ))
            .await,
        Code::Aborted,
        "stale",
    );

    // NOT_FOUND: no such game.
    assert_code(
        client
            .get_state(pb::GetStateRequest {
                game_id: "nope".into(),
            })
            .await,
        Code::NotFound,
        "nope",
    );
    assert_code(
        client
            .submit_action(authed(
                &actor,
                submit("nope", take_good(pb::MedurisGood::Wood), Some(0), ""),
            ))
            .await,
        Code::NotFound,
        "nope",
    );

    // UNAUTHENTICATED: no token, a forged token.
    assert_code(
        client
            .submit_action(Request::new(submit(
                &id,
                place_worker(pb::MedurisGood::Wood),
                Some(version),
                "",
            )))
            .await,
        Code::Unauthenticated,
        "authorization",
    );
    assert_code(
        client
            .get_legal_actions(authed(
                "forged",
                pb::GetLegalActionsRequest {
                    game_id: id.clone(),
                    all_payments: false,
                    ..Default::default()
                },
            ))
            .await,
        Code::Unauthenticated,
        "not a seat token",
    );
    assert_code(
        client
            .get_state(authed(
                "forged",
                pb::GetStateRequest {
                    game_id: id.clone(),
                },
            ))
            .await,
        Code::Unauthenticated,
        "not a seat token",
    );

    // PERMISSION_DENIED: a real token, of another game.
    assert_code(
        client
            .submit_action(authed(
                &other_tokens[0],
                submit(&id, place_worker(pb::MedurisGood::Wood), Some(version), ""),
            ))
            .await,
        Code::PermissionDenied,
        "another game",
    );

    // All of the above changed nothing that any viewer can see.
    assert_eq!(observe(&mut client, &id, &tokens).await, before);

    // ALREADY_EXISTS: one idempotency key for two different actions.
    let legal = druids_tests::legal(&mut client, &id, &actor, false)
        .await
        .unwrap();
    assert!(legal.actions.len() >= 2);
    let first = legal.actions[0].action.clone().unwrap();
    let second = legal.actions[1].action.clone().unwrap();
    let ok = client
        .submit_action(authed(
            &actor,
            submit(&id, first, Some(version), "same-key"),
        ))
        .await
        .unwrap();
    let accepted = observe(&mut client, &id, &tokens).await;
    assert_code(
        client
            .submit_action(authed(
                &actor,
                submit(&id, second, Some(version), "same-key"),
            ))
            .await,
        Code::AlreadyExists,
        "same-key",
    );
    assert_eq!(ok.into_inner().version, version + 1);
    assert_eq!(observe(&mut client, &id, &tokens).await, accepted);
    assert_eq!(state(&mut client, &id, None).await.version, version + 1);
    assert_eq!(
        state(&mut client, &other_id, None).await.version,
        0,
        "the other game is untouched"
    );
    server.stop().await;
}

#[tokio::test]
async fn rejected_requests_change_nothing_at_all() {
    let server = TestServer::start().await;
    let mut client = server.client().await;
    let (id, tokens) = create(&mut client, MEDURIS, 2, 11).await;
    play_random(&mut client, &id, &tokens, &mut Lcg(3), 12)
        .await
        .unwrap();
    let st = state(&mut client, &id, None).await;
    let version = st.version;
    let actor = tokens[st.to_act.unwrap() as usize].clone();
    let waiting = tokens[1 - st.to_act.unwrap() as usize].clone();
    let before = observe(&mut client, &id, &tokens).await;
    let attempts = [
        (
            actor.clone(),
            submit(
                &id,
                place_worker(pb::MedurisGood::Stone),
                Some(version + 5),
                "",
            ),
        ),
        (
            waiting.clone(),
            submit(&id, take_good(pb::MedurisGood::Wool), Some(version), ""),
        ),
        (
            actor.clone(),
            submit(&id, pb::Action { game: None }, Some(version), ""),
        ),
        (
            "forged".to_owned(),
            submit(&id, take_good(pb::MedurisGood::Wool), Some(version), ""),
        ),
    ];
    for (token, req) in attempts {
        assert!(client.submit_action(authed(&token, req)).await.is_err());
    }
    // Every illegal action of every kind the contract can express.
    for g in [
        pb::MedurisGood::Wood,
        pb::MedurisGood::Wool,
        pb::MedurisGood::Copper,
        pb::MedurisGood::Stone,
    ] {
        for action in [place_worker(g), take_good(g)] {
            let legal = druids_tests::legal(&mut client, &id, &actor, true)
                .await
                .unwrap();
            if legal
                .actions
                .iter()
                .any(|a| a.action.as_ref() == Some(&action))
            {
                continue;
            }
            let r = client
                .submit_action(authed(&actor, submit(&id, action, Some(version), "")))
                .await;
            assert_eq!(r.unwrap_err().code(), Code::FailedPrecondition);
        }
    }
    assert_eq!(observe(&mut client, &id, &tokens).await, before);
    server.stop().await;
}

#[tokio::test]
async fn create_and_join_validate_their_input() {
    let server = TestServer::start().await;
    let mut client = server.client().await;
    let base = pb::CreateGameRequest {
        kind: MEDURIS as i32,
        players: 3,
        ..Default::default()
    };
    assert_code(
        client
            .create_game(pb::CreateGameRequest {
                kind: 0,
                ..base.clone()
            })
            .await,
        Code::InvalidArgument,
        "kind",
    );
    assert_code(
        client
            .create_game(pb::CreateGameRequest {
                kind: pb::GameKind::Dolmen as i32,
                players: 6,
                ..base.clone()
            })
            .await,
        Code::InvalidArgument,
        "2 to 5 players",
    );
    assert_code(
        client
            .create_game(pb::CreateGameRequest {
                players: 7,
                ..base.clone()
            })
            .await,
        Code::InvalidArgument,
        "2 to 4 players",
    );
    assert_code(
        client
            .create_game(pb::CreateGameRequest {
                seat_names: vec!["a".into()],
                ..base.clone()
            })
            .await,
        Code::InvalidArgument,
        "seat_names",
    );
    assert_code(
        client
            .create_game(pb::CreateGameRequest {
                open_seats: vec![5],
                ..base.clone()
            })
            .await,
        Code::InvalidArgument,
        "open_seats",
    );
    assert_code(
        client
            .create_game(pb::CreateGameRequest {
                options: Some(pb::GameOptions {
                    start_seat: Some(3),
                    ..Default::default()
                }),
                ..base.clone()
            })
            .await,
        Code::InvalidArgument,
        "start_seat",
    );
    let listed = client
        .list_games(pb::ListGamesRequest::default())
        .await
        .unwrap()
        .into_inner();
    assert!(
        listed.games.is_empty(),
        "rejected creations leave no game behind"
    );

    // Open seats: the game waits, then starts with the last join.
    let reply = client
        .create_game(pb::CreateGameRequest {
            open_seats: vec![1, 2],
            seat_names: vec!["ann".into(), String::new(), String::new()],
            ..base.clone()
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(reply.seats.len(), 1);
    let id = reply.game_id;
    let host = reply.seats[0].token.clone();
    let st = state(&mut client, &id, None).await;
    assert_eq!(st.status, pb::GameStatus::WaitingForPlayers as i32);
    assert_eq!(st.to_act, None);
    assert_code(
        client
            .submit_action(authed(
                &host,
                submit(&id, place_worker(pb::MedurisGood::Wood), Some(0), ""),
            ))
            .await,
        Code::FailedPrecondition,
        "has not started",
    );
    let legal = druids_tests::legal(&mut client, &id, &host, false)
        .await
        .unwrap();
    assert!(legal.actions.is_empty(), "nobody may act before the start");
    assert_code(
        client
            .join_game(pb::JoinGameRequest {
                game_id: id.clone(),
                seat: Some(0),
                name: "x".into(),
                ..Default::default()
            })
            .await,
        Code::AlreadyExists,
        "seat 0",
    );
    assert_code(
        client
            .join_game(pb::JoinGameRequest {
                game_id: id.clone(),
                seat: Some(9),
                name: "x".into(),
                ..Default::default()
            })
            .await,
        Code::InvalidArgument,
        "seat 9",
    );
    let bob = client
        .join_game(pb::JoinGameRequest {
            game_id: id.clone(),
            seat: Some(2),
            name: "bob".into(),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert!(!bob.started);
    assert_eq!(bob.seat.as_ref().unwrap().seat, 2);
    let cid = client
        .join_game(pb::JoinGameRequest {
            game_id: id.clone(),
            seat: None,
            name: "cid".into(),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert!(cid.started);
    assert_eq!(cid.seat.as_ref().unwrap().seat, 1);
    assert_code(
        client
            .join_game(pb::JoinGameRequest {
                game_id: id.clone(),
                seat: None,
                name: "late".into(),
                ..Default::default()
            })
            .await,
        Code::FailedPrecondition,
        "started",
    );
    let st = state(&mut client, &id, None).await;
    assert_eq!(st.status, pb::GameStatus::Running as i32);
    let names: Vec<_> = st.seats.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["ann", "cid", "bob"]);
    assert_eq!(st.to_act, Some(0));
    // The log tells the story: the joins, the start, then the first decision.
    let mut stream = client
        .stream_events(pb::StreamEventsRequest {
            game_id: id.clone(),
            from_seq: 1,
        })
        .await
        .unwrap()
        .into_inner();
    let mut bodies = Vec::new();
    for _ in 0..st.last_seq {
        bodies.push(stream.next().await.unwrap().unwrap().body.unwrap());
    }
    let tail: Vec<_> = bodies.iter().rev().take(4).rev().cloned().collect();
    assert!(matches!(&tail[0], Body::SeatJoined(j) if j.seat == 2 && j.name == "bob"));
    assert!(matches!(&tail[1], Body::SeatJoined(j) if j.seat == 1 && j.name == "cid"));
    assert!(matches!(tail[2], Body::GameStarted(_)));
    assert!(matches!(&tail[3], Body::DecisionNeeded(d) if d.seat == 0));

    let games = client
        .list_games(pb::ListGamesRequest {
            status: pb::GameStatus::Running as i32,
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner()
        .games;
    assert_eq!(games.len(), 1);
    assert_eq!(games[0].game_id, id);
    server.stop().await;
}

#[tokio::test]
async fn a_retry_with_the_same_key_applies_nothing_twice() {
    let server = TestServer::start().await;
    let mut client = server.client().await;
    let (id, tokens) = create(&mut client, MEDURIS, 2, 5).await;
    let legal = druids_tests::legal(&mut client, &id, &tokens[0], false)
        .await
        .unwrap();
    let req = pb::SubmitActionRequest {
        game_id: id.clone(),
        choice: Some(pb::submit_action_request::Choice::LegalActionId(0)),
        expected_version: Some(legal.version),
        idempotency_key: "retry-me".into(),
    };
    let first = client
        .submit_action(authed(&tokens[0], req.clone()))
        .await
        .unwrap()
        .into_inner();
    let second = client
        .submit_action(authed(&tokens[0], req.clone()))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(first, second);
    assert_eq!(first.version, 1);
    assert!(!first.events.is_empty());
    let st = state(&mut client, &id, None).await;
    assert_eq!(st.version, 1, "the retry applied nothing");
    let workers: usize = match st.game {
        Some(pb::state_view::Game::Meduris(m)) => m.plateaus.iter().map(|p| p.workers.len()).sum(),
        _ => unreachable!(),
    };
    assert_eq!(workers, 1, "exactly one worker placed");
    // The same key from another seat is another key.
    let other = pb::SubmitActionRequest {
        expected_version: Some(1),
        ..req
    };
    client
        .submit_action(authed(&tokens[1], other))
        .await
        .unwrap();
    assert_eq!(state(&mut client, &id, None).await.version, 2);
    server.stop().await;
}

/// The snapshot is the state when `StreamEvents` is answered: a client that
/// acts as soon as the call returns still gets its action's events on the
/// stream. (They were lost when the snapshot was taken later, in the stream's
/// own task; that stalled the load bench at 1,000 games.) The service is called
/// directly, on one thread, so that the action is applied before the stream's
/// task has had a chance to run — the one ordering that matters here.
#[tokio::test]
async fn a_stream_opened_before_an_action_carries_its_events() {
    use pb::druids_service_server::DruidsService;
    let server = TestServer::start().await;
    let service = &server.service;
    let created = service
        .create_game(Request::new(pb::CreateGameRequest {
            kind: MEDURIS as i32,
            players: 2,
            seed: Some(3),
            ..Default::default()
        }))
        .await
        .unwrap()
        .into_inner();
    let id = created.game_id;
    let token = &created.seats[0].token;
    let mut stream = service
        .stream_events(Request::new(pb::StreamEventsRequest {
            game_id: id.clone(),
            from_seq: 0,
        }))
        .await
        .unwrap()
        .into_inner();
    let submit = pb::SubmitActionRequest {
        game_id: id.clone(),
        choice: Some(pb::submit_action_request::Choice::LegalActionId(0)),
        expected_version: Some(0),
        idempotency_key: String::new(),
    };
    service.submit_action(authed(token, submit)).await.unwrap();
    let snapshot = stream.next().await.unwrap().unwrap();
    assert!(matches!(snapshot.body, Some(Body::Snapshot(_))));
    assert_eq!(snapshot.version, 0, "the snapshot predates the action");
    // The pending decision's event follows the snapshot, numbered after it.
    let pending = stream.next().await.unwrap().unwrap();
    assert!(matches!(pending.body, Some(Body::DecisionNeeded(_))));
    assert_eq!(pending.seq, snapshot.seq + 1);
    let next = tokio::time::timeout(std::time::Duration::from_secs(60), stream.next())
        .await
        .expect("the action's events arrive")
        .unwrap()
        .unwrap();
    assert_eq!(next.seq, pending.seq + 1);
    assert_eq!(next.version, 1, "an event of the action");
    server.stop().await;
}

#[tokio::test]
async fn streams_resume_from_any_sequence_number() {
    let server = TestServer::start().await;
    let mut client = server.client().await;
    let (id, tokens) = create(&mut client, MEDURIS, 3, 21).await;
    play_random(&mut client, &id, &tokens, &mut Lcg(5), 40)
        .await
        .unwrap();
    // A seat reads part of its stream, disconnects, and resumes.
    let mut stream = client
        .stream_events(authed(
            &tokens[1],
            pb::StreamEventsRequest {
                game_id: id.clone(),
                from_seq: 1,
            },
        ))
        .await
        .unwrap()
        .into_inner();
    let mut seen = Vec::new();
    for _ in 0..25 {
        seen.push(stream.next().await.unwrap().unwrap());
    }
    drop(stream);
    // More happens while it is away.
    play_random(&mut client, &id, &tokens, &mut Lcg(6), 30)
        .await
        .unwrap();
    let last_seq = state(&mut client, &id, None).await.last_seq;
    let mut resumed = client
        .stream_events(authed(
            &tokens[1],
            pb::StreamEventsRequest {
                game_id: id.clone(),
                from_seq: seen.last().unwrap().seq + 1,
            },
        ))
        .await
        .unwrap()
        .into_inner();
    while seen.last().unwrap().seq < last_seq {
        seen.push(resumed.next().await.unwrap().unwrap());
    }
    let mut full = client
        .stream_events(authed(
            &tokens[1],
            pb::StreamEventsRequest {
                game_id: id.clone(),
                from_seq: 1,
            },
        ))
        .await
        .unwrap()
        .into_inner();
    let mut whole = Vec::new();
    while whole.len() < seen.len() {
        whole.push(full.next().await.unwrap().unwrap());
    }
    assert_eq!(seen, whole, "resuming loses and repeats nothing");
    assert_code(
        client
            .stream_events(pb::StreamEventsRequest {
                game_id: id.clone(),
                from_seq: last_seq + 2,
            })
            .await,
        Code::InvalidArgument,
        "from_seq",
    );

    // A live stream starts with a snapshot and then follows the game.
    let mut live = client
        .stream_events(pb::StreamEventsRequest {
            game_id: id.clone(),
            from_seq: 0,
        })
        .await
        .unwrap()
        .into_inner();
    let first = live.next().await.unwrap().unwrap();
    let Some(Body::Snapshot(snap)) = first.body else {
        panic!("a stream from 0 starts with a snapshot");
    };
    // The pending decision's DecisionNeeded is the last event; the snapshot
    // is numbered as the one before it (the state is the same), and the
    // DecisionNeeded follows with its own seq.
    assert_eq!(first.seq, last_seq - 1);
    assert_eq!(
        snap.state.unwrap().version,
        state(&mut client, &id, None).await.version
    );
    let pending = live.next().await.unwrap().unwrap();
    assert!(matches!(pending.body, Some(Body::DecisionNeeded(_))));
    assert_eq!(pending.seq, last_seq);
    play_random(&mut client, &id, &tokens, &mut Lcg(7), 1)
        .await
        .unwrap();
    let next = live.next().await.unwrap().unwrap();
    assert_eq!(next.seq, last_seq + 1);
    server.stop().await;
}

/// Goods of every seat in a Meduris view, `None` where hidden.
fn goods_shown(view: &pb::StateView) -> Vec<Option<pb::MedurisGoods>> {
    match &view.game {
        Some(pb::state_view::Game::Meduris(m)) => m.seats.iter().map(|s| s.goods).collect(),
        _ => panic!("not a Meduris view"),
    }
}

#[tokio::test]
async fn a_spectator_never_sees_a_seats_goods() {
    let server = TestServer::start().await;
    let mut client = server.client().await;
    let (id, tokens) = create(&mut client, MEDURIS, 4, 33).await;
    let mut spectator = client
        .stream_events(pb::StreamEventsRequest {
            game_id: id.clone(),
            from_seq: 0,
        })
        .await
        .unwrap()
        .into_inner();
    let mut rng = Lcg(9);
    loop {
        let spect = state(&mut client, &id, None).await;
        if spect.to_act.is_none() {
            break;
        }
        assert!(
            goods_shown(&spect).iter().all(Option::is_none),
            "spectator view shows goods"
        );
        if spect.version % 25 == 0 {
            for (seat, t) in tokens.iter().enumerate() {
                let mine = state(&mut client, &id, Some(t)).await;
                let shown = goods_shown(&mine);
                for (i, g) in shown.iter().enumerate() {
                    assert_eq!(
                        g.is_some(),
                        i == seat,
                        "seat {seat} sees goods of seat {i}: {g:?}"
                    );
                }
            }
        }
        play_random(&mut client, &id, &tokens, &mut rng, 1)
            .await
            .unwrap();
    }
    // The spectator's stream: the snapshot hides goods; the events never carry a
    // holding (only public gains and payments), until the final reveal.
    let mut n = 0;
    while let Some(e) = spectator.next().await {
        let e = e.unwrap();
        if let Some(Body::Snapshot(s)) = &e.body {
            assert!(
                goods_shown(s.state.as_ref().unwrap())
                    .iter()
                    .all(Option::is_none)
            );
        }
        n += 1;
    }
    assert!(n > 50);
    // Holdings stay private even once the game is over.
    let over = state(&mut client, &id, None).await;
    assert_eq!(over.status, pb::GameStatus::Finished as i32);
    assert!(goods_shown(&over).iter().all(Option::is_none));
    let mine = state(&mut client, &id, Some(&tokens[1])).await;
    let shown = goods_shown(&mine);
    assert!(shown[1].is_some() && shown[0].is_none() && shown[2].is_none() && shown[3].is_none());
    server.stop().await;
}

#[tokio::test]
async fn limits_answer_resource_exhausted() {
    let limits = Limits {
        max_games: 2,
        max_spectator_streams_per_game: 1,
        max_message_bytes: 1024,
        max_submits_per_second: 0,
        ..Limits::unthrottled()
    };
    let server = TestServer::with(
        std::sync::Arc::new(druids_server::MemoryStore::default()),
        limits,
    )
    .await;
    let mut client = server.client().await;
    let (id, _) = create(&mut client, MEDURIS, 2, 1).await;
    create(&mut client, MEDURIS, 2, 2).await;
    assert_code(
        client
            .create_game(pb::CreateGameRequest {
                kind: MEDURIS as i32,
                players: 2,
                ..Default::default()
            })
            .await,
        Code::ResourceExhausted,
        "2 games",
    );
    let _open = client
        .stream_events(pb::StreamEventsRequest {
            game_id: id.clone(),
            from_seq: 0,
        })
        .await
        .unwrap()
        .into_inner();
    assert_code(
        client
            .stream_events(pb::StreamEventsRequest {
                game_id: id.clone(),
                from_seq: 0,
            })
            .await,
        Code::ResourceExhausted,
        "streams",
    );
    let huge = pb::CreateGameRequest {
        kind: MEDURIS as i32,
        players: 2,
        seat_names: vec!["x".repeat(2000), "y".into()],
        ..Default::default()
    };
    let err = client.create_game(huge).await.unwrap_err();
    assert!(
        matches!(err.code(), Code::ResourceExhausted | Code::OutOfRange),
        "oversized message: {err:?}"
    );
    server.stop().await;
}

#[tokio::test]
async fn health_and_reflection_are_served() {
    use tonic_health::pb::health_check_response::ServingStatus;
    use tonic_health::pb::health_client::HealthClient;
    use tonic_reflection::pb::v1::ServerReflectionRequest;
    use tonic_reflection::pb::v1::server_reflection_client::ServerReflectionClient;
    use tonic_reflection::pb::v1::server_reflection_request::MessageRequest;
    use tonic_reflection::pb::v1::server_reflection_response::MessageResponse;

    let server = TestServer::start().await;
    let channel = tonic::transport::Endpoint::from_shared(server.url())
        .unwrap()
        .connect()
        .await
        .unwrap();
    let mut health = HealthClient::new(channel.clone());
    let status = health
        .check(tonic_health::pb::HealthCheckRequest {
            service: "druids.v1.DruidsService".into(),
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(status.status, ServingStatus::Serving as i32);

    let mut reflection = ServerReflectionClient::new(channel);
    let request = ServerReflectionRequest {
        host: String::new(),
        message_request: Some(MessageRequest::ListServices(String::new())),
    };
    let mut replies = reflection
        .server_reflection_info(tokio_stream::iter([request]))
        .await
        .unwrap()
        .into_inner();
    let reply = replies.next().await.unwrap().unwrap();
    let Some(MessageResponse::ListServicesResponse(list)) = reply.message_response else {
        panic!("expected a service list");
    };
    let names: Vec<_> = list.service.iter().map(|s| s.name.as_str()).collect();
    assert!(names.contains(&"druids.v1.DruidsService"), "{names:?}");
    assert!(names.contains(&"grpc.health.v1.Health"), "{names:?}");
    server.stop().await;
}

#[tokio::test]
async fn finished_games_export_replays_that_reproduce_them() {
    let server = TestServer::start().await;
    let mut client = server.client().await;
    let (id, tokens) = create(&mut client, MEDURIS, 3, 64).await;
    play_random(&mut client, &id, &tokens, &mut Lcg(8), 10)
        .await
        .unwrap();
    assert_code(
        client
            .export_replay(pb::ExportReplayRequest {
                game_id: id.clone(),
            })
            .await,
        Code::FailedPrecondition,
        "still being played",
    );
    let n = 10
        + play_random(&mut client, &id, &tokens, &mut Lcg(9), 100_000)
            .await
            .unwrap();
    let replay = client
        .export_replay(pb::ExportReplayRequest {
            game_id: id.clone(),
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(replay.actions.len(), n);
    assert_eq!(replay.seed, 64);
    let st = state(&mut client, &id, None).await;
    assert_eq!(
        druids_contract::replay::verify(&replay).unwrap(),
        st.outcome
    );
    // A file that was tampered with does not verify.
    let mut tampered = replay.clone();
    tampered.actions.truncate(n - 1);
    assert!(druids_contract::replay::verify(&tampered).is_err());
    let mut other_seed = replay;
    other_seed.seed += 1;
    assert!(druids_contract::replay::verify(&other_seed).is_err());
    server.stop().await;
}

/// Older tools (grpcurl before 1.9) speak only reflection v1alpha.
#[tokio::test]
async fn reflection_is_served_as_v1alpha_too() {
    use tonic_reflection::pb::v1alpha::ServerReflectionRequest;
    use tonic_reflection::pb::v1alpha::server_reflection_client::ServerReflectionClient;
    use tonic_reflection::pb::v1alpha::server_reflection_request::MessageRequest;
    use tonic_reflection::pb::v1alpha::server_reflection_response::MessageResponse;

    let server = TestServer::start().await;
    let channel = tonic::transport::Endpoint::from_shared(server.url())
        .unwrap()
        .connect()
        .await
        .unwrap();
    let request = ServerReflectionRequest {
        host: String::new(),
        message_request: Some(MessageRequest::ListServices(String::new())),
    };
    let mut replies = ServerReflectionClient::new(channel)
        .server_reflection_info(tokio_stream::iter([request]))
        .await
        .unwrap()
        .into_inner();
    let reply = replies.next().await.unwrap().unwrap();
    let Some(MessageResponse::ListServicesResponse(list)) = reply.message_response else {
        panic!("expected a service list");
    };
    assert!(
        list.service
            .iter()
            .any(|s| s.name == "druids.v1.DruidsService")
    );
    server.stop().await;
}
