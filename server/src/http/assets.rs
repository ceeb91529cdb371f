//! The web viewer's files, compiled into the binary: the server needs no
//! files on disk and the page loads nothing from anywhere else (no CDN, no
//! build step: plain ES modules, CSS and SVG drawn by the modules).

use axum::extract::Path;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use tonic::Code;

use super::ApiError;

/// `(name, content type, content)` of every file under `web/` (the workspace root).
const FILES: &[(&str, &str, &str)] = &[
    ("app.js", JS, include_str!("../../../web/app.js")),
    ("api.js", JS, include_str!("../../../web/api.js")),
    ("game.js", JS, include_str!("../../../web/game.js")),
    ("list.js", JS, include_str!("../../../web/list.js")),
    ("svg.js", JS, include_str!("../../../web/svg.js")),
    ("meduris.js", JS, include_str!("../../../web/meduris.js")),
    ("dolmen.js", JS, include_str!("../../../web/dolmen.js")),
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
    (
        [
            (header::CONTENT_TYPE, "text/html; charset=utf-8"),
            (
                header::CONTENT_SECURITY_POLICY,
                "default-src 'self'; style-src 'self'; img-src 'self' data:",
            ),
            (header::REFERRER_POLICY, "no-referrer"),
            (header::CACHE_CONTROL, "no-cache"),
        ],
        INDEX,
    )
        .into_response()
}

/// `GET /static/<file>`.
pub(super) async fn file(Path(name): Path<String>) -> Response {
    match FILES.iter().find(|(n, _, _)| *n == name) {
        Some((_, content_type, body)) => (
            [
                (header::CONTENT_TYPE, *content_type),
                (header::CACHE_CONTROL, "no-cache"),
            ],
            *body,
        )
            .into_response(),
        None => not_found().await,
    }
}

/// Anything else.
pub(super) async fn not_found() -> Response {
    ApiError {
        http_status: Some(StatusCode::NOT_FOUND),
        ..ApiError::new(Code::NotFound, "no such page", "")
    }
    .into_response()
}

/// A known path with the wrong method (e.g. `GET /api/v1/CreateGame`).
pub(super) async fn wrong_method() -> Response {
    ApiError {
        http_status: Some(StatusCode::METHOD_NOT_ALLOWED),
        ..ApiError::new(
            Code::Unimplemented,
            "wrong method: RPCs are POST /api/v1/<Method>, streams GET /api/v1/games/<id>/events",
            "",
        )
    }
    .into_response()
}
