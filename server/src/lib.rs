//! `druids-server`: the druids games behind the `druids.v1` gRPC contract.
//!
//! [`start`] builds the service and rebuilds the stored games; then
//! [`serve_service`] runs it on an already-bound listener until a shutdown
//! future completes, so tests bind port 0 and connect without sleeping. Each
//! game is owned by one [`room::Room`]; the games themselves are driven only
//! through [`hosted_game::HostedGame`], so a new game needs no code here.
//! What is kept is the [`store`]'s (the `druids-store` crate).

pub mod arena;
pub mod arena_api;
pub mod arena_work;
pub mod auth;
pub mod blocking;
pub mod bot_cpu;
pub mod bounds;
pub mod catalog;
pub mod clock;
pub mod cluster;
pub mod config;
pub mod error;
pub mod export;
pub mod faults;
pub mod grpc_edge;
pub mod h2_frames;
pub mod heartbeat;
pub mod hosted_game;
pub mod house_bots;
pub mod house_levels;
pub mod http;
pub mod idle_games;
pub mod legal_pages;
pub mod list_games;
pub mod lobby;
pub mod metrics;
pub mod per_connection;
pub mod play_slots;
pub mod practice_bots;
pub mod quota;
pub mod recover;
pub mod referee;
pub mod resets;
pub mod retention;
pub mod room;
pub mod rooms;
pub mod seat_bot;
pub mod service;
pub mod stream;
pub mod submission;
pub mod transport;

pub use druids_store as store;

use std::future::Future;
use std::sync::Arc;

use druids_contract::pb::arena_service_server::ArenaServiceServer;
use druids_contract::pb::druids_service_server::DruidsServiceServer;
use druids_contract::pb::testing_service_server::TestingServiceServer;
use std::time::Duration;
use tokio::net::TcpListener;
use tonic::transport::Server;

pub use clock::{Clock, ManualClock, SystemClock};
pub use config::{Config, Limits};
pub use service::Service;
pub use store::{MemoryStore, Store};

/// Why the server stopped with an error.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// The stored games could not be read.
    #[error("cannot load the stored games: {0}")]
    Load(#[from] store::StoreError),
    /// A stored game could not be rebuilt.
    #[error("cannot rebuild a stored game: {0}")]
    Recover(#[from] recover::RecoverError),
    /// The transport failed.
    #[error(transparent)]
    Transport(#[from] tonic::transport::Error),
}

/// How often the referee looks for expired turn clocks.
const REFEREE_TICK: Duration = Duration::from_millis(20);
/// How often the arena forms matches and moves them on.
const ARENA_TICK: Duration = Duration::from_millis(50);
/// How often a node of several opens the dice gate of the match games it
/// owns, whose other games may be on other nodes.
const SPREAD_GATE_EVERY: Duration = Duration::from_millis(200);
/// How long a stopping server waits for a referee pass or arena round in
/// flight.
const PASS_AT_STOP: Duration = Duration::from_secs(10);

/// Builds the service over `store` with the system clock and rebuilds the
/// stored games that are still in play, before anything is served. Returns
/// the service and the number of games rebuilt.
pub fn start(store: Arc<dyn Store>, limits: Limits) -> Result<(Arc<Service>, usize), ServeError> {
    let started = std::time::Instant::now();
    let service = Arc::new(Service::new(
        Arc::clone(&store),
        limits,
        Arc::new(SystemClock),
    )?);
    let recovered = service.recover_all()?;
    tracing::info!(
        games = recovered,
        ms = started.elapsed().as_millis() as u64,
        "stored games rebuilt"
    );
    spawn_retention(store, &service);
    Ok((service, recovered))
}

/// Builds a node of a cluster ([`cluster`]) over the shared `store`: it
/// registers itself and takes over the games that need an owner (its own,
/// if it restarts under the same id) before anything is served.
pub fn start_node(
    store: Arc<store::postgres::PostgresStore>,
    node: cluster::NodeConfig,
    limits: Limits,
) -> Result<Arc<Service>, ServeError> {
    let shared: Arc<dyn Store> = Arc::clone(&store) as Arc<dyn Store>;
    let service = Arc::new(Service::node(
        Arc::clone(&shared),
        Arc::clone(&store) as Arc<dyn store::Leases>,
        store,
        node,
        limits,
        Arc::new(SystemClock),
    )?);
    service.renew_leases()?;
    service.upkeep()?;
    spawn_retention(shared, &service);
    Ok(service)
}

/// In a cluster, renews the node's leases and moves games every third of the
/// lease time until the service stops, in two tasks: a renewal never waits
/// for a takeover (which may wait on another node). Needs a Tokio runtime;
/// on a single server it does nothing.
pub fn spawn_upkeep(service: &Arc<Service>) {
    let Some(lease_ms) = service.cluster().map(|c| c.config().lease_ms) else {
        return;
    };
    let every = Duration::from_millis((lease_ms / 3).max(1));
    every_round(service, every, |s| {
        s.renew_leases()
            .map_err(|e| format!("cannot renew this node's leases: {e}"))
    });
    every_round(service, every, |s| {
        s.upkeep()
            .map_err(|e| format!("cannot look after this node's games: {e}"))
    });
    every_round(service, SPREAD_GATE_EVERY, |s| {
        s.open_spread_gates()
            .map_err(|e| format!("cannot open the dice gate of this node's match games: {e}"))
    });
}

/// Runs `round` off the async workers every `every` until the service
/// stops, a round at a time; failures are logged.
fn every_round(service: &Arc<Service>, every: Duration, round: fn(&Service) -> Result<(), String>) {
    let s = Arc::clone(service);
    let stopped = service.stopped();
    tokio::spawn(async move {
        let mut tick = tokio::time::interval(every);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        tokio::pin!(stopped);
        loop {
            tokio::select! {
                _ = tick.tick() => {}
                () = &mut stopped => break,
            }
            let s = Arc::clone(&s);
            match tokio::task::spawn_blocking(move || round(&s)).await {
                Ok(Ok(())) => {}
                Ok(Err(e)) => tracing::warn!("{e}"),
                Err(e) => tracing::error!("a cluster round failed: {e}"),
            }
        }
    });
}

/// In a cluster, ends this node's leases (it stopped serving), so that other
/// nodes take its games over at once rather than after the lease time.
pub async fn release_leases(service: &Arc<Service>) {
    let Some(cluster) = service.cluster().cloned() else {
        return;
    };
    match tokio::task::spawn_blocking(move || cluster.release()).await {
        Ok(Ok(())) => tracing::info!("this node's leases are released"),
        Ok(Err(e)) => tracing::warn!("cannot release this node's leases: {e}"),
        Err(e) => tracing::warn!("cannot release this node's leases: {e}"),
    }
}

/// With `--retain-finished-days`, deletes old ended games of `store` (the
/// service's) in the background until the service stops; see [`retention`].
/// Needs a Tokio runtime; without the flag it does nothing.
pub fn spawn_retention(store: Arc<dyn Store>, service: &Arc<Service>) {
    let Some(days) = service.limits().retain_finished_days else {
        return;
    };
    let s = Arc::clone(service);
    retention::spawn(
        store,
        move || s.clock().now_ms(),
        days,
        retention::Schedule::default(),
        service.stopped(),
    );
}

/// Serves Prometheus metrics of `service` on `listener` until the service stops.
pub fn spawn_metrics(listener: TcpListener, service: &Arc<Service>) {
    let stopped = service.stopped();
    let s = Arc::clone(service);
    tokio::spawn(async move {
        if let Err(e) = metrics::serve_metrics(listener, move || s.render_metrics(), stopped).await
        {
            tracing::error!("metrics endpoint failed: {e}");
        }
    });
}

/// Serves the HTTP/JSON face and the web viewer of `service` on `listener`
/// until the service stops (see [`http`]).
pub fn spawn_http(listener: TcpListener, service: &Arc<Service>) {
    let stopped = service.stopped();
    let s = Arc::clone(service);
    tokio::spawn(async move {
        if let Err(e) = http::serve_http(listener, s, stopped).await {
            tracing::error!("HTTP face failed: {e}");
        }
    });
}

/// A TLS identity: certificate chain and private key, both PEM.
#[derive(Clone, Debug)]
pub struct Tls {
    /// Certificate chain.
    pub cert_pem: Vec<u8>,
    /// Private key.
    pub key_pem: Vec<u8>,
}

/// Serves `service`, gRPC health and reflection on `listener`, and runs the
/// referee that applies turn clocks, until `shutdown` completes; then open
/// streams are ended and in-flight requests finish before it returns.
pub async fn serve_service(
    listener: TcpListener,
    service: Arc<Service>,
    tls: Option<Tls>,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> Result<(), ServeError> {
    let limits = service.limits().clone();
    let (health, health_service) = tonic_health::server::health_reporter();
    health.set_serving::<DruidsServiceServer<Service>>().await;
    // Reflection in both versions: older tools (grpcurl before 1.9) speak only v1alpha.
    let reflection = || {
        tonic_reflection::server::Builder::configure()
            .register_encoded_file_descriptor_set(druids_contract::pb::FILE_DESCRIPTOR_SET)
            .register_encoded_file_descriptor_set(tonic_health::pb::FILE_DESCRIPTOR_SET)
    };
    let reflection_v1 = reflection()
        .build_v1()
        .expect("the embedded descriptor sets are valid");
    let reflection_v1alpha = reflection()
        .build_v1alpha()
        .expect("the embedded descriptor sets are valid");
    let referee = {
        let service = Arc::clone(&service);
        // Timeouts write to the store, which may block on the disk.
        blocking::Periodic::start(REFEREE_TICK, move || {
            service.expire_due();
        })
    };
    let druids = DruidsServiceServer::from_arc(Arc::clone(&service))
        .max_decoding_message_size(limits.max_message_bytes);
    // Always served: without --test-faults it refuses every call, saying why.
    let testing = TestingServiceServer::from_arc(Arc::clone(&service))
        .max_decoding_message_size(limits.max_message_bytes);
    let arena = ArenaServiceServer::new(arena_api::ArenaApi::of(&service))
        .max_decoding_message_size(limits.max_message_bytes);
    let arena_round = {
        let host = service.arena_host().clone();
        // The round writes to the store, which may block on the disk; on a
        // node of several it runs where the arena's lease is.
        blocking::Periodic::start(ARENA_TICK, move || host.tick())
    };
    let house = house_bots::start(&service);
    let practice = practice_bots::start(&service);
    let incoming = transport::incoming(
        listener,
        &limits,
        service.connection_resets(),
        tls.is_none(),
    );
    let mut builder = Server::builder()
        .max_concurrent_streams(limits.max_calls_per_connection)
        .http2_max_pending_accept_reset_streams(Some(transport::pending_accept_resets(&limits)))
        .http2_max_header_list_size(grpc_edge::HTTP2_MAX_HEADER_LIST)
        .http2_keepalive_interval(Some(transport::keepalive_interval(&limits)))
        .http2_keepalive_timeout(Some(Duration::from_secs(20)));
    if let Some(tls) = tls {
        let identity = tonic::transport::Identity::from_pem(tls.cert_pem, tls.key_pem);
        builder =
            builder.tls_config(tonic::transport::ServerTlsConfig::new().identity(identity))?;
    }
    let router = builder
        .layer(grpc_edge::GrpcEdgeLayer::new(&limits))
        .layer(blocking::CallDeadlineLayer)
        .add_service(health_service)
        .add_service(reflection_v1)
        .add_service(reflection_v1alpha)
        .add_service(druids)
        .add_service(testing)
        .add_service(arena);
    per_connection::serve(router, incoming, async move {
        shutdown.await;
        // End every stream so that connections can drain.
        service.shutdown();
    })
    .await;
    // A pass in flight ends before this returns (what opens the store next
    // must not find this server still writing), unless the store hangs.
    referee.stop(PASS_AT_STOP).await;
    arena_round.stop(PASS_AT_STOP).await;
    if let Some(house) = house {
        house.abort();
    }
    practice.abort();
    Ok(())
}
