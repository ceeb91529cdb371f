//! The arena's lease in PostgreSQL ([`ArenaLease`]; table and fencing trigger
//! in `migrations/postgres/V10__arena_lease.sql`). Expiry is judged by the
//! database's clock, as for games. The holder's writes to the arena's tables
//! go through [`PostgresStore::arena_client`], which marks the connection
//! with the holder's fence; the trigger refuses a write under a fence that is
//! not the lease's any more (SQLSTATE `DRA01`, `retry::FENCED`).

use deadpool_postgres::Object;

use super::PostgresStore;
use super::retry::Failure;
use crate::matches::decode_bots;
use crate::{ArenaHolder, ArenaLease, Epoch, MatchGame, StoreError, TokenHash};

impl PostgresStore {
    /// A connection for the arena's tables, marked with this node's fence if
    /// it holds the arena (one more round trip then; none on a single
    /// server).
    pub(super) async fn arena_client(&self) -> Result<Object, Failure> {
        let client = self.pool.get().await?;
        let fence = self
            .arena_fence
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .clone();
        if let Some(fence) = fence {
            client
                .execute(
                    "SELECT set_config('druids.arena_fence', $1, false)",
                    &[&fence],
                )
                .await?;
        }
        Ok(client)
    }
}

impl ArenaLease for PostgresStore {
    fn arena_holder(&self) -> Result<ArenaHolder, StoreError> {
        let row = self.retry("finding the arena's holder", |_| {
            self.wait(async {
                let client = self.pool.get().await?;
                Ok(client
                    .query_one(
                        "SELECT a.node_id, a.epoch, n.addr, COALESCE(n.expires_at > now(), FALSE)
                           FROM arena_lease a LEFT JOIN nodes n ON n.node_id = a.node_id
                          WHERE a.id = 1",
                        &[],
                    )
                    .await?)
            })
        })?;
        Ok(ArenaHolder {
            node: row.get(0),
            epoch: Epoch(row.get::<_, i64>(1) as u64),
            addr: row.get::<_, Option<String>>(2).unwrap_or_default(),
            alive: row.get(3),
        })
    }

    fn claim_arena(&self, node: &str, seen: Epoch) -> Result<Option<Epoch>, StoreError> {
        let seen = seen.0 as i64;
        let row = self.retry("claiming the arena", |retrying| {
            self.wait(async {
                let client = self.pool.get().await?;
                let row = client
                    .query_opt(
                        "UPDATE arena_lease SET node_id = $1, epoch = epoch + 1
                          WHERE id = 1 AND epoch = $2
                            AND (node_id IS NULL OR node_id = $1 OR NOT EXISTS (
                                 SELECT 1 FROM nodes n
                                  WHERE n.node_id = arena_lease.node_id AND n.expires_at > now()))
                         RETURNING epoch",
                        &[&node, &seen],
                    )
                    .await?;
                match row {
                    // The first attempt may have gone through.
                    None if retrying => Ok(client
                        .query_opt(
                            "SELECT epoch FROM arena_lease
                              WHERE id = 1 AND node_id = $1 AND epoch = $2",
                            &[&node, &(seen + 1)],
                        )
                        .await?),
                    row => Ok(row),
                }
            })
        })?;
        Ok(row.map(|r| Epoch(r.get::<_, i64>(0) as u64)))
    }

    fn fence_arena(&self, fence: Option<(&str, Epoch)>) {
        *self.arena_fence.write().unwrap_or_else(|p| p.into_inner()) =
            fence.map(|(node, epoch)| format!("{node}:{}", epoch.0));
    }

    fn bot_of_key(&self, key: &TokenHash) -> Result<Option<String>, StoreError> {
        let row = self.retry("finding a bot by its key", |_| {
            self.wait(async {
                let client = self.pool.get().await?;
                Ok(client
                    .query_opt(
                        "SELECT id FROM bots WHERE key_hash = $1 AND revoked_unix_ms IS NULL",
                        &[&key.0.as_slice()],
                    )
                    .await?)
            })
        })?;
        Ok(row.map(|r| r.get(0)))
    }

    fn match_of_game(&self, game_id: &str) -> Result<Option<MatchGame>, StoreError> {
        let row = self.retry("finding the match of a game", |_| {
            self.wait(async {
                let client = self.pool.get().await?;
                Ok(client
                    .query_opt(
                        "SELECT m.bots, mg.idx, m.finished_unix_ms IS NOT NULL, m.games,
                                ARRAY(SELECT o.game_id FROM match_games o
                                       WHERE o.match_id = mg.match_id ORDER BY o.idx)
                           FROM match_games mg JOIN matches m ON m.id = mg.match_id
                          WHERE mg.game_id = $1",
                        &[&game_id],
                    )
                    .await?)
            })
        })?;
        row.map(|r| {
            Ok(MatchGame {
                bots: decode_bots(r.get(0))?,
                index: r.get::<_, i32>(1) as u32,
                finished: r.get(2),
                games: r.get::<_, i32>(3) as u32,
                game_ids: r.get(4),
            })
        })
        .transpose()
    }
}
