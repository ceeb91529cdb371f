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
mod bot_games;
mod call;
mod cross_site;
mod error;
mod event_stream;
pub(crate) mod practice;
mod query;
mod segment;

use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;

use axum::Router;
use axum::extract::ConnectInfo;
use axum::routing::{get, post};
use tokio::net::TcpListener;

use crate::arena_api::ArenaApi;
use crate::service::Service;
use crate::transport::{Acceptor, Liveness};

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

impl Ctx {
    /// How long an event stream stays silent before a keep-alive line: the
    /// streams' heartbeat (`--stream-heartbeat-ms`).
    fn keepalive(&self) -> std::time::Duration {
        std::time::Duration::from_millis(self.service.limits().stream_heartbeat_ms)
    }
}

/// ListGameTypes for clients that only read: a route of its own beside
/// `POST /api/v1/<Method>`.
const GAME_TYPES: &str = "/api/v1/games";

/// The routes of the HTTP face and the viewer.
fn router(ctx: Ctx) -> Router {
    Router::new()
        .route(GAME_TYPES, get(api::game_types))
        .route("/api/v1/games/{id}/events", get(api::events))
        .route("/api/v1/bot/events", get(arena::bot_events))
        .route("/api/v1/bots/{id}/games", get(bot_games::export))
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
        .layer(axum::middleware::from_fn_with_state(
            ctx.clone(),
            answered_host,
        ))
        .with_state(ctx)
}

/// The router adds `Allow` to whatever its wrong-method fallback answers,
/// also when that is a 404 (`GET /api/v1/<no such method>`): no method is
/// allowed on a path that does not exist.
fn no_allow_on_404(mut answer: axum::response::Response) -> axum::response::Response {
    if answer.status() == http::StatusCode::NOT_FOUND {
        answer.headers_mut().remove(http::header::ALLOW);
    }
    answer
}

/// Serves only requests naming a host this server answers to
/// ([`cross_site::check_host`]).
async fn answered_host(
    axum::extract::State(ctx): axum::extract::State<Ctx>,
    req: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    use axum::response::IntoResponse;
    match cross_site::check_host(req.headers(), &ctx.service.limits().http_allowed_hosts) {
        Ok(()) => next.run(req).await,
        Err(refused) => refused.into_response(),
    }
}

/// Serves the HTTP/JSON face and the web viewer on `listener` until `shutdown`
/// completes, within the same connection limits as the gRPC listener
/// ([`crate::transport`]); a request's head must arrive whole within
/// `--handshake-timeout-secs` (slow headers are a connection held for
/// nothing). Open event streams end when the service shuts down; this returns
/// once every connection has closed.
pub async fn serve_http(
    listener: TcpListener,
    service: Arc<Service>,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    use hyper_util::rt::{TokioIo, TokioTimer};
    use tower::ServiceExt;

    let local = listener.local_addr().ok();
    if let Some(addr) = local {
        tracing::info!("web viewer at http://{addr}/");
    }
    let limits = service.limits().clone();
    let mut acceptor = Acceptor::new(listener, &limits, Liveness::ReadsAndWrites)
        .with_resets(service.connection_resets(), false);
    let arena = Arc::new(ArenaApi::of(&service));
    let app = router(Ctx {
        service,
        arena,
        local,
    });
    let mut http1 = hyper::server::conn::http1::Builder::new();
    http1
        .timer(TokioTimer::new())
        .header_read_timeout(crate::transport::handshake_timeout(&limits))
        // A request head past what the gRPC port's HTTP/2 takes is answered
        // by hyper (431, 414) before it is all buffered (hyper's own bound
        // is about 400 KB); below it, over the metadata limit, by the call.
        .max_buf_size(crate::grpc_edge::HTTP2_MAX_HEADER_LIST as usize);
    // Each connection holds a receiver; all are gone once they all closed.
    let (stopping, stop) = tokio::sync::watch::channel(false);
    tokio::pin!(shutdown);
    loop {
        let conn = tokio::select! {
            conn = acceptor.accept() => conn,
            () = &mut shutdown => break,
        };
        let peer = conn.peer();
        let app = app
            .clone()
            .map_request(move |req: http::Request<hyper::body::Incoming>| {
                let mut req = req.map(axum::body::Body::new);
                req.extensions_mut().insert(ConnectInfo(peer));
                req
            })
            .map_response(no_allow_on_404);
        let serving = http1
            .serve_connection(
                TokioIo::new(conn),
                hyper_util::service::TowerToHyperService::new(app),
            )
            .with_upgrades();
        let mut stop = stop.clone();
        tokio::spawn(async move {
            tokio::pin!(serving);
            tokio::select! {
                _ = serving.as_mut() => return,
                _ = stop.wait_for(|s| *s) => {}
            }
            serving.as_mut().graceful_shutdown();
            let _ = serving.await;
            drop(stop);
        });
    }
    drop(stop);
    let _ = stopping.send(true);
    stopping.closed().await;
    Ok(())
}
