//! The arena on a node of several ([`ArenaWork`]): one node at a time holds
//! the arena's lease ([`crate::store::ArenaLease`]) and runs the arena as a
//! single server does (pools, matchmaking, match clocks, tournament rounds,
//! results and ratings), loaded from the database when it takes the lease.
//! Its writes to the arena's tables carry the lease's epoch, and the database
//! refuses them once another node took the lease, so a deposed holder cannot
//! record a result twice. Every other node forwards arena calls to the holder
//! ([`crate::arena_api`]). When the holder's lease runs out (it died or
//! stalled), the next node that needs the arena, or the next upkeep round,
//! takes it over; the streams the old holder served end with `UNAVAILABLE` /
//! `GAME_MOVED` and their clients resume on any node.
//!
//! A game of an arena match may be served by a node that does not hold the
//! arena (its first owner died): there a bot's key finds its seat through the
//! database ([`seats`]), and the node opens its duplicate match's dice gate
//! itself ([`spread_gate`]).

pub mod route;
mod seats;
mod spread_gate;

use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, Instant};

use druids_engine::Seat;
use prometheus::IntCounter;

use crate::arena::Arena;
use crate::auth::TokenHash;
use crate::cluster::Cluster;
use crate::error::ServiceError;
use crate::store::{ArenaLease, Epoch, StoreError};
use seats::Seats;
use spread_gate::SpreadGate;

/// Builds the arena from the store (when this node takes the lease).
pub type BuildArena = Box<dyn Fn() -> Result<Arena, StoreError> + Send + Sync>;

/// Where the arena of a server is.
#[derive(Clone)]
pub enum ArenaHost {
    /// A single server: always here.
    Single(Arc<Arena>),
    /// A node of several: on whichever node holds the lease.
    Node(Arc<ArenaWork>),
}

/// Where an arena call is served.
pub enum ArenaAt {
    /// Here: this node holds the arena.
    Here(Arc<Arena>),
    /// On the holder, at this address.
    There(String),
}

impl ArenaHost {
    /// The arena, if it runs on this server now and surely still holds its
    /// lease.
    pub fn here(&self) -> Option<Arc<Arena>> {
        match self {
            ArenaHost::Single(arena) => Some(Arc::clone(arena)),
            ArenaHost::Node(work) => work.here(),
        }
    }

    /// The arena's round, if the arena runs here. Blocks on the store.
    pub fn tick(&self) {
        match self {
            ArenaHost::Single(arena) => arena.tick(),
            ArenaHost::Node(work) => work.tick(),
        }
    }

    /// The seat bot key `token` acts for in game `game_id`, if its bot plays
    /// there. On a node not holding the arena, from what
    /// [`ArenaHost::look_up`] read.
    pub fn seat_in(&self, game_id: &str, token: &TokenHash) -> Option<Seat> {
        match self {
            ArenaHost::Single(arena) => arena.seat_in(game_id, token),
            ArenaHost::Node(work) => match work.here() {
                Some(arena) => arena.seat_in(game_id, token),
                None => work.seats.seat_in(game_id, token),
            },
        }
    }

    /// Whether bot key `token` still works: not rotated away nor revoked.
    /// On a node not holding the arena, as [`ArenaHost::look_up`] last read
    /// it (a key not read lately counts as working).
    pub fn key_works(&self, token: &TokenHash) -> bool {
        match self {
            ArenaHost::Single(arena) => arena.knows_key(token),
            ArenaHost::Node(work) => match work.here() {
                Some(arena) => arena.knows_key(token),
                None => !work.seats.known_dead(token),
            },
        }
    }

    /// Whether `token` is a working bot key. On a node not holding the
    /// arena, as [`ArenaHost::look_up`] last read it (a key not read lately
    /// is not known to be one).
    pub fn is_bot_key(&self, token: &TokenHash) -> bool {
        match self {
            ArenaHost::Single(arena) => arena.knows_key(token),
            ArenaHost::Node(work) => match work.here() {
                Some(arena) => arena.knows_key(token),
                None => work.seats.known_live(token),
            },
        }
    }

    /// Whether game `game_id`'s seed must stay secret (its match is still
    /// being played). On a node not holding the arena, unknown is secret.
    pub fn hides_seed(&self, game_id: &str) -> bool {
        match self {
            ArenaHost::Single(arena) => arena.hides_seed(game_id),
            ArenaHost::Node(work) => match work.here() {
                Some(arena) => arena.hides_seed(game_id),
                None => work.seats.hides_seed(game_id),
            },
        }
    }

    /// The match tags of games in play (none on a node not holding the
    /// arena).
    pub fn match_tags(&self) -> std::collections::HashMap<String, crate::store::MatchTag> {
        self.here().map(|a| a.match_tags()).unwrap_or_default()
    }

    /// On a node not holding the arena, reads from the database what
    /// [`ArenaHost::seat_in`] and [`ArenaHost::hides_seed`] need for game
    /// `game_id` and key `token`; nothing elsewhere. Blocks on the database.
    pub fn look_up(&self, game_id: &str, token: Option<&TokenHash>) {
        if let ArenaHost::Node(work) = self
            && work.here().is_none()
        {
            work.seats.look_up(game_id, token);
        }
    }

    /// Whether [`ArenaHost::look_up`] has anything to do here.
    pub fn looks_up(&self) -> bool {
        matches!(self, ArenaHost::Node(work) if work.here().is_none())
    }
}

/// The arena held by this node.
struct Held {
    epoch: Epoch,
    arena: Arc<Arena>,
}

/// This node's part in the arena of a cluster.
pub struct ArenaWork {
    cluster: Arc<Cluster>,
    lease: Arc<dyn ArenaLease>,
    build: BuildArena,
    held: RwLock<Option<Held>>,
    /// Held while the arena is taken over, so that it is built once.
    claiming: Mutex<()>,
    /// The holder's address seen lately: calls are forwarded without asking
    /// the database again for a third of a lease.
    holder: Mutex<Option<(String, Instant)>>,
    seats: Seats,
    spread: SpreadGate,
    takeovers: IntCounter,
}

impl ArenaWork {
    /// This node's part, over the cluster's `lease`, building the arena with
    /// `build` when it takes the lease; `takeovers` counts them.
    pub fn new(
        cluster: Arc<Cluster>,
        lease: Arc<dyn ArenaLease>,
        build: BuildArena,
        takeovers: IntCounter,
    ) -> ArenaWork {
        ArenaWork {
            seats: Seats::new(Arc::clone(&lease)),
            spread: SpreadGate::new(Arc::clone(&lease)),
            cluster,
            lease,
            build,
            held: RwLock::new(None),
            claiming: Mutex::new(()),
            holder: Mutex::new(None),
            takeovers,
        }
    }

    fn held(&self) -> std::sync::RwLockReadGuard<'_, Option<Held>> {
        self.held.read().unwrap_or_else(|p| p.into_inner())
    }

    /// The arena, if this node holds it and its lease surely still runs.
    pub fn here(&self) -> Option<Arc<Arena>> {
        if !self.cluster.holds_leases() {
            return None;
        }
        self.held().as_ref().map(|h| Arc::clone(&h.arena))
    }

    /// Where an arena call is served: here (the arena taken over first if
    /// its holder's lease ran out), or on the holder. A call `forwarded` by a
    /// peer is never sent on. Blocks on the database.
    pub fn locate(&self, forwarded: bool) -> Result<ArenaAt, ServiceError> {
        if let Some(arena) = self.here() {
            return Ok(ArenaAt::Here(arena));
        }
        let fresh = Duration::from_millis(self.cluster.config().lease_ms / 3);
        if !forwarded
            && let Some((addr, seen)) = self
                .holder
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .clone()
            && seen.elapsed() < fresh
        {
            return Ok(ArenaAt::There(addr));
        }
        let holder = self.lease.arena_holder()?;
        let me = &self.cluster.config().id;
        if let Some(held) = self.held().as_ref()
            && holder.node.as_ref() == Some(me)
            && holder.epoch == held.epoch
        {
            // This node's leases lapsed, but nobody took the arena.
            return Ok(ArenaAt::Here(Arc::clone(&held.arena)));
        }
        match holder.node {
            Some(node) if holder.alive && node != *me => {
                self.depose(&node);
                if forwarded {
                    return Err(ServiceError::ArenaMoved);
                }
                *self.holder.lock().unwrap_or_else(|p| p.into_inner()) =
                    Some((holder.addr.clone(), Instant::now()));
                Ok(ArenaAt::There(holder.addr))
            }
            _ => match self.take_over(holder.epoch, holder.node.as_deref())? {
                Some(arena) => Ok(ArenaAt::Here(arena)),
                None => Err(ServiceError::ArenaMoved),
            },
        }
    }

    /// Forgets the holder seen (a forward to it failed).
    pub fn forget_holder(&self) {
        *self.holder.lock().unwrap_or_else(|p| p.into_inner()) = None;
    }

    /// Takes the arena over from epoch `seen` (held by `from`) and builds it
    /// here; `None` if another node was faster or this node's own lease is
    /// not surely running. Blocks on the database.
    fn take_over(
        &self,
        seen: Epoch,
        from: Option<&str>,
    ) -> Result<Option<Arc<Arena>>, ServiceError> {
        let _one = self.claiming.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(held) = self.held().as_ref() {
            return Ok(Some(Arc::clone(&held.arena)));
        }
        if !self.cluster.holds_leases() {
            return Ok(None);
        }
        let me = &self.cluster.config().id;
        let started = Instant::now();
        let Some(epoch) = self.lease.claim_arena(me, seen)? else {
            return Ok(None);
        };
        // Every write of the old holder is in the database now, and no later
        // one can be: load, and write under the new epoch.
        self.lease.fence_arena(Some((me, epoch)));
        let arena = match (self.build)() {
            Ok(arena) => Arc::new(arena),
            Err(e) => {
                tracing::error!("cannot load the arena after taking it over: {e}");
                return Err(e.into());
            }
        };
        *self.held.write().unwrap_or_else(|p| p.into_inner()) = Some(Held {
            epoch,
            arena: Arc::clone(&arena),
        });
        self.forget_holder();
        self.takeovers.inc();
        tracing::info!(
            epoch = epoch.0,
            from = from.unwrap_or("(never held)"),
            ms = started.elapsed().as_millis() as u64,
            "the arena's work taken over"
        );
        Ok(Some(arena))
    }

    /// Drops the arena held here (another node, `to`, holds it now): its
    /// streams end, telling their clients to resume elsewhere. Its writes
    /// stay fenced with the old epoch, so any still in flight are refused.
    fn depose(&self, to: &str) {
        let held = self.held.write().unwrap_or_else(|p| p.into_inner()).take();
        if let Some(held) = held {
            tracing::warn!(
                epoch = held.epoch.0,
                to,
                "the arena's work moved to another node"
            );
            held.arena.close();
        }
    }

    /// One round of upkeep, after the node renewed its leases: gives the
    /// arena up if another node took it, takes it if nobody alive holds it.
    /// Blocks on the database.
    pub fn upkeep(&self) -> Result<(), ServiceError> {
        self.seats.forget_old();
        let holder = self.lease.arena_holder()?;
        let me = &self.cluster.config().id;
        let mine = {
            let held = self.held();
            match held.as_ref() {
                Some(h) => holder.node.as_ref() == Some(me) && holder.epoch == h.epoch,
                None => false,
            }
        };
        if mine {
            return Ok(());
        }
        match holder.node {
            Some(node) if holder.alive && node != *me => {
                self.depose(&node);
                Ok(())
            }
            node => {
                self.depose("(none)");
                self.take_over(holder.epoch, node.as_deref()).map(|_| ())
            }
        }
    }

    /// Opens the dice gate of the duplicate matches' games in `rooms` (this
    /// node's) whose other games may be elsewhere ([`spread_gate`]). Blocks
    /// on the database.
    pub fn open_spread_gates(
        &self,
        rooms: &crate::rooms::Rooms,
        now_ms: u64,
    ) -> Result<(), StoreError> {
        self.spread.open(rooms, now_ms)
    }

    /// The arena's round, if this node holds it.
    pub fn tick(&self) {
        if let Some(arena) = self.here() {
            arena.tick();
        }
    }
}
