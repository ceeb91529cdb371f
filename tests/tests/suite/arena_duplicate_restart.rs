//! A restart during a duplicate match resumes it exactly where it was
//! (issue 27): a real `druids-server` process, SIGKILLed while every game of
//! a rated two-player Meduris match is in play and started again on the same
//! database and port, finishes the match with its own two games, no extra
//! one, and ranks the bots by those two games' total scores.

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use druids_contract::pb;
use druids_contract::pb::arena_service_client::ArenaServiceClient;
use druids_contract::pb::druids_service_client::DruidsServiceClient;
use druids_tests::process::ServerProcess;

use crate::arena::{bot_events, follow_events, register};
use crate::stores::{Backend, TestDb, on_each_store_threaded};

on_each_store_threaded!(a_duplicate_match_resumes_where_it_was_after_a_sigkill);

/// `druids-server` on `db`, listening on `listen`: an arena where every bot
/// is established and no house bot joins.
fn start(db: &TestDb, listen: &str, log: &std::path::Path) -> ServerProcess {
    ServerProcess::start(
        &[
            "--db",
            db.db_arg(),
            "--listen",
            listen,
            "--http-listen",
            "off",
            "--house-bots",
            "none",
            "--arena-established-matches",
            "0",
            "--arena-established-opponents",
            "0",
        ],
        &[],
        log,
    )
}

/// The games of match `id` the bot's events name, by index.
fn games_of(events: &[pb::BotEvent], id: &str) -> BTreeMap<u32, String> {
    events
        .iter()
        .filter_map(|e| match &e.event {
            Some(pb::bot_event::Event::GameStarted(g)) if g.match_id == id => {
                Some((g.index, g.game_id.clone()))
            }
            _ => None,
        })
        .collect()
}

async fn a_duplicate_match_resumes_where_it_was_after_a_sigkill(backend: Backend) {
    let db = TestDb::new(backend, "duplicate_restart");
    let log = std::env::temp_dir().join(format!(
        "druids-duplicate-restart-{backend:?}-{}.log",
        std::process::id()
    ));
    let server = start(&db, "127.0.0.1:0", &log);
    let addr = server.addr.clone();
    let url = server.url();
    let mut arena = ArenaServiceClient::connect(url.clone()).await.unwrap();
    let mut keys = Vec::new();
    for name in ["alpha", "beta"] {
        keys.push(register(&mut arena, name).await.1);
    }
    // Each bot plays every game its event log names, across the restart;
    // its seek only forms the match (its stream dies with the process).
    let players: Vec<_> = keys
        .iter()
        .enumerate()
        .map(|(i, key)| tokio::spawn(follow_events(url.clone(), key.clone(), 7 + i as u64)))
        .collect();
    let mut seeks = Vec::new();
    for key in &keys {
        let seek = pb::SeekRequest {
            kind: pb::GameKind::Meduris as i32,
            min_players: 2,
            max_players: 2,
            rated: true,
        };
        let mut stream = arena
            .seek(druids_tests::authed(key, seek))
            .await
            .expect("seek")
            .into_inner();
        seeks.push(tokio::spawn(async move {
            while let Ok(Some(_)) = druids_tests::heartbeats::next_event(&mut stream).await {}
        }));
    }
    let started = bot_events(&mut arena, &keys[0], 1, |e| {
        e.iter().any(
            |e| matches!(&e.event, Some(pb::bot_event::Event::MatchStarted(m)) if m.games == 2),
        ) && e
            .iter()
            .filter(|e| matches!(e.event, Some(pb::bot_event::Event::GameStarted(_))))
            .count()
            == 2
    })
    .await;
    let match_id = started
        .iter()
        .find_map(|e| match &e.event {
            Some(pb::bot_event::Event::MatchStarted(m)) => Some(m.match_id.clone()),
            _ => None,
        })
        .unwrap();
    let games = games_of(&started, &match_id);
    assert_eq!(games.keys().copied().collect::<Vec<_>>(), [0, 1]);

    // Kill it while its last game is well under way (and, rotations being
    // played at once, the first one too).
    let mut client = DruidsServiceClient::connect(url.clone()).await.unwrap();
    for (&index, id) in &games {
        let mut polls = 0;
        loop {
            let view = druids_tests::state(&mut client, id, None).await;
            if index == 1 {
                assert_eq!(view.status(), pb::GameStatus::Running, "{view:?}");
            }
            if view.version >= 10 {
                break;
            }
            polls += 1;
            assert!(polls < 6000, "game {id} does not get going");
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
    server.kill();
    for s in seeks {
        let _ = s.await;
    }
    let server = start(&db, &addr, &log);
    let mut arena = ArenaServiceClient::connect(server.url()).await.unwrap();
    let done = bot_events(&mut arena, &keys[0], 1, |e| {
        e.iter()
            .any(|e| matches!(e.event, Some(pb::bot_event::Event::MatchFinished(_))))
    })
    .await;
    for p in players {
        p.abort();
    }

    // Its own two games, no other.
    let after = games_of(&done, &match_id);
    assert_eq!(after, games, "{done:?}");
    let finished: BTreeSet<(u32, String)> = done
        .iter()
        .filter_map(|e| match &e.event {
            Some(pb::bot_event::Event::GameFinished(g)) if g.match_id == match_id => {
                Some((g.index, g.game_id.clone()))
            }
            _ => None,
        })
        .collect();
    assert_eq!(finished, games.into_iter().collect(), "{done:?}");
    // Ranked on the total scores of those games.
    let mut client = DruidsServiceClient::connect(server.url()).await.unwrap();
    let mut totals: BTreeMap<String, i64> = BTreeMap::new();
    for id in after.values() {
        let view = druids_tests::state(&mut client, id, None).await;
        assert_eq!(view.status(), pb::GameStatus::Finished, "{view:?}");
        let outcome = view.outcome.clone().unwrap();
        for (seat, score) in view.seats.iter().zip(&outcome.scores) {
            *totals.entry(seat.name.clone()).or_default() += i64::from(*score);
        }
    }
    let result = done
        .iter()
        .find_map(|e| match &e.event {
            Some(pb::bot_event::Event::MatchFinished(m)) => Some(m.clone()),
            _ => None,
        })
        .unwrap();
    assert_eq!(result.match_id, match_id);
    let placed: BTreeMap<String, i64> = result
        .placements
        .iter()
        .map(|p| (p.bot.clone().unwrap().name, p.score))
        .collect();
    assert_eq!(placed, totals, "{result:?}");
    server.kill();
    let _ = std::fs::remove_file(&log);
}
