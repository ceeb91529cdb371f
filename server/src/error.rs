//! Every way a request can fail, and the one table that maps each to a gRPC
//! status code. Handlers return [`ServiceError`]; nothing else builds a `Status`.

use druids::{ApplyError, CreateError};
use druids_engine::Rejection;
use tonic::{Code, Status};

/// A request the server refuses. The message says what was wrong; the state is
/// unchanged whenever one of these is returned.
#[derive(Debug, thiserror::Error)]
pub enum ServiceError {
    /// The request is malformed.
    #[error("{0}")]
    Invalid(String),
    /// No game with this id.
    #[error("no game with id {0:?}")]
    GameNotFound(String),
    /// No `authorization` metadata where a seat token is required.
    #[error("missing seat token: send metadata `authorization: Bearer <token>`")]
    MissingToken,
    /// The token is not one this server issued (for this game or any other).
    #[error("the token is not a seat token of game {0}")]
    UnknownToken(String),
    /// The token is a seat token, but of another game.
    #[error("this token belongs to another game, not to game {0}")]
    TokenOfOtherGame(String),
    /// The engine refused the action, or it is not this seat's decision.
    #[error("{0}")]
    Refused(String),
    /// Nothing can be played before every seat is claimed.
    #[error("game {0} has not started: seats are still open")]
    NotStarted(String),
    /// The game is over (or abandoned).
    #[error("game {0} is over")]
    Finished(String),
    /// The server gave the game up.
    #[error("game {0} was abandoned ({1}): nothing more can be played")]
    Abandoned(String, String),
    /// `expected_version` is not the current version.
    #[error("stale expected_version {expected}: the game is at version {current}")]
    StaleVersion {
        /// What the client sent.
        expected: u64,
        /// The current version.
        current: u64,
    },
    /// The idempotency key was used for a different request.
    #[error("idempotency key {0:?} was already used for a different action")]
    KeyReused(String),
    /// The seat asked for is not open.
    #[error("seat {0} is already claimed")]
    SeatTaken(u32),
    /// A configured limit was hit.
    #[error("limit reached: {0}")]
    Limit(String),
    /// The action could not be stored; nothing was applied.
    #[error("storage unavailable, nothing was applied: {0}")]
    Storage(String),
}

impl ServiceError {
    /// The status code of each error: the whole mapping, in one place.
    pub fn code(&self) -> Code {
        match self {
            ServiceError::Invalid(_) => Code::InvalidArgument,
            ServiceError::GameNotFound(_) => Code::NotFound,
            ServiceError::MissingToken | ServiceError::UnknownToken(_) => Code::Unauthenticated,
            ServiceError::TokenOfOtherGame(_) => Code::PermissionDenied,
            ServiceError::Refused(_)
            | ServiceError::NotStarted(_)
            | ServiceError::Finished(_)
            | ServiceError::Abandoned(..) => Code::FailedPrecondition,
            ServiceError::StaleVersion { .. } => Code::Aborted,
            ServiceError::KeyReused(_) | ServiceError::SeatTaken(_) => Code::AlreadyExists,
            ServiceError::Limit(_) => Code::ResourceExhausted,
            ServiceError::Storage(_) => Code::Unavailable,
        }
    }

    /// Classifies a host error for the game `game_id`.
    pub fn from_apply(game_id: &str, e: ApplyError) -> ServiceError {
        match e {
            ApplyError::Decode(_) | ApplyError::NoSuchLegalAction { .. } => {
                ServiceError::Invalid(e.to_string())
            }
            ApplyError::NotStarted => ServiceError::NotStarted(game_id.to_owned()),
            ApplyError::Rule {
                rejection: Rejection::GameOver,
                ..
            } => ServiceError::Finished(game_id.to_owned()),
            ApplyError::Rule { message, .. } => ServiceError::Refused(message),
            ApplyError::Persist(message) => ServiceError::Storage(message),
        }
    }
}

impl From<CreateError> for ServiceError {
    fn from(e: CreateError) -> Self {
        ServiceError::Invalid(e.to_string())
    }
}

impl From<ServiceError> for Status {
    fn from(e: ServiceError) -> Status {
        Status::new(e.code(), e.to_string())
    }
}
