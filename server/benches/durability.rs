//! The cost of durability, measured side by side in one run: actions per second
//! through a game's room with in-memory storage, SQLite with `--sync normal`,
//! and SQLite with `--sync full` (fsync per action); and the time to rebuild a
//! game by replaying its stored log (what a restart does).
//!
//! Run: `cargo bench -p druids-server --bench durability`

use std::time::Instant;

use druids_contract::pb;
use druids_engine::{Seat, Viewer};
use druids_server::MemoryStore;
use druids_server::auth::TokenHash;
use druids_server::recover::Rebuild;
use druids_server::room::{Room, SeatSlot, Setup};
use druids_server::submission::Submission;
use druids_store::{GameRecord, Lifecycle, Store};
use druids_store::{Sync, sqlite::SqliteStore};

/// Plays `games` complete random 4-player games through rooms on `store`;
/// returns (actions, seconds).
fn play(store: &dyn Store, games: u64) -> (u64, f64) {
    let started = Instant::now();
    let mut actions = 0;
    for g in 0..games {
        let id = format!("bench-{g}");
        let options = pb::GameOptions::default();
        let game =
            druids_server::hosted_game::new_game(druids_contract::Kind::Meduris, 4, g, &options)
                .unwrap();
        store
            .create_game(&GameRecord {
                id: id.clone(),
                kind: druids_contract::Kind::Meduris,
                players: 4,
                seed: g,
                seed_chosen: true,
                options: options.clone(),
                created_unix_ms: 0,
                seats: (0..4)
                    .map(|s| (Seat(s), format!("seat {s}"), TokenHash::of("t")))
                    .collect(),
                request: None,
            })
            .unwrap();
        let seat = SeatSlot {
            name: String::new(),
            token: Some(TokenHash::of("t")),
        };
        let setup = Setup {
            id,
            created_unix_ms: 0,
            seed: g,
            seed_chosen: true,
            options,
            epoch: druids_store::Epoch::NONE,
        };
        let room = Room::new(setup, game, vec![seat; 4], None, 0, None);
        let mut rng = g.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
        loop {
            let view = room.view(Viewer::Spectator);
            let Some(seat) = view.to_act.map(|s| Seat(s as u8)) else {
                break;
            };
            let listing = room.legal_actions(seat, false);
            let (version, n) = (listing.version, listing.len() as u64);
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            let req = pb::SubmitActionRequest {
                game_id: String::new(),
                choice: Some(pb::submit_action_request::Choice::LegalActionId(
                    (rng % n) as u32,
                )),
                expected_version: Some(version),
                idempotency_key: format!("k{version}"),
            };
            let submission = Submission::parse(req).unwrap();
            room.submit(seat, &submission, store, 0).unwrap();
            actions += 1;
        }
    }
    (actions, started.elapsed().as_secs_f64())
}

fn main() {
    let dir = std::env::temp_dir().join(format!("druids-bench-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    println!(
        "{:<28} {:>9} {:>12} {:>10}",
        "storage", "actions", "actions/s", "vs memory"
    );
    let (n, t) = play(&MemoryStore::default(), 40);
    let memory = n as f64 / t;
    println!(
        "{:<28} {:>9} {:>12.0} {:>10.3}",
        "in memory", n, memory, 1.0
    );
    let runs = [
        ("sqlite, sync normal", Sync::Normal, 40),
        ("sqlite, sync full (fsync)", Sync::Full, 4),
    ];
    for (name, sync, games) in runs {
        let store = SqliteStore::open(&dir.join(format!("{games}-{sync:?}.db")), sync).unwrap();
        let (n, t) = play(&store, games);
        let rate = n as f64 / t;
        println!("{name:<28} {n:>9} {rate:>12.0} {:>10.3}", rate / memory);
    }
    // Replay: rebuild every stored game of the "normal" database from its log.
    let store = SqliteStore::open(&dir.join("40-Normal.db"), Sync::Normal).unwrap();
    let stored: Vec<_> = store
        .ended_ids("", usize::MAX)
        .unwrap()
        .iter()
        .map(|id| store.load_game(id).unwrap().unwrap())
        .collect();
    let actions: usize = stored.iter().map(|g| g.actions.len()).sum();
    let started = Instant::now();
    let mut rebuilt = 0;
    for game in stored {
        let room =
            druids_server::recover::recover(game, 0, Rebuild::Ended { grace_ms: 0 }).unwrap();
        rebuilt += room.view(Viewer::Spectator).version as usize;
    }
    let secs = started.elapsed().as_secs_f64();
    assert_eq!(rebuilt, actions);
    println!(
        "replay: {actions} actions in {:.1} ms = {:.2} ms per 1,000 actions (reading SQLite excluded)",
        secs * 1e3,
        secs * 1e6 / actions as f64
    );
    let _ = std::fs::remove_dir_all(&dir);
}
