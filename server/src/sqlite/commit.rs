//! Group commit of action rows: actions of many games arriving together share
//! one transaction and one fsync. The first caller to find no commit under
//! way takes every row waiting and commits them, each in a savepoint of its
//! own so that one bad row fails alone; the others wait for their own row's
//! result.

use std::collections::HashMap;

use prost::Message;
use rusqlite::params;

use super::{SqliteStore, err};
use crate::store::{ActionRecord, StoreError};

/// One action row waiting for a commit.
struct Row {
    ticket: u64,
    game_id: String,
    version: i64,
    seat: u8,
    origin: i64,
    action: Vec<u8>,
    request: Vec<u8>,
}

/// The appends waiting for a commit and the results of those committed.
#[derive(Default)]
pub(super) struct Appends {
    next_ticket: u64,
    waiting: Vec<Row>,
    /// True while a caller commits a batch.
    committing: bool,
    /// Results not yet collected by their callers, by ticket.
    results: HashMap<u64, Result<(), StoreError>>,
}

const INSERT_ACTION: &str = "INSERT INTO actions (game_id, version, seat, origin, action, request) VALUES (?1, ?2, ?3, ?4, ?5, ?6)";

impl SqliteStore {
    /// Commits `batch` in one transaction, each row in a savepoint of its own;
    /// the result of every row by ticket (all errors when the commit fails).
    fn commit(&self, batch: &[Row]) -> Vec<(u64, Result<(), StoreError>)> {
        let mut conn = self.conn();
        let attempt = (|| {
            let tx = conn.transaction()?;
            let mut results = Vec::with_capacity(batch.len());
            {
                let mut insert = tx.prepare(INSERT_ACTION)?;
                for row in batch {
                    tx.execute_batch("SAVEPOINT row")?;
                    let inserted = insert.execute(params![
                        row.game_id,
                        row.version,
                        row.seat,
                        row.origin,
                        row.action,
                        row.request
                    ]);
                    match inserted {
                        Ok(_) => tx.execute_batch("RELEASE row")?,
                        Err(_) => tx.execute_batch("ROLLBACK TO row; RELEASE row")?,
                    }
                    results.push((
                        row.ticket,
                        inserted.map(|_| ()).map_err(err("storing an action")),
                    ));
                }
            }
            tx.commit()?;
            Ok(results)
        })();
        attempt.unwrap_or_else(|e: rusqlite::Error| {
            let e = err("committing actions")(e);
            batch.iter().map(|r| (r.ticket, Err(e.clone()))).collect()
        })
    }

    /// Appends one action row, sharing a commit with the rows of other games
    /// waiting at the same time; returns once its own row is committed.
    pub(super) fn append(&self, game_id: &str, action: &ActionRecord) -> Result<(), StoreError> {
        let mut appends = self.appends();
        let ticket = appends.next_ticket;
        appends.next_ticket += 1;
        appends.waiting.push(Row {
            ticket,
            game_id: game_id.to_owned(),
            version: action.version as i64,
            seat: action.seat.0,
            origin: action.origin as i64,
            action: action.action.encode_to_vec(),
            request: action.request.encode_to_vec(),
        });
        loop {
            if let Some(result) = appends.results.remove(&ticket) {
                return result;
            }
            if appends.committing {
                appends = self
                    .appended
                    .wait(appends)
                    .unwrap_or_else(|p| p.into_inner());
                continue;
            }
            // No commit under way: this caller commits every row waiting.
            appends.committing = true;
            let batch = std::mem::take(&mut appends.waiting);
            drop(appends);
            let results = self.commit(&batch);
            appends = self.appends();
            appends.committing = false;
            appends.results.extend(results);
            self.appended.notify_all();
        }
    }
}
