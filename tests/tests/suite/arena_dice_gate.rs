//! The dice promise of duplicate matches (docs/ratings.md): no bot learns a
//! die of its game before that die is rolled in that game. The rotations of
//! a rated Meduris match share one sequence of dice; here each bot plays all
//! its games at once, records every die any of its games shows it, and at
//! every decision it is asked for checks what it knows: when its answer is
//! accepted (so the decision was pending from its `DecisionNeeded` until
//! then), no game may have shown it a die its own game has not rolled yet.
//! On a server that played the rotations one after another, game 1's first
//! decision comes with all of game 0's dice already seen.

use std::sync::{Arc, Mutex};

use druids_contract::pb;
use druids_contract::pb::druids_service_client::DruidsServiceClient;
use druids_contract::pb::game_event::Body;
use druids_contract::pb::meduris_event::Kind as Meduris;
use druids_tests::{Lcg, TestServer, authed};
use tokio::task::JoinSet;
use tonic::Code;

use crate::arena::{arena, limits, register, submit_pick};

/// What one bot knows and did across the games of its match.
#[derive(Default)]
struct Knowledge {
    /// The most dice any one of its games has shown it so far.
    dice_seen: u64,
    /// Decisions it answered (and had accepted): its game's rolls then, and
    /// the dice it had seen in any game when it decided.
    decisions: Vec<(String, u64, u64)>,
}

/// Plays `seat` of `game_id` from its event stream, at random, recording
/// every die it shows into `known`.
async fn play_recording(
    url: String,
    key: String,
    game_id: String,
    seat: u32,
    seed: u64,
    known: Arc<Mutex<Knowledge>>,
) {
    let mut client = DruidsServiceClient::connect(url).await.expect("connect");
    let mut stream = client
        .stream_events(authed(
            &key,
            pb::StreamEventsRequest {
                game_id: game_id.clone(),
                from_seq: 1,
            },
        ))
        .await
        .expect("the seat's stream")
        .into_inner();
    let mut rng = Lcg(seed);
    let mut rolled = 0u64;
    while let Some(event) = stream.message().await.expect("the stream runs to the end") {
        match event.body {
            Some(Body::Meduris(pb::MedurisEvent {
                kind: Some(Meduris::DieRolled(_)),
            })) => {
                rolled += 1;
                let mut k = known.lock().unwrap();
                k.dice_seen = k.dice_seen.max(rolled);
            }
            Some(Body::DecisionNeeded(d)) if d.seat == seat => {
                let seen = known.lock().unwrap().dice_seen;
                let legal = client
                    .get_legal_actions(authed(
                        &key,
                        pb::GetLegalActionsRequest {
                            game_id: game_id.clone(),
                            ..Default::default()
                        },
                    ))
                    .await
                    .expect("legal actions")
                    .into_inner();
                if legal.version != event.version || legal.actions.is_empty() {
                    continue;
                }
                let pick = rng.below(legal.actions.len()) as u32;
                let submitted = submit_pick(&mut client, &key, &game_id, pick, event.version).await;
                match submitted {
                    Ok(_) => known
                        .lock()
                        .unwrap()
                        .decisions
                        .push((game_id.clone(), rolled, seen)),
                    // The clock decided first: this decision proves nothing.
                    Err(s) => assert!(
                        matches!(s.code(), Code::Aborted | Code::FailedPrecondition),
                        "{s:?}"
                    ),
                }
            }
            Some(Body::GameFinished(_) | Body::GameAbandoned(_)) => return,
            _ => {}
        }
    }
}

/// Seeks a rated match and plays all its games at once, recording; the
/// match's result and what the bot knew at each decision.
async fn seek_recording(
    url: String,
    key: String,
    players: u32,
    seed: u64,
) -> (pb::MatchFinished, Knowledge) {
    let mut arena = pb::arena_service_client::ArenaServiceClient::connect(url.clone())
        .await
        .expect("connect");
    let seek = pb::SeekRequest {
        kind: pb::GameKind::Meduris as i32,
        min_players: players,
        max_players: players,
        rated: true,
    };
    let mut stream = arena
        .seek(authed(&key, seek))
        .await
        .expect("seek")
        .into_inner();
    let known = Arc::new(Mutex::new(Knowledge::default()));
    let mut games = JoinSet::new();
    loop {
        let event = druids_tests::heartbeats::next_event(&mut stream)
            .await
            .expect("seek event")
            .expect("the seek stream ends after match_finished");
        match event.event.expect("an event") {
            pb::seek_event::Event::GameStarted(g) => {
                games.spawn(play_recording(
                    url.clone(),
                    key.clone(),
                    g.game_id,
                    g.seat,
                    seed + u64::from(g.index),
                    Arc::clone(&known),
                ));
            }
            pb::seek_event::Event::MatchFinished(f) => {
                while let Some(game) = games.join_next().await {
                    game.expect("a seat played to the end");
                }
                let known = Arc::try_unwrap(known).ok().unwrap().into_inner().unwrap();
                return (f, known);
            }
            _ => {}
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn no_bot_sees_a_die_of_its_duplicate_match_before_its_own_game_rolls_it() {
    const PLAYERS: u32 = 3;
    let server = TestServer::with(Arc::new(druids_server::MemoryStore::default()), limits()).await;
    let mut arena_client = arena(&server).await;
    let mut keys = Vec::new();
    for name in ["alpha", "beta", "gamma"] {
        keys.push(register(&mut arena_client, name).await.1);
    }
    let players: Vec<_> = keys
        .iter()
        .enumerate()
        .map(|(i, key)| {
            tokio::spawn(seek_recording(
                server.url(),
                key.clone(),
                PLAYERS,
                1000 * (i as u64 + 1),
            ))
        })
        .collect();
    let mut decisions = 0;
    for p in players {
        let (finished, known) = p.await.unwrap();
        assert_eq!(finished.placements.len(), PLAYERS as usize);
        // Every game of the match was played by this bot, and each went on
        // for a while: the promise was put to the test.
        let games: std::collections::BTreeSet<&String> =
            known.decisions.iter().map(|d| &d.0).collect();
        assert_eq!(games.len(), PLAYERS as usize);
        assert!(known.dice_seen >= 10, "a game of a few rolls only");
        for (game, rolled, seen) in &known.decisions {
            assert!(
                seen <= rolled,
                "a bot deciding in game {game} after {rolled} rolls had seen {seen} dice of its match"
            );
        }
        decisions += known.decisions.len();
    }
    assert!(decisions >= 30, "{decisions} decisions");
    server.stop().await;
}
