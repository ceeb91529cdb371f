//! What a hostile client or a careful bot author relies on: secret dice, ids
//! that name exactly one action, the documented status codes and reasons for
//! every malformed request, bounded errors, and a stream a bot can follow
//! literally as the README words it.

use std::sync::Arc;
use std::time::Duration;

use druids_contract::pb;
use druids_contract::pb::druids_service_client::DruidsServiceClient;
use druids_contract::pb::game_event::Body;
use druids_server::{Limits, MemoryStore};
use druids_tests::{Lcg, TestServer, authed, create, legal, play_random, state};
use tokio_stream::StreamExt;
use tonic::transport::Channel;
use tonic::{Code, Status};
use tonic_types::StatusExt;

mod refusals;

const MEDURIS: pb::GameKind = pb::GameKind::Meduris;

/// The `ErrorInfo` reason of a refusal.
pub fn reason(status: &Status) -> String {
    status
        .get_details_error_info()
        .map(|i| {
            assert_eq!(i.domain, "druids.dev");
            i.reason
        })
        .unwrap_or_else(|| panic!("no ErrorInfo on {status:?}"))
}

/// Asserts a refusal's code and reason.
pub fn refused<T: std::fmt::Debug>(result: Result<T, Status>, code: Code, why: &str) -> Status {
    let status = result.expect_err("the request must be refused");
    assert_eq!(status.code(), code, "{status:?}");
    assert_eq!(reason(&status), why, "{status:?}");
    status
}

async fn create_unseeded(client: &mut DruidsServiceClient<Channel>) -> pb::CreateGameResponse {
    client
        .create_game(pb::CreateGameRequest {
            kind: MEDURIS as i32,
            players: 2,
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner()
}

#[tokio::test]
async fn seeds_stay_secret_until_the_replay_unless_the_creator_chose_them() {
    let server = TestServer::start().await;
    let mut client = server.client().await;
    let secret = create_unseeded(&mut client).await;
    let other = create_unseeded(&mut client).await;
    let id = secret.game_id.clone();
    let tokens: Vec<String> = secret.seats.iter().map(|s| s.token.clone()).collect();
    for token in [None, Some(tokens[0].as_str())] {
        assert!(!state(&mut client, &id, token).await.seed_chosen_by_creator);
    }
    let refusal = client
        .export_replay(pb::ExportReplayRequest {
            game_id: id.clone(),
        })
        .await;
    refused(refusal, Code::FailedPrecondition, "GAME_RUNNING");
    let (chosen, _) = create(&mut client, MEDURIS, 2, 7).await;
    assert!(
        state(&mut client, &chosen, None)
            .await
            .seed_chosen_by_creator
    );
    play_random(&mut client, &id, &tokens, &mut Lcg(3), 100_000)
        .await
        .unwrap();
    let replay = client
        .export_replay(pb::ExportReplayRequest { game_id: id })
        .await
        .unwrap()
        .into_inner();
    let tokens2: Vec<String> = other.seats.iter().map(|s| s.token.clone()).collect();
    play_random(&mut client, &other.game_id, &tokens2, &mut Lcg(4), 100_000)
        .await
        .unwrap();
    let replay2 = client
        .export_replay(pb::ExportReplayRequest {
            game_id: other.game_id,
        })
        .await
        .unwrap()
        .into_inner();
    assert_ne!(replay.seed, replay2.seed, "server seeds are random");
    assert!(druids_contract::replay::verify(&replay).is_ok());
    server.stop().await;
}

/// Submits `choice` at `version` as the seat holding `token`.
async fn submit(
    client: &mut DruidsServiceClient<Channel>,
    id: &str,
    token: &str,
    version: u64,
    choice: pb::submit_action_request::Choice,
) -> Result<pb::SubmitActionResponse, Status> {
    client
        .submit_action(authed(
            token,
            pb::SubmitActionRequest {
                game_id: id.to_owned(),
                choice: Some(choice),
                expected_version: Some(version),
                idempotency_key: String::new(),
            },
        ))
        .await
        .map(|r| r.into_inner())
}

/// Every page of the seat's legal actions.
async fn every_page(
    client: &mut DruidsServiceClient<Channel>,
    id: &str,
    token: &str,
    all_payments: bool,
    page_size: u32,
) -> Vec<pb::LegalAction> {
    let mut out = Vec::new();
    let mut page_token = String::new();
    loop {
        let page = client
            .get_legal_actions(authed(
                token,
                pb::GetLegalActionsRequest {
                    game_id: id.to_owned(),
                    all_payments,
                    page_size,
                    page_token,
                },
            ))
            .await
            .unwrap()
            .into_inner();
        assert!(page.actions.len() <= page_size as usize);
        out.extend(page.actions);
        if page.next_page_token.is_empty() {
            return out;
        }
        page_token = page.next_page_token;
    }
}

/// A 2-player Meduris game with seed 11, `prefix` random actions into it
/// (the same ones every time).
async fn position(
    client: &mut DruidsServiceClient<Channel>,
    prefix: usize,
) -> (String, Vec<String>) {
    let (id, tokens) = create(client, MEDURIS, 2, 11).await;
    play_random(client, &id, &tokens, &mut Lcg(11), prefix)
        .await
        .unwrap();
    (id, tokens)
}

#[tokio::test]
async fn a_legal_action_id_applies_exactly_the_listed_action_from_either_list() {
    let server = TestServer::start().await;
    let mut client = server.client().await;
    let mut checked_positions = 0;
    for prefix in [20, 35, 50] {
        let (id, tokens) = position(&mut client, prefix).await;
        let st = state(&mut client, &id, None).await;
        let Some(seat) = st.to_act else { continue };
        let token = tokens[seat as usize].clone();
        let default = every_page(&mut client, &id, &token, false, 1000).await;
        let full = every_page(&mut client, &id, &token, true, 7).await;
        assert!(full.len() >= default.len());
        // Ids name the same action in both lists.
        for entry in &full {
            if let Some(i) = entry.id {
                assert_eq!(entry.action, default[i as usize].action);
            }
        }
        for (i, entry) in default.iter().enumerate() {
            assert_eq!(entry.id, Some(i as u32));
        }
        // Every id, submitted at this position, applies the listed action: the
        // state after it equals the state after submitting that action itself.
        for entry in default.iter().take(12) {
            let (a, ta) = position(&mut client, prefix).await;
            let (b, tb) = position(&mut client, prefix).await;
            let by_id = pb::submit_action_request::Choice::LegalActionId(entry.id.unwrap());
            let by_action =
                pb::submit_action_request::Choice::Action(entry.action.clone().unwrap());
            submit(&mut client, &a, &ta[seat as usize], st.version, by_id)
                .await
                .unwrap();
            submit(&mut client, &b, &tb[seat as usize], st.version, by_action)
                .await
                .unwrap();
            let (mut sa, mut sb) = (
                state(&mut client, &a, None).await,
                state(&mut client, &b, None).await,
            );
            sa.game_id.clear();
            sb.game_id.clear();
            assert_eq!(sa, sb, "legal_action_id {:?}", entry.id);
        }
        checked_positions += 1;
    }
    assert!(checked_positions >= 2);
    server.stop().await;
}

#[tokio::test]
async fn page_tokens_of_another_version_or_list_are_refused() {
    let server = TestServer::start().await;
    let mut client = server.client().await;
    let (id, tokens) = create(&mut client, MEDURIS, 2, 5).await;
    let seat = state(&mut client, &id, None).await.to_act.unwrap() as usize;
    let first = client
        .get_legal_actions(authed(
            &tokens[seat],
            pb::GetLegalActionsRequest {
                game_id: id.clone(),
                page_size: 1,
                ..Default::default()
            },
        ))
        .await
        .unwrap()
        .into_inner();
    assert!(!first.next_page_token.is_empty());
    let other_list = client
        .get_legal_actions(authed(
            &tokens[seat],
            pb::GetLegalActionsRequest {
                game_id: id.clone(),
                all_payments: true,
                page_token: first.next_page_token.clone(),
                ..Default::default()
            },
        ))
        .await;
    refused(other_list, Code::InvalidArgument, "INVALID_ARGUMENT");
    play_random(&mut client, &id, &tokens, &mut Lcg(1), 1)
        .await
        .unwrap();
    let seat = state(&mut client, &id, None).await.to_act.unwrap() as usize;
    let stale = client
        .get_legal_actions(authed(
            &tokens[seat],
            pb::GetLegalActionsRequest {
                game_id: id.clone(),
                page_token: first.next_page_token,
                ..Default::default()
            },
        ))
        .await;
    refused(stale, Code::Aborted, "STALE_PAGE_TOKEN");
    server.stop().await;
}

#[tokio::test]
async fn list_games_refuses_unknown_filters_and_pages_newest_first() {
    // Creation times from a manual clock: each game a millisecond newer.
    let clock = Arc::new(druids_server::ManualClock::at(1_000_000));
    let server = TestServer::with_clock(
        Arc::new(MemoryStore::default()),
        Limits::unthrottled(),
        Arc::clone(&clock) as Arc<dyn druids_server::Clock>,
    )
    .await;
    let mut client = server.client().await;
    for (kind, status) in [(99, 0), (0, 99), (-1, 0)] {
        let r = client
            .list_games(pb::ListGamesRequest {
                kind,
                status,
                ..Default::default()
            })
            .await;
        refused(r, Code::InvalidArgument, "INVALID_ARGUMENT");
    }
    let mut ids = Vec::new();
    for seed in 0..5 {
        ids.push(create(&mut client, MEDURIS, 2, seed).await.0);
        clock.advance(1);
    }
    ids.reverse();
    let mut seen = Vec::new();
    let mut page_token = String::new();
    loop {
        let page = client
            .list_games(pb::ListGamesRequest {
                page_size: 2,
                page_token,
                ..Default::default()
            })
            .await
            .unwrap()
            .into_inner();
        assert!(page.games.len() <= 2);
        seen.extend(page.games.into_iter().map(|g| g.game_id));
        if page.next_page_token.is_empty() {
            break;
        }
        page_token = page.next_page_token;
    }
    assert_eq!(seen, ids);
    server.stop().await;
}

#[tokio::test]
async fn client_input_is_never_echoed_at_length() {
    let server = TestServer::start().await;
    let mut client = server.client().await;
    let long = "g".repeat(60_000);
    let err = client
        .get_state(pb::GetStateRequest { game_id: long })
        .await
        .unwrap_err();
    // Longer than any game's id: refused before any lookup.
    assert_eq!(err.code(), Code::InvalidArgument);
    assert!(err.message().len() < 200, "{} bytes", err.message().len());
    assert_eq!(reason(&err), "INVALID_ARGUMENT");
    // As long as an id may be, unknown: not found, quoted clipped.
    let err = client
        .get_state(pb::GetStateRequest {
            game_id: "g".repeat(64),
        })
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::NotFound);
    assert!(err.message().len() < 200, "{} bytes", err.message().len());
    assert_eq!(reason(&err), "GAME_NOT_FOUND");
    server.stop().await;
}

/// A bot written from the README's words: "open StreamEvents from 0; act when
/// a DecisionNeeded names your seat" — GetLegalActions, then SubmitAction with
/// an entry's legal_action_id, the response's version and a fresh key.
async fn literal_bot(url: String, id: String, token: String, seat: u32) -> Option<pb::Outcome> {
    let mut client = DruidsServiceClient::connect(url).await.unwrap();
    let mut stream = client
        .stream_events(authed(
            &token,
            pb::StreamEventsRequest {
                game_id: id.clone(),
                from_seq: 0,
            },
        ))
        .await
        .unwrap()
        .into_inner();
    let mut key = 0;
    while let Some(event) = stream.next().await {
        match event.unwrap().body {
            Some(Body::DecisionNeeded(d)) if d.seat == seat => {
                let legal = legal(&mut client, &id, &token, false).await.unwrap();
                if legal.actions.is_empty() {
                    continue;
                }
                key += 1;
                let _ = client
                    .submit_action(authed(
                        &token,
                        pb::SubmitActionRequest {
                            game_id: id.clone(),
                            choice: Some(pb::submit_action_request::Choice::LegalActionId(
                                legal.actions[0].id.unwrap(),
                            )),
                            expected_version: Some(legal.version),
                            idempotency_key: format!("{seat}-{key}"),
                        },
                    ))
                    .await;
            }
            Some(Body::GameFinished(f)) => return f.outcome,
            _ => {}
        }
    }
    None
}

#[tokio::test]
async fn a_bot_following_the_readme_literally_finishes_its_game() {
    let server = TestServer::start().await;
    let mut client = server.client().await;
    for kind in [pb::GameKind::Meduris, pb::GameKind::Dolmen] {
        let (id, tokens) = create(&mut client, kind, 2, 3).await;
        // The first decision is pending before any stream is open.
        assert!(state(&mut client, &id, None).await.to_act.is_some());
        let bots: Vec<_> = tokens
            .iter()
            .enumerate()
            .map(|(seat, t)| {
                tokio::spawn(literal_bot(
                    server.url(),
                    id.clone(),
                    t.clone(),
                    seat as u32,
                ))
            })
            .collect();
        for bot in bots {
            let outcome = tokio::time::timeout(Duration::from_secs(120), bot)
                .await
                .expect("the literal bot does not hang")
                .unwrap();
            assert!(outcome.is_some(), "{kind:?}: the game finished");
        }
    }
    server.stop().await;
}

#[tokio::test]
async fn the_stream_resends_the_pending_decision_after_the_snapshot() {
    let server = TestServer::start().await;
    let mut client = server.client().await;
    let (id, tokens) = create(&mut client, MEDURIS, 2, 9).await;
    play_random(&mut client, &id, &tokens, &mut Lcg(9), 5)
        .await
        .unwrap();
    let st = state(&mut client, &id, None).await;
    let mut stream = client
        .stream_events(pb::StreamEventsRequest {
            game_id: id.clone(),
            from_seq: 0,
        })
        .await
        .unwrap()
        .into_inner();
    let snapshot = stream.next().await.unwrap().unwrap();
    assert!(matches!(snapshot.body, Some(Body::Snapshot(_))));
    let pending = stream.next().await.unwrap().unwrap();
    let Some(Body::DecisionNeeded(d)) = pending.body else {
        panic!("expected the pending DecisionNeeded, got {pending:?}");
    };
    assert_eq!(Some(d.seat), st.to_act);
    assert_eq!(pending.version, st.version);
    // The snapshot is numbered just before the pending decision, which
    // follows with its own seq: a stream's seqs only grow.
    assert_eq!(pending.seq, snapshot.seq + 1);
    server.stop().await;
}

#[tokio::test]
async fn a_game_can_start_from_a_replay_prefix() {
    let server = TestServer::start().await;
    let mut client = server.client().await;
    for kind in [pb::GameKind::Meduris, pb::GameKind::Dolmen] {
        let (id, tokens) = create(&mut client, kind, 3, 31).await;
        play_random(&mut client, &id, &tokens, &mut Lcg(31), 30)
            .await
            .unwrap();
        let mut at_30 = state(&mut client, &id, None).await;
        play_random(&mut client, &id, &tokens, &mut Lcg(32), 100_000)
            .await
            .unwrap();
        let replay = client
            .export_replay(pb::ExportReplayRequest { game_id: id })
            .await
            .unwrap()
            .into_inner();
        let from = |actions| pb::CreateGameRequest {
            start_from: Some(pb::StartFrom {
                replay: Some(replay.clone()),
                actions,
            }),
            ..Default::default()
        };
        let started = client.create_game(from(30)).await.unwrap().into_inner();
        let mut copy = state(&mut client, &started.game_id, None).await;
        assert!(copy.seed_chosen_by_creator);
        copy.game_id.clear();
        at_30.game_id.clear();
        assert_eq!(copy, at_30, "{kind:?}: the same position");
        // The copy plays on.
        let tokens: Vec<String> = started.seats.iter().map(|s| s.token.clone()).collect();
        play_random(&mut client, &started.game_id, &tokens, &mut Lcg(33), 5)
            .await
            .unwrap();
        // Bad prefixes create nothing.
        let before = client
            .list_games(pb::ListGamesRequest::default())
            .await
            .unwrap()
            .into_inner()
            .games
            .len();
        refused(
            client.create_game(from(100_000)).await,
            Code::InvalidArgument,
            "INVALID_ARGUMENT",
        );
        let mut broken = from(30);
        let start = broken.start_from.as_mut().unwrap();
        let r = start.replay.as_mut().unwrap();
        r.actions.swap(10, 11);
        refused(
            client.create_game(broken).await,
            Code::InvalidArgument,
            "INVALID_ARGUMENT",
        );
        let mut open = from(30);
        open.open_seats = vec![1];
        refused(
            client.create_game(open).await,
            Code::InvalidArgument,
            "INVALID_ARGUMENT",
        );
        let after = client
            .list_games(pb::ListGamesRequest::default())
            .await
            .unwrap()
            .into_inner()
            .games
            .len();
        assert_eq!(before, after);
    }
    server.stop().await;
}

#[tokio::test]
async fn the_clocks_actions_never_show_another_seats_dolmen_value() {
    let (server, clock) = TestServer::on_manual_clock(1_000_000).await;
    let mut client = server.client().await;
    let created = client
        .create_game(pb::CreateGameRequest {
            kind: pb::GameKind::Dolmen as i32,
            players: 3,
            options: Some(pb::GameOptions {
                decision_ms: Some(1000),
                autopilot_after: Some(1),
                ..Default::default()
            }),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    let id = created.game_id;
    let tokens: Vec<String> = created.seats.iter().map(|s| s.token.clone()).collect();
    // Every seat is silent: the clock, then the autopilot, plays the game.
    for _ in 0..10_000 {
        if state(&mut client, &id, None).await.status == pb::GameStatus::Finished as i32 {
            break;
        }
        clock.advance(2_000);
        server.service.expire_due();
    }
    assert_eq!(
        state(&mut client, &id, None).await.status,
        pb::GameStatus::Finished as i32
    );
    let mut placed_by_server = 0;
    let viewers: Vec<Option<usize>> = vec![None, Some(0), Some(1), Some(2)];
    for viewer in viewers {
        let token = viewer.map(|s| tokens[s].as_str());
        for event in druids_tests::all_events(&mut client, &id, token).await {
            let Some(Body::TimedOut(t)) = event.body else {
                continue;
            };
            let Some(pb::action::Game::Dolmen(d)) = t.action.and_then(|a| a.game) else {
                continue;
            };
            if let Some(pb::dolmen_action::Kind::PlaceDolmen(p)) = d.kind {
                placed_by_server += 1;
                let own = viewer == Some(t.seat as usize);
                assert_eq!(
                    p.value.is_some(),
                    own,
                    "seq {}: a dolmen's value is shown to its owner only (viewer {viewer:?})",
                    event.seq
                );
                assert!(!event.description.is_empty());
            }
        }
    }
    assert!(
        placed_by_server > 0,
        "the server placed dolmens for the seats"
    );
    server.stop().await;
}
