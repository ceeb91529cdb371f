//! The HTTP/JSON face of the contract and the web viewer, on a port of their own.
//!
//! Browsers and `curl` cannot speak gRPC, so every RPC of `DruidsService` is
//! also reachable as `POST /api/v1/<Method>` with the request message as JSON
//! (the canonical proto3 JSON mapping of [`druids_contract::json`]), and `StreamEvents`
//! as Server-Sent Events or newline-delimited JSON. Each call goes through the
//! very same [`DruidsService`](druids_contract::pb::druids_service_server::DruidsService)
//! methods of [`Service`] with a `tonic::Request` built like tonic builds one
//! (the `authorization` header as metadata, the peer address as
//! `TcpConnectInfo`), so authentication, limits and errors cannot differ
//! between the two faces. See `docs/http.md`.
//!
//! The same listener serves the web viewer (`web/` at the workspace root, embedded in the
//! binary) and `POST /web/v1/practice`, which starts a game against built-in
//! bots for a person at a browser.

mod api;
mod arena;
mod assets;
mod call;
mod error;
mod event_stream;
mod practice;

use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;

use axum::Router;
use axum::routing::{get, post};
use tokio::net::TcpListener;

use crate::arena::api::ArenaApi;
use crate::service::Service;

pub use error::ApiError;

/// What every handler needs.
#[derive(Clone)]
struct Ctx {
    service: Arc<Service>,
    /// The arena's face, as the gRPC server has it.
    arena: Arc<ArenaApi>,
    /// The listener's own address, for `TcpConnectInfo::local_addr`.
    local: Option<SocketAddr>,
}

/// The routes of the HTTP face and the viewer.
fn router(ctx: Ctx) -> Router {
    Router::new()
        .route("/api/v1/games", get(api::game_types))
        .route("/api/v1/games/{id}/events", get(api::events))
        .route("/api/v1/bot/events", get(arena::bot_events))
        .route(
            "/api/v1/tournaments/{id}/events",
            get(arena::tournament_events),
        )
        .route("/api/v1/{method}", post(api::rpc))
        .route("/web/v1/practice", post(practice::practice))
        .route("/", get(assets::page))
        .route("/games/{id}", get(assets::page))
        .route("/ladder", get(assets::page))
        .route("/ladder/{game}/{players}", get(assets::page))
        .route("/bots/{id}", get(assets::page))
        .route("/tournaments", get(assets::page))
        .route("/tournaments/{id}", get(assets::page))
        .route("/me", get(assets::page))
        .route("/static/{file}", get(assets::file))
        .fallback(assets::not_found)
        .method_not_allowed_fallback(assets::wrong_method)
        .with_state(ctx)
}

/// Serves the HTTP/JSON face and the web viewer on `listener` until `shutdown`
/// completes. Open event streams end when the service shuts down.
pub async fn serve_http(
    listener: TcpListener,
    service: Arc<Service>,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let local = listener.local_addr().ok();
    if let Some(addr) = local {
        tracing::info!("web viewer at http://{addr}/");
    }
    let arena = Arc::new(ArenaApi::new(
        service.arena().cloned(),
        service.blocking().clone(),
        service.stop_signal(),
    ));
    let app = router(Ctx {
        service,
        arena,
        local,
    });
    axum::serve(
        listener,
        app.into_make_service_with_connect_info::<SocketAddr>(),
    )
    .with_graceful_shutdown(shutdown)
    .await
}
