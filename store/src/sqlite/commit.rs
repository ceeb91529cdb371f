//! Group commit of action rows by one writer thread per store: an append
//! queues its row and gets a receiver for the row's result
//! ([`SqliteStore::append_queued`]), so a caller waits for its commit without
//! holding a thread (a blocking caller waits on the receiver). The writer
//! takes every row queued, commits them in one transaction (one fsync for
//! the batch), each in a savepoint of its own (a row alone needs none) so
//! that one bad row (a version stored already) fails alone, then answers
//! each row. A failed commit fails every row of its batch: none is stored.
//! Rows are committed in the order they were queued, so a game's actions
//! keep theirs.

use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;

use prost::Message;
use rusqlite::{Connection, params};
use tokio::sync::oneshot;

use super::{SqliteStore, err};
use crate::{ActionRecord, AppendResult, StoreError, SubmissionKey};

/// Where a row's result goes: to a task awaiting it, or to a thread
/// blocked on it (a call of the blocking API, which may come from within an
/// async runtime, where a oneshot cannot be waited on blocking).
enum Reply {
    Awaited(oneshot::Sender<Result<(), StoreError>>),
    Blocked(std::sync::mpsc::SyncSender<Result<(), StoreError>>),
}

/// One action row waiting for a commit.
struct Row {
    /// Where its result goes.
    reply: Reply,
    game_id: String,
    version: i64,
    seat: u8,
    origin: i64,
    action: Vec<u8>,
    key: Option<[u8; SubmissionKey::LEN]>,
    at_ms: i64,
}

/// The rows queued for the writer, and whether the store is closing.
#[derive(Default)]
struct Queue {
    rows: Vec<Row>,
    closing: bool,
}

/// The queue the writer thread empties, and its wake-up.
#[derive(Default)]
struct Shared {
    queue: Mutex<Queue>,
    queued: Condvar,
}

impl Shared {
    fn queue(&self) -> MutexGuard<'_, Queue> {
        self.queue.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// The store's writer of action rows: its queue and its thread.
pub(super) struct Appends {
    shared: Arc<Shared>,
    writer: Option<JoinHandle<()>>,
}

impl Appends {
    /// Starts the writer thread committing on `conn`.
    pub(super) fn start(conn: Arc<Mutex<Connection>>) -> Result<Appends, StoreError> {
        let shared = Arc::new(Shared::default());
        let queue = Arc::clone(&shared);
        let writer = std::thread::Builder::new()
            .name("sqlite-appends".into())
            .spawn(move || write(&queue, &conn))
            .map_err(|e| StoreError::Database {
                op: "starting the writer of actions",
                source: Arc::new(e),
            })?;
        Ok(Appends {
            shared,
            writer: Some(writer),
        })
    }
}

impl Drop for Appends {
    /// Lets the writer commit what is queued, then ends it.
    fn drop(&mut self) {
        self.shared.queue().closing = true;
        self.shared.queued.notify_one();
        if let Some(writer) = self.writer.take() {
            let _ = writer.join();
        }
    }
}

/// The writer thread: commits every row queued, batch after batch, until the
/// store closes.
fn write(shared: &Shared, conn: &Mutex<Connection>) {
    let mut spare = Vec::new();
    loop {
        let mut batch = {
            let mut queue = shared.queue();
            while queue.rows.is_empty() && !queue.closing {
                queue = shared.queued.wait(queue).unwrap_or_else(|p| p.into_inner());
            }
            if queue.rows.is_empty() {
                return;
            }
            std::mem::replace(&mut queue.rows, spare)
        };
        let results = commit(conn, &batch);
        for (row, result) in batch.drain(..).zip(results) {
            // A caller that stopped waiting drops its receiver: nothing to tell.
            let _ = match row.reply {
                Reply::Awaited(reply) => reply.send(result).map_err(drop),
                Reply::Blocked(reply) => reply.send(result).map_err(drop),
            };
        }
        spare = batch;
    }
}

const INSERT_ACTION: &str = "INSERT INTO actions (game_id, version, seat, origin, action, submission_key, at_ms) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)";

/// Commits `batch` in one transaction, each row in a savepoint of its own;
/// the result of every row in order (all errors when the commit fails).
fn commit(conn: &Mutex<Connection>, batch: &[Row]) -> Vec<Result<(), StoreError>> {
    let mut conn = conn.lock().unwrap_or_else(|p| p.into_inner());
    let attempt = (|| {
        let tx = conn.transaction()?;
        let mut results = Vec::with_capacity(batch.len());
        {
            let mut insert = tx.prepare_cached(INSERT_ACTION)?;
            let mut insert = |row: &Row| {
                insert
                    .execute(params![
                        row.game_id,
                        row.version,
                        row.seat,
                        row.origin,
                        row.action,
                        row.key.as_ref().map(|k| k.as_slice()),
                        row.at_ms
                    ])
                    .map(|_| ())
                    .map_err(err("storing an action"))
            };
            if let [row] = batch {
                // A row alone needs no savepoint: nothing else is in the
                // transaction for its failure to undo.
                results.push(insert(row));
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
                    results.push(inserted);
                }
            }
        }
        tx.commit()?;
        Ok(results)
    })();
    attempt.unwrap_or_else(|e: rusqlite::Error| {
        let e = err("committing actions")(e);
        vec![Err(e); batch.len()]
    })
}

impl SqliteStore {
    /// Queues one action row for the writer, which commits it with the rows
    /// of other games queued at the same time and then answers `reply`.
    fn queue(&self, game_id: &str, action: &ActionRecord, reply: Reply) {
        let row = Row {
            reply,
            game_id: game_id.to_owned(),
            version: action.version as i64,
            seat: action.seat.0,
            origin: action.origin as i64,
            action: action.action.encode_to_vec(),
            key: action.key.map(SubmissionKey::to_bytes),
            at_ms: action.at_ms as i64,
        };
        let shared = &self.appends.shared;
        let was_empty = {
            let mut queue = shared.queue();
            queue.rows.push(row);
            queue.rows.len() == 1
        };
        if was_empty {
            // The writer sleeps only on an empty queue.
            shared.queued.notify_one();
        }
    }

    /// Appends one action row and waits (blocking the thread) for its commit.
    pub(super) fn append(&self, game_id: &str, action: &ActionRecord) -> Result<(), StoreError> {
        let (reply, result) = std::sync::mpsc::sync_channel(1);
        self.queue(game_id, action, Reply::Blocked(reply));
        result.recv().unwrap_or_else(|_| Err(writer_gone()))
    }

    /// Queues one action row; the future is ready once it is committed.
    pub(super) fn append_later(&self, game_id: &str, action: &ActionRecord) -> AppendResult {
        let (reply, result) = oneshot::channel();
        self.queue(game_id, action, Reply::Awaited(reply));
        Box::pin(async move { result.await.unwrap_or_else(|_| Err(writer_gone())) })
    }
}

/// The error of an append whose writer ended before answering it.
fn writer_gone() -> StoreError {
    StoreError::Database {
        op: "storing an action",
        source: Arc::new(std::io::Error::other("the writer of actions has stopped")),
    }
}
