//! Every way a request can fail, and the one table that maps each to a gRPC
//! status code and a stable machine-readable reason. Handlers return
//! [`ServiceError`]; nothing else builds a `Status`.
//!
//! The reason travels as a `google.rpc.ErrorInfo` detail (the names come from
//! the contract's `ErrorReason` enum, so the proto is the list a bot branches
//! on); malformed fields add a `google.rpc.BadRequest` field violation, and
//! rate limits a `google.rpc.RetryInfo` with the delay. Client input quoted in
//! a message is clipped ([`clip`]) so that a hostile request can never make an
//! error larger than a client's header limit.

use std::borrow::Cow;
use std::collections::HashMap;
use std::time::Duration;

use crate::hosted_game::{ApplyError, CreateError};
use druids_contract::pb::ErrorReason;
use druids_engine::{Rejection, RuleViolation};
use tonic::metadata::MetadataValue;
use tonic::{Code, Status};
use tonic_types::{ErrorDetails, StatusExt};

use crate::store::StoreError;

/// The `domain` of every `google.rpc.ErrorInfo` this server sends.
pub const ERROR_DOMAIN: &str = "druids.dev";

/// How long a client waits before retrying a call to a game on the move.
pub const MOVED_RETRY: Duration = Duration::from_millis(200);

/// How long a client waits before retrying a call the database failed or
/// did not answer in time.
pub const STORAGE_RETRY: Duration = Duration::from_secs(1);

/// Most bytes of client input quoted back in an error message.
pub use druids_contract::json::MAX_QUOTED_BYTES;

/// `s` quoted for an error message: at most [`MAX_QUOTED_BYTES`] bytes of it
/// (cut at a character boundary, with `…` when cut), Debug-escaped.
pub fn clip(s: &str) -> String {
    if s.len() <= MAX_QUOTED_BYTES {
        return format!("{s:?}");
    }
    format!("{:?}… ({} bytes)", cut(s, MAX_QUOTED_BYTES), s.len())
}

/// The first `max` bytes of `s` at most, cut at a character boundary.
pub fn cut(s: &str, max: usize) -> &str {
    &s[..s.floor_char_boundary(max)]
}

/// Which of a bot's challenges a call is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChallengeSide {
    /// One it was sent (AnswerChallenge).
    Received,
    /// One it sent (CancelChallenge).
    Sent,
}

/// A request the server refuses. The message says what was wrong; the state is
/// unchanged whenever one of these is returned.
#[derive(Debug, thiserror::Error)]
pub enum ServiceError {
    /// A field of the request is missing, malformed or out of range.
    #[error("{message}")]
    Invalid {
        /// The field, as named in the proto (`game_id`, `action`, ...): its
        /// path from the request's top (`plan.faults[2].seat`).
        field: Cow<'static, str>,
        /// What is wrong with it.
        message: String,
    },
    /// A method this server does not serve, or a request compressed in an
    /// encoding it does not take (gRPC's `UNIMPLEMENTED`).
    #[error("{0}")]
    Unimplemented(String),
    /// No game with this id (already clipped).
    #[error("no game with id {0}")]
    GameNotFound(String),
    /// No `authorization` metadata where a seat token is required.
    #[error(
        "missing token: send metadata `authorization: Bearer <token>` (the seat's token, a bot's key or a test key, as the call needs)"
    )]
    MissingToken,
    /// The token is not one this server issued.
    #[error(
        "the token is not a seat token of game {0}, nor the key of a bot seated in it (a bot's key stops working once rotated or revoked)"
    )]
    UnknownToken(String),
    /// The token is a seat token, but of another game.
    #[error("this token belongs to another game, not to game {0}")]
    TokenOfOtherGame(String),
    /// The token is a working bot key, but its bot has no seat here.
    #[error("this is a bot's API key, and the bot has no seat in game {0}")]
    BotNotSeated(String),
    /// The engine refused the action: its own error, which says why and
    /// classifies itself (illegal, not your turn, over, malformed).
    #[error("{0}")]
    Rule(Box<dyn RuleViolation>),
    /// Nothing can be played before every seat is claimed.
    #[error("game {0} has not started: seats are still open")]
    NotStarted(String),
    /// The game is over.
    #[error("game {0} is over")]
    Finished(String),
    /// A keyed submission to a game that ended and left memory: a retry's
    /// answer is no longer kept (nor which keys were used), and nothing is
    /// applied.
    #[error(
        "game {0} is over and the answers to its submissions are no longer kept (they are kept while a game is in play and for a grace period after it ends), so whether this key was used is not known either: nothing was applied; GetState or StreamEvents show what was played"
    )]
    AnswerGone(String),
    /// The server gave the game up.
    #[error("game {0} was abandoned ({1}): nothing more can be played")]
    Abandoned(String, String),
    /// JoinGame on a game with no open seat.
    #[error("game {0} has no open seat: it has started")]
    NoOpenSeat(String),
    /// ExportReplay of an arena game whose duplicate match is still played:
    /// its seed would reveal the dice of the match's next games.
    #[error(
        "game {0} belongs to a duplicate match still being played, whose games share its seed: its replay is available once the match is over"
    )]
    MatchRunning(String),
    /// The replay (ExportReplay, GetReplayViews) of a game still being played.
    #[error(
        "game {0} is still being played: its replay is available once it is finished or abandoned"
    )]
    GameRunning(String),
    /// `expected_version` is not the current version.
    #[error("stale expected_version {expected}: the game is at version {current}")]
    StaleVersion {
        /// What the client sent.
        expected: u64,
        /// The current version.
        current: u64,
    },
    /// `expected_version` is the version of a decision of this seat that the
    /// server took itself because its turn clock ran out.
    #[error(
        "the decision of version {expected} was past its deadline: the turn clock decided for the seat (the game is at version {current}); fetch the state and decide again if the seat must"
    )]
    DeadlinePassed {
        /// What the client sent.
        expected: u64,
        /// The current version.
        current: u64,
    },
    /// The idempotency key or request id was used for a different request.
    #[error("{what} {key} was already used for a different request")]
    KeyReused {
        /// "idempotency key" or "request id".
        what: &'static str,
        /// The key, clipped.
        key: String,
    },
    /// The seat asked for is not open.
    #[error("seat {0} is already claimed")]
    SeatTaken(u32),
    /// A rate limit: retry after the delay.
    #[error("rate limit: {what}; retry in {} ms", retry_after.as_millis())]
    RateLimited {
        /// Which limit, in words.
        what: String,
        /// When a retry will be accepted.
        retry_after: Duration,
    },
    /// A capacity limit was hit.
    #[error("limit reached: {0}")]
    Limit(String),
    /// A page token of another version or query.
    #[error("{0}")]
    StalePageToken(String),
    /// The change could not be stored; nothing was applied. A write fenced
    /// off by a newer lease is no outage: the game moved to another node.
    #[error("{}", match .0 {
        StoreError::Fenced { .. } => format!("{}: nothing was applied; retry (on any node)", .0),
        _ => format!("storage unavailable, nothing was applied: {}", .0),
    })]
    Storage(#[from] StoreError),
    /// The server is stopping.
    #[error("the server is shutting down")]
    ShuttingDown,
    /// The game is moving between nodes (already clipped); nothing was applied.
    #[error("game {0} is moving to another node: nothing was applied; retry")]
    Moved(String),
    /// A game of a duplicate match waits at a die for the other games of its
    /// match (already clipped); nothing was applied.
    #[error(
        "game {0} waits for the other games of its match to reach this die, so no seat can act in it yet: nothing was applied; retry"
    )]
    WaitingForMatch(String),
    /// A seat's decision is held for the other games of its duplicate match
    /// (already clipped): another submission of the seat is not made.
    #[error(
        "game {0} holds this seat's decision until the other games of its match have decided at the same position: nothing else is applied meanwhile; retry with the held submission's idempotency key for its answer"
    )]
    DecisionHeld(String),
    /// A held decision's call reached its deadline (`grpc-timeout`) before
    /// the other games of its match decided; it is still made.
    #[error(
        "this decision is held until the other games of its match have decided at the same position, which they had not before this call's deadline: it will be made; retry with the same idempotency key for its answer"
    )]
    HeldPastDeadline,
    /// The arena's work is moving to another node (its holder died or
    /// stalled); nothing was applied.
    #[error(
        "the arena's work is moving to another node: nothing was applied; retry (on any node; a stream resumes from its next seq, a seek is opened again)"
    )]
    ArenaMoved,
    /// RegisterBot without the operator key on a closed server (on a
    /// cluster, the node called or the one holding the arena: not "this
    /// server", which may be the other).
    #[error(
        "registration is closed (--registration closed): RegisterBot needs the operator key as its bearer token"
    )]
    RegistrationClosed,
    /// A call naming a bot (`what`) whose bearer is neither the operator
    /// key nor a bot's key (`sent`: whether one was sent at all), where
    /// the operator key (or, `own_key_will_do`, that bot's own) is needed.
    #[error("{}", key_refused(what, *own_key_will_do, *sent))]
    KeyRefused {
        /// The call and what it names.
        what: &'static str,
        /// Whether the named bot's own key would do.
        own_key_will_do: bool,
        /// Whether a bearer was sent.
        sent: bool,
    },
    /// RegisterBot with a bearer that is not the operator key (`why`: what
    /// to do instead).
    #[error("the bearer token sent with RegisterBot is not the operator key; {0}")]
    NotOperatorKey(&'static str),
    /// RegisterBot with a name in use, or one that counts as the same
    /// (already clipped).
    #[error(
        "the name {0} is taken: a bot has it, or one differing only in case or \
         look-alike characters, which count as the same name"
    )]
    BotNameTaken(String),
    /// An arena call without a bot's key, or with an unknown one.
    #[error("this call needs a bot's API key (metadata `authorization: Bearer <key>`); {0}")]
    BotKeyUnknown(&'static str),
    /// No bot with this id (already clipped).
    #[error("no bot with id {0}")]
    BotNotFound(String),
    /// No such pending challenge for the caller (its id already clipped):
    /// one it received (to answer) or one it sent (to withdraw).
    #[error("{}", match .1 {
        ChallengeSide::Received => format!(
            "no pending challenge {} to this bot: a challenge is answered by the bots it challenges (its sender withdraws it with CancelChallenge)", .0),
        ChallengeSide::Sent => format!(
            "no pending challenge {} sent by this bot: only its sender withdraws a challenge", .0),
    })]
    ChallengeNotFound(String, ChallengeSide),
    /// No such tournament (already clipped).
    #[error("no tournament with id {0}")]
    TournamentNotFound(String),
    /// The arena is off on this server.
    #[error("the arena is off on this server")]
    ArenaUnavailable,
    /// JoinTournament when entry is not open (why).
    #[error("tournament {id} takes no entrants: {why}")]
    EntryClosed {
        /// The tournament (already clipped).
        id: String,
        /// Why not.
        why: &'static str,
    },
    /// A call acting on another bot without the operator key (what it was).
    #[error("{0} needs the operator key as the bearer token")]
    OperatorKeyRequired(&'static str),
    /// CreateTournament with a bot's key (or none) on a server whose
    /// registration is closed: there only the operator creates tournaments.
    #[error(
        "on this server (closed registration) only the operator creates tournaments: CreateTournament needs the operator key as its bearer token, a bot's key will not do"
    )]
    TournamentsByOperator,
    /// A rated challenge with a bot not established in its pool (its name,
    /// not yet clipped).
    #[error(
        "bot {} is not established in this pool (too few rated matches or distinct opponents): rated challenges are between established bots only; play rated games through Seek first, or challenge unrated",
        clip(.0)
    )]
    NotEstablished(String),
    /// RotateBotKey or RevokeBot naming a house bot this server plays
    /// (`what`: the call).
    #[error(
        "{0} cannot act on a house bot of this server: the server plays it and holds its key; restart the server without its level in --house-bots to take it out of play"
    )]
    HouseBot(&'static str),
    /// A TestingService call on a server without `--test-faults`.
    #[error(
        "fault plans and ledgers need a server started with --test-faults (or DRUIDS_TEST_FAULTS=true); this one was not"
    )]
    TestFaultsOff,
    /// A TestingService call without the game's test key (already clipped).
    #[error(
        "the bearer token is not the test key of game {0} (only a game CreateTestGame made on this server process has one)"
    )]
    TestKeyUnknown(String),
    /// A retried CreateTestGame whose game another node of the cluster made
    /// (and holds its plan): its first answer is not kept here.
    #[error(
        "the test game {0} of this request id was made by another node of this cluster, which holds its fault plan and ledger: this node cannot answer the retry, and changed nothing"
    )]
    TestGameElsewhere(String),
    /// A fault of a test plan answered as from a server that is down.
    #[error("unavailable (a fault of the game's test plan): nothing was applied; retry in {} ms", retry_after.as_millis())]
    FaultUnavailable {
        /// When a retry will be accepted.
        retry_after: Duration,
    },
    /// A restart fault of a test plan: the game's server is "down".
    #[error("the server is restarting (a fault of the game's test plan): nothing was applied; retry in {} ms", retry_after.as_millis())]
    FaultRestarting {
        /// When the server is back.
        retry_after: Duration,
    },
    /// The database did not answer before the client's deadline
    /// (`grpc-timeout`); the call may still be applied.
    #[error(
        "the database did not answer before this call's deadline: retry in {} ms, with the same idempotency key or request id (the call may still be applied)",
        STORAGE_RETRY.as_millis()
    )]
    StorageLate,
}

impl ServiceError {
    /// A malformed `field`.
    pub fn invalid(
        field: impl Into<Cow<'static, str>>,
        message: impl Into<String>,
    ) -> ServiceError {
        ServiceError::Invalid {
            field: field.into(),
            message: message.into(),
        }
    }

    /// The field an invalid request names.
    pub fn field(&self) -> Option<&str> {
        match self {
            ServiceError::Invalid { field, .. } => Some(field),
            _ => None,
        }
    }

    /// This error of a message that a request carries at `to` (a
    /// CreateTestGame's `game`: `from` empty), or of one part of a repeated
    /// field (`from` `plan.faults`, `to` `plan.faults[2]`): its field's
    /// path, and the message's words for it, start with `to` instead.
    pub fn nested(self, from: &str, to: &str) -> ServiceError {
        let ServiceError::Invalid { field, message } = self else {
            return self;
        };
        let renamed = if from.is_empty() {
            format!("{to}.{field}")
        } else {
            match field.strip_prefix(from) {
                Some(rest) if rest.is_empty() || rest.starts_with(['.', '[']) => {
                    format!("{to}{rest}")
                }
                _ => return ServiceError::Invalid { field, message },
            }
        };
        let message = match message.strip_prefix(field.as_ref()) {
            Some(said) => format!("{renamed}{said}"),
            None => format!("{renamed}: {message}"),
        };
        ServiceError::Invalid {
            field: renamed.into(),
            message,
        }
    }

    /// The status code of each error: the whole mapping, in one place.
    pub fn code(&self) -> Code {
        match self {
            ServiceError::Invalid { .. } => Code::InvalidArgument,
            ServiceError::Unimplemented(_) => Code::Unimplemented,
            ServiceError::GameNotFound(_) => Code::NotFound,
            ServiceError::MissingToken | ServiceError::UnknownToken(_) => Code::Unauthenticated,
            ServiceError::TokenOfOtherGame(_) | ServiceError::BotNotSeated(_) => {
                Code::PermissionDenied
            }
            ServiceError::Rule(e) if e.rejection() == Rejection::Malformed => Code::InvalidArgument,
            ServiceError::Rule(_)
            | ServiceError::NotStarted(_)
            | ServiceError::Finished(_)
            | ServiceError::AnswerGone(_)
            | ServiceError::TestGameElsewhere(_)
            | ServiceError::Abandoned(..)
            | ServiceError::NoOpenSeat(_)
            | ServiceError::GameRunning(_)
            | ServiceError::MatchRunning(_) => Code::FailedPrecondition,
            ServiceError::StaleVersion { .. }
            | ServiceError::DeadlinePassed { .. }
            | ServiceError::StalePageToken(_) => Code::Aborted,
            ServiceError::KeyReused { .. } | ServiceError::SeatTaken(_) => Code::AlreadyExists,
            ServiceError::RateLimited { .. } | ServiceError::Limit(_) => Code::ResourceExhausted,
            ServiceError::Storage(_)
            | ServiceError::ShuttingDown
            | ServiceError::Moved(_)
            | ServiceError::WaitingForMatch(_)
            | ServiceError::DecisionHeld(_)
            | ServiceError::HeldPastDeadline
            | ServiceError::ArenaMoved => Code::Unavailable,
            ServiceError::RegistrationClosed => Code::PermissionDenied,
            ServiceError::BotNameTaken(_) => Code::AlreadyExists,
            ServiceError::BotKeyUnknown(_)
            | ServiceError::KeyRefused { .. }
            | ServiceError::NotOperatorKey(_) => Code::Unauthenticated,
            ServiceError::BotNotFound(_)
            | ServiceError::ChallengeNotFound(..)
            | ServiceError::TournamentNotFound(_) => Code::NotFound,
            ServiceError::ArenaUnavailable | ServiceError::EntryClosed { .. } => {
                Code::FailedPrecondition
            }
            ServiceError::OperatorKeyRequired(_) | ServiceError::TournamentsByOperator => {
                Code::PermissionDenied
            }
            ServiceError::NotEstablished(_) | ServiceError::HouseBot(_) => Code::FailedPrecondition,
            ServiceError::TestFaultsOff => Code::FailedPrecondition,
            ServiceError::TestKeyUnknown(_) => Code::Unauthenticated,
            ServiceError::FaultUnavailable { .. }
            | ServiceError::FaultRestarting { .. }
            | ServiceError::StorageLate => Code::Unavailable,
        }
    }

    /// The stable reason of each error, one of the contract's `ErrorReason`s.
    pub fn reason(&self) -> ErrorReason {
        match self {
            ServiceError::Invalid { .. } | ServiceError::Unimplemented(_) => {
                ErrorReason::InvalidArgument
            }
            ServiceError::GameNotFound(_) => ErrorReason::GameNotFound,
            ServiceError::MissingToken => ErrorReason::TokenMissing,
            ServiceError::UnknownToken(_) => ErrorReason::TokenUnknown,
            ServiceError::TokenOfOtherGame(_) | ServiceError::BotNotSeated(_) => {
                ErrorReason::TokenOfOtherGame
            }
            ServiceError::Rule(e) => match e.rejection() {
                Rejection::GameOver => ErrorReason::GameOver,
                Rejection::NotYourTurn => ErrorReason::NotYourTurn,
                Rejection::Illegal => ErrorReason::IllegalAction,
                Rejection::Malformed => ErrorReason::InvalidArgument,
            },
            ServiceError::NotStarted(_) => ErrorReason::NotStarted,
            ServiceError::Finished(_) => ErrorReason::GameOver,
            ServiceError::AnswerGone(_) | ServiceError::TestGameElsewhere(_) => {
                ErrorReason::AnswerExpired
            }
            ServiceError::Abandoned(..) => ErrorReason::GameAbandoned,
            ServiceError::NoOpenSeat(_) => ErrorReason::NoOpenSeat,
            ServiceError::GameRunning(_) | ServiceError::MatchRunning(_) => {
                ErrorReason::GameRunning
            }
            ServiceError::StaleVersion { .. } => ErrorReason::StaleVersion,
            ServiceError::DeadlinePassed { .. } => ErrorReason::DeadlinePassed,
            ServiceError::KeyReused { .. } => ErrorReason::KeyReused,
            ServiceError::SeatTaken(_) => ErrorReason::SeatTaken,
            ServiceError::RateLimited { .. } => ErrorReason::RateLimited,
            ServiceError::Limit(_) => ErrorReason::LimitReached,
            ServiceError::StalePageToken(_) => ErrorReason::StalePageToken,
            ServiceError::Storage(StoreError::Fenced { .. })
            | ServiceError::Moved(_)
            | ServiceError::ArenaMoved => ErrorReason::GameMoved,
            ServiceError::Storage(_) => ErrorReason::StorageUnavailable,
            ServiceError::RegistrationClosed => ErrorReason::RegistrationClosed,
            ServiceError::BotNameTaken(_) => ErrorReason::BotNameTaken,
            ServiceError::BotKeyUnknown(_) | ServiceError::KeyRefused { .. } => {
                ErrorReason::BotKeyUnknown
            }
            ServiceError::NotOperatorKey(_) => ErrorReason::NotOperatorKey,
            ServiceError::WaitingForMatch(_)
            | ServiceError::DecisionHeld(_)
            | ServiceError::HeldPastDeadline => ErrorReason::WaitingForMatch,
            ServiceError::BotNotFound(_) => ErrorReason::BotNotFound,
            ServiceError::ChallengeNotFound(..) => ErrorReason::ChallengeNotFound,
            ServiceError::TournamentNotFound(_) => ErrorReason::TournamentNotFound,
            ServiceError::ArenaUnavailable => ErrorReason::ArenaUnavailable,
            ServiceError::EntryClosed { .. } => ErrorReason::EntryClosed,
            ServiceError::OperatorKeyRequired(_) | ServiceError::TournamentsByOperator => {
                ErrorReason::OperatorKeyRequired
            }
            ServiceError::NotEstablished(_) => ErrorReason::NotEstablished,
            ServiceError::HouseBot(_) => ErrorReason::HouseBot,
            ServiceError::ShuttingDown | ServiceError::FaultRestarting { .. } => {
                ErrorReason::ShuttingDown
            }
            ServiceError::TestFaultsOff => ErrorReason::TestFaultsOff,
            ServiceError::TestKeyUnknown(_) => ErrorReason::TokenUnknown,
            ServiceError::FaultUnavailable { .. } | ServiceError::StorageLate => {
                ErrorReason::StorageUnavailable
            }
        }
    }

    /// Classifies a host error for the game `game_id`.
    pub fn from_apply(game_id: &str, e: ApplyError) -> ServiceError {
        match e {
            ApplyError::Decode(_) => ServiceError::invalid("action", e.to_string()),
            ApplyError::NoSuchLegalAction { .. } => {
                ServiceError::invalid("legal_action_id", e.to_string())
            }
            ApplyError::NotStarted => ServiceError::NotStarted(game_id.to_owned()),
            ApplyError::Resigned => ServiceError::Finished(game_id.to_owned()),
            ApplyError::Rule(e) => ServiceError::Rule(e),
        }
    }
}

/// The reason's name as sent: the contract's one spelling of it.
pub use druids_contract::reason_name;

impl From<druids_contract::registry::UnknownKind> for ServiceError {
    /// A request's `kind` that names no game of this server.
    fn from(e: druids_contract::registry::UnknownKind) -> Self {
        ServiceError::invalid("kind", e.to_string())
    }
}

impl From<CreateError> for ServiceError {
    fn from(e: CreateError) -> Self {
        let field = match &e {
            CreateError::Decode(e) => e.field().unwrap_or("options"),
            CreateError::Setup(druids_engine::SetupError::PlayerCount { .. }) => "players",
            CreateError::NoDraws(_) => "options.chance_script",
            CreateError::Setup(_) => "options",
        };
        ServiceError::invalid(field, e.to_string())
    }
}

impl From<ServiceError> for Status {
    fn from(e: ServiceError) -> Status {
        let mut details = ErrorDetails::with_error_info(
            reason_name(e.reason()),
            ERROR_DOMAIN,
            HashMap::<String, String>::new(),
        );
        let retry = match &e {
            ServiceError::Invalid { field, message } => {
                details.add_bad_request_violation(field.as_ref(), message.clone());
                None
            }
            ServiceError::Rule(e) if e.rejection() == Rejection::Malformed => {
                details.add_bad_request_violation("action", e.to_string());
                None
            }
            ServiceError::RateLimited { retry_after, .. }
            | ServiceError::FaultUnavailable { retry_after }
            | ServiceError::FaultRestarting { retry_after } => Some(*retry_after),
            ServiceError::Moved(_)
            | ServiceError::WaitingForMatch(_)
            | ServiceError::DecisionHeld(_)
            | ServiceError::HeldPastDeadline
            | ServiceError::ArenaMoved
            | ServiceError::Storage(StoreError::Fenced { .. }) => Some(MOVED_RETRY),
            ServiceError::Storage(_) | ServiceError::StorageLate => Some(STORAGE_RETRY),
            _ => None,
        };
        if retry.is_some() {
            details.set_retry_info(retry);
        }
        let mut status = Status::with_error_details(e.code(), e.to_string(), details);
        // The reason and the delay as plain trailers too, for a client built
        // from this contract's protos alone (google.rpc's are not among them).
        let trailers = status.metadata_mut();
        trailers.insert(
            REASON_TRAILER,
            MetadataValue::from_static(reason_name(e.reason())),
        );
        if let Some(delay) = retry {
            trailers.insert(RETRY_TRAILER, MetadataValue::from(delay.as_millis() as u64));
        }
        status
    }
}

/// The trailer naming an error's reason (as its `google.rpc.ErrorInfo`).
pub const REASON_TRAILER: &str = "druids-reason";
/// The trailer giving an error's retry delay in milliseconds (as its
/// `google.rpc.RetryInfo`).
pub const RETRY_TRAILER: &str = "druids-retry-after-ms";

/// The words of [`ServiceError::KeyRefused`].
fn key_refused(what: &str, own_key_will_do: bool, sent: bool) -> String {
    let or_own = if own_key_will_do {
        " (or that bot's own key)"
    } else {
        ""
    };
    let got = if sent {
        "the one sent is neither (a mistyped operator key, or a bot's key since rotated or revoked)"
    } else {
        "none was sent"
    };
    format!("{what} needs the operator key{or_own} as its bearer token: {got}")
}

#[cfg(test)]
mod tests;
