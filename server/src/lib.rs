//! `druids-server`: the druids games behind the `druids.v1` gRPC contract.
//!
//! [`serve`] runs the service on an already-bound listener until a shutdown
//! future completes, so tests bind port 0 and connect without sleeping. Each
//! game is owned by one [`room::Room`]; the games themselves are driven only
//! through [`druids::HostedGame`], so a new game needs no code here.

pub mod auth;
pub mod config;
pub mod error;
pub mod room;
pub mod service;
pub mod store;

use std::future::Future;
use std::sync::Arc;

use druids::pb::druids_server::DruidsServer;
use tokio::net::TcpListener;
use tokio::sync::watch;
use tokio_stream::wrappers::TcpListenerStream;
use tonic::transport::Server;

pub use config::{Config, Limits};
pub use service::Service;
pub use store::{MemoryStore, Store};

/// Serves the druids service, gRPC health and reflection on `listener` until
/// `shutdown` completes; then open streams are ended and in-flight requests
/// finish before it returns.
pub async fn serve(
    listener: TcpListener,
    store: Arc<dyn Store>,
    limits: Limits,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> Result<(), tonic::transport::Error> {
    let (stop_tx, stop_rx) = watch::channel(false);
    let max_message = limits.max_message_bytes;
    let service = Arc::new(Service::new(store, limits, stop_rx));
    let (health, health_service) = tonic_health::server::health_reporter();
    health.set_serving::<DruidsServer<Service>>().await;
    let reflection = tonic_reflection::server::Builder::configure()
        .register_encoded_file_descriptor_set(druids::pb::FILE_DESCRIPTOR_SET)
        .register_encoded_file_descriptor_set(tonic_health::pb::FILE_DESCRIPTOR_SET)
        .build_v1()
        .expect("the embedded descriptor sets are valid");
    let druids = DruidsServer::from_arc(service).max_decoding_message_size(max_message);
    let incoming = TcpListenerStream::new(listener);
    Server::builder()
        .tcp_nodelay(true)
        .add_service(health_service)
        .add_service(reflection)
        .add_service(druids)
        .serve_with_incoming_shutdown(incoming, async move {
            shutdown.await;
            // End every stream so that connections can drain.
            let _ = stop_tx.send(true);
        })
        .await
}
