//! The web viewer's files, compiled into the binary: the server needs no
//! files on disk and the page loads nothing from anywhere else (no CDN, no
//! build step: plain ES modules, CSS and SVG drawn by the modules).

use axum::http::{HeaderMap, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use tonic::Code;

use super::ApiError;
use super::segment::Segment;

/// A JavaScript module of `web/`.
macro_rules! js {
    ($name:literal) => {
        ($name, JS, include_str!(concat!("../../../web/", $name)))
    };
}

/// `(name, content type, content)` of every file under `web/` (the
/// workspace root).
const FILES: &[(&str, &str, &str)] = &[
    js!("app.js"),
    js!("api.js"),
    js!("dom.js"),
    js!("list.js"),
    js!("game.js"),
    js!("view.js"),
    js!("decide.js"),
    js!("replay.js"),
    js!("boards.js"),
    js!("meduris.js"),
    js!("dolmen.js"),
    js!("generic.js"),
    js!("ladder.js"),
    js!("bot.js"),
    js!("tournaments.js"),
    js!("me.js"),
    (
        "style.css",
        "text/css; charset=utf-8",
        include_str!("../../../web/style.css"),
    ),
    (
        "favicon.svg",
        "image/svg+xml",
        include_str!("../../../web/favicon.svg"),
    ),
];

const JS: &str = "text/javascript; charset=utf-8";
const INDEX: &str = include_str!("../../../web/index.html");

/// Every page of the viewer is the same document; `app.js` reads the path.
/// The policy keeps the page to its own origin; `no-referrer` keeps a seat
/// token in the fragment out of any Referer (browsers never send fragments,
/// but the policy costs nothing).
pub(super) async fn page() -> Response {
    document(StatusCode::OK)
}

fn document(status: StatusCode) -> Response {
    (
        status,
        [
            (header::CONTENT_TYPE, "text/html; charset=utf-8"),
            (
                header::CONTENT_SECURITY_POLICY,
                "default-src 'self'; style-src 'self'; img-src 'self' data:; frame-ancestors 'none'",
            ),
            // No other site may frame a seat's page (clickjacking a choice).
            (header::X_FRAME_OPTIONS, "DENY"),
            (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
            (header::REFERRER_POLICY, "no-referrer"),
            (header::CACHE_CONTROL, "no-cache"),
        ],
        INDEX,
    )
        .into_response()
}

/// `GET /static/<file>`.
pub(super) async fn file(Segment(name): Segment) -> Response {
    match FILES.iter().find(|(n, _, _)| *n == name) {
        Some((_, content_type, body)) => (
            [
                (header::CONTENT_TYPE, *content_type),
                (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
                (header::CACHE_CONTROL, "no-cache"),
            ],
            *body,
        )
            .into_response(),
        None => not_found(HeaderMap::new()).await,
    }
}

/// Anything else: for a browser, the viewer's page (which says there is no
/// such page and links back), with 404; else the JSON error.
pub(super) async fn not_found(headers: HeaderMap) -> Response {
    let browser = headers
        .get(header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|accept| accept.contains("text/html"));
    if browser {
        return document(StatusCode::NOT_FOUND);
    }
    ApiError {
        http_status: Some(StatusCode::NOT_FOUND),
        ..ApiError::new(Code::NotFound, "no such page", "")
    }
    .into_response()
}

/// A known path with the wrong method (e.g. `GET /api/v1/CreateGame`): 405,
/// with the `Allow` header the router adds (the methods the path takes).
/// `/api/v1/<name>` is a path only for the contract's methods: another name
/// is an unknown path (404), as its POST is.
pub(super) async fn wrong_method(uri: Uri, headers: HeaderMap) -> Response {
    if uri.path() != super::GAME_TYPES
        && let Some(name) = uri.path().strip_prefix("/api/v1/")
        && !name.contains('/')
        && !is_contract_method(name)
    {
        return not_found(headers).await;
    }
    ApiError {
        http_status: Some(StatusCode::METHOD_NOT_ALLOWED),
        ..ApiError::new(
            Code::Unimplemented,
            "wrong method for this path: its Allow header says which it takes (RPCs are POST /api/v1/<Method>, event streams GET)",
            "",
        )
    }
    .into_response()
}

/// Whether `name` is a method of one of the contract's services, as the
/// contract's own descriptors say.
fn is_contract_method(name: &str) -> bool {
    druids_contract::json::pool()
        .services()
        .any(|service| service.methods().any(|m| m.name() == name))
}
