//! The PostgreSQL schema: versioned SQL under `migrations/postgres/`,
//! applied by refinery under an advisory lock (servers starting together on
//! one database migrate it once), with the one conversion SQL cannot do run
//! between V6 and V7 ([`submission_keys`]).

use prost::Message;

use druids_contract::pb;

use super::retry::Failure;
use crate::{StoreError, SubmissionKey};

mod embedded {
    refinery::embed_migrations!("migrations/postgres");
}

/// Key of the advisory lock that serialises migrations of servers starting
/// together on one database.
const MIGRATION_LOCK: i64 = 0x6472_7569_6473; // "druids"

/// Brings the schema of the database of `client` up to date.
pub(super) async fn migrate(client: &mut deadpool_postgres::Client) -> Result<(), Failure> {
    client
        .execute("SELECT pg_advisory_lock($1)", &[&MIGRATION_LOCK])
        .await?;
    let migrated = migrate_locked(client).await;
    client
        .execute("SELECT pg_advisory_unlock($1)", &[&MIGRATION_LOCK])
        .await?;
    migrated
}

async fn migrate_locked(client: &mut deadpool_postgres::Client) -> Result<(), Failure> {
    run_to(client, refinery::Target::Version(6)).await?;
    submission_keys(client).await?;
    run_to(client, refinery::Target::Latest).await
}

/// Applies the migrations not applied yet, up to `target`.
async fn run_to(
    client: &mut deadpool_postgres::Client,
    target: refinery::Target,
) -> Result<(), Failure> {
    embedded::migrations::runner()
        .set_grouped(true)
        .set_target(target)
        .run_async(&mut ***client)
        .await
        .map(|_| ())
        .map_err(|e| Failure::Other(format!("migration failed: {e}")))
}

/// Between V6 and V7: each action of a game in play gets its submission's
/// key ([`SubmissionKey::of_request`]) from the request stored with it
/// before V6. Nothing to do once V7 dropped `request`; a conversion cut
/// short is done again (it is one transaction).
async fn submission_keys(client: &mut deadpool_postgres::Client) -> Result<(), Failure> {
    let has_requests = client
        .query_opt(
            "SELECT 1 FROM information_schema.columns
              WHERE table_schema = current_schema() AND table_name = 'actions'
                AND column_name = 'request'",
            &[],
        )
        .await?
        .is_some();
    if !has_requests {
        return Ok(());
    }
    let tx = client.transaction().await?;
    let rows = tx
        .query(
            "SELECT a.game_id, a.version, a.request FROM actions a JOIN games g ON g.id = a.game_id
              WHERE g.ended_unix_ms IS NULL AND a.submission_key IS NULL
                AND length(a.request) > 0",
            &[],
        )
        .await?;
    let update = tx
        .prepare("UPDATE actions SET submission_key = $3 WHERE game_id = $1 AND version = $2")
        .await?;
    for row in rows {
        let request = pb::SubmitActionRequest::decode(row.get::<_, &[u8]>(2))
            .map_err(|e| Failure::Store(StoreError::Corrupt(format!("stored request: {e}"))))?;
        if let Some(key) = SubmissionKey::of_request(&request) {
            let (game_id, version) = (row.get::<_, &str>(0), row.get::<_, i64>(1));
            tx.execute(&update, &[&game_id, &version, &&key.to_bytes()[..]])
                .await?;
        }
    }
    tx.commit().await?;
    Ok(())
}
