//! The SQLite schema, as versioned migrations: `PRAGMA user_version` says
//! how many have been applied, and each runs once, in order, in one
//! transaction; most are SQL, one converts stored rows in Rust.

use prost::Message;
use rusqlite::{Connection, Transaction, params};

use druids_contract::pb;

use super::err;
use crate::{StoreError, SubmissionKey};

/// One step of the schema.
enum Migration {
    /// Statements.
    Sql(&'static str),
    /// Statements and a conversion of stored rows that SQL cannot do.
    Code(fn(&Transaction<'_>) -> Result<(), StoreError>),
}

/// Every migration, in order.
const MIGRATIONS: &[Migration] = &[
    // 1: games, seats, actions.
    Migration::Sql(
        "
CREATE TABLE IF NOT EXISTS games (
    id              TEXT PRIMARY KEY,
    kind            INTEGER NOT NULL,
    players         INTEGER NOT NULL,
    seed            INTEGER NOT NULL,
    options         BLOB NOT NULL,
    created_unix_ms INTEGER NOT NULL,
    abandoned       TEXT
);
CREATE TABLE IF NOT EXISTS seats (
    game_id    TEXT NOT NULL REFERENCES games(id),
    seat       INTEGER NOT NULL,
    name       TEXT NOT NULL,
    token_hash BLOB NOT NULL,
    at_create  INTEGER NOT NULL,
    claim_no   INTEGER NOT NULL,
    PRIMARY KEY (game_id, seat)
);
CREATE TABLE IF NOT EXISTS actions (
    game_id TEXT NOT NULL REFERENCES games(id),
    version INTEGER NOT NULL,
    seat    INTEGER NOT NULL,
    origin  INTEGER NOT NULL,
    action  BLOB NOT NULL,
    request BLOB NOT NULL,
    PRIMARY KEY (game_id, version)
);",
    ),
    // 2: whether the creator chose the seed (games before this migration had
    // their seed returned to the creator, so it was never secret); request ids
    // of retry-safe CreateGame/JoinGame calls; the server secret.
    Migration::Sql(
        "
ALTER TABLE games ADD COLUMN seed_chosen INTEGER NOT NULL DEFAULT 1;
CREATE TABLE requests (
    key         BLOB PRIMARY KEY,
    fingerprint BLOB NOT NULL,
    game_id     TEXT NOT NULL REFERENCES games(id),
    seat        INTEGER,
    started     INTEGER NOT NULL,
    at_ms       INTEGER NOT NULL
);
CREATE INDEX requests_at ON requests(at_ms);
CREATE TABLE meta (
    key   TEXT PRIMARY KEY,
    value BLOB NOT NULL
);",
    ),
    // 3: the lifecycle. An ended game (finished or abandoned) has its end time
    // and last version, and is read only on demand: start-up reads the games
    // in play through a partial index, `ListGames` pages ended ones through
    // another, retention finds old ones through a third. Games stored before
    // this migration count as in play until their first start-up rebuilds
    // them and records their end.
    Migration::Sql(
        "
ALTER TABLE games ADD COLUMN ended_unix_ms INTEGER;
ALTER TABLE games ADD COLUMN version INTEGER NOT NULL DEFAULT 0;
UPDATE games SET ended_unix_ms = created_unix_ms,
                 version = (SELECT COUNT(*) FROM actions WHERE game_id = games.id)
 WHERE abandoned IS NOT NULL;
CREATE INDEX games_in_play ON games(created_unix_ms, id) WHERE ended_unix_ms IS NULL;
CREATE INDEX games_ended_list ON games(created_unix_ms DESC, id) WHERE ended_unix_ms IS NOT NULL;
CREATE INDEX games_ended_at ON games(ended_unix_ms) WHERE ended_unix_ms IS NOT NULL;
CREATE INDEX requests_game ON requests(game_id);",
    ),
    // 4: the arena ([`arena`]): bots, matches and their games, each bot's
    // event log. `seq` orders bots by registration and matches by formation
    // (rowids are not kept by VACUUM). Games are referred to by id only:
    // retention deletes old games and leaves the arena's rows alone.
    Migration::Sql(
        "
CREATE TABLE bots (
    id                 TEXT PRIMARY KEY,
    seq                INTEGER NOT NULL UNIQUE,
    name               TEXT NOT NULL UNIQUE,
    description        TEXT NOT NULL,
    owner_contact      TEXT NOT NULL,
    key_hash           BLOB NOT NULL,
    registered_unix_ms INTEGER NOT NULL
);
CREATE TABLE matches (
    id               TEXT PRIMARY KEY,
    seq              INTEGER NOT NULL UNIQUE,
    kind             INTEGER NOT NULL,
    rated            INTEGER NOT NULL,
    seed             INTEGER NOT NULL,
    options          BLOB NOT NULL,
    bots             TEXT NOT NULL,
    games            INTEGER NOT NULL,
    created_unix_ms  INTEGER NOT NULL,
    finished_unix_ms INTEGER,
    placements       BLOB
);
CREATE TABLE match_games (
    match_id TEXT NOT NULL REFERENCES matches(id),
    idx      INTEGER NOT NULL,
    game_id  TEXT NOT NULL,
    PRIMARY KEY (match_id, idx)
);
CREATE TABLE bot_events (
    bot_id TEXT NOT NULL REFERENCES bots(id),
    seq    INTEGER NOT NULL,
    event  BLOB NOT NULL,
    PRIMARY KEY (bot_id, seq)
);",
    ),
    // 5: tournaments ([`arena`]): each match's tournament and round (both
    // NULL for a match outside any, as every match before this migration),
    // and the tournaments, by `seq` in creation order.
    Migration::Sql(
        "
ALTER TABLE matches ADD COLUMN tournament_id TEXT;
ALTER TABLE matches ADD COLUMN round INTEGER;
CREATE TABLE tournaments (
    id               TEXT PRIMARY KEY,
    seq              INTEGER NOT NULL UNIQUE,
    settings         BLOB NOT NULL,
    created_unix_ms  INTEGER NOT NULL,
    finished_unix_ms INTEGER
);",
    ),
    // 6: more of the arena ([`arena`]): when a bot's key was revoked (NULL
    // while it works, as for every bot before this migration), each
    // tournament's event log, and the pending challenges, by `seq` in the
    // order they were first saved (`accepted`: a JSON list of bot ids).
    Migration::Sql(
        "
ALTER TABLE bots ADD COLUMN revoked_unix_ms INTEGER;
CREATE TABLE tournament_events (
    tournament_id TEXT NOT NULL REFERENCES tournaments(id),
    seq           INTEGER NOT NULL,
    event         BLOB NOT NULL,
    PRIMARY KEY (tournament_id, seq)
);
CREATE TABLE challenges (
    id       TEXT PRIMARY KEY,
    seq      INTEGER NOT NULL UNIQUE,
    info     BLOB NOT NULL,
    accepted TEXT NOT NULL
);",
    ),
    // 7: an action's row keeps its submission's idempotency key as digests
    // (`submission_key`, 32 bytes, NULL without a key) instead of a copy of
    // the whole request, which also held the action a second time. The keys
    // of games in play are carried over; an ended game's keys are never used
    // again ([`crate::Lifecycle::load_game`] callers drop them).
    Migration::Code(submission_keys),
    // 8: each finished game's result (an encoded druids.Outcome; NULL for
    // games that ended before this migration, and abandoned ones), and the
    // games of the arena's matches found by game id, for `ListGames`.
    Migration::Sql(
        "
ALTER TABLE games ADD COLUMN outcome BLOB;
CREATE INDEX match_games_game ON match_games(game_id);",
    ),
    // 9: when each action was made (ms since the Unix epoch; 0 for those
    // stored before), so that a restart replays the turn clocks as they ran.
    Migration::Sql("ALTER TABLE actions ADD COLUMN at_ms INTEGER NOT NULL DEFAULT 0;"),
];

/// Brings the schema of `conn` up to date.
pub(super) fn migrate(conn: &mut Connection) -> Result<(), StoreError> {
    let applied: usize = conn
        .pragma_query_value(None, "user_version", |r| r.get::<_, i64>(0))
        .map_err(err("reading the schema version"))? as usize;
    for (n, migration) in MIGRATIONS.iter().enumerate().skip(applied) {
        let tx = conn.transaction().map_err(err("migrating"))?;
        match migration {
            Migration::Sql(sql) => tx.execute_batch(sql).map_err(err("migrating"))?,
            Migration::Code(run) => run(&tx)?,
        }
        tx.pragma_update(None, "user_version", (n + 1) as i64)
            .map_err(err("migrating"))?;
        tx.commit().map_err(err("migrating"))?;
    }
    Ok(())
}

/// Migration 7: `actions.request` (an encoded `SubmitActionRequest`) becomes
/// `actions.submission_key` ([`SubmissionKey::to_bytes`]), for the games in
/// play; the column goes.
fn submission_keys(tx: &Transaction<'_>) -> Result<(), StoreError> {
    let op = "migrating the actions' requests to submission keys";
    tx.execute_batch("ALTER TABLE actions ADD COLUMN submission_key BLOB")
        .map_err(err(op))?;
    let keyed: Vec<(i64, Vec<u8>)> = tx
        .prepare(
            "SELECT a.rowid, a.request FROM actions a JOIN games g ON g.id = a.game_id
              WHERE g.ended_unix_ms IS NULL AND length(a.request) > 0",
        )
        .map_err(err(op))?
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .map_err(err(op))?
        .collect::<Result<_, _>>()
        .map_err(err(op))?;
    let mut update = tx
        .prepare("UPDATE actions SET submission_key = ?2 WHERE rowid = ?1")
        .map_err(err(op))?;
    for (row, request) in keyed {
        let request = pb::SubmitActionRequest::decode(request.as_slice())
            .map_err(|e| StoreError::Corrupt(format!("stored request: {e}")))?;
        if let Some(key) = SubmissionKey::of_request(&request) {
            update
                .execute(params![row, key.to_bytes().as_slice()])
                .map_err(err(op))?;
        }
    }
    drop(update);
    tx.execute_batch("ALTER TABLE actions DROP COLUMN request")
        .map_err(err(op))
}
