//! The arena's start with matches in play: a SQLite store holding
//! `ARENA_RESUME_MATCHES` running four-player matches (each of four bots of
//! its own) and `ARENA_RESUME_FINISHED` finished ones, every bot's log
//! `ARENA_RESUME_EVENTS` events long and ending with what its match told it
//! (so nothing is told late). Measured: the time to build the service on it
//! (`Service::new`), which replays the matches and reads each bot's last
//! events once to learn what it was told; the median of
//! `ARENA_RESUME_STARTS` starts. No game is in play, so the games' rebuild
//! costs nothing here.
//!
//! Run: `cargo bench -p druids-server --bench arena_resume` (defaults:
//! 250 running and 32 finished matches, 256 events per bot, 5 starts).

use std::sync::Arc;
use std::time::Instant;

use druids_contract::{Kind, pb};
use druids_server::arena::bots::public_id;
use druids_server::auth::TokenHash;
use druids_server::{Limits, Service, SystemClock};
use druids_store::{
    Accounts, BotRecord, EventLog, EventLogs, MatchRecord, Matches, PlacementRecord,
};
use druids_store::{Sync, sqlite::SqliteStore};
use prost::Message;

fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// The defaults, without house bots (they would register at every start).
fn limits() -> Limits {
    let mut limits = Limits::default();
    limits.arena.house_bots = druids_server::arena::house::Levels(Vec::new());
    limits
}

/// An event of bot log `seq`, told at `at_ms`.
fn event(seq: u64, at_ms: u64, event: pb::bot_event::Event) -> Vec<u8> {
    pb::BotEvent {
        seq,
        at_unix_ms: at_ms,
        event: Some(event),
    }
    .encode_to_vec()
}

/// Match `i`: four bots of its own, one game, formed at `at_ms`.
fn record(i: usize, at_ms: u64) -> MatchRecord {
    MatchRecord {
        id: format!("m{i:015}"),
        kind: Kind::Meduris,
        rated: true,
        seed: i as u64,
        options: pb::GameOptions::default(),
        bots: (0..4).map(|s| public_id((4 * i + s + 1) as u64)).collect(),
        games: 1,
        created_unix_ms: at_ms,
        tournament: None,
    }
}

/// Fills `store`: the bots, their matches and their logs.
fn fill(store: &SqliteStore, running: usize, finished: usize, events: usize) {
    for i in 0..running + finished {
        let at = 1_000 + i as u64;
        let m = record(i, at);
        let game_id = format!("g{i:015}");
        store.create_match(&m).unwrap();
        store.add_match_game(&m.id, 0, &game_id).unwrap();
        for (seat, bot) in m.bots.iter().enumerate() {
            store
                .register_bot(&BotRecord {
                    id: bot.clone(),
                    name: format!("bot-{bot}"),
                    description: String::new(),
                    owner_contact: String::new(),
                    key_hash: TokenHash::of(bot),
                    registered_unix_ms: 1,
                    revoked_unix_ms: None,
                })
                .unwrap();
            // Older games' ends, then what this match told the bot.
            let mut log = Vec::new();
            for e in 0..events.saturating_sub(4) {
                log.push(pb::bot_event::Event::GameFinished(pb::MatchGameFinished {
                    match_id: format!("old{e}"),
                    game_id: format!("old{e}"),
                    ..Default::default()
                }));
            }
            log.push(pb::bot_event::Event::MatchStarted(pb::MatchStarted {
                match_id: m.id.clone(),
                ..Default::default()
            }));
            log.push(pb::bot_event::Event::GameStarted(pb::MatchGame {
                match_id: m.id.clone(),
                game_id: game_id.clone(),
                seat: seat as u32,
                ..Default::default()
            }));
            if i >= running {
                log.push(pb::bot_event::Event::MatchFinished(pb::MatchFinished {
                    match_id: m.id.clone(),
                    ..Default::default()
                }));
                log.push(pb::bot_event::Event::RatingChanged(pb::RatingChanged {
                    match_id: m.id.clone(),
                    ..Default::default()
                }));
            }
            for (seq, e) in log.into_iter().enumerate() {
                let seq = seq as u64 + 1;
                store
                    .append_event(EventLog::Bot, bot, seq, &event(seq, at, e))
                    .unwrap();
            }
        }
        if i >= running {
            let placements: Vec<PlacementRecord> = (m.bots.iter().enumerate())
                .map(|(rank, bot)| PlacementRecord {
                    bot_id: bot.clone(),
                    rank: rank as u32 + 1,
                    score: 0,
                })
                .collect();
            store.finish_match(&m.id, &placements, at + 1).unwrap();
        }
    }
}

#[tokio::main]
async fn main() {
    let running = env_usize("ARENA_RESUME_MATCHES", 250);
    let finished = env_usize("ARENA_RESUME_FINISHED", 32);
    let events = env_usize("ARENA_RESUME_EVENTS", 256);
    let starts = env_usize("ARENA_RESUME_STARTS", 5);
    let dir = std::env::temp_dir().join(format!("druids-arena-resume-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let db = dir.join("arena.db");
    let filled = Instant::now();
    fill(
        &SqliteStore::open(&db, Sync::Normal).unwrap(),
        running,
        finished,
        events,
    );
    eprintln!(
        "filled: {running} running and {finished} finished matches, {} bots, {events} events each, in {:.1} s",
        4 * (running + finished),
        filled.elapsed().as_secs_f64()
    );
    let mut times = Vec::new();
    for _ in 0..starts {
        let store = Arc::new(SqliteStore::open(&db, Sync::Normal).unwrap());
        let started = Instant::now();
        let service = Service::new(store, limits(), Arc::new(SystemClock)).unwrap();
        times.push(started.elapsed().as_secs_f64() * 1e3);
        drop(service);
    }
    times.sort_by(f64::total_cmp);
    println!(
        "| running matches | finished | events per bot | starts | median ms | min ms | max ms |"
    );
    println!("|---:|---:|---:|---:|---:|---:|---:|");
    println!(
        "| {running} | {finished} | {events} | {starts} | {:.1} | {:.1} | {:.1} |",
        times[times.len() / 2],
        times[0],
        times[times.len() - 1]
    );
    let _ = std::fs::remove_dir_all(&dir);
}
