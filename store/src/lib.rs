//! `druids-store`: where druids keeps its games and its arena, and nothing
//! else. It knows records, not rules: the server decides, then hands a store
//! what to keep.
//!
//! What is kept is split by concern, one small trait each: [`Games`] (games
//! and their logs as they are played), [`Lifecycle`] (games in play rebuilt
//! at start-up, ended games read back, listed and deleted), [`Requests`]
//! (retry-safe calls and the server secret), and the arena's [`Accounts`]
//! (bots), [`Matches`] (matches and challenges), [`Tournaments`] and
//! [`EventLogs`]. A [`Store`] is all of them; the server hands each of its
//! parts only the concerns it uses. A database shared by several nodes also
//! keeps their [`Leases`].
//!
//! Backends: [`memory::MemoryStore`] (a process's lifetime),
//! [`sqlite::SqliteStore`] (one durable file) and
//! [`postgres::PostgresStore`] (a database several nodes share); [`open`]
//! picks one from `--db`. All of them pass one conformance suite
//! (`tests/tests/suite/stores/`).

mod accounts;
mod arena_lease;
mod error;
mod event_logs;
mod games;
mod leases;
mod lifecycle;
mod matches;
pub mod memory;
mod open;
pub mod postgres;
mod requests;
pub mod sqlite;
mod token_hash;
mod tournaments;

pub use accounts::{Accounts, BotRecord};
pub use arena_lease::{ArenaHolder, ArenaLease, MatchGame};
pub use error::{Refused, StoreError};
pub use event_logs::{EventLog, EventLogs};
pub use games::{ActionRecord, AppendResult, Epoch, GameRecord, Games, Origin, SubmissionKey};
pub use leases::{Claim, Leases, Owner, Whereabouts};
pub use lifecycle::{ArenaFilter, EndedQuery, Lifecycle, MatchTag, StoredGame};
pub use matches::{ChallengeRecord, MatchRecord, Matches, PlacementRecord, StoredMatch};
pub use memory::MemoryStore;
pub use open::{Sync, describe, open};
pub use requests::{RequestRecord, Requests};
pub use token_hash::TokenHash;
pub use tournaments::{TournamentRecord, Tournaments};

/// What the arena keeps: its bots, matches, tournaments and event logs.
pub trait ArenaStore: Accounts + Matches + Tournaments + EventLogs {}

impl<T: Accounts + Matches + Tournaments + EventLogs + ?Sized> ArenaStore for T {}

/// A whole store: every concern, in one backend. Implementations make each
/// call durable (or fail, changing nothing) before returning.
pub trait Store: Games + Lifecycle + Requests + ArenaStore + 'static {
    /// Whether calls block on a disk (the server then makes them off its
    /// async worker threads).
    fn is_durable(&self) -> bool;
}
