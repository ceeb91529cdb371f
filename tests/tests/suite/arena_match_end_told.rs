//! A match's end reaches each of its bots' event logs once, even when the
//! node that stored the result stopped before telling them: its result is
//! stored first, so the next start (or the node taking the arena over)
//! tells each bot what its log lacks (`match_finished`, `rating_changed`),
//! and a start after that tells nothing twice.

use std::sync::Arc;

use druids_contract::pb;
use druids_contract::pb::bot_event::Event;
use druids_server::Store;
use druids_store::EventLog;
use druids_tests::TestServer;
use prost::Message;

use crate::arena::{arena, bot_events_until, limits, register, seek_and_play};
use crate::gated_store::{Gate, Gated, GatedStore};
use crate::stores::{Backend, TestDb, on_each_store_threaded};

on_each_store_threaded!(a_match_end_stored_but_untold_is_told_once_at_the_next_start);

/// The database's store, refusing every bot event once a match's result is
/// stored: a node killed right then.
fn stopping_after_a_match_end(backend: Backend, db: &TestDb) -> Arc<dyn Store> {
    let gate = Arc::new(Gate::default());
    let gated = Gated::BotEventsAfterMatchEnd;
    match backend {
        Backend::Postgres => Arc::new(GatedStore::new(db.postgres(), gate, gated)),
        _ => Arc::new(GatedStore::new(db.sqlite(), gate, gated)),
    }
}

/// How many `match_finished` and `rating_changed` of match `id` bot `bot`'s
/// stored log holds.
fn told(db: &TestDb, bot: &str, id: &str) -> (usize, usize) {
    let mut counts = (0, 0);
    for (_, bytes) in db.open().events(EventLog::Bot, bot, 1, 100_000).unwrap() {
        match pb::BotEvent::decode(bytes.as_slice()).unwrap().event {
            Some(Event::MatchFinished(f)) if f.match_id == id => counts.0 += 1,
            Some(Event::RatingChanged(r)) if r.match_id == id => counts.1 += 1,
            _ => {}
        }
    }
    counts
}

async fn a_match_end_stored_but_untold_is_told_once_at_the_next_start(backend: Backend) {
    let db = TestDb::new(backend, "match_end_told");

    // A rated match played to its end on a node whose store takes no bot
    // event once the match's result is stored: as if it were killed then.
    let server = TestServer::with(stopping_after_a_match_end(backend, &db), limits()).await;
    let mut a = arena(&server).await;
    let (ada, ada_key) = register(&mut a, "ada").await;
    let (bob, bob_key) = register(&mut a, "bob").await;
    let seek = pb::SeekRequest {
        kind: pb::GameKind::Dolmen as i32,
        min_players: 2,
        max_players: 2,
        rated: true,
    };
    let (first, second) = tokio::join!(
        seek_and_play(server.url(), ada_key.clone(), seek, 1),
        seek_and_play(server.url(), bob_key.clone(), seek, 2),
    );
    assert_eq!(first.match_id, second.match_id, "one match of the two");
    let id = first.match_id;
    server.stop().await;
    for bot in [&ada, &bob] {
        assert_eq!(told(&db, bot, &id), (0, 0), "{bot} was not told");
    }

    // The next start tells both bots, which read it from their logs.
    let server = TestServer::with(db.open(), limits()).await;
    let mut a = arena(&server).await;
    for key in [&ada_key, &bob_key] {
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
    server.stop().await;

    // Told once: that start and one more leave one of each in each log.
    let server = TestServer::with(db.open(), limits()).await;
    server.stop().await;
    for bot in [&ada, &bob] {
        assert_eq!(told(&db, bot, &id), (1, 1), "{bot} was told once");
    }
}
