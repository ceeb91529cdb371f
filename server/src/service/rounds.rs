//! The rounds a node of several runs besides its calls (`spawn_upkeep`):
//! renewing its leases, looking after its games and the arena's lease, and
//! opening the dice gate of its match games. Each does nothing on a single
//! server and blocks on the database: call them off the async workers.

use super::Service;
use crate::arena_work::ArenaHost;
use crate::store::StoreError;

impl Service {
    /// One renewal of the node's leases ([`Cluster::renew`]); nothing on a
    /// single server. Blocks on the database: call it off the async workers.
    pub fn renew_leases(&self) -> std::result::Result<(), StoreError> {
        match &self.cluster {
            Some(cluster) => cluster.renew(&self.rooms),
            None => Ok(()),
        }
    }

    /// One round of the node's upkeep ([`Cluster::upkeep`]); nothing on a
    /// single server. Blocks on the database: call it off the async workers.
    pub fn upkeep(&self) -> std::result::Result<(), StoreError> {
        match &self.cluster {
            Some(cluster) => {
                cluster.upkeep(&self.rooms, self.clock.now_ms())?;
                if let ArenaHost::Node(work) = &self.arena
                    && let Err(e) = work.upkeep()
                {
                    tracing::warn!("the arena's lease: {e}");
                }
                Ok(())
            }
            None => Ok(()),
        }
    }

    /// On a node of several, releases to the games here that wait at their
    /// duplicate match's dice gate the draws every game of the match reached,
    /// wherever those games are ([`crate::arena_work`]); nothing on a single
    /// server. Blocks on the database: call it off the async workers.
    pub fn open_spread_gates(&self) -> std::result::Result<(), StoreError> {
        match &self.arena {
            ArenaHost::Node(work) => work.open_spread_gates(&self.rooms, self.clock.now_ms()),
            ArenaHost::Single(_) => Ok(()),
        }
    }
}
