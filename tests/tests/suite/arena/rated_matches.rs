//! Rated duplicate matches by matchmaking alone: ratings, leaderboard,
//! profiles and event logs move as the results say, keys rotate, and a
//! restart loses nothing (SQLite and PostgreSQL).

use druids_contract::pb;
use druids_tests::{TestServer, authed};
use tonic::Code;

use super::{arena, bot_events, limits, meduris_seek, register, seek_and_play};
use crate::stores::{Backend, TestDb, on_each_store_threaded};

on_each_store_threaded!(rated_duplicate_matches_rate_their_bots_and_survive_a_restart);

async fn rated_duplicate_matches_rate_their_bots_and_survive_a_restart(backend: Backend) {
    let db = TestDb::new(backend, "arena_restart");
    let server = TestServer::with(db.open(), limits()).await;
    let mut arena_client = arena(&server).await;
    let mut bots = Vec::new();
    for name in ["alpha", "beta"] {
        bots.push(register(&mut arena_client, name).await);
    }
    // Two rated two-player Meduris matches: duplicate, two games each.
    let mut results = Vec::new();
    for round in 0..2u64 {
        let players: Vec<_> = bots
            .iter()
            .enumerate()
            .map(|(i, (_, key))| {
                tokio::spawn(seek_and_play(
                    server.url(),
                    key.clone(),
                    meduris_seek(2),
                    10 * round + i as u64,
                ))
            })
            .collect();
        for p in players {
            results.push(p.await.unwrap());
        }
    }
    for r in &results {
        assert_eq!(r.placements.len(), 2, "{r:?}");
    }
    let board = arena_client
        .get_leaderboard(pb::GetLeaderboardRequest {
            kind: pb::GameKind::Meduris as i32,
            players: 2,
            ..Default::default()
        })
        .await
        .expect("leaderboard")
        .into_inner();
    assert_eq!(board.entries.len(), 2, "{board:?}");
    assert!(board.entries.iter().all(|e| e.matches == 2), "{board:?}");
    let profile = arena_client
        .get_bot(pb::GetBotRequest {
            bot_id: bots[0].0.clone(),
        })
        .await
        .expect("profile")
        .into_inner();
    assert_eq!(profile.recent_matches.len(), 2);
    assert_eq!(profile.ratings.len(), 1);

    // The event log: from seq 1, and resumed from the middle.
    let events = bot_events(&mut arena_client, &bots[0].1, 1, |e| e.len() >= 14).await;
    let kinds: Vec<&str> = events.iter().map(|e| event_name(e)).collect();
    // A duplicate match's games are played at once.
    let expected = [
        "match",
        "game",
        "game",
        "game finished",
        "game finished",
        "finished",
        "rating",
    ];
    assert_eq!(kinds, [expected, expected].concat(), "{events:?}");
    let seqs: Vec<u64> = events.iter().map(|e| e.seq).collect();
    assert_eq!(seqs, (1..=events.len() as u64).collect::<Vec<_>>());
    let tail = bot_events(&mut arena_client, &bots[0].1, 4, |e| {
        e.len() >= events.len() - 3
    })
    .await;
    assert_eq!(tail, events[3..].to_vec(), "resumes from any seq");

    // A restart: the same ratings, recomputed from the stored results.
    server.stop().await;
    let server = TestServer::with(db.open(), limits()).await;
    let mut arena_client = arena(&server).await;
    let again = arena_client
        .get_leaderboard(pb::GetLeaderboardRequest {
            kind: pb::GameKind::Meduris as i32,
            players: 2,
            ..Default::default()
        })
        .await
        .expect("leaderboard")
        .into_inner();
    let ratings = |b: &pb::GetLeaderboardResponse| {
        b.entries
            .iter()
            .map(|e| {
                (
                    e.bot.clone().unwrap().bot_id,
                    e.rating.unwrap().mu,
                    e.rating.unwrap().sigma,
                )
            })
            .collect::<Vec<_>>()
    };
    assert_eq!(
        ratings(&again),
        ratings(&board),
        "the same live ratings after a restart"
    );
    let all = |e: &[pb::BotEvent]| e.len() >= events.len();
    assert_eq!(
        bot_events(&mut arena_client, &bots[0].1, 1, all).await,
        events
    );

    // Rotating a key: the new one works, the old one no longer does.
    let rotated = arena_client
        .rotate_bot_key(authed(&bots[0].1, pb::RotateBotKeyRequest::default()))
        .await
        .expect("rotate")
        .into_inner();
    let old = arena_client
        .rotate_bot_key(authed(&bots[0].1, pb::RotateBotKeyRequest::default()))
        .await
        .expect_err("the old key is gone");
    assert_eq!(old.code(), Code::Unauthenticated);
    assert_eq!(
        bot_events(&mut arena_client, &rotated.api_key, 1, all).await,
        events
    );
    server.stop().await;
}

fn event_name(e: &pb::BotEvent) -> &'static str {
    match e.event.as_ref().expect("event") {
        pb::bot_event::Event::MatchStarted(_) => "match",
        pb::bot_event::Event::GameStarted(_) => "game",
        pb::bot_event::Event::MatchFinished(_) => "finished",
        pb::bot_event::Event::RatingChanged(_) => "rating",
        pb::bot_event::Event::ChallengeReceived(_) => "challenged",
        pb::bot_event::Event::ChallengeEnded(_) => "challenge ended",
        pb::bot_event::Event::GameFinished(_) => "game finished",
        pb::bot_event::Event::Heartbeat(_) => "heartbeat",
    }
}
