//! The arena's tables in the SQLite file (migrations 4 to 6): bots (with
//! when their key was revoked), matches with their games (`match_games`, by
//! index) and their tournament and round, each bot's event log, tournaments
//! with their event logs (`tournament_events`), and pending challenges. Each
//! call is one statement or one transaction, so, like every other call of the
//! store, it returns once committed.
//!
//! Registration order, formation order, creation order and the order
//! challenges were first saved are explicit `seq` columns, one more than the
//! largest so far, computed inside the inserting statement (SQLite has one
//! writer at a time, so two can never get the same); a replaced challenge
//! keeps its `seq`.

use std::collections::HashMap;

use prost::Message;
use rusqlite::{OptionalExtension, params};

use super::{SqliteStore, decode, err, hash_of};
use crate::error::refused;
use crate::matches::{
    attach_games, decode_bots, decode_placements, encode_bots, encode_placements, stored_kind,
};
use crate::{
    Accounts, BotRecord, ChallengeRecord, EventLog, EventLogs, MatchRecord, Matches,
    PlacementRecord, StoreError, StoredMatch, TokenHash, TournamentRecord, Tournaments,
};

impl Accounts for SqliteStore {
    fn register_bot(&self, bot: &BotRecord) -> Result<bool, StoreError> {
        // A taken name inserts nothing; a taken id is an error.
        let inserted = self
            .conn()
            .execute(
                "INSERT INTO bots (id, seq, name, description, owner_contact, key_hash, registered_unix_ms)
                 VALUES (?1, (SELECT COALESCE(MAX(seq), 0) + 1 FROM bots), ?2, ?3, ?4, ?5, ?6)
                 ON CONFLICT (name) DO NOTHING",
                params![
                    bot.id,
                    bot.name,
                    bot.description,
                    bot.owner_contact,
                    bot.key_hash.0.as_slice(),
                    bot.registered_unix_ms as i64
                ],
            )
            .map_err(err("registering a bot"))?;
        Ok(inserted == 1)
    }

    fn set_bot_key(&self, bot_id: &str, key_hash: &TokenHash) -> Result<(), StoreError> {
        let op = "replacing a bot's key";
        let updated = self
            .conn()
            .execute(
                "UPDATE bots SET key_hash = ?2, revoked_unix_ms = NULL WHERE id = ?1",
                params![bot_id, key_hash.0.as_slice()],
            )
            .map_err(err(op))?;
        if updated == 0 {
            return Err(refused(op, format!("no bot {bot_id} is registered")));
        }
        Ok(())
    }

    fn revoke_bot(&self, bot_id: &str, at_ms: u64) -> Result<(), StoreError> {
        let op = "revoking a bot's key";
        // Revoked already: it keeps its first time.
        let updated = self
            .conn()
            .execute(
                "UPDATE bots SET revoked_unix_ms = COALESCE(revoked_unix_ms, ?2) WHERE id = ?1",
                params![bot_id, at_ms as i64],
            )
            .map_err(err(op))?;
        if updated == 0 {
            return Err(refused(op, format!("no bot {bot_id} is registered")));
        }
        Ok(())
    }

    fn bots(&self) -> Result<Vec<BotRecord>, StoreError> {
        let err = err("reading the bots");
        self.conn()
            .prepare_cached(
                "SELECT id, name, description, owner_contact, key_hash, registered_unix_ms,
                        revoked_unix_ms
                 FROM bots ORDER BY seq",
            )
            .map_err(err)?
            .query_map([], |r| {
                Ok(BotRecord {
                    id: r.get(0)?,
                    name: r.get(1)?,
                    description: r.get(2)?,
                    owner_contact: r.get(3)?,
                    key_hash: hash_of(r.get(4)?)?,
                    registered_unix_ms: r.get::<_, i64>(5)? as u64,
                    revoked_unix_ms: r.get::<_, Option<i64>>(6)?.map(|at| at as u64),
                })
            })
            .map_err(err)?
            .collect::<Result<_, _>>()
            .map_err(err)
    }
}

impl Matches for SqliteStore {
    fn create_match(&self, m: &MatchRecord) -> Result<(), StoreError> {
        self.conn()
            .execute(
                "INSERT INTO matches (id, seq, kind, rated, seed, options, bots, games, created_unix_ms,
                                      tournament_id, round)
                 VALUES (?1, (SELECT COALESCE(MAX(seq), 0) + 1 FROM matches), ?2, ?3, ?4, ?5, ?6, ?7, ?8,
                         ?9, ?10)",
                params![
                    m.id,
                    m.kind.number(),
                    m.rated,
                    m.seed as i64,
                    m.options.encode_to_vec(),
                    encode_bots(&m.bots),
                    m.games,
                    m.created_unix_ms as i64,
                    m.tournament.as_ref().map(|(id, _)| id.as_str()),
                    m.tournament.as_ref().map(|(_, round)| *round)
                ],
            )
            .map(|_| ())
            .map_err(err("recording a match"))
    }

    fn add_match_game(&self, match_id: &str, index: u32, game_id: &str) -> Result<(), StoreError> {
        // An unknown match fails its foreign key; a stored index, the key.
        self.conn()
            .execute(
                "INSERT INTO match_games (match_id, idx, game_id) VALUES (?1, ?2, ?3)",
                params![match_id, index, game_id],
            )
            .map(|_| ())
            .map_err(err("recording a match's game"))
    }

    fn finish_match(
        &self,
        match_id: &str,
        placements: &[PlacementRecord],
        at_ms: u64,
    ) -> Result<(), StoreError> {
        let op = "recording a match's result";
        let encoded = encode_placements(placements);
        let mut conn = self.conn();
        let tx = conn.transaction().map_err(err(op))?;
        let updated = tx
            .execute(
                "UPDATE matches SET placements = ?2, finished_unix_ms = ?3
                  WHERE id = ?1 AND finished_unix_ms IS NULL",
                params![match_id, encoded, at_ms as i64],
            )
            .map_err(err(op))?;
        if updated == 0 {
            // Finished already: the same result again is no change.
            let stored: Option<Option<Vec<u8>>> = tx
                .query_row(
                    "SELECT placements FROM matches WHERE id = ?1",
                    [match_id],
                    |r| r.get(0),
                )
                .optional()
                .map_err(err(op))?;
            match stored {
                None => return Err(refused(op, format!("no match {match_id} is stored"))),
                Some(stored) if stored.as_deref() != Some(encoded.as_slice()) => {
                    return Err(refused(
                        op,
                        format!("match {match_id} has another result already"),
                    ));
                }
                Some(_) => {}
            }
        }
        tx.commit().map_err(err(op))
    }

    fn matches(&self) -> Result<Vec<StoredMatch>, StoreError> {
        let err = err("reading the matches");
        let conn = self.conn();
        type Row = (
            String,
            i32,
            bool,
            i64,
            Vec<u8>,
            String,
            u32,
            i64,
            Option<i64>,
            Option<Vec<u8>>,
            Option<(String, u32)>,
        );
        let rows: Vec<Row> = conn
            .prepare_cached(
                "SELECT id, kind, rated, seed, options, bots, games, created_unix_ms,
                        finished_unix_ms, placements, tournament_id, round
                 FROM matches ORDER BY seq",
            )
            .map_err(err)?
            .query_map([], |r| {
                let tournament = match (r.get::<_, Option<String>>(10)?, r.get(11)?) {
                    (Some(id), Some(round)) => Some((id, round)),
                    _ => None,
                };
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
                    r.get(9)?,
                    tournament,
                ))
            })
            .map_err(err)?
            .collect::<Result<_, _>>()
            .map_err(err)?;
        let mut matches = Vec::with_capacity(rows.len());
        let mut index = HashMap::with_capacity(rows.len());
        for (
            id,
            kind,
            rated,
            seed,
            options,
            bots,
            games,
            created,
            finished,
            placements,
            tournament,
        ) in rows
        {
            index.insert(id.clone(), matches.len());
            matches.push(StoredMatch {
                record: MatchRecord {
                    id,
                    kind: stored_kind(kind)?,
                    rated,
                    seed: seed as u64,
                    options: decode("match options", &options)?,
                    bots: decode_bots(&bots)?,
                    games,
                    created_unix_ms: created as u64,
                    tournament,
                },
                game_ids: Vec::new(),
                placements: placements.as_deref().map(decode_placements).transpose()?,
                finished_unix_ms: finished.map(|t| t as u64),
            });
        }
        let games: Vec<(String, String)> = conn
            .prepare_cached("SELECT match_id, game_id FROM match_games ORDER BY match_id, idx")
            .map_err(err)?
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .map_err(err)?
            .collect::<Result<_, _>>()
            .map_err(err)?;
        attach_games(&mut matches, &index, games);
        Ok(matches)
    }

    fn save_challenge(&self, c: &ChallengeRecord) -> Result<(), StoreError> {
        // A replaced challenge keeps its seq, so its place.
        self.conn()
            .execute(
                "INSERT INTO challenges (id, seq, info, accepted)
                 VALUES (?1, (SELECT COALESCE(MAX(seq), 0) + 1 FROM challenges), ?2, ?3)
                 ON CONFLICT (id) DO UPDATE SET info = excluded.info, accepted = excluded.accepted",
                params![c.id, c.info, encode_bots(&c.accepted)],
            )
            .map(|_| ())
            .map_err(err("saving a challenge"))
    }

    fn remove_challenge(&self, id: &str) -> Result<(), StoreError> {
        self.conn()
            .execute("DELETE FROM challenges WHERE id = ?1", [id])
            .map(|_| ())
            .map_err(err("removing a challenge"))
    }

    fn challenges(&self) -> Result<Vec<ChallengeRecord>, StoreError> {
        let err = err("reading the challenges");
        let rows: Vec<(String, Vec<u8>, String)> = self
            .conn()
            .prepare_cached("SELECT id, info, accepted FROM challenges ORDER BY seq")
            .map_err(err)?
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
            .map_err(err)?
            .collect::<Result<_, _>>()
            .map_err(err)?;
        rows.into_iter()
            .map(|(id, info, accepted)| {
                Ok(ChallengeRecord {
                    id,
                    info,
                    accepted: decode_bots(&accepted)?,
                })
            })
            .collect()
    }
}

impl Tournaments for SqliteStore {
    fn create_tournament(&self, t: &TournamentRecord) -> Result<(), StoreError> {
        // A stored id fails the key.
        self.conn()
            .execute(
                "INSERT INTO tournaments (id, seq, settings, created_unix_ms, finished_unix_ms)
                 VALUES (?1, (SELECT COALESCE(MAX(seq), 0) + 1 FROM tournaments), ?2, ?3, ?4)",
                params![
                    t.id,
                    t.settings,
                    t.created_unix_ms as i64,
                    t.finished_unix_ms.map(|at| at as i64)
                ],
            )
            .map(|_| ())
            .map_err(err("recording a tournament"))
    }

    fn finish_tournament(&self, id: &str, at_ms: u64) -> Result<(), StoreError> {
        let op = "recording a tournament's end";
        // Finished already: it keeps its first time.
        let updated = self
            .conn()
            .execute(
                "UPDATE tournaments SET finished_unix_ms = COALESCE(finished_unix_ms, ?2)
                  WHERE id = ?1",
                params![id, at_ms as i64],
            )
            .map_err(err(op))?;
        if updated == 0 {
            return Err(refused(op, format!("no tournament {id} is stored")));
        }
        Ok(())
    }

    fn tournaments(&self) -> Result<Vec<TournamentRecord>, StoreError> {
        let err = err("reading the tournaments");
        self.conn()
            .prepare_cached(
                "SELECT id, settings, created_unix_ms, finished_unix_ms
                 FROM tournaments ORDER BY seq",
            )
            .map_err(err)?
            .query_map([], |r| {
                Ok(TournamentRecord {
                    id: r.get(0)?,
                    settings: r.get(1)?,
                    created_unix_ms: r.get::<_, i64>(2)? as u64,
                    finished_unix_ms: r.get::<_, Option<i64>>(3)?.map(|at| at as u64),
                })
            })
            .map_err(err)?
            .collect::<Result<_, _>>()
            .map_err(err)
    }
}

impl EventLogs for SqliteStore {
    fn append_event(
        &self,
        log: EventLog,
        owner: &str,
        seq: u64,
        event: &[u8],
    ) -> Result<(), StoreError> {
        // An unknown owner fails its foreign key; a stored seq, the key.
        self.conn()
            .prepare_cached(&format!(
                "INSERT INTO {} ({}, seq, event) VALUES (?1, ?2, ?3)",
                log.table(),
                log.owner_column()
            ))
            .and_then(|mut insert| insert.execute(params![owner, seq as i64, event]))
            .map(|_| ())
            .map_err(err(log.append_op()))
    }

    fn events(
        &self,
        log: EventLog,
        owner: &str,
        from_seq: u64,
        limit: usize,
    ) -> Result<Vec<(u64, Vec<u8>)>, StoreError> {
        let err = err(log.read_op());
        self.conn()
            .prepare_cached(&format!(
                "SELECT seq, event FROM {} WHERE {} = ?1 AND seq >= ?2 ORDER BY seq LIMIT ?3",
                log.table(),
                log.owner_column()
            ))
            .map_err(err)?
            .query_map(
                params![
                    owner,
                    from_seq.min(i64::MAX as u64) as i64,
                    limit.min(i64::MAX as usize) as i64
                ],
                |r| Ok((r.get::<_, i64>(0)? as u64, r.get(1)?)),
            )
            .map_err(err)?
            .collect::<Result<_, _>>()
            .map_err(err)
    }

    fn last_event(&self, log: EventLog, owner: &str) -> Result<u64, StoreError> {
        self.conn()
            .query_row(
                &format!(
                    "SELECT COALESCE(MAX(seq), 0) FROM {} WHERE {} = ?1",
                    log.table(),
                    log.owner_column()
                ),
                [owner],
                |r| r.get::<_, i64>(0),
            )
            .map(|seq| seq as u64)
            .map_err(err(log.last_op()))
    }
}
