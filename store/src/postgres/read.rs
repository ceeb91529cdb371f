//! Reading games back, as [`crate::sqlite`] does: one game by id, the games
//! in play (at start-up), pages of ended games' summaries and ids. Every query
//! goes through an index, and a game's rows come in three queries however
//! many games are read, in one read-only snapshot.

use std::collections::HashMap;

use deadpool_postgres::Pool;
use druids_contract::{Kind, pb};
use druids_engine::Seat;
use prost::Message;
use tokio_postgres::IsolationLevel;
use tokio_postgres::Row;

use super::retry::Failure;
use crate::lifecycle::{EndedRow, decode_outcome};
use crate::matches::decode_bots;
use crate::matches::stored_kind;
use crate::{
    ActionRecord, EndedQuery, Epoch, GameRecord, MatchTag, Origin, StoreError, StoredGame,
    SubmissionKey, TokenHash,
};

const GAME_COLUMNS: &str =
    "id, kind, players, seed, options, created_unix_ms, abandoned, seed_chosen, ended_unix_ms";

pub(super) fn decode<M: Message + Default>(what: &str, blob: &[u8]) -> Result<M, StoreError> {
    M::decode(blob).map_err(|e| StoreError::Corrupt(format!("stored {what}: {e}")))
}

fn hash_of(blob: &[u8]) -> Result<TokenHash, StoreError> {
    blob.try_into()
        .map(TokenHash)
        .map_err(|_| StoreError::Corrupt("seats.token_hash is not 32 bytes".into()))
}

/// The games of the `games` rows `rows` (in their order) with their seats and
/// logs, read in the same transaction.
async fn complete(
    tx: &deadpool_postgres::Transaction<'_>,
    rows: Vec<Row>,
) -> Result<Vec<StoredGame>, Failure> {
    let mut games = Vec::with_capacity(rows.len());
    let mut index = HashMap::with_capacity(rows.len());
    for row in rows {
        let id: String = row.get(0);
        index.insert(id.clone(), games.len());
        games.push(StoredGame {
            record: GameRecord {
                id,
                kind: stored_kind(row.get::<_, i32>(1))?,
                players: row.get::<_, i32>(2) as usize,
                seed: row.get::<_, i64>(3) as u64,
                seed_chosen: row.get(7),
                options: decode("options", row.get(4))?,
                created_unix_ms: row.get::<_, i64>(5) as u64,
                seats: Vec::new(),
                request: None,
            },
            joins: Vec::new(),
            actions: Vec::new(),
            abandoned: row.get(6),
            ended_unix_ms: row.get::<_, Option<i64>>(8).map(|t| t as u64),
        });
    }
    let ids: Vec<String> = games.iter().map(|g| g.record.id.clone()).collect();
    let seats = tx
        .query(
            "SELECT game_id, seat, name, token_hash, at_create FROM seats
              WHERE game_id = ANY($1) ORDER BY game_id, claim_no",
            &[&ids],
        )
        .await?;
    for r in seats {
        let game = &mut games[index[r.get::<_, &str>(0)]];
        let claim = (
            Seat(r.get::<_, i16>(1) as u8),
            r.get::<_, String>(2),
            hash_of(r.get(3))?,
        );
        if r.get::<_, bool>(4) {
            game.record.seats.push(claim);
        } else {
            game.joins.push(claim);
        }
    }
    let actions = tx
        .query(
            "SELECT game_id, version, seat, origin, action, submission_key, epoch, at_ms FROM actions
              WHERE game_id = ANY($1) ORDER BY game_id, version",
            &[&ids],
        )
        .await?;
    for r in actions {
        let version: i64 = r.get(1);
        let origin = i64::from(r.get::<_, i16>(3));
        let action = ActionRecord {
            version: version as u64,
            seat: Seat(r.get::<_, i16>(2) as u8),
            origin: Origin::from_i64(origin).ok_or_else(|| {
                StoreError::Corrupt(format!(
                    "stored action {version} has an unknown origin {origin}"
                ))
            })?,
            action: decode("action", r.get(4))?,
            key: r
                .get::<_, Option<&[u8]>>(5)
                .map(SubmissionKey::from_bytes)
                .transpose()?,
            epoch: Epoch(r.get::<_, i64>(6) as u64),
            at_ms: r.get::<_, i64>(7).max(0) as u64,
        };
        games[index[r.get::<_, &str>(0)]].actions.push(action);
    }
    Ok(games)
}

/// Reads the games `where_clause` selects, in `order`, with everything stored
/// of them, in one read-only snapshot.
async fn games(
    pool: &Pool,
    where_clause: &str,
    params: &[&(dyn tokio_postgres::types::ToSql + Sync)],
) -> Result<Vec<StoredGame>, Failure> {
    let mut client = pool.get().await?;
    let tx = client
        .build_transaction()
        .isolation_level(IsolationLevel::RepeatableRead)
        .read_only(true)
        .start()
        .await?;
    let rows = tx
        .query(
            &format!("SELECT {GAME_COLUMNS} FROM games WHERE {where_clause}"),
            params,
        )
        .await?;
    let games = complete(&tx, rows).await?;
    tx.commit().await?;
    Ok(games)
}

/// Every game not ended, oldest first (partial index `games_in_play`).
pub(super) async fn in_play(pool: &Pool) -> Result<Vec<StoredGame>, Failure> {
    games(
        pool,
        "ended_unix_ms IS NULL ORDER BY created_unix_ms, id",
        &[],
    )
    .await
}

/// Game `id` (primary key).
pub(super) async fn one(pool: &Pool, id: &str) -> Result<Option<StoredGame>, Failure> {
    Ok(games(pool, "id = $1", &[&id]).await?.pop())
}

/// The `ListGames` rows of ended games (partial index `games_ended_list`).
pub(super) async fn ended_page(
    pool: &Pool,
    q: &EndedQuery,
) -> Result<Vec<pb::GameSummary>, Failure> {
    let kind = q.kind.map(Kind::number);
    let abandoned = q.status.map(|s| s == pb::GameStatus::Abandoned);
    let (after_ms, after_id) = match &q.after {
        Some((ms, id)) => (Some(*ms as i64), id.as_str()),
        None => (None, ""),
    };
    let f = &q.arena;
    // A match's bots are a JSON list of quoted ids.
    let bot = f.bot_id.as_ref().map(|b| format!("%\"{b}\"%"));
    let client = pool.get().await?;
    let rows = client
        .query(
            "SELECT g.id, g.kind, g.players, g.created_unix_ms, g.abandoned IS NOT NULL,
                    g.version, g.outcome, m.id, m.rated, m.bots, m.tournament_id
               FROM games g
               LEFT JOIN match_games mg ON mg.game_id = g.id
               LEFT JOIN matches m ON m.id = mg.match_id
              WHERE g.ended_unix_ms IS NOT NULL
                AND ($1::INTEGER IS NULL OR g.kind = $1)
                AND ($2::BOOLEAN IS NULL OR (g.abandoned IS NOT NULL) = $2)
                AND ($3::BIGINT IS NULL OR g.created_unix_ms < $3
                     OR (g.created_unix_ms = $3 AND g.id > $4))
                AND ($6::BOOLEAN IS NULL OR (m.id IS NOT NULL) = $6)
                AND ($7::BOOLEAN IS NULL OR COALESCE(m.rated, FALSE) = $7)
                AND ($8::TEXT IS NULL OR m.bots LIKE $8)
                AND ($9::TEXT IS NULL OR m.tournament_id = $9)
              ORDER BY g.created_unix_ms DESC, g.id
              LIMIT $5",
            &[
                &kind,
                &abandoned,
                &after_ms,
                &after_id,
                &(q.limit as i64),
                &f.arena,
                &f.rated,
                &bot,
                &f.tournament_id,
            ],
        )
        .await?;
    let ids: Vec<&str> = rows.iter().map(|r| r.get::<_, &str>(0)).collect();
    let claimed = client
        .query(
            "SELECT game_id, seat, name FROM seats WHERE game_id = ANY($1)",
            &[&ids],
        )
        .await?;
    let mut names: HashMap<&str, Vec<(usize, String)>> = HashMap::new();
    for c in &claimed {
        names
            .entry(c.get::<_, &str>(0))
            .or_default()
            .push((c.get::<_, i16>(1) as usize, c.get(2)));
    }
    let mut out = Vec::with_capacity(rows.len());
    for r in &rows {
        let game_id: &str = r.get(0);
        let arena = match r.get::<_, Option<String>>(7) {
            None => None,
            Some(match_id) => Some(MatchTag {
                match_id,
                rated: r.get(8),
                bots: decode_bots(r.get(9)).map_err(Failure::Store)?,
                tournament_id: r.get(10),
            }),
        };
        let row = EndedRow {
            game_id: game_id.to_owned(),
            kind: r.get(1),
            players: r.get::<_, i32>(2) as u32,
            created_unix_ms: r.get::<_, i64>(3) as u64,
            abandoned: r.get(4),
            version: r.get::<_, i64>(5) as u64,
            outcome: r
                .get::<_, Option<&[u8]>>(6)
                .map(decode_outcome)
                .transpose()
                .map_err(Failure::Store)?,
            arena,
        };
        out.push(row.summary(names.remove(game_id).unwrap_or_default()));
    }
    Ok(out)
}

/// Ids of ended games after `after_id`, in id order (primary key).
pub(super) async fn ended_ids(
    pool: &Pool,
    after_id: &str,
    limit: usize,
) -> Result<Vec<String>, Failure> {
    let client = pool.get().await?;
    Ok(client
        .query(
            "SELECT id FROM games WHERE id > $1 AND ended_unix_ms IS NOT NULL ORDER BY id LIMIT $2",
            &[&after_id, &(limit as i64)],
        )
        .await?
        .into_iter()
        .map(|r| r.get(0))
        .collect())
}
