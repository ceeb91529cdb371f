//! `druids-server export-all`: every ended game of a store as newline-delimited
//! JSON, one `druids.v1.Replay` per line (proto3 JSON mapping), in game-id
//! order. It exists so that operators can archive games before retention
//! deletes them, or move them elsewhere, without a running server.
//!
//! Each replay is exactly what `ExportReplay` answers: the game is rebuilt
//! from its stored log ([`crate::recover`]) and asked for its replay. The
//! store is paged through ([`Store::ended_ids`], then one
//! [`Store::load_game`] at a time), so memory stays flat however many games
//! there are, and a run that stopped resumes after the last id it wrote.

use std::io::Write;

use druids_contract::pb;

use crate::error::ServiceError;
use crate::recover::{Rebuild, RecoverError};
use crate::store::{Lifecycle, StoreError};

/// Ids read from the store at once.
pub const PAGE: usize = 256;

/// Why an export stopped. Every line written before is complete.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    /// The store could not be read.
    #[error("cannot read the store: {0}")]
    Store(#[from] StoreError),
    /// A stored game did not rebuild.
    #[error("cannot rebuild a stored game: {0}")]
    Recover(#[from] RecoverError),
    /// A rebuilt ended game gave no replay (its log does not end it).
    #[error("game {id} has no replay: {source}")]
    Replay {
        /// Game id.
        id: String,
        /// Why.
        source: ServiceError,
    },
    /// The output could not be written.
    #[error("cannot write the export: {0}")]
    Write(#[from] std::io::Error),
}

/// What an export wrote.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Exported {
    /// Lines (games) written.
    pub games: usize,
    /// Id of the last game written: `--after` for a run that goes on from here.
    pub last_id: Option<String>,
}

/// The replay of a stored game that has ended, as `ExportReplay` answers it.
pub fn replay_of(stored: crate::store::StoredGame, now_ms: u64) -> Result<pb::Replay, ExportError> {
    let id = stored.record.id.clone();
    // Rebuilt as the server reads back an ended game that left its memory.
    let room = crate::recover::recover(stored, now_ms, Rebuild::Ended { grace_ms: 0 })?;
    room.replay()
        .map_err(|source| ExportError::Replay { id, source })
}

/// Writes every ended game of `store` with an id after `after` ("" for all)
/// to `out`, one JSON replay per line in id order, flushing after each page.
pub fn export_ended(
    store: &dyn Lifecycle,
    after: &str,
    now_ms: u64,
    out: &mut dyn Write,
) -> Result<Exported, ExportError> {
    let mut done = Exported::default();
    let mut cursor = after.to_owned();
    loop {
        let ids = store.ended_ids(&cursor, PAGE)?;
        let Some(last) = ids.last().cloned() else {
            return Ok(done);
        };
        for id in ids {
            // Deleted since the page was read (retention on a live store):
            // there is nothing left to export.
            let Some(stored) = store.load_game(&id)? else {
                continue;
            };
            let replay = replay_of(stored, now_ms)?;
            serde_json::to_writer(&mut *out, &druids_contract::json::to_json(&replay))
                .map_err(std::io::Error::from)?;
            out.write_all(b"\n")?;
            done.games += 1;
            done.last_id = Some(id);
        }
        // Flushed page by page, so the output holds whole lines up to an id
        // that a resumed run can start after.
        out.flush()?;
        cursor = last;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::MemoryStore;
    use crate::auth::TokenHash;
    use crate::store::{ActionRecord, Epoch, GameRecord, Origin};
    use druids_engine::Seat;

    /// Stores game `id` with `actions` engine-legal actions (entry 0 each time),
    /// and ends it if `end` says how.
    fn store_game(store: &dyn crate::Store, id: &str, actions: Option<usize>, end: Option<&str>) {
        let options = pb::GameOptions::default();
        store
            .create_game(&GameRecord {
                id: id.into(),
                kind: druids_contract::Kind::Meduris,
                players: 2,
                seed: 7,
                seed_chosen: true,
                options: options.clone(),
                created_unix_ms: 1,
                seats: (0..2)
                    .map(|s| (Seat(s), format!("p{s}"), TokenHash::of("t")))
                    .collect(),
                request: None,
            })
            .unwrap();
        let mut game =
            crate::hosted_game::new_game(druids_contract::Kind::Meduris, 2, 7, &options).unwrap();
        game.start();
        let mut n = 0;
        while let Some(seat) = game.to_act() {
            if actions.is_some_and(|max| n >= max) {
                break;
            }
            let choice = pb::submit_action_request::Choice::LegalActionId(0);
            let applied = game.apply(seat, &choice, None).unwrap();
            n += 1;
            store
                .append_action(
                    id,
                    &ActionRecord {
                        version: applied.version,
                        seat,
                        origin: Origin::Seat,
                        action: applied.action,
                        key: None,
                        epoch: Epoch::NONE,
                        at_ms: 0,
                    },
                )
                .unwrap();
        }
        match end {
            Some("finish") => store.finish(id, n as u64, &Default::default(), 10).unwrap(),
            Some(reason) => store.abandon(id, reason, 10).unwrap(),
            None => {}
        }
    }

    fn lines(out: &[u8]) -> Vec<pb::Replay> {
        std::str::from_utf8(out)
            .unwrap()
            .lines()
            .map(|l| druids_contract::json::from_json(&serde_json::from_str(l).unwrap()).unwrap())
            .collect()
    }

    #[test]
    fn writes_ended_games_in_id_order_and_resumes() {
        let store = MemoryStore::default();
        store_game(&store, "c", None, Some("finish"));
        store_game(&store, "a", None, Some("finish"));
        store_game(&store, "b", Some(3), Some("idle"));
        store_game(&store, "d", Some(3), None);
        let mut out = Vec::new();
        let done = export_ended(&store, "", 0, &mut out).unwrap();
        assert_eq!(done.games, 3);
        assert_eq!(done.last_id.as_deref(), Some("c"));
        let replays = lines(&out);
        let ids: Vec<&str> = replays.iter().map(|r| r.game_id.as_str()).collect();
        assert_eq!(ids, ["a", "b", "c"]);
        assert_eq!(replays[0].status, pb::GameStatus::Finished as i32);
        assert!(replays[0].outcome.is_some());
        assert_eq!(replays[1].status, pb::GameStatus::Abandoned as i32);
        assert_eq!(replays[1].actions.len(), 3);
        let mut rest = Vec::new();
        let done = export_ended(&store, "a", 0, &mut rest).unwrap();
        assert_eq!(done.games, 2);
        assert_eq!(lines(&rest), replays[1..]);
        let mut none = Vec::new();
        assert_eq!(
            export_ended(&store, "c", 0, &mut none).unwrap(),
            Exported::default()
        );
        assert!(none.is_empty());
    }
}
