//! Several nodes, one set of games: the multi-node mode (`--node-id`), over
//! a database every node shares ([`crate::store::postgres`]).
//!
//! Each game in play is owned by one node at a time, by a lease in the
//! database ([`Leases`]): the owner holds the game's room in memory and alone
//! writes its log. A request reaching another node is forwarded to the owner
//! ([`forward`]); if the owner's lease has run out (the node died or stalled),
//! the node takes the game over: it raises the lease's epoch and rebuilds the
//! game from the log, clocks restarted as after a restart. Writes carry the
//! epoch they were made under and the database refuses stale ones, so a node
//! that wakes up after losing its games cannot change them ([`Epoch`]).
//!
//! A node renews all its leases with one write every third of the lease time
//! ([`Cluster::renew`]), in a task and on a database connection of its own,
//! so that nothing another node holds (a paused node's open transaction, a
//! takeover waiting on it) delays it. Another round at the same pace
//! ([`Cluster::upkeep`]; both run by [`crate::spawn_upkeep`]) drops the games
//! the node no longer owns and takes over orphaned ones, so a dead node's
//! games move within about a lease.

pub mod forward;

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use dashmap::DashMap;

use crate::error::{ServiceError, clip};
use crate::metrics::ClusterMetrics;
use crate::recover::{Rebuild, recover};
use crate::room::Room;
use crate::rooms::Rooms;
use crate::store::{Claim, Epoch, Leases, Store, StoreError, Whereabouts};
use forward::Peers;

/// Lease time when `--lease-secs` is not given.
pub const DEFAULT_LEASE_SECS: u64 = 10;

/// This node's place in the cluster.
#[derive(Clone, Debug)]
pub struct NodeConfig {
    /// A stable name, unique among the nodes.
    pub id: String,
    /// Where the other nodes reach this node's gRPC port (a URL).
    pub advertise: String,
    /// How long leases last without renewal, ms.
    pub lease_ms: u64,
}

/// Where a request for a game is served.
pub enum Located {
    /// Here: the room is in this node's memory.
    Here(Arc<Room>),
    /// On the owner, at this address.
    There(String),
}

/// This node's membership: its leases, its peers and its counters.
pub struct Cluster {
    config: NodeConfig,
    leases: Arc<dyn Leases>,
    store: Arc<dyn Store>,
    peers: Peers,
    metrics: ClusterMetrics,
    /// Held while a game is taken over, so that two requests for one game do
    /// not take it over twice (the second would fence the first).
    takeovers: Mutex<()>,
    /// When the last successful renewal started: the leases hold until a
    /// lease time after it.
    renewed: Mutex<Option<Instant>>,
    /// Owners of games in play seen lately, by game: a call is forwarded
    /// without asking the database again for a third of a lease. A stale
    /// entry costs one refused forward (`GAME_MOVED`), which drops it.
    owners: DashMap<String, (String, Instant)>,
}

impl Cluster {
    /// The membership of node `config` over `leases` (the same database as
    /// `store`), authenticating forwarded calls with `secret`.
    pub fn new(
        config: NodeConfig,
        leases: Arc<dyn Leases>,
        store: Arc<dyn Store>,
        secret: &[u8; 32],
    ) -> Cluster {
        let metrics = ClusterMetrics::new(&config.id);
        Cluster {
            peers: Peers::new(secret, config.lease_ms),
            config,
            leases,
            store,
            metrics,
            takeovers: Mutex::new(()),
            renewed: Mutex::new(None),
            owners: DashMap::new(),
        }
    }

    /// This node's configuration.
    pub fn config(&self) -> &NodeConfig {
        &self.config
    }

    /// The peers forwarded calls go to.
    pub fn peers(&self) -> &Peers {
        &self.peers
    }

    /// The leases of the cluster's database.
    pub fn leases(&self) -> &Arc<dyn Leases> {
        &self.leases
    }

    /// The node's counters.
    pub fn metrics(&self) -> &ClusterMetrics {
        &self.metrics
    }

    /// Takes the first lease of game `game_id`, just created here: its epoch,
    /// or `None` if another node holds the game already.
    pub fn lease_new(&self, game_id: &str) -> Result<Option<Epoch>, StoreError> {
        self.leases.claim(game_id, &self.config.id, Claim::New)
    }

    /// Whether this node's leases are surely still running (renewed less than
    /// a lease time ago, by the monotonic clock, which runs on while the
    /// process is paused). If not, its games in memory may have moved.
    pub fn holds_leases(&self) -> bool {
        let renewed = *self.renewed.lock().unwrap_or_else(|p| p.into_inner());
        renewed.is_some_and(|t| t.elapsed() < Duration::from_millis(self.config.lease_ms))
    }

    /// The node that owned game `id` when this node last looked, if that is
    /// recent enough to forward to it without asking the database.
    pub fn known_owner(&self, id: &str) -> Option<String> {
        let fresh = Duration::from_millis(self.config.lease_ms / 3);
        let owner = self.owners.get(id)?;
        (owner.1.elapsed() < fresh).then(|| owner.0.clone())
    }

    /// Where game `id` is served: here (taken over first if it needs an
    /// owner), or on its owner. A call `forwarded` by a peer is never sent on:
    /// if the owner changed on the way, the client is told to retry. Blocks on
    /// the database: call it off the async workers.
    pub fn locate(
        &self,
        rooms: &Rooms,
        id: &str,
        now_ms: u64,
        forwarded: bool,
    ) -> Result<Located, ServiceError> {
        let local = rooms.in_memory(id)?;
        if let Some(room) = &local
            && (!room.is_live() || self.holds_leases())
        {
            return Ok(Located::Here(Arc::clone(room)));
        }
        if local.is_none()
            && !forwarded
            && let Some(owner) = self.known_owner(id)
        {
            return Ok(Located::There(owner));
        }
        let whereabouts = self.leases.whereabouts(id)?;
        if let Some(room) = local {
            // This node's leases lapsed (it was paused, or cut off from the
            // database): its room is good only if the lease is still its own.
            match &whereabouts {
                Whereabouts::Owned(o) if o.node == self.config.id && o.epoch == room.epoch() => {
                    return Ok(Located::Here(room));
                }
                _ => rooms.retire(id),
            }
        }
        let owner = match whereabouts {
            Whereabouts::NoSuchGame => return Err(ServiceError::GameNotFound(clip(id))),
            Whereabouts::Ended => return Ok(Located::Here(rooms.load(id, now_ms)?)),
            Whereabouts::Unowned => None,
            Whereabouts::Owned(owner) => Some(owner),
        };
        match owner {
            Some(o) if o.alive && o.node != self.config.id => {
                if forwarded {
                    Err(ServiceError::Moved(clip(id)))
                } else {
                    self.owners
                        .insert(id.to_owned(), (o.addr.clone(), Instant::now()));
                    Ok(Located::There(o.addr))
                }
            }
            owner => match self.take_over(rooms, id, owner.map(|o| o.epoch), now_ms)? {
                Some(room) => Ok(Located::Here(room)),
                // Another node was faster: ask again where it went.
                None if !forwarded => match self.leases.whereabouts(id)? {
                    Whereabouts::Owned(o) if o.alive && o.node != self.config.id => {
                        Ok(Located::There(o.addr))
                    }
                    _ => Err(ServiceError::Moved(clip(id))),
                },
                None => Err(ServiceError::Moved(clip(id))),
            },
        }
    }

    /// Forgets the owner seen for game `id` (a forward to it failed).
    pub fn forget_owner(&self, id: &str) {
        self.owners.remove(id);
    }

    /// Takes game `id` over from lease epoch `seen` and rebuilds it here;
    /// `None` if another node took it first. Blocks on the database.
    pub fn take_over(
        &self,
        rooms: &Rooms,
        id: &str,
        seen: Option<Epoch>,
        now_ms: u64,
    ) -> Result<Option<Arc<Room>>, ServiceError> {
        let _one_at_a_time = self.takeovers.lock().unwrap_or_else(|p| p.into_inner());
        // Being created here: its creator adds its room (asked first, see
        // `is_being_created`).
        if rooms.is_being_created(id) {
            return Ok(None);
        }
        if let Some(room) = rooms.in_memory(id)? {
            return Ok(Some(room));
        }
        // Whose it was, for the operator's log.
        let previous = match seen {
            None => None,
            Some(_) => self
                .leases
                .holders(&[id.to_owned()])?
                .into_iter()
                .next()
                .map(|(_, node, _)| node),
        };
        let Some(epoch) = self
            .leases
            .claim(id, &self.config.id, Claim::Takeover { seen })?
        else {
            return Ok(None);
        };
        // Read after the claim committed: every action of the old owner is
        // in the log, and no later one can be (fencing).
        let Some(stored) = self.store.load_game(id)? else {
            return Err(ServiceError::GameNotFound(clip(id)));
        };
        let slot = rooms.reserve_recovered();
        let room = recover(stored, now_ms, Rebuild::InPlay { slot, epoch })
            .map_err(|e| ServiceError::Storage(StoreError::Corrupt(e.to_string())))?;
        if let Some(_ended) = room.ended_ms() {
            // The old owner stored the last action but not the end.
            let outcome = room.summary().outcome.unwrap_or_default();
            self.store
                .finish(&room.id, room.version(), &outcome, now_ms)?;
        }
        let room = Arc::new(room);
        rooms.insert_rebuilt(Arc::clone(&room));
        self.metrics.takeovers.inc();
        tracing::info!(
            game_id = %id,
            epoch = epoch.0,
            from = previous.as_deref().unwrap_or("(never owned)"),
            "game taken over"
        );
        Ok(Some(room))
    }

    /// Renews this node's leases: one write, on a connection of its own, so
    /// that nothing another node holds delays it ([`crate::spawn_upkeep`]
    /// runs it in a task of its own). If the leases had run out (the node
    /// was paused, or cut off from the database), its games in memory may
    /// have moved: they are checked against the database before the leases
    /// count as held again, so a node that wakes up serves no stale game.
    /// Blocks on the database.
    pub fn renew(&self, rooms: &Rooms) -> Result<(), StoreError> {
        // Measured before the query is sent: the database's expiry is at
        // least a lease time after this instant.
        let started = Instant::now();
        let held = self.holds_leases();
        let lapsed = self.leases.renew(
            &self.config.id,
            &self.config.advertise,
            self.config.lease_ms,
        )?;
        self.metrics
            .renew_latency
            .observe(started.elapsed().as_secs_f64());
        // At start-up the node's row may be an earlier process's, long run
        // out: nothing of this process moved then.
        let renewed_before = self
            .renewed
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .is_some();
        if lapsed && renewed_before {
            self.metrics.lease_lapses.inc();
            tracing::warn!("this node's leases had run out: games may have moved");
        }
        if lapsed || !held {
            self.drop_lost(rooms)?;
        }
        *self.renewed.lock().unwrap_or_else(|p| p.into_inner()) = Some(started);
        Ok(())
    }

    /// Retires the games in memory whose lease is no longer this node's;
    /// the number still owned.
    fn drop_lost(&self, rooms: &Rooms) -> Result<i64, StoreError> {
        // Rooms first, leases second: a room's lease was committed before the
        // room was added, so a lease read now is at least as new as its room.
        let held: Vec<Arc<Room>> = rooms
            .all()
            .into_iter()
            .filter(|r| r.is_live() && r.epoch().is_fenced())
            .collect();
        let ids: Vec<String> = held.iter().map(|r| r.id.clone()).collect();
        let leases: std::collections::HashMap<String, (String, Epoch)> = self
            .leases
            .holders(&ids)?
            .into_iter()
            .map(|(id, node, epoch)| (id, (node, epoch)))
            .collect();
        let mut owned = 0;
        for room in held {
            match leases.get(&room.id) {
                Some((node, epoch)) if *node == self.config.id && *epoch == room.epoch() => {
                    owned += 1;
                }
                _ => rooms.retire(&room.id),
            }
        }
        Ok(owned)
    }

    /// One round of the node's upkeep besides renewal: drops the games it
    /// lost, takes over orphaned ones. Blocks on the database; a takeover
    /// waiting on another node delays this round, never the renewal.
    pub fn upkeep(&self, rooms: &Rooms, now_ms: u64) -> Result<(), StoreError> {
        let owned = self.drop_lost(rooms)?;
        self.owners
            .retain(|_, (_, seen)| seen.elapsed() < Duration::from_millis(self.config.lease_ms));
        // Never-owned games are left to their creator for two leases.
        let created_before = now_ms.saturating_sub(2 * self.config.lease_ms);
        for (id, seen) in self
            .leases
            .orphans(&self.config.id, created_before, ORPHANS_PER_ROUND)?
        {
            // Asked in this order: a creation adds its room before it ends.
            if rooms.is_being_created(&id) || rooms.in_memory(&id).ok().flatten().is_some() {
                continue;
            }
            if let Err(e) = self.take_over(rooms, &id, seen, now_ms) {
                tracing::warn!(game_id = %id, "cannot take a game over: {e}");
            }
        }
        self.metrics.owned.set(owned);
        Ok(())
    }

    /// Ends this node's leases (it is shutting down).
    pub fn release(&self) -> Result<(), StoreError> {
        self.leases.release(&self.config.id)
    }
}

/// Games one upkeep round takes over at most, so that surviving nodes share a
/// dead node's games rather than the first to look taking them all.
const ORPHANS_PER_ROUND: usize = 32;
