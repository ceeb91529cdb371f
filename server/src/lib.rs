//! `druids-server`: the druids games behind the `druids.v1` gRPC contract.
//!
//! [`serve`] runs the service on an already-bound listener until a shutdown
//! future completes, so tests bind port 0 and connect without sleeping. Each
//! game is owned by one [`room::Room`]; the games themselves are driven only
//! through [`druids::HostedGame`], so a new game needs no code here.

pub mod auth;
pub mod config;
pub mod error;
pub mod recover;
pub mod room;
pub mod service;
pub mod sqlite;
pub mod store;

use std::future::Future;
use std::sync::Arc;

use druids::pb::druids_server::DruidsServer;
use tokio::net::TcpListener;
use tokio::sync::watch;
use tonic::transport::Server;
use tonic::transport::server::TcpIncoming;

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

/// Serves the druids service, gRPC health and reflection on `listener` until
/// `shutdown` completes; then open streams are ended and in-flight requests
/// finish before it returns. Every game in `store` is rebuilt first.
pub async fn serve(
    listener: TcpListener,
    store: Arc<dyn Store>,
    limits: Limits,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> Result<(), ServeError> {
    let (stop_tx, stop_rx) = watch::channel(false);
    let max_message = limits.max_message_bytes;
    let stored = store.load()?;
    let service = Arc::new(Service::new(store, limits, stop_rx));
    let recovered = stored.len();
    for game in stored {
        service.insert_room(recover::recover(game)?);
    }
    if recovered > 0 {
        tracing::info!(games = recovered, "stored games rebuilt");
    }
    let (health, health_service) = tonic_health::server::health_reporter();
    health.set_serving::<DruidsServer<Service>>().await;
    let reflection = tonic_reflection::server::Builder::configure()
        .register_encoded_file_descriptor_set(druids::pb::FILE_DESCRIPTOR_SET)
        .register_encoded_file_descriptor_set(tonic_health::pb::FILE_DESCRIPTOR_SET)
        .build_v1()
        .expect("the embedded descriptor sets are valid");
    let druids = DruidsServer::from_arc(service).max_decoding_message_size(max_message);
    // Small request/response messages: never wait for Nagle's algorithm.
    let incoming = TcpIncoming::from(listener).with_nodelay(Some(true));
    Server::builder()
        .add_service(health_service)
        .add_service(reflection)
        .add_service(druids)
        .serve_with_incoming_shutdown(incoming, async move {
            shutdown.await;
            // End every stream so that connections can drain.
            let _ = stop_tx.send(true);
        })
        .await?;
    Ok(())
}
