//! A `SubmitAction` (or a `Resign`) as a room plays it, parsed at the edge:
//! the choice, the expected version and, if the client gave one, its
//! idempotency key — bounded, then kept as the digests the log stores
//! ([`SubmissionKey`]). A room receives only what parsed, so it checks
//! nothing twice.

use druids_contract::pb;

use crate::error::ServiceError;
use crate::hosted_game::Choice;
use crate::store::SubmissionKey;

/// Longest idempotency key accepted.
pub const MAX_KEY_BYTES: usize = 128;

/// What a seat submits.
#[derive(Clone, Debug)]
pub struct Submission {
    /// A full action, or an entry of the default legal-action list.
    pub choice: Choice,
    /// The version the decision was made on.
    pub expected_version: u64,
    /// The idempotency key, if any.
    pub key: Option<IdempotencyKey>,
    /// The ticket of the decision held for it ([`crate::room::Hold`]): the
    /// one submission that may make it.
    pub hold: Option<u64>,
}

/// A submission's idempotency key.
#[derive(Clone, Debug)]
pub struct IdempotencyKey {
    /// As kept: what recognises a retry.
    pub digests: SubmissionKey,
    /// As the client sent it (at most [`MAX_KEY_BYTES`]), for messages.
    pub text: String,
}

impl IdempotencyKey {
    /// The key `text` of a request asking for `choice` at
    /// `expected_version` (both unset for a resignation), bounded; `None`
    /// when empty.
    fn parse(
        text: String,
        choice: Option<Choice>,
        expected_version: Option<u64>,
    ) -> Result<Option<IdempotencyKey>, ServiceError> {
        if text.len() > MAX_KEY_BYTES {
            return Err(ServiceError::invalid(
                "idempotency_key",
                format!(
                    "idempotency_key is {} bytes; at most {MAX_KEY_BYTES} allowed",
                    text.len()
                ),
            ));
        }
        Ok((!text.is_empty()).then(|| IdempotencyKey {
            digests: SubmissionKey::of(&text, choice, expected_version),
            text,
        }))
    }
}

/// A seat giving up (`Resign`), parsed: its idempotency key, if any. A
/// resignation's key digests ask for no choice and no version, so they never
/// match a submission's, and one key names one request of a seat.
#[derive(Clone, Debug)]
pub struct Resignation {
    /// The idempotency key, if any.
    pub key: Option<IdempotencyKey>,
}

impl Resignation {
    /// Parses a request: the key is bounded.
    pub fn parse(req: pb::ResignRequest) -> Result<Resignation, ServiceError> {
        Ok(Resignation {
            key: IdempotencyKey::parse(req.idempotency_key, None, None)?,
        })
    }
}

impl Submission {
    /// Parses a request: the key is bounded, the choice and the expected
    /// version are required.
    pub fn parse(req: pb::SubmitActionRequest) -> Result<Submission, ServiceError> {
        let choice = req.choice.ok_or_else(|| {
            ServiceError::invalid("choice", "choice is required: action or legal_action_id")
        })?;
        let expected_version = req.expected_version.ok_or_else(|| {
            ServiceError::invalid("expected_version", "expected_version is required")
        })?;
        let key = IdempotencyKey::parse(
            req.idempotency_key,
            Some(choice.clone()),
            Some(expected_version),
        )?;
        Ok(Submission {
            choice,
            expected_version,
            key,
            hold: None,
        })
    }
}
