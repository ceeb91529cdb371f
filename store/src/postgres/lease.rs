//! The leases of several nodes sharing the database ([`Leases`]; tables in
//! `migrations/postgres/V2__leases.sql`). Expiry is judged by the database's
//! clock. Every statement is retried on a lost connection like the store's
//! own; each is idempotent or checks the epoch it read, so a retry of one that
//! went through changes nothing more.

use druids_contract::pb;

use super::PostgresStore;
use crate::lifecycle::{ArenaFilter, EndedRow, MatchTag};
use crate::matches::decode_bots;
use crate::{Claim, Epoch, Leases, Owner, StoreError, Whereabouts};

/// A node's expiry, `$2` milliseconds from now.
const EXPIRY: &str = "now() + make_interval(secs => $2::BIGINT / 1000.0)";

impl Leases for PostgresStore {
    fn renew(&self, node: &str, addr: &str, lease_ms: u64) -> Result<bool, StoreError> {
        let sql = format!(
            "WITH before AS (SELECT expires_at < now() AS lapsed FROM nodes WHERE node_id = $1)
             INSERT INTO nodes (node_id, addr, expires_at) VALUES ($1, $3, {EXPIRY})
             ON CONFLICT (node_id) DO UPDATE SET addr = EXCLUDED.addr, expires_at = EXCLUDED.expires_at
             RETURNING (SELECT lapsed FROM before)"
        );
        let pool = self.renewal.as_ref().unwrap_or(&self.pool);
        let row = self.retry("renewing the node's leases", |_| {
            self.wait(async {
                let client = pool.get().await?;
                Ok(client
                    .query_one(&sql, &[&node, &(lease_ms as i64), &addr])
                    .await?)
            })
        })?;
        Ok(row.get::<_, Option<bool>>(0).unwrap_or(false))
    }

    fn release(&self, node: &str) -> Result<(), StoreError> {
        self.retry("releasing the node's leases", |_| {
            self.wait(async {
                let client = self.pool.get().await?;
                client
                    .execute(
                        "UPDATE nodes SET expires_at = now() - interval '1 second' WHERE node_id = $1",
                        &[&node],
                    )
                    .await?;
                Ok(())
            })
        })
    }

    fn whereabouts(&self, game_id: &str) -> Result<Whereabouts, StoreError> {
        let row = self.retry("finding a game's owner", |_| {
            self.wait(async {
                let client = self.pool.get().await?;
                Ok(client
                    .query_opt(
                        "SELECT g.ended_unix_ms IS NOT NULL, l.node_id, l.epoch, n.addr,
                                COALESCE(n.expires_at > now(), FALSE)
                           FROM games g
                           LEFT JOIN leases l ON l.game_id = g.id
                           LEFT JOIN nodes n ON n.node_id = l.node_id
                          WHERE g.id = $1",
                        &[&game_id],
                    )
                    .await?)
            })
        })?;
        let Some(row) = row else {
            return Ok(Whereabouts::NoSuchGame);
        };
        if row.get::<_, bool>(0) {
            return Ok(Whereabouts::Ended);
        }
        Ok(match row.get::<_, Option<String>>(1) {
            None => Whereabouts::Unowned,
            Some(node) => Whereabouts::Owned(Owner {
                node,
                addr: row.get::<_, Option<String>>(3).unwrap_or_default(),
                epoch: Epoch(row.get::<_, i64>(2) as u64),
                alive: row.get(4),
            }),
        })
    }

    fn claim(&self, game_id: &str, node: &str, claim: Claim) -> Result<Option<Epoch>, StoreError> {
        let row = self.retry("claiming a game", |retrying| {
            self.wait(async {
                let client = self.pool.get().await?;
                let row = match claim {
                    // A creator's first lease; a retry finds its own.
                    Claim::New => client
                        .query_opt(
                            "INSERT INTO leases (game_id, node_id, epoch) VALUES ($1, $2, 1)
                             ON CONFLICT (game_id) DO UPDATE SET epoch = leases.epoch
                              WHERE leases.node_id = $2 AND leases.epoch = 1
                             RETURNING epoch",
                            &[&game_id, &node],
                        )
                        .await?,
                    // Never owned: the epoch after a creator's, so that a
                    // creator late with its first lease cannot write.
                    Claim::Takeover { seen: None } => client
                        .query_opt(
                            "INSERT INTO leases (game_id, node_id, epoch) VALUES ($1, $2, 2)
                             ON CONFLICT (game_id) DO NOTHING RETURNING epoch",
                            &[&game_id, &node],
                        )
                        .await?,
                    Claim::Takeover { seen: Some(seen) } => {
                        let row = client
                            .query_opt(
                                "UPDATE leases SET node_id = $2, epoch = epoch + 1
                                  WHERE game_id = $1 AND epoch = $3
                                    AND (node_id = $2 OR NOT EXISTS (
                                         SELECT 1 FROM nodes n
                                          WHERE n.node_id = leases.node_id AND n.expires_at > now()))
                                 RETURNING epoch",
                                &[&game_id, &node, &(seen.0 as i64)],
                            )
                            .await?;
                        match row {
                            // The first attempt may have gone through.
                            None if retrying => {
                                client
                                    .query_opt(
                                        "SELECT epoch FROM leases
                                          WHERE game_id = $1 AND node_id = $2 AND epoch = $3",
                                        &[&game_id, &node, &(seen.0 as i64 + 1)],
                                    )
                                    .await?
                            }
                            row => row,
                        }
                    }
                };
                Ok(row)
            })
        })?;
        Ok(row.map(|r| Epoch(r.get::<_, i64>(0) as u64)))
    }

    fn orphans(
        &self,
        node: &str,
        created_before_ms: u64,
        limit: usize,
    ) -> Result<Vec<(String, Option<Epoch>)>, StoreError> {
        let rows = self.retry("finding games without an owner", |_| {
            self.wait(async {
                let client = self.pool.get().await?;
                Ok(client
                    .query(
                        "SELECT g.id, l.epoch FROM games g
                           LEFT JOIN leases l ON l.game_id = g.id
                           LEFT JOIN nodes n ON n.node_id = l.node_id
                          WHERE g.ended_unix_ms IS NULL
                            AND CASE WHEN l.game_id IS NULL THEN g.created_unix_ms < $2
                                     ELSE l.node_id = $1 OR n.expires_at IS NULL
                                          OR n.expires_at <= now() END
                          ORDER BY g.created_unix_ms, g.id LIMIT $3",
                        &[&node, &(created_before_ms as i64), &(limit as i64)],
                    )
                    .await?)
            })
        })?;
        Ok(rows
            .into_iter()
            .map(|r| {
                (
                    r.get(0),
                    r.get::<_, Option<i64>>(1).map(|e| Epoch(e as u64)),
                )
            })
            .collect())
    }

    fn holders(&self, game_ids: &[String]) -> Result<Vec<(String, String, Epoch)>, StoreError> {
        let rows = self.retry("reading leases", |_| {
            self.wait(async {
                let client = self.pool.get().await?;
                Ok(client
                    .query(
                        "SELECT game_id, node_id, epoch FROM leases WHERE game_id = ANY($1)",
                        &[&game_ids],
                    )
                    .await?)
            })
        })?;
        Ok(rows
            .into_iter()
            .map(|r| (r.get(0), r.get(1), Epoch(r.get::<_, i64>(2) as u64)))
            .collect())
    }

    fn list_in_play(
        &self,
        kind: Option<druids_contract::Kind>,
        status: i32,
        arena: &ArenaFilter,
        after: Option<(u64, String)>,
        limit: usize,
    ) -> Result<Vec<pb::GameSummary>, StoreError> {
        let kind = kind.map_or(0, druids_contract::Kind::number);
        let (after_ms, after_id) =
            after.map_or((i64::MAX, String::new()), |(t, id)| (t as i64, id));
        // A match's bots are a JSON list of quoted ids.
        let bot = arena.bot_id.as_ref().map(|b| format!("%\"{b}\"%"));
        let rows = self.retry("listing games in play", |_| {
            self.wait(async {
                let client = self.pool.get().await?;
                let games = client
                    .query(
                        "SELECT * FROM (
                           SELECT g.id, g.kind, g.players, g.created_unix_ms,
                                  (SELECT COUNT(*) FROM seats s WHERE s.game_id = g.id) AS claimed,
                                  COALESCE((SELECT MAX(version) FROM actions a WHERE a.game_id = g.id), 0),
                                  m.id, m.rated, m.bots, m.tournament_id
                             FROM games g
                             LEFT JOIN match_games mg ON mg.game_id = g.id
                             LEFT JOIN matches m ON m.id = mg.match_id
                            WHERE g.ended_unix_ms IS NULL AND ($1 = 0 OR g.kind = $1)
                              AND (g.created_unix_ms < $2 OR (g.created_unix_ms = $2 AND g.id > $3))
                              AND ($6::BOOLEAN IS NULL OR (m.id IS NOT NULL) = $6)
                              AND ($7::BOOLEAN IS NULL OR COALESCE(m.rated, FALSE) = $7)
                              AND ($8::TEXT IS NULL OR m.bots LIKE $8)
                              AND ($9::TEXT IS NULL OR m.tournament_id = $9)
                            ORDER BY g.created_unix_ms DESC, g.id) page
                          WHERE $4 = 0 OR ($4 = 1) = (page.claimed < page.players)
                          LIMIT $5",
                        &[
                            &kind,
                            &after_ms,
                            &after_id,
                            &status,
                            &(limit as i64),
                            &arena.arena,
                            &arena.rated,
                            &bot,
                            &arena.tournament_id,
                        ],
                    )
                    .await?;
                let ids: Vec<String> = games.iter().map(|r| r.get(0)).collect();
                let seats = client
                    .query(
                        "SELECT game_id, seat, name FROM seats WHERE game_id = ANY($1)",
                        &[&ids],
                    )
                    .await?;
                Ok((games, seats))
            })
        })?;
        let (games, seats) = rows;
        games
            .into_iter()
            .map(|g| {
                let id: String = g.get(0);
                let claimed: i64 = g.get(4);
                let players = g.get::<_, i32>(2) as u32;
                let arena = match g.get::<_, Option<String>>(6) {
                    None => None,
                    Some(match_id) => Some(MatchTag {
                        match_id,
                        rated: g.get(7),
                        bots: decode_bots(g.get(8))?,
                        tournament_id: g.get(9),
                    }),
                };
                let names = seats
                    .iter()
                    .filter(|s| s.get::<_, &str>(0) == id)
                    .map(|s| (s.get::<_, i16>(1) as usize, s.get::<_, String>(2)));
                let mut summary = EndedRow {
                    game_id: id.clone(),
                    kind: g.get(1),
                    players,
                    created_unix_ms: g.get::<_, i64>(3) as u64,
                    abandoned: false,
                    version: g.get::<_, i64>(5) as u64,
                    outcome: None,
                    arena,
                }
                .summary(names);
                summary.status = if claimed < i64::from(players) {
                    pb::GameStatus::WaitingForPlayers
                } else {
                    pb::GameStatus::Running
                } as i32;
                Ok(summary)
            })
            .collect()
    }
}
