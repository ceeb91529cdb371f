//! Group commit of action rows: actions of many games arriving together share
//! one transaction and one fsync. The first caller to find no commit under
//! way takes every row waiting and commits them, each in a savepoint of its
//! own (a row alone needs none) so that one bad row fails alone; the others
//! sleep until their own row's result is in. The committer then wakes only
//! the writers of its batch and one writer of the rows that came meanwhile,
//! who commits those: waking every writer for every batch cost more CPU than
//! the commit itself.

use std::collections::HashMap;

use prost::Message;
use rusqlite::params;

use super::{SqliteStore, err};
use crate::{ActionRecord, StoreError, SubmissionKey};

/// One action row waiting for a commit.
struct Row {
    ticket: u64,
    /// The thread waiting for this row's result.
    writer: std::thread::Thread,
    game_id: String,
    version: i64,
    seat: u8,
    origin: i64,
    action: Vec<u8>,
    key: Option<[u8; SubmissionKey::LEN]>,
    at_ms: i64,
}

/// The appends waiting for a commit and the results of those committed.
#[derive(Default)]
pub(super) struct Appends {
    next_ticket: u64,
    waiting: Vec<Row>,
    /// The last batch's vector, emptied: the next `waiting` (it grows once).
    spare: Vec<Row>,
    /// True while a caller commits a batch.
    committing: bool,
    /// Results not yet collected by their callers, by ticket.
    results: HashMap<u64, Result<(), StoreError>>,
}

const INSERT_ACTION: &str = "INSERT INTO actions (game_id, version, seat, origin, action, submission_key, at_ms) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)";

impl SqliteStore {
    /// Commits `batch` in one transaction, each row in a savepoint of its own;
    /// the result of every row by ticket (all errors when the commit fails).
    fn commit(&self, batch: &[Row]) -> Vec<(u64, Result<(), StoreError>)> {
        let mut conn = self.conn();
        let attempt = (|| {
            let tx = conn.transaction()?;
            let mut results = Vec::with_capacity(batch.len());
            {
                let mut insert = tx.prepare_cached(INSERT_ACTION)?;
                let mut insert = |row: &Row| {
                    insert.execute(params![
                        row.game_id,
                        row.version,
                        row.seat,
                        row.origin,
                        row.action,
                        row.key.as_ref().map(|k| k.as_slice()),
                        row.at_ms
                    ])
                };
                if let [row] = batch {
                    // A row alone needs no savepoint: nothing else is in the
                    // transaction for its failure to undo.
                    let inserted = insert(row);
                    results.push((
                        row.ticket,
                        inserted.map(|_| ()).map_err(err("storing an action")),
                    ));
                } else {
                    // Prepared once per connection: parsing them for every row
                    // would cost more than running them.
                    let mut savepoint = tx.prepare_cached("SAVEPOINT row")?;
                    let mut release = tx.prepare_cached("RELEASE row")?;
                    let mut rollback = tx.prepare_cached("ROLLBACK TO row")?;
                    for row in batch {
                        savepoint.execute([])?;
                        let inserted = insert(row);
                        if inserted.is_err() {
                            rollback.execute([])?;
                        }
                        release.execute([])?;
                        results.push((
                            row.ticket,
                            inserted.map(|_| ()).map_err(err("storing an action")),
                        ));
                    }
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
            writer: std::thread::current(),
            game_id: game_id.to_owned(),
            version: action.version as i64,
            seat: action.seat.0,
            origin: action.origin as i64,
            action: action.action.encode_to_vec(),
            key: action.key.map(SubmissionKey::to_bytes),
            at_ms: action.at_ms as i64,
        });
        loop {
            if let Some(result) = appends.results.remove(&ticket) {
                return result;
            }
            if appends.committing {
                // Woken by the commit of this row, or to commit the next batch
                // (or spuriously: the loop looks again).
                drop(appends);
                std::thread::park();
                appends = self.appends();
                continue;
            }
            // No commit under way: this caller commits every row waiting.
            appends.committing = true;
            let spare = std::mem::take(&mut appends.spare);
            let mut batch = std::mem::replace(&mut appends.waiting, spare);
            drop(appends);
            let results = self.commit(&batch);
            appends = self.appends();
            appends.committing = false;
            appends.results.extend(results);
            // Wake only whom it concerns: the writers of this batch, and the
            // first of the rows that came meanwhile, to commit them.
            let next = appends.waiting.first().map(|r| r.writer.clone());
            drop(appends);
            batch
                .iter()
                .filter(|r| r.ticket != ticket)
                .for_each(|r| r.writer.unpark());
            if let Some(next) = next {
                next.unpark();
            }
            batch.clear();
            appends = self.appends();
            appends.spare = batch;
        }
    }
}
