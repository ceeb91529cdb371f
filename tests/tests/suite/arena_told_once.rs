//! What the arena's holder stored but did not tell its bots before it
//! stopped is told at the next start (or by the node taking the arena
//! over), each bot once: the bots' logs say what they were told.
//! * A game's start: the game is recorded as the match's first, then its
//!   bots are told (`game_started`), and they play it after the restart.
//! * A match's end: its result is stored first, then each bot is told
//!   (`match_finished`, `rating_changed`).
//! * A game's end: the holder tells its bots one after another
//!   (`game_finished`); one told and the other not, only the other is told.
//!
//! The node's stop is a store that takes no write after a given one; a
//! start after the next tells nothing twice.

use std::sync::Arc;

use druids_contract::pb;
use druids_contract::pb::bot_event::Event;
use druids_server::Store;
use druids_store::EventLog;
use druids_tests::TestServer;
use prost::Message;

use crate::arena::{
    Arena, arena, bot_events_until, follow_events, limits, register, seek_and_play,
};
use crate::gated_store::{Gate, Gated, GatedStore};
use crate::stores::{Backend, TestDb, on_each_store_threaded};

on_each_store_threaded!(
    a_game_recorded_but_untold_is_told_once_and_played_after_the_next_start,
    a_match_end_stored_but_untold_is_told_once_at_the_next_start,
    a_game_end_told_to_one_bot_is_told_to_the_other_at_the_next_start,
);

/// The database's store, taking no write after `after` (`gate` counts
/// that moment as done): a node killed right then.
fn stopping(backend: Backend, db: &TestDb, after: Gated, gate: Arc<Gate>) -> Arc<dyn Store> {
    match backend {
        Backend::Postgres => Arc::new(GatedStore::new(db.postgres(), gate, after)),
        _ => Arc::new(GatedStore::new(db.sqlite(), gate, after)),
    }
}

/// What bot `bot`'s stored log tells of match `id`.
#[derive(Debug, Default, PartialEq)]
struct Told {
    match_starts: usize,
    game_starts: usize,
    game_ends: usize,
    match_ends: usize,
    rating_changes: usize,
}

fn told(db: &TestDb, bot: &str, id: &str) -> Told {
    let mut told = Told::default();
    for (_, bytes) in db.open().events(EventLog::Bot, bot, 1, 100_000).unwrap() {
        match pb::BotEvent::decode(bytes.as_slice()).unwrap().event {
            Some(Event::MatchStarted(m)) if m.match_id == id => told.match_starts += 1,
            Some(Event::GameStarted(g)) if g.match_id == id => told.game_starts += 1,
            Some(Event::GameFinished(g)) if g.match_id == id => told.game_ends += 1,
            Some(Event::MatchFinished(f)) if f.match_id == id => told.match_ends += 1,
            Some(Event::RatingChanged(r)) if r.match_id == id => told.rating_changes += 1,
            _ => {}
        }
    }
    told
}

/// Told of the match's start, its one game's start and end, the match's end
/// and its rating change, once each.
const ONCE: Told = Told {
    match_starts: 1,
    game_starts: 1,
    game_ends: 1,
    match_ends: 1,
    rating_changes: 1,
};

/// A rated two-player Die Dolmengötter match (one game).
const SEEK: pb::SeekRequest = pb::SeekRequest {
    kind: pb::GameKind::Dolmen as i32,
    min_players: 2,
    max_players: 2,
    rated: true,
};

/// Starts the server on `db` again: each bot of `keys` plays the games its
/// log tells it of and reads from it the end of match `id` and its rating
/// change.
async fn restart_and_read_the_end(db: &TestDb, keys: [&str; 2], id: &str) {
    let server = TestServer::with(db.open(), limits()).await;
    let players: Vec<_> = (keys.iter().enumerate())
        .map(|(i, key)| tokio::spawn(follow_events(server.url(), key.to_string(), 10 + i as u64)))
        .collect();
    let mut a = arena(&server).await;
    for key in keys {
        let end = |e: &pb::BotEvent| match &e.event {
            Some(Event::MatchFinished(f)) if f.match_id == id => Some(f.clone()),
            _ => None,
        };
        let rating = |e: &pb::BotEvent| match &e.event {
            Some(Event::RatingChanged(r)) => r.match_id == id,
            _ => false,
        };
        let events = bot_events_until(&mut a, key, |events| {
            events.iter().any(|e| end(e).is_some()) && events.iter().any(rating)
        })
        .await;
        let end = events.iter().find_map(end).expect("the match's end");
        assert_eq!(end.placements.len(), 2, "{end:?}");
    }
    for player in players {
        player.abort();
    }
    server.stop().await;
    // Told once: one more start tells nothing again.
    TestServer::with(db.open(), limits()).await.stop().await;
}

async fn two_bots(a: &mut Arena) -> [(String, String); 2] {
    [register(a, "ada").await, register(a, "bob").await]
}

async fn a_game_recorded_but_untold_is_told_once_and_played_after_the_next_start(backend: Backend) {
    let db = TestDb::new(backend, "game_start_told");
    let gate = Arc::new(Gate::default());
    let store = stopping(backend, &db, Gated::WritesAfterMatchGame, Arc::clone(&gate));
    let server = TestServer::with(store, limits()).await;
    let [(ada, ada_key), (bob, bob_key)] = two_bots(&mut arena(&server).await).await;
    // The match is told, its game is recorded as its, and then nothing more
    // is stored: no bot's log says the game started.
    let seekers = [(&ada_key, 1), (&bob_key, 2)]
        .map(|(key, seed)| tokio::spawn(seek_and_play(server.url(), key.clone(), SEEK, seed)));
    gate.until("the match's game is recorded", |c| c.done == 1)
        .await;
    for seeker in seekers {
        seeker.abort();
    }
    server.stop().await;
    let matches = db.open().matches().unwrap();
    let [m] = matches.as_slice() else {
        panic!("one match: {matches:?}");
    };
    assert_eq!((m.game_ids.len(), m.finished_unix_ms), (1, None));
    let id = m.record.id.clone();
    for bot in [&ada, &bob] {
        let before = told(&db, bot, &id);
        assert_eq!((before.match_starts, before.game_starts), (1, 0), "{bot}");
    }

    // Told at the next start, the bots play the game to the match's end.
    restart_and_read_the_end(&db, [&ada_key, &bob_key], &id).await;
    for bot in [&ada, &bob] {
        assert_eq!(told(&db, bot, &id), ONCE, "{bot} was told once");
    }
}

async fn a_match_end_stored_but_untold_is_told_once_at_the_next_start(backend: Backend) {
    let db = TestDb::new(backend, "match_end_told");
    let gate = Arc::new(Gate::default());
    let store = stopping(backend, &db, Gated::WritesAfterMatchEnd, gate);
    let server = TestServer::with(store, limits()).await;
    let [(ada, ada_key), (bob, bob_key)] = two_bots(&mut arena(&server).await).await;
    // The match is played to its end, which the Seek streams hear: its
    // result is stored, and then nothing more.
    let (first, second) = tokio::join!(
        seek_and_play(server.url(), ada_key.clone(), SEEK, 1),
        seek_and_play(server.url(), bob_key.clone(), SEEK, 2),
    );
    assert_eq!(first.match_id, second.match_id, "one match of the two");
    let id = first.match_id;
    server.stop().await;
    for bot in [&ada, &bob] {
        let before = told(&db, bot, &id);
        assert_eq!((before.match_ends, before.rating_changes), (0, 0), "{bot}");
    }

    restart_and_read_the_end(&db, [&ada_key, &bob_key], &id).await;
    for bot in [&ada, &bob] {
        assert_eq!(told(&db, bot, &id), ONCE, "{bot} was told once");
    }
}

async fn a_game_end_told_to_one_bot_is_told_to_the_other_at_the_next_start(backend: Backend) {
    let db = TestDb::new(backend, "game_end_told");
    let gate = Arc::new(Gate::default());
    let store = stopping(
        backend,
        &db,
        Gated::WritesAfterGameEndTold,
        Arc::clone(&gate),
    );
    let server = TestServer::with(store, limits()).await;
    let [(ada, ada_key), (bob, bob_key)] = two_bots(&mut arena(&server).await).await;
    // The game is played to its end; one bot is told so, and then nothing
    // more is stored (the match's end neither).
    let seekers = [(&ada_key, 1), (&bob_key, 2)]
        .map(|(key, seed)| tokio::spawn(seek_and_play(server.url(), key.clone(), SEEK, seed)));
    gate.until("a bot is told its game's end", |c| c.done == 1)
        .await;
    for seeker in seekers {
        seeker.abort();
    }
    server.stop().await;
    let matches = db.open().matches().unwrap();
    let [m] = matches.as_slice() else {
        panic!("one match: {matches:?}");
    };
    assert_eq!(m.finished_unix_ms, None, "its end is not stored");
    let id = m.record.id.clone();
    let told_first: Vec<usize> = [&ada, &bob]
        .iter()
        .map(|bot| told(&db, bot, &id).game_ends)
        .collect();
    assert_eq!(told_first.iter().sum::<usize>(), 1, "{told_first:?}");

    restart_and_read_the_end(&db, [&ada_key, &bob_key], &id).await;
    for bot in [&ada, &bob] {
        assert_eq!(told(&db, bot, &id), ONCE, "{bot} was told once");
    }
}
