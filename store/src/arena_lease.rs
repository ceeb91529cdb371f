//! The arena's lease on a database shared by several nodes ([`ArenaLease`]):
//! one node at a time does the arena's work (forming matches, their clocks,
//! tournaments, results and ratings), like a game's owner, under an epoch
//! that every later takeover raises; its writes to the arena's tables carry
//! the epoch and the database refuses them once the lease moved on. Only the
//! shared store implements it ([`crate::postgres`]).

use crate::{Epoch, StoreError, TokenHash};

/// Who holds the arena, as the database says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ArenaHolder {
    /// The node; `None` if no node ever held it.
    pub node: Option<String>,
    /// Where its peers reach it.
    pub addr: String,
    /// The epoch it holds the arena under (0: never held).
    pub epoch: Epoch,
    /// Whether its lease is still running.
    pub alive: bool,
}

/// A game of an arena match, as stored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MatchGame {
    /// The match's bots in the seat order of its first game.
    pub bots: Vec<String>,
    /// The game's index in the match (game `i` seats the bots rotated by `i`).
    pub index: u32,
    /// Whether the match is over.
    pub finished: bool,
    /// How many games the match has.
    pub games: u32,
    /// The ids of its games started so far, by index (this one among them).
    pub game_ids: Vec<String>,
}

/// The arena's lease. Calls block.
pub trait ArenaLease: Send + Sync + 'static {
    /// Who holds the arena.
    fn arena_holder(&self) -> Result<ArenaHolder, StoreError>;
    /// Takes the arena for `node` from epoch `seen`, if its holder's lease ran
    /// out (or the holder is `node`, which lost it in a restart): the new
    /// epoch, or `None` if another node holds it or was faster.
    fn claim_arena(&self, node: &str, seen: Epoch) -> Result<Option<Epoch>, StoreError>;
    /// Marks this store's later writes to the arena's tables as made under
    /// `fence` (node and epoch), or under none.
    fn fence_arena(&self, fence: Option<(&str, Epoch)>);
    /// The bot whose key is `key` and is not revoked.
    fn bot_of_key(&self, key: &TokenHash) -> Result<Option<String>, StoreError>;
    /// The match game `game_id` belongs to, if any.
    fn match_of_game(&self, game_id: &str) -> Result<Option<MatchGame>, StoreError>;
}
