//! Retry-safe CreateGame and JoinGame calls ([`Requests`]): the request ids
//! answered, and the server secret the seat tokens of such calls are derived
//! from, so that a retry after a restart gets the same answer.

use druids_engine::Seat;

use crate::StoreError;

/// A CreateGame or JoinGame call made with a request id: what a retry with the
/// same id needs to give the same answer. Tokens are not kept: the server
/// derives them again from its secret ([`Requests::secret`]) and the id.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RequestRecord {
    /// SHA-256 of the client's request id (the id itself is never stored).
    pub key: [u8; 32],
    /// SHA-256 of the request without its id: a retry must match it.
    pub fingerprint: [u8; 32],
    /// The game created or joined.
    pub game_id: String,
    /// JoinGame: the seat claimed; CreateGame: none.
    pub seat: Option<Seat>,
    /// JoinGame: whether this join started the game.
    pub started: bool,
    /// When the call was answered, ms since the Unix epoch.
    pub at_ms: u64,
}

/// Request ids and the server secret. A request id is stored in the commit
/// of the change it answered ([`crate::Games::create_game`],
/// [`crate::Games::claim_seat`]); here it is read back.
pub trait Requests: Send + Sync {
    /// The request ids answered at or after `since_ms`; older ones may be
    /// forgotten.
    fn requests_since(&self, since_ms: u64) -> Result<Vec<RequestRecord>, StoreError>;
    /// The request id whose hash is `key`, if it was answered (by any server
    /// on this store: a node of a cluster asks for ids another node
    /// answered). Reads every kept id unless the backend does better.
    fn request(&self, key: &[u8; 32]) -> Result<Option<RequestRecord>, StoreError> {
        Ok(self.requests_since(0)?.into_iter().find(|r| r.key == *key))
    }
    /// The server's secret for deriving retry-safe tokens: created once and
    /// kept, so that answers survive restarts.
    fn secret(&self) -> Result<[u8; 32], StoreError>;
}
