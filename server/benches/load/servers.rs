//! The servers a run measures, on loopback: one druids server over a store,
//! the nodes of a cluster on one PostgreSQL database, and the framework's
//! ceiling (tonic's health `Check`) with the same callers.

use std::sync::Arc;
use std::time::Instant;

use druids_server::{Limits, MemoryStore, Service, Store, SystemClock};
use druids_store::Sync;
use druids_store::postgres::PostgresStore;
use tonic::transport::Channel;

use crate::driver::bounded;
use crate::{Run, cpu_seconds, seconds};

/// A server on loopback, for one run.
pub(crate) struct Server {
    pub(crate) url: String,
    pub(crate) service: Arc<Service>,
    pub(crate) stop: tokio::sync::oneshot::Sender<()>,
    pub(crate) task: tokio::task::JoinHandle<Result<(), druids_server::ServeError>>,
}

pub(crate) fn limits() -> Limits {
    Limits {
        max_spectator_streams_per_game: 1_000_000,
        max_streams_per_address: 1_000_000,
        max_open_streams: 1_000_000,
        max_calls_per_connection: 100_000,
        ..Limits::unthrottled()
    }
}

pub(crate) async fn start(store: Arc<dyn Store>) -> Server {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let service = Arc::new(Service::new(store, limits(), Arc::new(SystemClock)).unwrap());
    serve(listener, service)
}

pub(crate) fn serve(listener: tokio::net::TcpListener, service: Arc<Service>) -> Server {
    let url = format!("http://{}", listener.local_addr().unwrap());
    let (stop, stopped) = tokio::sync::oneshot::channel();
    let task = tokio::spawn(druids_server::serve_service(
        listener,
        Arc::clone(&service),
        None,
        async move {
            let _ = stopped.await;
        },
    ));
    Server {
        url,
        service,
        stop,
        task,
    }
}

/// `nodes` nodes of a cluster on the PostgreSQL database `db`, each with a
/// store (a pool) of its own, as separate processes would have, set up as
/// `druids-server --node-id` does (`start_node`, `spawn_upkeep`).
pub(crate) async fn start_nodes(db: &str, nodes: usize) -> Vec<Server> {
    let mut out = Vec::new();
    for i in 0..nodes {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let node = druids_server::cluster::NodeConfig {
            id: format!("node-{i}"),
            advertise: format!("http://{}", listener.local_addr().unwrap()),
            lease_ms: druids_server::cluster::DEFAULT_LEASE_SECS * 1000,
        };
        let db = db.to_owned();
        let service = tokio::task::spawn_blocking(move || {
            let store = Arc::new(PostgresStore::open(&db, Sync::Full).unwrap());
            druids_server::start_node(store, node, limits()).unwrap()
        })
        .await
        .unwrap();
        druids_server::spawn_upkeep(&service);
        out.push(serve(listener, service));
    }
    out
}

impl Server {
    /// Shuts the server down (its games go with it), so that no run's server
    /// keeps working while the next run is measured.
    pub(crate) async fn stop(self) {
        let _ = self.stop.send(());
        bounded(self.task, || "stopping the server".into())
            .await
            .unwrap()
            .unwrap();
        druids_server::release_leases(&self.service).await;
    }

    /// Calls this node forwarded to the owners of their games.
    pub(crate) fn forwarded(&self) -> u64 {
        self.service
            .cluster()
            .map_or(0, |c| c.metrics().forwarded.get())
    }
}

/// Connections shared by the callers (HTTP/2 multiplexes; one per 16 callers).
pub(crate) async fn channels(url: &str, callers: usize) -> Vec<Channel> {
    let mut out = Vec::new();
    for _ in 0..callers.div_ceil(16) {
        out.push(
            tonic::transport::Endpoint::from_shared(url.to_owned())
                .unwrap()
                .connect()
                .await
                .unwrap(),
        );
    }
    out
}

pub(crate) async fn ceiling(callers: usize) -> Run {
    let server = start(Arc::new(MemoryStore::default())).await;
    let chans = channels(&server.url, callers).await;
    let deadline = Instant::now() + seconds();
    let started = Instant::now();
    let cpu = cpu_seconds();
    let mut tasks = Vec::new();
    for i in 0..callers {
        let mut health = tonic_health::pb::health_client::HealthClient::new(chans[i / 16].clone());
        tasks.push(tokio::spawn(async move {
            let mut lat = Vec::new();
            while Instant::now() < deadline {
                let t = Instant::now();
                bounded(
                    health.check(tonic_health::pb::HealthCheckRequest {
                        service: String::new(),
                    }),
                    || "a health Check".into(),
                )
                .await
                .unwrap();
                lat.push(t.elapsed().as_secs_f64() * 1e3);
            }
            lat
        }));
    }
    let mut rpc_ms = Vec::new();
    for t in tasks {
        rpc_ms.extend(t.await.unwrap());
    }
    let secs = started.elapsed().as_secs_f64();
    let cpu = cpu_seconds() - cpu;
    drop(chans);
    server.stop().await;
    Run {
        rpcs: rpc_ms.len() as u64,
        actions: 0,
        secs,
        cpu,
        rpc_ms,
        event_ms: Vec::new(),
        db: None,
        forwarded: 0,
    }
}
