//! `druids-server`: the druids games behind the `druids.v1` gRPC contract.
//!
//! [`serve`] runs the service on an already-bound listener until a shutdown
//! future completes, so tests bind port 0 and connect without sleeping. Each
//! game is owned by one [`room::Room`]; the games themselves are driven only
//! through [`druids::HostedGame`], so a new game needs no code here.

pub mod auth;
pub mod clock;
pub mod config;
pub mod error;
pub mod metrics;
pub mod recover;
pub mod room;
pub mod service;
pub mod sqlite;
pub mod store;

use std::future::Future;
use std::sync::Arc;

use druids::pb::druids_service_server::DruidsServiceServer;
use std::time::Duration;
use tokio::net::TcpListener;
use tonic::transport::Server;
use tonic::transport::server::TcpIncoming;

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

/// Serves the druids service on `listener` until `shutdown` completes, with the
/// system clock; every game in `store` is rebuilt first. See [`serve_service`].
pub async fn serve(
    listener: TcpListener,
    metrics_listener: Option<TcpListener>,
    store: Arc<dyn Store>,
    limits: Limits,
    tls: Option<Tls>,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> Result<(), ServeError> {
    let service = Arc::new(Service::new(store, limits, Arc::new(SystemClock)));
    let recovered = service.recover_all()?;
    if recovered > 0 {
        tracing::info!(games = recovered, "stored games rebuilt");
    }
    if let Some(l) = metrics_listener {
        let stopped = service.stopped();
        let s = Arc::clone(&service);
        tokio::spawn(async move {
            if let Err(e) = metrics::serve_metrics(l, s, stopped).await {
                tracing::error!("metrics endpoint failed: {e}");
            }
        });
    }
    serve_service(listener, service, tls, shutdown).await
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
    let max_message = service.limits().max_message_bytes;
    let (health, health_service) = tonic_health::server::health_reporter();
    health.set_serving::<DruidsServiceServer<Service>>().await;
    let reflection = tonic_reflection::server::Builder::configure()
        .register_encoded_file_descriptor_set(druids::pb::FILE_DESCRIPTOR_SET)
        .register_encoded_file_descriptor_set(tonic_health::pb::FILE_DESCRIPTOR_SET)
        .build_v1()
        .expect("the embedded descriptor sets are valid");
    let referee = {
        let service = Arc::clone(&service);
        tokio::spawn(async move {
            let mut tick = tokio::time::interval(REFEREE_TICK);
            tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                tick.tick().await;
                let s = Arc::clone(&service);
                // Timeouts write to the store, which may block on the disk.
                let _ = tokio::task::spawn_blocking(move || s.expire_due()).await;
            }
        })
    };
    let druids =
        DruidsServiceServer::from_arc(Arc::clone(&service)).max_decoding_message_size(max_message);
    // Small request/response messages: never wait for Nagle's algorithm.
    let incoming = TcpIncoming::from(listener).with_nodelay(Some(true));
    let mut builder = Server::builder();
    if let Some(tls) = tls {
        let identity = tonic::transport::Identity::from_pem(tls.cert_pem, tls.key_pem);
        builder =
            builder.tls_config(tonic::transport::ServerTlsConfig::new().identity(identity))?;
    }
    let result = builder
        .add_service(health_service)
        .add_service(reflection)
        .add_service(druids)
        .serve_with_incoming_shutdown(incoming, async move {
            shutdown.await;
            // End every stream so that connections can drain.
            service.shutdown();
        })
        .await;
    referee.abort();
    result?;
    Ok(())
}
