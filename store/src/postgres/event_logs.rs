//! The arena's event logs in PostgreSQL ([`EventLogs`]): the bots' and the
//! tournaments' tables (migrations V3 and V5), written and read alike.

use tokio_postgres::Row;

use super::PostgresStore;
use super::arena::found_on_retry;
use crate::{EventLog, EventLogs, StoreError};

impl EventLogs for PostgresStore {
    fn append_event(
        &self,
        log: EventLog,
        owner: &str,
        seq: u64,
        event: &[u8],
    ) -> Result<(), StoreError> {
        let seq = seq as i64;
        let lookup = format!(
            "SELECT event FROM {} WHERE {} = $1 AND seq = $2",
            log.table(),
            log.owner_column()
        );
        let insert = format!(
            "INSERT INTO {} ({}, seq, event) VALUES ($1, $2, $3)",
            log.table(),
            log.owner_column()
        );
        let taken = format!("the {} has another event at this seq", log.owner_kind());
        self.retry(log.append_op(), |retrying| {
            self.wait(async {
                let client = self.arena_client().await?;
                let mine = |row: &Row| row.get::<_, &[u8]>(0) == event;
                if found_on_retry(&client, retrying, &lookup, &[&owner, &seq], mine, &taken).await?
                {
                    return Ok(());
                }
                // An unknown owner fails its foreign key; a stored seq, the key.
                client.execute(&insert, &[&owner, &seq, &event]).await?;
                Ok(())
            })
        })
    }

    fn events(
        &self,
        log: EventLog,
        owner: &str,
        from_seq: u64,
        limit: usize,
    ) -> Result<Vec<(u64, Vec<u8>)>, StoreError> {
        let from = from_seq.min(i64::MAX as u64) as i64;
        let limit = limit.min(i64::MAX as usize) as i64;
        let query = format!(
            "SELECT seq, event FROM {} WHERE {} = $1 AND seq >= $2 ORDER BY seq LIMIT $3",
            log.table(),
            log.owner_column()
        );
        let rows = self.retry(log.read_op(), |_| {
            self.wait(async {
                Ok(self
                    .pool
                    .get()
                    .await?
                    .query(&query, &[&owner, &from, &limit])
                    .await?)
            })
        })?;
        Ok(rows
            .into_iter()
            .map(|r| (r.get::<_, i64>(0) as u64, r.get(1)))
            .collect())
    }

    fn last_event(&self, log: EventLog, owner: &str) -> Result<u64, StoreError> {
        let query = format!(
            "SELECT COALESCE(MAX(seq), 0) FROM {} WHERE {} = $1",
            log.table(),
            log.owner_column()
        );
        self.retry(log.last_op(), |_| {
            self.wait(async {
                let row = self
                    .arena_client()
                    .await?
                    .query_one(&query, &[&owner])
                    .await?;
                Ok(row.get::<_, i64>(0) as u64)
            })
        })
    }
}
