//! Group commit of action rows, as in [`crate::sqlite`]: actions of many games
//! arriving together share one transaction (one round of waiting for the
//! database's disk). The first caller to find no commit under way takes every
//! row waiting and commits them in one statement (one round trip however many
//! rows: per-row statements made the database wait on the server); a row whose
//! version is stored already fails alone, and if a row is refused outright
//! (its game is unknown, say) the batch is inserted again row by row, each in
//! a savepoint of its own, so that it fails alone. The others wait for their
//! own row's result.
//!
//! Fencing: a row written under a lease ([`crate::Leases`]) is inserted only
//! if its epoch is still the game's lease epoch. The batch locks those lease
//! rows (`FOR SHARE`) first, so a takeover, which updates the lease row,
//! waits for the batch's commit, and a batch waiting behind a takeover sees
//! the new epoch: either the row is committed before the new owner reads the
//! log, or it is refused.
//!
//! A fenced row whose version holds another action is refused as fenced
//! too: its room is behind the log, so the game moved on without it.
//!
//! A batch interrupted by a lost connection is committed again on a fresh
//! one. Its first commit may have gone through: a row that is already stored
//! with the same content then counts as done, one with other content fails.

use std::collections::HashMap;

use prost::Message;
use tokio_postgres::error::SqlState;

use super::PostgresStore;
use super::retry::{Failure, conflict, database, transient};
use crate::{ActionRecord, Epoch, StoreError, SubmissionKey};

/// One action row waiting for a commit.
struct Row {
    ticket: u64,
    game_id: String,
    version: i64,
    seat: i16,
    origin: i16,
    action: Vec<u8>,
    key: Option<[u8; SubmissionKey::LEN]>,
    epoch: Epoch,
    at_ms: i64,
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

const INSERT_ACTION: &str =
    "INSERT INTO actions (game_id, version, seat, origin, action, submission_key, epoch, at_ms)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)";

/// Locks the leases of the games of a batch, for the batch's transaction.
pub(super) const LOCK_LEASES: &str = "SELECT game_id, epoch FROM leases
      WHERE game_id = ANY($1) ORDER BY game_id FOR SHARE";

/// Every row of a batch in one statement; rows whose version is stored
/// already are skipped (and not returned).
const INSERT_ALL: &str =
    "INSERT INTO actions (game_id, version, seat, origin, action, submission_key, epoch, at_ms)
     SELECT * FROM unnest($1::TEXT[], $2::BIGINT[], $3::SMALLINT[], $4::SMALLINT[],
                          $5::BYTEA[], $6::BYTEA[], $7::BIGINT[], $8::BIGINT[])
     ON CONFLICT (game_id, version) DO NOTHING
     RETURNING game_id, version";

const STORED_ACTION: &str =
    "SELECT seat, origin, action, submission_key FROM actions WHERE game_id = $1 AND version = $2";

type Results = Vec<(u64, Result<(), StoreError>)>;

impl PostgresStore {
    /// One attempt at committing `batch`: the result of every row by ticket.
    /// An error is the whole attempt's (the connection broke, or the
    /// transaction could not commit); then nothing of it may be relied on.
    async fn commit_once(&self, batch: &[Row], retrying: bool) -> Result<Results, Failure> {
        let mut client = self.pool.get().await?;
        let tx = client.transaction().await?;
        let fenced: Vec<&str> = batch
            .iter()
            .filter(|r| r.epoch.is_fenced())
            .map(|r| r.game_id.as_str())
            .collect();
        let leases: HashMap<String, i64> = if fenced.is_empty() {
            HashMap::new()
        } else {
            tx.query(LOCK_LEASES, &[&fenced])
                .await?
                .into_iter()
                .map(|r| (r.get(0), r.get(1)))
                .collect()
        };
        let mut results = Vec::with_capacity(batch.len());
        let mut rows = Vec::with_capacity(batch.len());
        for row in batch {
            if row.epoch.is_fenced() && leases.get(&row.game_id) != Some(&(row.epoch.0 as i64)) {
                let fenced = StoreError::Fenced {
                    game_id: row.game_id.clone(),
                    epoch: row.epoch.0,
                };
                results.push((row.ticket, Err(fenced)));
            } else {
                rows.push(row);
            }
        }
        match insert_all(&tx, &rows).await? {
            Some(inserted) => {
                for row in rows {
                    let result = if inserted.contains(&row.ticket) {
                        Ok(())
                    } else {
                        already_stored(&tx, row, retrying).await?
                    };
                    results.push((row.ticket, result));
                }
            }
            // One row is bad (its game is unknown, say): each in its own
            // savepoint, so that it fails alone.
            None => {
                for row in rows {
                    results.push((row.ticket, insert_one(&tx, row, retrying).await?));
                }
            }
        }
        tx.commit().await?;
        Ok(results)
    }

    /// Commits `batch`, trying again on a fresh connection if the connection
    /// breaks; the result of every row by ticket (all errors when the
    /// commit fails).
    fn commit(&self, batch: &[Row]) -> Results {
        self.retry("committing actions", |retrying| {
            self.wait(self.commit_once(batch, retrying))
        })
        .unwrap_or_else(|e| batch.iter().map(|r| (r.ticket, Err(e.clone()))).collect())
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
            seat: i16::from(action.seat.0),
            origin: action.origin as i16,
            action: action.action.encode_to_vec(),
            key: action.key.map(SubmissionKey::to_bytes),
            epoch: action.epoch,
            at_ms: action.at_ms as i64,
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

/// Inserts `rows` in one statement (one round trip for the whole batch);
/// the tickets of the rows inserted, or `None` (nothing inserted) if a row
/// was refused outright.
async fn insert_all(
    tx: &deadpool_postgres::Transaction<'_>,
    rows: &[&Row],
) -> Result<Option<std::collections::HashSet<u64>>, Failure> {
    if rows.is_empty() {
        return Ok(Some(Default::default()));
    }
    let column = |f: fn(&Row) -> &str| rows.iter().map(|r| f(r)).collect::<Vec<&str>>();
    let games = column(|r| r.game_id.as_str());
    let versions: Vec<i64> = rows.iter().map(|r| r.version).collect();
    let seats: Vec<i16> = rows.iter().map(|r| r.seat).collect();
    let origins: Vec<i16> = rows.iter().map(|r| r.origin).collect();
    let actions: Vec<&[u8]> = rows.iter().map(|r| r.action.as_slice()).collect();
    let keys: Vec<Option<&[u8]>> = rows
        .iter()
        .map(|r| r.key.as_ref().map(|k| &k[..]))
        .collect();
    let epochs: Vec<i64> = rows.iter().map(|r| r.epoch.0 as i64).collect();
    let times: Vec<i64> = rows.iter().map(|r| r.at_ms).collect();
    tx.batch_execute("SAVEPOINT batch").await?;
    let insert = tx.prepare_cached(INSERT_ALL).await?;
    let inserted = tx
        .query(
            &insert,
            &[
                &games, &versions, &seats, &origins, &actions, &keys, &epochs, &times,
            ],
        )
        .await;
    match inserted {
        Ok(stored) => {
            tx.batch_execute("RELEASE SAVEPOINT batch").await?;
            // The first row of a (game, version) is the one inserted.
            let mut keys: HashMap<(String, i64), ()> = stored
                .into_iter()
                .map(|r| ((r.get::<_, String>(0), r.get::<_, i64>(1)), ()))
                .collect();
            Ok(Some(
                rows.iter()
                    .filter(|r| keys.remove(&(r.game_id.clone(), r.version)).is_some())
                    .map(|r| r.ticket)
                    .collect(),
            ))
        }
        Err(e) if transient(&e) => Err(e.into()),
        Err(_) => {
            tx.batch_execute("ROLLBACK TO SAVEPOINT batch; RELEASE SAVEPOINT batch")
                .await?;
            Ok(None)
        }
    }
}

/// The result of a row whose version is stored already: done if this is a
/// retry that finds its own row, else a conflict.
async fn already_stored(
    tx: &deadpool_postgres::Transaction<'_>,
    row: &Row,
    retrying: bool,
) -> Result<Result<(), StoreError>, Failure> {
    let op = "storing an action";
    if retrying {
        let stored = tx
            .query_one(STORED_ACTION, &[&row.game_id, &row.version])
            .await?;
        let same = stored.get::<_, i16>(0) == row.seat
            && stored.get::<_, i16>(1) == row.origin
            && stored.get::<_, &[u8]>(2) == row.action.as_slice()
            && stored.get::<_, Option<&[u8]>>(3) == row.key.as_ref().map(|k| &k[..]);
        if same {
            return Ok(Ok(()));
        }
    }
    // Under a lease this node still holds, another action at this version
    // means the room writing is behind the log: another owner wrote it after
    // this room was built (its game was taken over and back meanwhile). The
    // game has moved on without this room: the caller is told so (it drops
    // the room and the client retries), not that storage failed.
    if row.epoch.is_fenced() {
        return Ok(Err(StoreError::Fenced {
            game_id: row.game_id.clone(),
            epoch: row.epoch.0,
        }));
    }
    Ok(Err(database(
        op,
        conflict("another action has this version"),
    )))
}

/// Inserts one row in a savepoint of its own: its result.
async fn insert_one(
    tx: &deadpool_postgres::Transaction<'_>,
    row: &Row,
    retrying: bool,
) -> Result<Result<(), StoreError>, Failure> {
    let insert = tx.prepare_cached(INSERT_ACTION).await?;
    tx.batch_execute("SAVEPOINT row").await?;
    let inserted = tx
        .execute(
            &insert,
            &[
                &row.game_id,
                &row.version,
                &row.seat,
                &row.origin,
                &row.action,
                &row.key.as_ref().map(|k| &k[..]),
                &(row.epoch.0 as i64),
                &row.at_ms,
            ],
        )
        .await;
    match inserted {
        Ok(_) => {
            tx.batch_execute("RELEASE SAVEPOINT row").await?;
            Ok(Ok(()))
        }
        Err(e) if transient(&e) => Err(e.into()),
        Err(e) => {
            tx.batch_execute("ROLLBACK TO SAVEPOINT row; RELEASE SAVEPOINT row")
                .await?;
            if e.code() == Some(&SqlState::UNIQUE_VIOLATION) {
                already_stored(tx, row, retrying).await
            } else {
                Ok(Err(database("storing an action", Failure::Pg(e))))
            }
        }
    }
}
