//! Reading games back: one game by id (an ended game asked for by a client),
//! the games in play (at start-up), and pages of ended games' summaries
//! (`ListGames`, exports). Every query here goes through an index.

use druids_contract::{Kind, pb};
use druids_engine::Seat;
use rusqlite::{Connection, OptionalExtension, params};

use super::{decode, err, hash_of};
use crate::lifecycle::{EndedRow, decode_outcome};
use crate::matches::decode_bots;
use crate::matches::stored_kind;
use crate::{
    ActionRecord, EndedQuery, Epoch, GameRecord, MatchTag, Origin, StoreError, StoredGame,
    SubmissionKey,
};

const GAME_COLUMNS: &str =
    "id, kind, players, seed, options, created_unix_ms, abandoned, seed_chosen, ended_unix_ms";

/// A `games` row, before its seats and actions are read.
type GameRow = (
    String,
    i32,
    i64,
    i64,
    Vec<u8>,
    i64,
    Option<String>,
    bool,
    Option<i64>,
);

fn game_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<GameRow> {
    Ok((
        r.get(0)?,
        r.get(1)?,
        r.get(2)?,
        r.get(3)?,
        r.get(4)?,
        r.get(5)?,
        r.get(6)?,
        r.get(7)?,
        r.get(8)?,
    ))
}

/// The game of `row` with its seats and its log.
fn complete(conn: &Connection, row: GameRow) -> Result<StoredGame, StoreError> {
    let err = err("loading a game");
    let (id, kind, players, seed, options, created, abandoned, seed_chosen, ended) = row;
    let mut record = GameRecord {
        id,
        kind: stored_kind(kind)?,
        players: players as usize,
        seed: seed as u64,
        seed_chosen,
        options: decode("options", &options)?,
        created_unix_ms: created as u64,
        seats: Vec::new(),
        request: None,
    };
    let mut joins = Vec::new();
    let mut seats_q = conn
        .prepare_cached(
            "SELECT seat, name, token_hash, at_create FROM seats WHERE game_id = ?1 ORDER BY claim_no",
        )
        .map_err(err)?;
    let seats = seats_q
        .query_map([&record.id], |r| {
            Ok((
                Seat(r.get::<_, u8>(0)?),
                r.get::<_, String>(1)?,
                hash_of(r.get(2)?)?,
                r.get::<_, bool>(3)?,
            ))
        })
        .map_err(err)?;
    for seat in seats {
        let (seat, name, hash, at_create) = seat.map_err(err)?;
        if at_create {
            record.seats.push((seat, name, hash));
        } else {
            joins.push((seat, name, hash));
        }
    }
    let mut actions_q = conn
        .prepare_cached(
            "SELECT version, seat, origin, action, submission_key, at_ms FROM actions WHERE game_id = ?1 ORDER BY version",
        )
        .map_err(err)?;
    let rows = actions_q
        .query_map([&record.id], |r| {
            Ok((
                r.get::<_, i64>(0)?,
                r.get::<_, u8>(1)?,
                r.get::<_, i64>(2)?,
                r.get::<_, Vec<u8>>(3)?,
                r.get::<_, Option<Vec<u8>>>(4)?,
                r.get::<_, i64>(5)?,
            ))
        })
        .map_err(err)?;
    let mut actions = Vec::new();
    for row in rows {
        let (version, seat, origin, action, key, at_ms) = row.map_err(err)?;
        actions.push(ActionRecord {
            version: version as u64,
            seat: Seat(seat),
            origin: Origin::from_i64(origin).ok_or_else(|| {
                StoreError::Corrupt(format!(
                    "stored action {version} has an unknown origin {origin}"
                ))
            })?,
            action: decode("action", &action)?,
            key: key.as_deref().map(SubmissionKey::from_bytes).transpose()?,
            epoch: Epoch::NONE,
            at_ms: at_ms.max(0) as u64,
        });
    }
    Ok(StoredGame {
        record,
        joins,
        actions,
        abandoned,
        ended_unix_ms: ended.map(|t| t as u64),
    })
}

/// Every game not ended, oldest first (partial index `games_in_play`).
pub(super) fn in_play(conn: &Connection) -> Result<Vec<StoredGame>, StoreError> {
    let err = err("loading the games in play");
    let rows = conn
        .prepare(&format!(
            "SELECT {GAME_COLUMNS} FROM games WHERE ended_unix_ms IS NULL ORDER BY created_unix_ms, id"
        ))
        .map_err(err)?
        .query_map([], game_row)
        .map_err(err)?
        .collect::<Result<Vec<_>, _>>()
        .map_err(err)?;
    rows.into_iter().map(|row| complete(conn, row)).collect()
}

/// Game `id` (primary key).
pub(super) fn one(conn: &Connection, id: &str) -> Result<Option<StoredGame>, StoreError> {
    let err = err("loading a game");
    let row = conn
        .prepare_cached(&format!("SELECT {GAME_COLUMNS} FROM games WHERE id = ?1"))
        .map_err(err)?
        .query_row([id], game_row)
        .optional()
        .map_err(err)?;
    row.map(|row| complete(conn, row)).transpose()
}

/// The `ListGames` rows of ended games (partial index `games_ended_list`).
pub(super) fn ended_page(
    conn: &Connection,
    q: &EndedQuery,
) -> Result<Vec<pb::GameSummary>, StoreError> {
    let err = err("listing ended games");
    // -1 matches no kind; NULL filters are "any".
    let kind = q.kind.map(Kind::number);
    let abandoned = q.status.map(|s| s == pb::GameStatus::Abandoned);
    let (after_ms, after_id) = match &q.after {
        Some((ms, id)) => (Some(*ms as i64), id.as_str()),
        None => (None, ""),
    };
    let f = &q.arena;
    // A match's bots are a JSON list of quoted ids.
    let bot = f.bot_id.as_ref().map(|b| format!("%\"{b}\"%"));
    let mut stmt = conn
        .prepare_cached(
            "SELECT g.id, g.kind, g.players, g.created_unix_ms, g.abandoned IS NOT NULL,
                    g.version, g.outcome, m.id, m.rated, m.bots, m.tournament_id
             FROM games g
             LEFT JOIN match_games mg ON mg.game_id = g.id
             LEFT JOIN matches m ON m.id = mg.match_id
             WHERE g.ended_unix_ms IS NOT NULL
               AND (?1 IS NULL OR g.kind = ?1)
               AND (?2 IS NULL OR (g.abandoned IS NOT NULL) = ?2)
               AND (?3 IS NULL OR g.created_unix_ms < ?3
                    OR (g.created_unix_ms = ?3 AND g.id > ?4))
               AND (?6 IS NULL OR (m.id IS NOT NULL) = ?6)
               AND (?7 IS NULL OR COALESCE(m.rated, 0) = ?7)
               AND (?8 IS NULL OR m.bots LIKE ?8)
               AND (?9 IS NULL OR m.tournament_id = ?9)
             ORDER BY g.created_unix_ms DESC, g.id
             LIMIT ?5",
        )
        .map_err(err)?;
    let rows = stmt
        .query_map(
            params![
                kind,
                abandoned,
                after_ms,
                after_id,
                q.limit as i64,
                f.arena,
                f.rated,
                bot,
                f.tournament_id
            ],
            |r| {
                let tag = match r.get::<_, Option<String>>(7)? {
                    None => None,
                    Some(match_id) => Some((
                        match_id,
                        r.get::<_, bool>(8)?,
                        r.get::<_, String>(9)?,
                        r.get::<_, Option<String>>(10)?,
                    )),
                };
                Ok((
                    EndedRow {
                        game_id: r.get(0)?,
                        kind: r.get(1)?,
                        players: r.get::<_, i64>(2)? as u32,
                        created_unix_ms: r.get::<_, i64>(3)? as u64,
                        abandoned: r.get(4)?,
                        version: r.get::<_, i64>(5)? as u64,
                        outcome: None,
                        arena: None,
                    },
                    r.get::<_, Option<Vec<u8>>>(6)?,
                    tag,
                ))
            },
        )
        .map_err(err)?
        .collect::<Result<Vec<_>, _>>()
        .map_err(err)?;
    let mut seats_q = conn
        .prepare_cached("SELECT seat, name FROM seats WHERE game_id = ?1")
        .map_err(err)?;
    let mut out = Vec::with_capacity(rows.len());
    for (mut row, outcome, tag) in rows {
        let claimed = seats_q
            .query_map([&row.game_id], |r| {
                Ok((r.get::<_, u32>(0)? as usize, r.get::<_, String>(1)?))
            })
            .map_err(err)?
            .collect::<Result<Vec<_>, _>>()
            .map_err(err)?;
        row.outcome = outcome.as_deref().map(decode_outcome).transpose()?;
        row.arena = match tag {
            None => None,
            Some((match_id, rated, bots, tournament_id)) => Some(MatchTag {
                match_id,
                rated,
                bots: decode_bots(&bots)?,
                tournament_id,
            }),
        };
        out.push(row.summary(claimed));
    }
    Ok(out)
}

/// Ids of ended games after `after_id`, in id order (primary key).
pub(super) fn ended_ids(
    conn: &Connection,
    after_id: &str,
    limit: usize,
) -> Result<Vec<String>, StoreError> {
    let err = err("listing ended games");
    conn.prepare_cached(
        "SELECT id FROM games WHERE id > ?1 AND ended_unix_ms IS NOT NULL ORDER BY id LIMIT ?2",
    )
    .map_err(err)?
    .query_map(params![after_id, limit as i64], |r| r.get(0))
    .map_err(err)?
    .collect::<Result<Vec<String>, _>>()
    .map_err(err)
}
