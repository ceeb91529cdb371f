//! The `druids.v1.DruidsService` service: the request edge. Each call is
//! authenticated, charged against its quotas and validated here, then handed
//! to the [`Lobby`] (creating games, claiming seats), the game's [`Room`]
//! (playing, reading) or the stream feed. No rule of any game is known here.
//! This module holds the service's state and what every call shares (who is
//! calling, where its game is served, forwarding, quotas); the RPCs
//! themselves are in [`rpc`].

use std::net::IpAddr;
use std::pin::Pin;
use std::sync::Arc;

use druids_contract::pb;
use druids_engine::{Seat, Viewer};
use tokio::sync::{mpsc, watch};
use tokio_stream::Stream;
use tokio_stream::wrappers::ReceiverStream;
use tonic::{Request, Response, Status};

use crate::arena::Arena;
use crate::arena_work::{ArenaHost, ArenaWork};
use crate::auth::{TokenHash, bearer};
use crate::blocking::OffTheWorkers;
use crate::bot_cpu::{BotCpu, BotCpuLimits};
use crate::clock::Clock;
use crate::cluster::forward::{PeerClient, relayed};
use crate::cluster::{Cluster, Located, NodeConfig};
use crate::config::Limits;
use crate::error::ServiceError;
use crate::faults::Faults;
use crate::idle_games::IdleGames;
use crate::lobby::Lobby;
use crate::metrics::{Metrics, TimedGames};
use crate::quota::Quotas;
use crate::recover::Rebuild;
use crate::room::Room;
use crate::rooms::{Lifecycle, Rooms};
use crate::store::Leases;
use crate::store::{ArenaLease, ArenaStore, Epoch, Games, Store, StoreError};
use crate::stream::{STREAM_BUFFER, Streams};

mod charges;
mod practice;
mod rounds;
mod rpc;
mod submit;
mod testing;

/// The games of this server and what it needs to serve them.
pub struct Service {
    rooms: Arc<Rooms>,
    lobby: Arc<Lobby>,
    streams: Arc<Streams>,
    quotas: Arc<Quotas>,
    store: Arc<dyn Store>,
    /// The store's games and logs, their appends timed: what rooms write to.
    games: Arc<dyn Games>,
    limits: Limits,
    clock: Arc<dyn Clock>,
    stop: watch::Sender<bool>,
    metrics: Arc<Metrics>,
    /// Blocking work's way off the async workers.
    blocking: OffTheWorkers,
    /// This node's cluster, if it is one of several.
    cluster: Option<Arc<Cluster>>,
    /// The arena: here, or (on a node of several) wherever its lease is.
    arena: ArenaHost,
    /// The CPU the server's own bots share.
    bot_cpu: Arc<BotCpu>,
    /// The fault plans of test games (`--test-faults`).
    faults: Arc<Faults>,
    /// Abandons the games nobody plays (`--idle-game-secs`).
    idle_games: IdleGames,
}

pub use practice::{PracticeBot, PracticeGame, seat_name};

type Result<T> = std::result::Result<T, ServiceError>;

/// Who is calling: the client's address and the hash of its token, if any.
struct Caller {
    peer: Option<IpAddr>,
    token: Option<TokenHash>,
    /// Forwarded by another node of the cluster, which charged the quotas.
    forwarded: bool,
}

impl Service {
    /// A service over `store`, telling time by `clock`.
    pub fn new(
        store: Arc<dyn Store>,
        limits: Limits,
        clock: Arc<dyn Clock>,
    ) -> std::result::Result<Service, StoreError> {
        Service::build(store, limits, clock, None)
    }

    /// A node of a cluster ([`crate::cluster`]): `store` and `leases` are one
    /// shared database.
    pub fn node(
        store: Arc<dyn Store>,
        leases: Arc<dyn Leases>,
        arena_lease: Arc<dyn ArenaLease>,
        node: NodeConfig,
        limits: Limits,
        clock: Arc<dyn Clock>,
    ) -> std::result::Result<Service, StoreError> {
        let cluster = Cluster::new(node, leases, Arc::clone(&store), &store.secret()?);
        Service::build(store, limits, clock, Some((Arc::new(cluster), arena_lease)))
    }

    fn build(
        store: Arc<dyn Store>,
        limits: Limits,
        clock: Arc<dyn Clock>,
        node: Option<(Arc<Cluster>, Arc<dyn ArenaLease>)>,
    ) -> std::result::Result<Service, StoreError> {
        let cluster = node.as_ref().map(|(c, _)| Arc::clone(c));
        let metrics = Arc::new(Metrics::new());
        metrics.test_faults.set(limits.test_faults.into());
        let faults = Arc::new(Faults::new(limits.test_faults));
        if let Some(c) = &cluster {
            metrics.add_cluster(c.metrics());
        }
        let games: Arc<dyn Games> = Arc::new(TimedGames::new(
            Arc::clone(&store) as _,
            &metrics,
            cluster.as_ref().map(|c| c.metrics()),
        ));
        let blocking = OffTheWorkers::new(store.is_durable());
        let rooms = Arc::new(Rooms::new(
            Arc::clone(&store) as _,
            Lifecycle {
                max_in_play: limits.max_games,
                max_in_play_per_address: limits.max_games_per_address,
                evict_after_ms: limits.evict_after_secs.saturating_mul(1000),
                recent_games: limits.recent_games,
                retain_ms: limits
                    .retain_finished_days
                    .map(|d| d.saturating_mul(crate::retention::DAY_MS)),
            },
        ));
        let lobby = Arc::new(Lobby::new(
            Arc::clone(&rooms),
            Arc::clone(&games),
            Arc::clone(&store) as _,
            Arc::clone(&clock),
            cluster.clone(),
            limits.catalog.clone(),
        )?);
        let build_arena = {
            let (settings, store) = (limits.arena.clone(), Arc::clone(&store));
            let (lobby, rooms, clock) =
                (Arc::clone(&lobby), Arc::clone(&rooms), Arc::clone(&clock));
            move || {
                Arena::new(
                    settings.clone(),
                    Arc::clone(&store) as Arc<dyn ArenaStore>,
                    Arc::clone(&lobby),
                    Arc::clone(&rooms),
                    Arc::clone(&clock),
                )
            }
        };
        let arena = match node {
            // Taken by the first node whose upkeep finds it free.
            Some((cluster, lease)) => ArenaHost::Node(Arc::new(ArenaWork::new(
                Arc::clone(&cluster),
                lease,
                Box::new(build_arena),
                cluster.metrics().arena_takeovers.clone(),
            ))),
            None => ArenaHost::Single(Arc::new(build_arena()?)),
        };
        let bot_cpu = BotCpu::new(BotCpuLimits {
            threads: limits.bot_threads,
            per_address: limits.practice_games_per_address,
            total: limits.max_practice_games,
        });
        let idle_games = IdleGames::new(limits.idle_game_secs);
        Ok(Service {
            bot_cpu,
            metrics,
            lobby,
            streams: Arc::new(Streams::new(limits.clone())),
            quotas: Arc::new(Quotas::new(
                limits.max_setups_per_second,
                limits.max_reads_per_second,
                limits.max_anonymous_reads_per_second,
            )),
            rooms,
            store,
            games,
            limits,
            clock,
            stop: watch::channel(false).0,
            blocking,
            cluster,
            arena,
            faults,
            idle_games,
        })
    }

    /// The games this server hosts.
    pub fn catalog(&self) -> &crate::catalog::Catalog {
        self.lobby.catalog()
    }

    /// The arena of a single server (a node of several has none of its own:
    /// see [`Service::arena_host`]).
    pub fn arena(&self) -> Option<&Arc<Arena>> {
        match &self.arena {
            ArenaHost::Single(arena) => Some(arena),
            ArenaHost::Node(_) => None,
        }
    }

    /// Where the arena is.
    pub fn arena_host(&self) -> &ArenaHost {
        &self.arena
    }

    /// The way this service runs blocking work.
    pub fn blocking(&self) -> &OffTheWorkers {
        &self.blocking
    }

    /// Turns true when the service stops.
    pub fn stop_signal(&self) -> watch::Receiver<bool> {
        self.stop.subscribe()
    }

    /// This node's cluster, if it is one of several.
    pub fn cluster(&self) -> Option<&Arc<Cluster>> {
        self.cluster.as_ref()
    }

    /// Who is calling: a forwarded call names its client.
    fn caller<T>(&self, req: &Request<T>) -> Result<Caller> {
        let forwarded_for = self
            .cluster
            .as_ref()
            .and_then(|c| c.peers().forwarded_for(req.metadata()));
        Ok(Caller {
            peer: match forwarded_for {
                Some(client) => client,
                None => req.remote_addr().map(|a| a.ip()),
            }
            .map(crate::quota::client_address),
            token: bearer(req.metadata())?,
            forwarded: forwarded_for.is_some(),
        })
    }

    /// Where the game of a call is served: here, or (in a cluster) on the
    /// node that owns it. On a node that does not hold the arena, a game
    /// served here is first looked up in the arena's tables if the caller's
    /// token may be a bot's key or the game is over (its seed may be a
    /// running match's).
    async fn locate(&self, id: &str, caller: &Caller) -> std::result::Result<Located, Status> {
        let located = self.locate_game(id, caller).await?;
        if let Located::Here(room) = &located
            && self.arena.looks_up()
        {
            let token = caller.token.filter(|t| room.seat_of(t).is_none());
            if token.is_some() || room.ended_ms().is_some() {
                let (arena, id) = (self.arena.clone(), room.id.clone());
                self.off_the_workers(move || arena.look_up(&id, token.as_ref()))
                    .await?;
            }
        }
        Ok(located)
    }

    async fn locate_game(&self, id: &str, caller: &Caller) -> std::result::Result<Located, Status> {
        let Some(cluster) = &self.cluster else {
            return Ok(Located::Here(self.room(id, caller).await?));
        };
        if let Some(room) = self.refused(self.rooms.in_memory(id))?
            && (!room.is_live() || cluster.holds_leases())
        {
            return Ok(Located::Here(room));
        }
        // Asking the database where a game is costs the address a read (a
        // game forwarded to its known owner does not).
        if cluster.known_owner(id).is_none() {
            self.refused(self.lookup(caller))?;
        }
        let (cluster, rooms, id) = (Arc::clone(cluster), Arc::clone(&self.rooms), id.to_owned());
        let (now, forwarded) = (self.clock.now_ms(), caller.forwarded);
        let located = self
            .off_the_workers(move || cluster.locate(&rooms, &id, now, forwarded))
            .await?;
        Ok(self.refused(located)?)
    }

    /// Forwards `request` (for game `game_id`) to the node at `addr` with
    /// `call`, and relays the answer.
    async fn forward<Req, Resp, Fut>(
        &self,
        addr: &str,
        game_id: &str,
        request: Request<Req>,
        caller: &Caller,
        call: impl FnOnce(PeerClient, Request<Req>) -> Fut,
    ) -> std::result::Result<Response<Resp>, Status>
    where
        Fut: std::future::Future<Output = std::result::Result<Response<Resp>, Status>>,
    {
        let cluster = self
            .cluster
            .as_ref()
            .expect("only a node of a cluster forwards");
        let client = self.refused(cluster.peers().client(addr, game_id))?;
        cluster.metrics().forwarded.inc();
        let (metadata, _, message) = request.into_parts();
        let request = cluster.peers().request(message, &metadata, caller.peer);
        let answer = call(client, request).await.map_err(|s| {
            let status = relayed(s, game_id);
            if crate::cluster::forward::is_moved(&status) {
                cluster.forget_owner(game_id);
                cluster.metrics().game_moved.inc();
            }
            status
        });
        Ok(Response::new(answer?.into_inner()))
    }

    /// Rebuilds the games of the store still in play (at start-up; ended
    /// games stay in the store until asked for); returns how many.
    pub fn recover_all(&self) -> std::result::Result<usize, crate::ServeError> {
        let stored = self.store.load_in_play()?;
        let n = stored.len();
        let now = self.clock.now_ms();
        for game in stored {
            let how = Rebuild::InPlay {
                slot: self.rooms.reserve_recovered(),
                epoch: Epoch::NONE,
            };
            let room = crate::recover::recover(game, now, how)?;
            if room.ended_ms().is_some() {
                // Its end was not recorded (the server stopped right after
                // the last action, or the game predates the record).
                let outcome = room.summary().outcome.unwrap_or_default();
                self.store.finish(&room.id, room.version(), &outcome, now)?;
            }
            self.rooms.insert_rebuilt(Arc::new(room));
        }
        Ok(n)
    }

    /// The room of game `id`: in memory, or read back from the store (off the
    /// async workers) if it ended and left.
    async fn room(&self, id: &str, caller: &Caller) -> std::result::Result<Arc<Room>, Status> {
        if let Some(room) = self.refused(self.rooms.in_memory(id))? {
            return Ok(room);
        }
        self.refused(self.lookup(caller))?;
        let (rooms, id, now) = (Arc::clone(&self.rooms), id.to_owned(), self.clock.now_ms());
        let loaded = self.off_the_workers(move || rooms.load(&id, now)).await?;
        Ok(self.refused(loaded)?)
    }

    /// Completes once the server is shutting down.
    pub fn stopped(&self) -> impl std::future::Future<Output = ()> + Send + 'static {
        let mut rx = self.stop.subscribe();
        async move {
            let _ = rx.wait_for(|stop| *stop).await.map(|_| ());
        }
    }

    /// Ends every stream (the server is shutting down).
    pub fn shutdown(&self) {
        let _ = self.stop.send(true);
    }

    /// The server's metrics.
    pub fn metrics(&self) -> &Metrics {
        &self.metrics
    }

    /// The metrics in the text exposition format, with the gauges read now.
    pub fn render_metrics(&self) -> String {
        self.metrics.render(
            &self.rooms.census(),
            self.streams.open_count(),
            self.store.database_errors(),
        )
    }

    /// How many games there are of each kind and status.
    pub fn census(&self) -> Vec<(druids_contract::Kind, pb::GameStatus, usize)> {
        self.rooms.census()
    }

    /// Games in play (waiting for players or running).
    pub fn games_in_play(&self) -> usize {
        self.rooms.in_play()
    }

    /// Streams open on all games.
    pub fn open_streams(&self) -> usize {
        self.streams.open_count()
    }

    /// The stream budgets, which the arena's log streams draw on too.
    pub fn streams(&self) -> &Arc<Streams> {
        &self.streams
    }

    /// Counts a refused request.
    fn refused<T>(&self, result: Result<T>) -> Result<T> {
        if let Err(e) = &result {
            self.metrics
                .rejected
                .with_label_values(&[&format!("{:?}", e.code())])
                .inc();
            if let Some(cluster) = &self.cluster
                && e.reason() == druids_contract::pb::ErrorReason::GameMoved
            {
                cluster.metrics().game_moved.inc();
            }
        }
        result
    }

    /// The CPU budget of the bots the server runs (practice games' bots, house
    /// bots): see [`crate::bot_cpu`].
    pub fn bot_cpu(&self) -> &Arc<BotCpu> {
        &self.bot_cpu
    }

    /// The gRPC connections a test plan may reset (`--test-faults` only).
    pub fn connection_resets(&self) -> Option<Arc<crate::resets::Resets>> {
        self.faults.resets()
    }

    /// The limits in force.
    pub fn limits(&self) -> &Limits {
        &self.limits
    }

    /// The clock the service tells time by.
    pub fn clock(&self) -> &dyn Clock {
        self.clock.as_ref()
    }

    /// The read budgets of client addresses, for the arena's public reads.
    pub fn address_reads(&self) -> crate::quota::AddressReads {
        crate::quota::AddressReads::new(Arc::clone(&self.quotas), Arc::clone(&self.clock))
    }

    /// The referee's round: applies the turn clocks (one decision per game
    /// whose seat's time ran out or who is on autopilot, see
    /// [`crate::referee`]), abandons idle games and forgets idle quota
    /// buckets and old request ids. Returns the number of actions taken.
    /// Blocks on the store: call it off the async workers.
    pub fn expire_due(&self) -> usize {
        let now = self.clock.now_ms();
        let due = crate::referee::due(self.rooms.watched(), now);
        let taken = crate::referee::decide(&due, self.games.as_ref(), now, &|room| {
            self.metrics
                .actions
                .with_label_values(&[room.kind().label(), "server"])
                .inc();
        });
        for room in self.rooms.watched() {
            self.rooms.settle(&room);
        }
        self.idle_games.sweep(&self.rooms, self.games.as_ref(), now);
        let evicted = self.rooms.evict_due(now);
        if evicted > 0 {
            tracing::debug!(games = evicted, "ended games left memory");
        }
        self.quotas.forget_idle(now);
        self.lobby.forget_old();
        taken
    }

    /// The viewer behind `caller`'s token: a seat of this game, or a spectator
    /// when there is no token (if `seat_required` is false).
    fn viewer(&self, room: &Room, caller: &Caller, seat_required: bool) -> Result<Viewer> {
        let Some(hash) = &caller.token else {
            return if seat_required {
                Err(ServiceError::MissingToken)
            } else {
                Ok(Viewer::Spectator)
            };
        };
        if let Some(seat) = room.seat_of(hash) {
            return Ok(Viewer::Seat(seat));
        }
        // In an arena game, a bot's API key acts for its seat.
        if let Some(seat) = self.arena.seat_in(&room.id, hash) {
            return Ok(Viewer::Seat(seat));
        }
        // A refusal costs the caller's address a read, so that guessing
        // tokens is as limited as reading.
        self.lookup(caller)?;
        if self.rooms.knows_token(hash) {
            Err(ServiceError::TokenOfOtherGame(room.id.clone()))
        } else if self.arena.is_bot_key(hash) {
            Err(ServiceError::BotNotSeated(room.id.clone()))
        } else {
            Err(ServiceError::UnknownToken(room.id.clone()))
        }
    }

    fn seat(&self, room: &Room, caller: &Caller) -> Result<Seat> {
        match self.viewer(room, caller, true)? {
            Viewer::Seat(s) => Ok(s),
            Viewer::Spectator => Err(ServiceError::MissingToken),
        }
    }

    /// A stream relayed from the owner of game `id`, ended like this node's
    /// own streams when the server stops; an owner lost on the way tells the
    /// client to resume elsewhere.
    fn relay_stream(
        &self,
        mut upstream: tonic::Streaming<pb::GameEvent>,
        id: String,
    ) -> EventStream {
        let (tx, rx) = mpsc::channel(STREAM_BUFFER);
        let mut shutdown = self.stop.subscribe();
        tokio::spawn(async move {
            loop {
                tokio::select! {
                    item = upstream.message() => {
                        let item = match item {
                            Ok(Some(event)) => Ok(event),
                            Ok(None) => return,
                            Err(status) => Err(relayed(status, &id)),
                        };
                        let failed = item.is_err();
                        if tx.send(item).await.is_err() || failed {
                            return;
                        }
                    }
                    () = tx.closed() => return,
                    _ = async { shutdown.wait_for(|stop| *stop).await.map(|_| ()) } => {
                        let _ = tx.send(Err(ServiceError::ShuttingDown.into())).await;
                        return;
                    }
                }
            }
        });
        Box::pin(ReceiverStream::new(rx))
    }

    /// The replay of a game that is over, unless its seed must stay secret
    /// (a duplicate match still being played shares it).
    fn replay_of(&self, room: &Room) -> Result<pb::Replay> {
        if self.arena.hides_seed(&room.id) {
            return Err(ServiceError::MatchRunning(room.id.clone()));
        }
        room.replay()
    }

    /// Runs `f`, which may block on the store, off the async workers.
    async fn off_the_workers<T: Send + 'static>(
        &self,
        f: impl FnOnce() -> T + Send + 'static,
    ) -> std::result::Result<T, Status> {
        self.blocking.run(f).await
    }
}

/// The event stream of `StreamEvents`.
pub type EventStream =
    Pin<Box<dyn Stream<Item = std::result::Result<pb::GameEvent, Status>> + Send>>;
