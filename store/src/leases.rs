//! What a database shared by several nodes records of the nodes and the
//! games they own ([`Leases`]): the server's cluster logic asks and claims
//! through it, and the shared store implements it ([`crate::postgres`]).
//!
//! Times are the database's (`now()`), never a node's clock, so nodes whose
//! clocks disagree still agree on whether a lease has expired.

use druids_contract::pb;

use crate::lifecycle::ArenaFilter;
use crate::{Epoch, StoreError};

/// Where a game is, as the database says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Whereabouts {
    /// No game has this id.
    NoSuchGame,
    /// The game has ended: any node reads it from the store.
    Ended,
    /// In play and no node owns it (its creator never took the lease).
    Unowned,
    /// In play and owned.
    Owned(Owner),
}

/// The owner of a game in play.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Owner {
    /// The owning node.
    pub node: String,
    /// Where its peers reach it.
    pub addr: String,
    /// The epoch it holds the game under.
    pub epoch: Epoch,
    /// Whether its lease is still running.
    pub alive: bool,
}

/// How a node asks for a game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Claim {
    /// The game was just created by this node: the first lease.
    New,
    /// The game is unowned, or its owner's lease ran out (or the owner is this
    /// node, which lost the game from memory in a restart): the lease moves
    /// from epoch `seen` (none: there was no lease) to the next.
    Takeover {
        /// The epoch the caller saw.
        seen: Option<Epoch>,
    },
}

/// The leases of a database shared by several nodes. Calls block.
pub trait Leases: Send + Sync + 'static {
    /// Extends `node`'s leases to `lease_ms` from now (registering the node
    /// and its address first if needed); returns whether they had run out.
    fn renew(&self, node: &str, addr: &str, lease_ms: u64) -> Result<bool, StoreError>;
    /// Ends `node`'s leases now (it is shutting down): others take its games
    /// over at once.
    fn release(&self, node: &str) -> Result<(), StoreError>;
    /// Where game `game_id` is.
    fn whereabouts(&self, game_id: &str) -> Result<Whereabouts, StoreError>;
    /// Makes `node` the owner of `game_id`; returns the new epoch, or `None`
    /// if the game is not (any more) as the claim assumed: another node was
    /// faster, or its owner is alive.
    fn claim(&self, game_id: &str, node: &str, claim: Claim) -> Result<Option<Epoch>, StoreError>;
    /// Games in play that need an owner: owned by a node whose leases ran out,
    /// owned by `node` itself (rebuilt after a restart), or never owned and
    /// created before `created_before_ms`. At most `limit`, oldest first,
    /// with the epoch each was seen at.
    fn orphans(
        &self,
        node: &str,
        created_before_ms: u64,
        limit: usize,
    ) -> Result<Vec<(String, Option<Epoch>)>, StoreError>;
    /// The owner and epoch of each of `game_ids` that has a lease.
    fn holders(&self, game_ids: &[String]) -> Result<Vec<(String, String, Epoch)>, StoreError>;
    /// The `ListGames` rows of games in play (waiting or running) matching
    /// `kind` (`None`: any), `status` (0: any) and the arena's filters
    /// `arena`, each with its match (`match_id`, `rated`) if it has one,
    /// newest first after `after` (`(created_unix_ms, game_id)`), at most
    /// `limit`: every node lists the same games, whichever owns them and
    /// whichever holds the arena.
    fn list_in_play(
        &self,
        kind: Option<druids_contract::Kind>,
        status: i32,
        arena: &ArenaFilter,
        after: Option<(u64, String)>,
        limit: usize,
    ) -> Result<Vec<pb::GameSummary>, StoreError>;
}
