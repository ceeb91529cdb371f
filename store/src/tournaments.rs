//! Tournaments run by the server ([`Tournaments`]): their settings and when
//! they finished. Their matches are among [`crate::Matches::matches`], their
//! event logs in [`crate::EventLogs`].

use crate::StoreError;

/// A tournament run by the server.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TournamentRecord {
    /// Tournament id.
    pub id: String,
    /// Its settings: an encoded `pb::CreateTournamentRequest`.
    pub settings: Vec<u8>,
    /// Creation time, ms since the Unix epoch.
    pub created_unix_ms: u64,
    /// When its last match finished, ms since the Unix epoch.
    pub finished_unix_ms: Option<u64>,
}

/// Tournaments, in creation order.
pub trait Tournaments: Send + Sync {
    /// Records a new tournament (refused if its id is stored already).
    fn create_tournament(&self, t: &TournamentRecord) -> Result<(), StoreError>;
    /// Records that a tournament is over, at `at_ms`. Idempotent: a tournament
    /// finished already keeps its first time. An unknown id is refused.
    fn finish_tournament(&self, id: &str, at_ms: u64) -> Result<(), StoreError>;
    /// Every tournament, in creation order (its matches are among
    /// [`crate::Matches::matches`], by [`crate::MatchRecord::tournament`]).
    fn tournaments(&self) -> Result<Vec<TournamentRecord>, StoreError>;
}
