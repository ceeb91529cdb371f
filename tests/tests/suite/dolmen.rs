//! Die Dolmengötter through the contract, over real TCP: complete games for
//! every player count (and their replays), hidden dolmen values never reaching anyone but their
//! owner before they score, errors that change nothing, and a restart that
//! carries a game on from the durable store.

use druids_contract::pb;
use druids_contract::pb::game_event::Body;
use druids_contract::pb::{dolmen_action as act, dolmen_event as ev};
use druids_server::Limits;
use druids_tests::{Lcg, TestServer, all_events, authed, create, legal, play_random, state};
use tonic::Code;

const DOLMEN: pb::GameKind = pb::GameKind::Dolmen;

fn dolmen_view(view: &pb::StateView) -> &pb::DolmenView {
    match &view.game {
        Some(pb::state_view::Game::Dolmen(d)) => d,
        other => panic!("not a Die Dolmengötter view: {other:?}"),
    }
}

fn action(kind: act::Kind) -> pb::Action {
    pb::Action {
        game: Some(pb::action::Game::Dolmen(pb::DolmenAction {
            kind: Some(kind),
        })),
    }
}

fn submit(game_id: &str, action: pb::Action, version: u64) -> pb::SubmitActionRequest {
    pb::SubmitActionRequest {
        game_id: game_id.to_owned(),
        choice: Some(pb::submit_action_request::Choice::Action(action)),
        expected_version: Some(version),
        idempotency_key: String::new(),
    }
}

fn dolmen_events(events: &[pb::GameEvent]) -> impl Iterator<Item = &ev::Kind> {
    events.iter().filter_map(|e| match &e.body {
        Some(Body::Dolmen(d)) => d.kind.as_ref(),
        _ => None,
    })
}

#[tokio::test]
async fn complete_dolmen_games_for_every_player_count() {
    let server = TestServer::start().await;
    let mut client = server.client().await;
    for players in 2..=5u32 {
        let (id, tokens) = create(&mut client, DOLMEN, players, 70 + players as u64).await;
        let n = play_random(&mut client, &id, &tokens, &mut Lcg(players as u64), 100_000)
            .await
            .unwrap();
        assert!(
            n > 3 * players as usize,
            "druid placement alone takes {} decisions, the game took {n}",
            3 * players
        );
        let st = state(&mut client, &id, None).await;
        assert_eq!(st.status, pb::GameStatus::Finished as i32);
        assert_eq!(st.version, n as u64);
        let outcome = st.outcome.clone().expect("outcome");
        assert_eq!(outcome.scores.len(), players as usize);
        assert!(!outcome.winners.is_empty());
        assert!(!outcome.by_safeguard, "random games end by the rules");
        // Every viewer sees the same result, and the final scores in the view.
        let view = dolmen_view(&st);
        let scores: Vec<i32> = view.seats.iter().map(|s| s.score).collect();
        assert_eq!(scores, outcome.scores);
        for t in &tokens {
            let mine = state(&mut client, &id, Some(t)).await;
            assert_eq!(mine.outcome.as_ref(), Some(&outcome));
        }
        let events = all_events(&mut client, &id, None).await;
        assert_eq!(
            events.len() as u64,
            st.last_seq,
            "a spectator sees every event"
        );
        match events.last().and_then(|e| e.body.clone()) {
            Some(Body::GameFinished(f)) => assert_eq!(f.outcome.unwrap(), outcome),
            other => panic!("the log should end with GameFinished, not {other:?}"),
        }
        let ended = dolmen_events(&events)
            .filter(|k| matches!(k, ev::Kind::GameEnded(_)))
            .count();
        assert_eq!(ended, 1);
        // Its replay re-runs to the same result; a truncated one does not.
        let replay = client
            .export_replay(pb::ExportReplayRequest {
                game_id: id.clone(),
            })
            .await
            .unwrap()
            .into_inner();
        assert_eq!(replay.kind, DOLMEN as i32);
        assert_eq!(replay.actions.len(), n);
        assert_eq!(
            druids_contract::replay::verify(&replay).unwrap(),
            Some(outcome)
        );
        let mut truncated = replay;
        truncated.actions.pop();
        assert!(druids_contract::replay::verify(&truncated).is_err());
    }
    server.stop().await;
}

/// A dolmen's value reaches its owner only, until the dolmen scores — in views,
/// in the spectator's stream and in the other seats' streams.
#[tokio::test]
async fn a_spectator_never_sees_a_hidden_dolmen_value() {
    let server = TestServer::start().await;
    let mut client = server.client().await;
    let (id, tokens) = create(&mut client, DOLMEN, 3, 5).await;
    let mut rng = Lcg(21);
    let mut hidden_in_stacks_seen = 0;
    loop {
        let spect = state(&mut client, &id, None).await;
        if spect.to_act.is_none() {
            break;
        }
        let v = dolmen_view(&spect);
        assert!(v.seats.iter().all(|s| s.hand.is_none()), "a hand shown");
        for c in &v.circles {
            for piece in &c.stack {
                assert_eq!(piece.value, None, "a dolmen value shown to a spectator");
                hidden_in_stacks_seen += 1;
            }
        }
        if spect.version % 10 == 0 {
            for (seat, t) in tokens.iter().enumerate() {
                let mine = state(&mut client, &id, Some(t)).await;
                let v = dolmen_view(&mine);
                for s in &v.seats {
                    assert_eq!(s.hand.is_some(), s.seat as usize == seat);
                }
                for c in &v.circles {
                    for piece in &c.stack {
                        assert_eq!(
                            piece.value.is_some(),
                            piece.seat as usize == seat,
                            "seat {seat} sees the value of seat {}'s dolmen",
                            piece.seat
                        );
                    }
                }
            }
        }
        play_random(&mut client, &id, &tokens, &mut rng, 1)
            .await
            .unwrap();
    }
    assert!(hidden_in_stacks_seen > 0, "the game placed no dolmen");

    let spectator = all_events(&mut client, &id, None).await;
    let placed = dolmen_events(&spectator)
        .filter(|k| matches!(k, ev::Kind::DolmenPlaced(_)))
        .count();
    assert!(placed > 0);
    for k in dolmen_events(&spectator) {
        if let ev::Kind::DolmenPlaced(p) = k {
            assert_eq!(p.value, None, "the spectator's stream shows a value");
        }
    }
    // Scored dolmens are public: the spectator learns every placed dolmen's
    // value by the end (every dolmen on the board scores).
    let scored = dolmen_events(&spectator)
        .filter(|k| matches!(k, ev::Kind::DolmenScored(s) if (1..=4).contains(&s.value)))
        .count();
    assert_eq!(scored, placed, "every placed dolmen scores by the end");
    for (seat, t) in tokens.iter().enumerate() {
        let mine = all_events(&mut client, &id, Some(t)).await;
        assert_eq!(mine.len(), spectator.len(), "nothing is hidden whole");
        for k in dolmen_events(&mine) {
            if let ev::Kind::DolmenPlaced(p) = k {
                assert_eq!(
                    p.value.is_some(),
                    p.seat as usize == seat,
                    "seat {seat}'s stream and a dolmen of seat {}",
                    p.seat
                );
            }
        }
    }
    server.stop().await;
}

#[tokio::test]
async fn bad_dolmen_actions_are_refused_and_change_nothing() {
    let server = TestServer::start().await;
    let mut client = server.client().await;
    let (id, tokens) = create(&mut client, DOLMEN, 2, 8).await;
    // Seat 0 places the first druid; then the site is taken.
    let first = legal(&mut client, &id, &tokens[0], false).await.unwrap();
    let taken = match first.actions[0].action.as_ref().unwrap().game.as_ref() {
        Some(pb::action::Game::Dolmen(pb::DolmenAction {
            kind: Some(act::Kind::PlaceDruid(p)),
        })) => p.site,
        other => panic!("the first decision places a druid, not {other:?}"),
    };
    client
        .submit_action(authed(
            &tokens[0],
            submit(
                &id,
                action(act::Kind::PlaceDruid(act::PlaceDruid { site: taken })),
                0,
            ),
        ))
        .await
        .unwrap();
    let before = (
        state(&mut client, &id, None).await,
        state(&mut client, &id, Some(&tokens[1])).await,
    );
    let cases = [
        (
            action(act::Kind::PlaceDruid(act::PlaceDruid { site: taken })),
            Code::FailedPrecondition,
            "",
        ),
        (
            action(act::Kind::PlaceDruid(act::PlaceDruid { site: 99 })),
            Code::InvalidArgument,
            "place_druid.site",
        ),
        (
            action(act::Kind::Walk(act::Walk {
                from_site: 0,
                direction: 9,
            })),
            Code::InvalidArgument,
            "walk.direction",
        ),
        (
            action(act::Kind::PlaceStone(act::PlaceStone {})),
            Code::FailedPrecondition,
            "",
        ),
        (
            pb::Action {
                game: Some(pb::action::Game::Meduris(pb::MedurisAction::default())),
            },
            Code::InvalidArgument,
            "dolmen",
        ),
    ];
    for (a, code, needle) in cases {
        let result = client
            .submit_action(authed(&tokens[1], submit(&id, a.clone(), 1)))
            .await;
        match result {
            Ok(r) => panic!("{a:?} was accepted: {r:?}"),
            Err(status) => {
                assert_eq!(status.code(), code, "{a:?}: {}", status.message());
                assert!(status.message().contains(needle), "{}", status.message());
                assert!(!status.message().is_empty());
            }
        }
    }
    // Seat 0 is not to act now.
    let not_yours = client
        .submit_action(authed(
            &tokens[0],
            submit(
                &id,
                action(act::Kind::PlaceDruid(act::PlaceDruid { site: 40 })),
                1,
            ),
        ))
        .await
        .unwrap_err();
    assert_eq!(not_yours.code(), Code::FailedPrecondition);
    let after = (
        state(&mut client, &id, None).await,
        state(&mut client, &id, Some(&tokens[1])).await,
    );
    assert_eq!(before, after, "rejected actions changed the game");
    server.stop().await;
}

crate::stores::on_each_store!(a_restarted_server_carries_on_a_dolmen_game);

async fn a_restarted_server_carries_on_a_dolmen_game(backend: crate::stores::Backend) {
    let db = crate::stores::TestDb::new(backend, "dolmen_restart");
    let server = TestServer::with(db.open(), Limits::unthrottled()).await;
    let mut client = server.client().await;
    let (id, tokens) = create(&mut client, DOLMEN, 4, 12).await;
    let mut rng = Lcg(3);
    play_random(&mut client, &id, &tokens, &mut rng, 60)
        .await
        .unwrap();
    let mut views = vec![state(&mut client, &id, None).await];
    for t in &tokens {
        views.push(state(&mut client, &id, Some(t)).await);
    }
    server.stop().await;

    let server = TestServer::with(db.open(), Limits::unthrottled()).await;
    let mut client = server.client().await;
    assert_eq!(state(&mut client, &id, None).await, views[0]);
    for (t, view) in tokens.iter().zip(&views[1..]) {
        assert_eq!(&state(&mut client, &id, Some(t)).await, view);
    }
    play_random(&mut client, &id, &tokens, &mut rng, 100_000)
        .await
        .unwrap();
    let st = state(&mut client, &id, None).await;
    assert_eq!(st.status, pb::GameStatus::Finished as i32);
    server.stop().await;
}
