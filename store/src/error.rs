//! Why a store call failed: [`StoreError`], the one error of every concern
//! and backend. A failed call changed nothing.

/// Why the store failed. The change it was asked to store did not happen.
#[derive(Clone, Debug, thiserror::Error)]
pub enum StoreError {
    /// The database refused or failed an operation.
    #[error("database error while {op}: {source}")]
    Database {
        /// What the store was doing.
        op: &'static str,
        /// The database's error.
        #[source]
        source: std::sync::Arc<dyn std::error::Error + Send + Sync>,
    },
    /// The database file or its folder could not be opened or created.
    #[error("cannot open {path}: {source}")]
    Open {
        /// The path.
        path: std::path::PathBuf,
        /// Why.
        #[source]
        source: std::sync::Arc<std::io::Error>,
    },
    /// A stored value does not decode.
    #[error("stored data is corrupt: {0}")]
    Corrupt(String),
    /// The write was made under a lease another node has taken over since:
    /// this node no longer owns the game.
    #[error("game {game_id} is owned by another node now (its lease moved on from epoch {epoch})")]
    Fenced {
        /// The game.
        game_id: String,
        /// The epoch the write was made under.
        epoch: u64,
    },
}

/// Why a write was refused because it contradicts what is stored: an id
/// taken already, an unknown bot or match, a game index or event seq stored
/// already with other content, a match finished already with another result.
/// Every store reports it as [`StoreError::Database`] (the database refused
/// the write; nothing was changed), as SQLite and PostgreSQL report their
/// constraint violations.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct Refused(pub String);

/// The [`StoreError`] of a refused write while doing `op`.
pub(crate) fn refused(op: &'static str, what: impl Into<String>) -> StoreError {
    StoreError::Database {
        op,
        source: std::sync::Arc::new(Refused(what.into())),
    }
}
