//! The arena's registered bots ([`Accounts`]): unique names, API key hashes
//! and revocations.

use crate::{StoreError, TokenHash};

/// A registered bot.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BotRecord {
    /// Public id.
    pub id: String,
    /// Unique display name.
    pub name: String,
    /// What it is.
    pub description: String,
    /// How to reach its owner (never shown publicly).
    pub owner_contact: String,
    /// SHA-256 of its API key.
    pub key_hash: TokenHash,
    /// Registration time, ms since the Unix epoch.
    pub registered_unix_ms: u64,
    /// When its key was revoked (`RevokeBot`), ms since the Unix epoch; None
    /// while the key works. A new key ([`Accounts::set_bot_key`]) clears it.
    pub revoked_unix_ms: Option<u64>,
}

/// Registered bots. A write about an unknown bot, or registering an id
/// taken already, is refused ([`crate::Refused`]).
pub trait Accounts: Send + Sync {
    /// Registers a bot; `false` (nothing stored) if its name is taken.
    fn register_bot(&self, bot: &BotRecord) -> Result<bool, StoreError>;
    /// Replaces a bot's key hash (and clears a revocation).
    fn set_bot_key(&self, bot_id: &str, key_hash: &TokenHash) -> Result<(), StoreError>;
    /// Revokes a bot's key at `at_ms`. Idempotent: a revoked bot keeps its
    /// first time.
    fn revoke_bot(&self, bot_id: &str, at_ms: u64) -> Result<(), StoreError>;
    /// Every registered bot, in registration order.
    fn bots(&self) -> Result<Vec<BotRecord>, StoreError>;
}
