//! What the arena's holder stored but did not tell its bots before it
//! stopped is told at the next start (or by the node taking the arena
//! over), each bot once: the bots' logs say what they were told.
//! * A game's start: the game is recorded as the match's first, then its
//!   bots are told (`game_started`), and they play it after the restart.
//! * A match's end: its result is stored first, then each bot is told
//!   (`match_finished`, `rating_changed`).
//! * A game's end: the holder tells its bots one after another
//!   (`game_finished`); one told and the other not, only the other is told.
//!   The game is the match's last, so the match's end is stored already:
//!   the round stores it before it tells the bots of the game's end.
//!
//! The node's stop is a store that takes no write after a given one; a
//! start after the next tells nothing twice.

use std::sync::Arc;

use druids_contract::pb;
use druids_contract::pb::bot_event::Event;
use druids_server::Store;
use druids_store::{EventLog, StoredMatch};
use druids_tests::TestServer;
use prost::Message;

use crate::arena::{arena, bot_events_until, follow_events, limits, register, seek_and_play};
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

/// Plays a match of two new bots on a server over `db` that takes no write
/// after `after` (`what`), until then: the bots (id, key) and the match.
async fn play_until_the_stop(
    backend: Backend,
    db: &TestDb,
    after: Gated,
    what: &str,
) -> ([(String, String); 2], StoredMatch) {
    let gate = Arc::new(Gate::default());
    let store = stopping(backend, db, after, Arc::clone(&gate));
    let server = TestServer::with(store, limits()).await;
    let mut a = arena(&server).await;
    let bots = [register(&mut a, "ada").await, register(&mut a, "bob").await];
    let seekers = [(&bots[0].1, 1), (&bots[1].1, 2)]
        .map(|(key, seed)| tokio::spawn(seek_and_play(server.url(), key.clone(), SEEK, seed)));
    gate.until(what, |c| c.done == 1).await;
    for seeker in seekers {
        seeker.abort();
    }
    server.stop().await;
    let matches = db.open().matches().unwrap();
    let [m] = matches.as_slice() else {
        panic!("one match: {matches:?}");
    };
    (bots, m.clone())
}

/// After the next start: each bot was told everything of match `id` once.
async fn told_once_after_the_next_start(db: &TestDb, bots: &[(String, String); 2], id: &str) {
    restart_and_read_the_end(db, [&bots[0].1, &bots[1].1], id).await;
    for (bot, _) in bots {
        assert_eq!(told(db, bot, id), ONCE, "{bot} was told once");
    }
}

async fn a_game_recorded_but_untold_is_told_once_and_played_after_the_next_start(backend: Backend) {
    let db = TestDb::new(backend, "game_start_told");
    // The match is told, its game is recorded as its, and then nothing more
    // is stored: no bot's log says the game started.
    let what = "the match's game is recorded";
    let (bots, m) = play_until_the_stop(backend, &db, Gated::WritesAfterMatchGame, what).await;
    assert_eq!((m.game_ids.len(), m.finished_unix_ms), (1, None));
    let id = m.record.id;
    for (bot, _) in &bots {
        let before = told(&db, bot, &id);
        assert_eq!((before.match_starts, before.game_starts), (1, 0), "{bot}");
    }
    // Told at the next start, the bots play the game to the match's end.
    told_once_after_the_next_start(&db, &bots, &id).await;
}

async fn a_match_end_stored_but_untold_is_told_once_at_the_next_start(backend: Backend) {
    let db = TestDb::new(backend, "match_end_told");
    // The match is played to its end: its result is stored, and then
    // nothing more.
    let what = "the match's result is stored";
    let (bots, m) = play_until_the_stop(backend, &db, Gated::WritesAfterMatchEnd, what).await;
    assert!(m.finished_unix_ms.is_some(), "{m:?}");
    let id = m.record.id;
    for (bot, _) in &bots {
        let before = told(&db, bot, &id);
        assert_eq!((before.match_ends, before.rating_changes), (0, 0), "{bot}");
    }
    told_once_after_the_next_start(&db, &bots, &id).await;
}

async fn a_game_end_told_to_one_bot_is_told_to_the_other_at_the_next_start(backend: Backend) {
    let db = TestDb::new(backend, "game_end_told");
    // The game is played to its end and the match's end is stored; one bot
    // is told of the game's end, and then nothing more is stored.
    let what = "a bot is told its game's end";
    let (bots, m) = play_until_the_stop(backend, &db, Gated::WritesAfterGameEndTold, what).await;
    assert!(
        m.finished_unix_ms.is_some(),
        "the match's end is stored first"
    );
    let id = m.record.id;
    let told_first: Vec<usize> = (bots.iter())
        .map(|(bot, _)| told(&db, bot, &id).game_ends)
        .collect();
    assert_eq!(told_first.iter().sum::<usize>(), 1, "{told_first:?}");
    told_once_after_the_next_start(&db, &bots, &id).await;
}
