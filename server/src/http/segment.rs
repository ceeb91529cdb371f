//! The one variable segment of an HTTP face path (`/api/v1/{Method}`,
//! `/api/v1/games/{game_id}/events`, ...), percent-decoded. axum's own
//! `Path` answers a segment it cannot decode (not UTF-8) in plain text; this
//! one answers as every error of the face does, with the JSON body of
//! [`ApiError`].

use axum::extract::{FromRequestParts, Path};
use axum::http::request::Parts;
use axum::response::{IntoResponse, Response};

use super::ApiError;

/// A path's variable segment, decoded.
pub(super) struct Segment(pub String);

impl<S: Send + Sync> FromRequestParts<S> for Segment {
    type Rejection = Response;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        match Path::<String>::from_request_parts(parts, state).await {
            Ok(Path(segment)) => Ok(Segment(segment)),
            Err(_) => Err(ApiError::bad_json(
                "the path does not decode: a segment of it is not UTF-8 once percent-decoded",
            )
            .into_response()),
        }
    }
}
