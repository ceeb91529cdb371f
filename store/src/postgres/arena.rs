//! The arena's tables in PostgreSQL (`migrations/postgres/V3__arena.sql`,
//! `V4__tournaments.sql`, `V5__arena_more.sql`): bots (with when their key
//! was revoked), matches with their games (`match_games`, by index) and their
//! tournament and round, tournaments, and pending challenges, with the
//! guarantees of the rest of the store (the event logs: [`super::event_logs`]).
//!
//! Every call goes through [`PostgresStore::retry`]. A write retried after a
//! lost connection may have committed the first time: an insert that then
//! finds its own row (same key, same content) counts as done, one that finds
//! another row fails ([`super::retry::Conflict`]). Updates are idempotent as
//! they are: a key set twice is the same key, a match's result recorded again
//! is compared with the one stored, a tournament finished or a bot revoked
//! again keeps its first time, a challenge saved again (an upsert) is the
//! same row, one removed again is gone already. Two writes can meet a retry
//! from another server: a key rotation retried finds its key stored and
//! leaves a revocation made since alone, and a removed challenge keeps a
//! marked row for an hour so a save retried meanwhile cannot restore it.

use std::collections::HashMap;

use prost::Message;

use super::PostgresStore;
use super::retry::{Failure, conflict};
use crate::error::refused;
use crate::matches::{
    attach_games, decode_bots, decode_placements, encode_bots, encode_placements, stored_kind,
};
use crate::{
    Accounts, BotRecord, ChallengeRecord, MatchRecord, Matches, PlacementRecord, StoreError,
    StoredMatch, TokenHash, TournamentRecord, Tournaments,
};
use tokio_postgres::Row;
use tokio_postgres::types::ToSql;

/// A stored key hash.
fn hash(blob: Vec<u8>) -> Result<TokenHash, StoreError> {
    blob.try_into()
        .map(TokenHash)
        .map_err(|_| StoreError::Corrupt("bots.key_hash is not 32 bytes".into()))
}

impl Accounts for PostgresStore {
    fn register_bot(&self, bot: &BotRecord) -> Result<bool, StoreError> {
        let registered = bot.registered_unix_ms as i64;
        self.retry("registering a bot", |retrying| {
            self.wait(async {
                let client = self.arena_client().await?;
                let mine = |row: &Row| {
                    row.get::<_, &str>(0) == bot.name
                        && row.get::<_, &[u8]>(1) == bot.key_hash.0.as_slice()
                        && row.get::<_, i64>(2) == registered
                };
                if found_on_retry(
                    &client,
                    retrying,
                    "SELECT name, key_hash, registered_unix_ms FROM bots WHERE id = $1",
                    &[&bot.id],
                    mine,
                    "another bot has this id",
                )
                .await?
                {
                    return Ok(true);
                }
                // A taken name inserts nothing; a taken id is an error.
                let inserted = client
                    .execute(
                        "INSERT INTO bots (id, name, description, owner_contact, key_hash,
                                           registered_unix_ms)
                         VALUES ($1, $2, $3, $4, $5, $6)
                         ON CONFLICT (name) DO NOTHING",
                        &[
                            &bot.id,
                            &bot.name,
                            &bot.description,
                            &bot.owner_contact,
                            &bot.key_hash.0.as_slice(),
                            &registered,
                        ],
                    )
                    .await?;
                Ok(inserted == 1)
            })
        })
    }

    fn set_bot_key(&self, bot_id: &str, key_hash: &TokenHash) -> Result<(), StoreError> {
        let op = "replacing a bot's key";
        self.retry(op, |retrying| {
            self.wait(async {
                let client = self.arena_client().await?;
                // The key stored already: the first attempt went through, and
                // a revocation made since (by another server) stands.
                if retrying
                    && client
                        .query_opt(
                            "SELECT 1 FROM bots WHERE id = $1 AND key_hash = $2",
                            &[&bot_id, &key_hash.0.as_slice()],
                        )
                        .await?
                        .is_some()
                {
                    return Ok(());
                }
                let updated = client
                    .execute(
                        "UPDATE bots SET key_hash = $2, revoked_unix_ms = NULL WHERE id = $1",
                        &[&bot_id, &key_hash.0.as_slice()],
                    )
                    .await?;
                if updated == 0 {
                    return Err(refused(op, format!("no bot {bot_id} is registered")).into());
                }
                Ok(())
            })
        })
    }

    fn revoke_bot(&self, bot_id: &str, at_ms: u64) -> Result<(), StoreError> {
        self.stamp_once(
            "revoking a bot's key",
            "UPDATE bots SET revoked_unix_ms = COALESCE(revoked_unix_ms, $2) WHERE id = $1",
            bot_id,
            at_ms,
            || format!("no bot {bot_id} is registered"),
        )
    }

    fn bots(&self) -> Result<Vec<BotRecord>, StoreError> {
        let rows = self.retry("reading the bots", |_| {
            self.wait(async {
                Ok(self
                    .pool
                    .get()
                    .await?
                    .query(
                        "SELECT id, name, description, owner_contact, key_hash, registered_unix_ms,
                                revoked_unix_ms
                         FROM bots ORDER BY seq",
                        &[],
                    )
                    .await?)
            })
        })?;
        rows.into_iter()
            .map(|r| {
                Ok(BotRecord {
                    id: r.get(0),
                    name: r.get(1),
                    description: r.get(2),
                    owner_contact: r.get(3),
                    key_hash: hash(r.get(4))?,
                    registered_unix_ms: r.get::<_, i64>(5) as u64,
                    revoked_unix_ms: r.get::<_, Option<i64>>(6).map(|at| at as u64),
                })
            })
            .collect()
    }
}

impl Matches for PostgresStore {
    fn create_match(&self, m: &MatchRecord) -> Result<(), StoreError> {
        let options = m.options.encode_to_vec();
        let bots = encode_bots(&m.bots);
        let (kind, seed, games, created) = (
            m.kind.number(),
            m.seed as i64,
            m.games as i32,
            m.created_unix_ms as i64,
        );
        let tournament_id = m.tournament.as_ref().map(|(id, _)| id.as_str());
        let round = m.tournament.as_ref().map(|(_, round)| *round as i32);
        self.retry("recording a match", |retrying| {
            self.wait(async {
                let client = self.arena_client().await?;
                let mine = |row: &Row| {
                    row.get::<_, i32>(0) == kind
                        && row.get::<_, bool>(1) == m.rated
                        && row.get::<_, i64>(2) == seed
                        && row.get::<_, &[u8]>(3) == options.as_slice()
                        && row.get::<_, &str>(4) == bots
                        && row.get::<_, i32>(5) == games
                        && row.get::<_, i64>(6) == created
                        && row.get::<_, Option<&str>>(7) == tournament_id
                        && row.get::<_, Option<i32>>(8) == round
                };
                if found_on_retry(
                    &client,
                    retrying,
                    "SELECT kind, rated, seed, options, bots, games, created_unix_ms,
                                    tournament_id, round
                             FROM matches WHERE id = $1",
                    &[&m.id],
                    mine,
                    "another match has this id",
                )
                .await?
                {
                    return Ok(());
                }
                client
                    .execute(
                        "INSERT INTO matches (id, kind, rated, seed, options, bots, games,
                                              created_unix_ms, tournament_id, round)
                         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)",
                        &[
                            &m.id,
                            &kind,
                            &m.rated,
                            &seed,
                            &options,
                            &bots,
                            &games,
                            &created,
                            &tournament_id,
                            &round,
                        ],
                    )
                    .await?;
                Ok(())
            })
        })
    }

    fn add_match_game(&self, match_id: &str, index: u32, game_id: &str) -> Result<(), StoreError> {
        let idx = index as i32;
        self.retry("recording a match's game", |retrying| {
            self.wait(async {
                let client = self.arena_client().await?;
                let mine = |row: &Row| row.get::<_, &str>(0) == game_id;
                if found_on_retry(
                    &client,
                    retrying,
                    "SELECT game_id FROM match_games WHERE match_id = $1 AND idx = $2",
                    &[&match_id, &idx],
                    mine,
                    "the match has another game at this index",
                )
                .await?
                {
                    return Ok(());
                }
                // An unknown match fails its foreign key; a stored index, the key.
                client
                    .execute(
                        "INSERT INTO match_games (match_id, idx, game_id) VALUES ($1, $2, $3)",
                        &[&match_id, &idx, &game_id],
                    )
                    .await?;
                Ok(())
            })
        })
    }

    fn finish_match(
        &self,
        match_id: &str,
        placements: &[PlacementRecord],
        at_ms: u64,
    ) -> Result<(), StoreError> {
        let op = "recording a match's result";
        let encoded = encode_placements(placements);
        self.retry(op, |_| {
            self.wait(async {
                let client = self.arena_client().await?;
                let updated = client
                    .execute(
                        "UPDATE matches SET placements = $2, finished_unix_ms = $3
                          WHERE id = $1 AND finished_unix_ms IS NULL",
                        &[&match_id, &encoded, &(at_ms as i64)],
                    )
                    .await?;
                if updated == 1 {
                    return Ok(());
                }
                // Finished already (by a retried attempt, say): the same
                // result again is no change.
                let row = client
                    .query_opt("SELECT placements FROM matches WHERE id = $1", &[&match_id])
                    .await?;
                match row {
                    None => Err(refused(op, format!("no match {match_id} is stored")).into()),
                    Some(row) if row.get::<_, Option<&[u8]>>(0) == Some(encoded.as_slice()) => {
                        Ok(())
                    }
                    Some(_) => Err(refused(
                        op,
                        format!("match {match_id} has another result already"),
                    )
                    .into()),
                }
            })
        })
    }

    fn matches(&self) -> Result<Vec<StoredMatch>, StoreError> {
        let (rows, games) = self.retry("reading the matches", |_| {
            self.wait(async {
                let client = self.arena_client().await?;
                let rows = client
                    .query(
                        "SELECT id, kind, rated, seed, options, bots, games, created_unix_ms,
                                finished_unix_ms, placements, tournament_id, round
                         FROM matches ORDER BY seq",
                        &[],
                    )
                    .await?;
                // Games of matches formed since the first query are left out
                // with their matches.
                let games = client
                    .query(
                        "SELECT match_id, game_id FROM match_games ORDER BY match_id, idx",
                        &[],
                    )
                    .await?;
                Ok((rows, games))
            })
        })?;
        let mut matches = Vec::with_capacity(rows.len());
        let mut index = HashMap::with_capacity(rows.len());
        for r in rows {
            let id: String = r.get(0);
            index.insert(id.clone(), matches.len());
            matches.push(StoredMatch {
                record: MatchRecord {
                    id,
                    kind: stored_kind(r.get(1))?,
                    rated: r.get(2),
                    seed: r.get::<_, i64>(3) as u64,
                    options: super::read::decode("match options", r.get(4))?,
                    bots: decode_bots(r.get(5))?,
                    games: r.get::<_, i32>(6) as u32,
                    created_unix_ms: r.get::<_, i64>(7) as u64,
                    tournament: match (r.get::<_, Option<String>>(10), r.get::<_, Option<i32>>(11))
                    {
                        (Some(id), Some(round)) => Some((id, round as u32)),
                        _ => None,
                    },
                },
                game_ids: Vec::new(),
                placements: r
                    .get::<_, Option<&[u8]>>(9)
                    .map(decode_placements)
                    .transpose()?,
                finished_unix_ms: r.get::<_, Option<i64>>(8).map(|t| t as u64),
            });
        }
        attach_games(
            &mut matches,
            &index,
            games.into_iter().map(|r| (r.get(0), r.get(1))),
        );
        Ok(matches)
    }

    fn save_challenge(&self, c: &ChallengeRecord) -> Result<(), StoreError> {
        let accepted = encode_bots(&c.accepted);
        self.retry("saving a challenge", |_| {
            self.wait(async {
                // Saved again (by a retried attempt, say): the same row with
                // the same content. A replaced challenge keeps its row, so
                // its seq. A removed one stays removed (its row is kept,
                // marked), whoever saves it after.
                self.pool
                    .get()
                    .await?
                    .execute(
                        "INSERT INTO challenges (id, info, accepted) VALUES ($1, $2, $3)
                         ON CONFLICT (id) DO UPDATE
                         SET info = EXCLUDED.info, accepted = EXCLUDED.accepted
                         WHERE challenges.removed_at IS NULL",
                        &[&c.id, &c.info, &accepted],
                    )
                    .await?;
                Ok(())
            })
        })
    }

    fn remove_challenge(&self, id: &str) -> Result<(), StoreError> {
        self.retry("removing a challenge", |_| {
            self.wait(async {
                // Removed already (by a retried attempt, say): no change.
                // The row stays, marked, so that a save retried after this
                // (on another server) cannot bring the challenge back; rows
                // removed long before any retry could still come go.
                let client = self.arena_client().await?;
                client
                    .execute(
                        "UPDATE challenges SET removed_at = COALESCE(removed_at, now())
                          WHERE id = $1",
                        &[&id],
                    )
                    .await?;
                client
                    .execute(
                        "DELETE FROM challenges WHERE removed_at < now() - interval '1 hour'",
                        &[],
                    )
                    .await?;
                Ok(())
            })
        })
    }

    fn challenges(&self) -> Result<Vec<ChallengeRecord>, StoreError> {
        let rows = self.retry("reading the challenges", |_| {
            self.wait(async {
                Ok(self
                    .pool
                    .get()
                    .await?
                    .query(
                        "SELECT id, info, accepted FROM challenges WHERE removed_at IS NULL
                          ORDER BY seq",
                        &[],
                    )
                    .await?)
            })
        })?;
        rows.into_iter()
            .map(|r| {
                Ok(ChallengeRecord {
                    id: r.get(0),
                    info: r.get(1),
                    accepted: decode_bots(r.get(2))?,
                })
            })
            .collect()
    }
}

impl Tournaments for PostgresStore {
    fn create_tournament(&self, t: &TournamentRecord) -> Result<(), StoreError> {
        let created = t.created_unix_ms as i64;
        let finished = t.finished_unix_ms.map(|at| at as i64);
        self.retry("recording a tournament", |retrying| {
            self.wait(async {
                let client = self.arena_client().await?;
                let mine = |row: &Row| {
                    row.get::<_, &[u8]>(0) == t.settings.as_slice()
                        && row.get::<_, i64>(1) == created
                        && row.get::<_, Option<i64>>(2) == finished
                };
                if found_on_retry(
                    &client,
                    retrying,
                    "SELECT settings, created_unix_ms, finished_unix_ms
                             FROM tournaments WHERE id = $1",
                    &[&t.id],
                    mine,
                    "another tournament has this id",
                )
                .await?
                {
                    return Ok(());
                }
                // A stored id fails the key.
                client
                    .execute(
                        "INSERT INTO tournaments (id, settings, created_unix_ms, finished_unix_ms)
                         VALUES ($1, $2, $3, $4)",
                        &[&t.id, &t.settings, &created, &finished],
                    )
                    .await?;
                Ok(())
            })
        })
    }

    fn finish_tournament(&self, id: &str, at_ms: u64) -> Result<(), StoreError> {
        self.stamp_once(
            "recording a tournament's end",
            "UPDATE tournaments SET finished_unix_ms = COALESCE(finished_unix_ms, $2)
              WHERE id = $1",
            id,
            at_ms,
            || format!("no tournament {id} is stored"),
        )
    }

    fn tournaments(&self) -> Result<Vec<TournamentRecord>, StoreError> {
        let rows = self.retry("reading the tournaments", |_| {
            self.wait(async {
                Ok(self
                    .pool
                    .get()
                    .await?
                    .query(
                        "SELECT id, settings, created_unix_ms, finished_unix_ms
                         FROM tournaments ORDER BY seq",
                        &[],
                    )
                    .await?)
            })
        })?;
        Ok(rows
            .into_iter()
            .map(|r| TournamentRecord {
                id: r.get(0),
                settings: r.get(1),
                created_unix_ms: r.get::<_, i64>(2) as u64,
                finished_unix_ms: r.get::<_, Option<i64>>(3).map(|at| at as u64),
            })
            .collect())
    }
}

/// What a first attempt that went through left, on a retry: `false` if the
/// row `lookup` finds (by the write's key) is not there, so the write is to
/// be made now; `true` if it is there and `mine` says it is this write's own
/// (the write is done); a conflict naming `what` if another row has the key.
pub(super) async fn found_on_retry(
    client: &deadpool_postgres::Client,
    retrying: bool,
    lookup: &str,
    key: &[&(dyn ToSql + Sync)],
    mine: impl FnOnce(&Row) -> bool,
    what: &str,
) -> Result<bool, Failure> {
    if !retrying {
        return Ok(false);
    }
    match client.query_opt(lookup, key).await? {
        None => Ok(false),
        Some(row) if mine(&row) => Ok(true),
        Some(_) => Err(conflict(what)),
    }
}

impl PostgresStore {
    /// Runs `sql`, which sets a time (`$2`) on row `$1` only if it has none:
    /// a retried attempt keeps the first time. No such row is refused with
    /// `missing`'s words.
    fn stamp_once(
        &self,
        op: &'static str,
        sql: &'static str,
        id: &str,
        at_ms: u64,
        missing: impl Fn() -> String,
    ) -> Result<(), StoreError> {
        let at = at_ms as i64;
        self.retry(op, |_| {
            self.wait(async {
                let updated = self.arena_client().await?.execute(sql, &[&id, &at]).await?;
                if updated == 0 {
                    return Err(refused(op, missing()).into());
                }
                Ok(())
            })
        })
    }
}
