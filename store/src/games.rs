//! Games and their logs as they are played ([`Games`]): a game is its
//! creation record plus an append-only log of seat claims and actions, and
//! replaying the log through the deterministic engine rebuilds it. The
//! server calls the store *before* a change takes effect, so an
//! acknowledged action is always stored.

use druids_contract::{Kind, pb};
use druids_engine::Seat;

use crate::{RequestRecord, StoreError, TokenHash};

/// Everything needed to set a game up again.
#[derive(Clone, Debug)]
pub struct GameRecord {
    /// Game id.
    pub id: String,
    /// Which game.
    pub kind: Kind,
    /// Seats.
    pub players: usize,
    /// RNG seed.
    pub seed: u64,
    /// Whether the creator chose the seed (then the dice are not secret).
    pub seed_chosen: bool,
    /// Options as created.
    pub options: pb::GameOptions,
    /// Creation time, ms since the Unix epoch.
    pub created_unix_ms: u64,
    /// Seats claimed at creation: seat, name, token hash.
    pub seats: Vec<(Seat, String, TokenHash)>,
    /// The request id the game was created with, stored in the same commit.
    pub request: Option<RequestRecord>,
}

/// Who decided an action.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Origin {
    /// The seat's owner submitted it.
    Seat = 0,
    /// The seat's clock ran out: the game's default action.
    Timeout = 1,
    /// The seat is on autopilot: the built-in random bot chose it.
    Autopilot = 2,
    /// Not an action: the seat resigned (its record's action is empty), and
    /// the game ended with it.
    Resigned = 3,
}

impl Origin {
    /// The origin stored as `n`.
    pub fn from_i64(n: i64) -> Option<Origin> {
        match n {
            0 => Some(Origin::Seat),
            1 => Some(Origin::Timeout),
            2 => Some(Origin::Autopilot),
            3 => Some(Origin::Resigned),
            _ => None,
        }
    }

    /// Who decided an action of a replay.
    pub fn of_replay(action: &pb::ReplayAction) -> Origin {
        match (action.timeout, action.autopilot) {
            _ if action.resigned => Origin::Resigned,
            (_, true) => Origin::Autopilot,
            (true, false) => Origin::Timeout,
            (false, false) => Origin::Seat,
        }
    }

    /// `action` of `seat`, decided this way, as a replay holds it.
    pub fn replay_action(self, seat: Seat, action: pb::Action) -> pb::ReplayAction {
        let resigned = self == Origin::Resigned;
        pb::ReplayAction {
            seat: seat.0 as u32,
            action: (!resigned).then_some(action),
            timeout: self == Origin::Timeout,
            autopilot: self == Origin::Autopilot,
            resigned,
        }
    }
}

/// One applied action, as logged: the one record of it.
#[derive(Clone, Debug, PartialEq)]
pub struct ActionRecord {
    /// Version after the action (1 for the first).
    pub version: u64,
    /// Seat that acted.
    pub seat: Seat,
    /// Who decided it.
    pub origin: Origin,
    /// The action in canonical form (what replay applies).
    pub action: pb::Action,
    /// The submission's idempotency key, if the seat gave one: a retry is
    /// still recognised after a restart.
    pub key: Option<SubmissionKey>,
    /// The lease the writer held the game under.
    pub epoch: Epoch,
    /// When the action was made, ms since the Unix epoch (0: unknown, for
    /// actions stored before this was kept). A restart replays the turn
    /// clocks at these times, so that a pending decision keeps the deadline
    /// it was announced with and no seat's bank is refilled.
    pub at_ms: u64,
}

/// A submission's idempotency key as kept: 16-byte digests of the client's
/// key and of what the submission asked (its choice and expected version).
/// That is all a server needs to answer a retry with the first answer, or to
/// refuse the key's reuse for another request, without keeping either.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SubmissionKey {
    /// The digest of the client's idempotency key.
    pub key: [u8; 16],
    /// The digest of what was asked: a retry must ask the same.
    pub request: [u8; 16],
}

impl SubmissionKey {
    /// Bytes as the durable stores keep them: `key` then `request`.
    pub const LEN: usize = 32;

    /// The key of a submission with idempotency key `key` asking for
    /// `choice` at `expected_version`.
    pub fn of(
        key: &str,
        choice: Option<pb::submit_action_request::Choice>,
        expected_version: Option<u64>,
    ) -> SubmissionKey {
        use prost::Message;
        let asked = pb::SubmitActionRequest {
            choice,
            expected_version,
            ..Default::default()
        };
        SubmissionKey {
            key: digest16(key.as_bytes()),
            request: digest16(&asked.encode_to_vec()),
        }
    }

    /// The key of a request as the log kept it before [`SubmissionKey`]
    /// (schema migrations): `None` without an idempotency key.
    pub fn of_request(request: &pb::SubmitActionRequest) -> Option<SubmissionKey> {
        (!request.idempotency_key.is_empty()).then(|| {
            SubmissionKey::of(
                &request.idempotency_key,
                request.choice.clone(),
                request.expected_version,
            )
        })
    }

    /// As stored.
    pub fn to_bytes(self) -> [u8; SubmissionKey::LEN] {
        let mut out = [0; SubmissionKey::LEN];
        out[..16].copy_from_slice(&self.key);
        out[16..].copy_from_slice(&self.request);
        out
    }

    /// From stored bytes.
    pub fn from_bytes(bytes: &[u8]) -> Result<SubmissionKey, StoreError> {
        let (key, request) = bytes
            .split_first_chunk::<16>()
            .filter(|(_, rest)| rest.len() == 16)
            .ok_or_else(|| {
                StoreError::Corrupt(format!(
                    "a stored submission key has {} bytes, not {}",
                    bytes.len(),
                    SubmissionKey::LEN
                ))
            })?;
        Ok(SubmissionKey {
            key: *key,
            request: request.try_into().expect("16 bytes"),
        })
    }
}

/// The first 16 bytes of a SHA-256: small, and plenty against collisions
/// among one seat's submissions.
fn digest16(bytes: &[u8]) -> [u8; 16] {
    use sha2::Digest as _;
    let full = sha2::Sha256::digest(bytes);
    full[..16].try_into().expect("a SHA-256 has 32 bytes")
}

/// The epoch of the lease a node holds a game under (see [`crate::Leases`]):
/// raised by every takeover, so a write under an older one is refused
/// ([`StoreError::Fenced`]). A single server holds no lease: [`Epoch::NONE`],
/// which is never checked.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Epoch(pub u64);

impl Epoch {
    /// No lease: a single server.
    pub const NONE: Epoch = Epoch(0);
    /// The lease of the node that created the game.
    pub const FIRST: Epoch = Epoch(1);

    /// Whether writes under this epoch are checked against the lease.
    pub fn is_fenced(self) -> bool {
        self != Epoch::NONE
    }
}

/// An append's result, ready once it is committed ([`Games::append_later`]).
pub type AppendResult =
    std::pin::Pin<Box<dyn std::future::Future<Output = Result<(), StoreError>> + Send>>;

/// The writes of games being played: creation, seats claimed, actions and
/// the end. Every call is durable (or fails, changing nothing) before it
/// returns.
pub trait Games: Send + Sync {
    /// Records a new game (and its request id, if any, in the same commit).
    fn create_game(&self, game: &GameRecord) -> Result<(), StoreError>;
    /// Records that a seat was claimed (and the request id of the claim, if
    /// any, in the same commit), under the game's lease `epoch`.
    fn claim_seat(
        &self,
        game_id: &str,
        seat: Seat,
        name: &str,
        token: &TokenHash,
        request: Option<&RequestRecord>,
        epoch: Epoch,
    ) -> Result<(), StoreError>;
    /// Appends an action to a game's log; a store shared by several nodes
    /// refuses it ([`StoreError::Fenced`]) if the action's epoch is no longer
    /// the game's lease, and a version stored already is refused. Durable
    /// stores keep the record whole; the memory store keeps no
    /// [`ActionRecord::key`] and no [`ActionRecord::at_ms`] (nothing is
    /// rebuilt from it after a restart).
    fn append_action(&self, game_id: &str, action: &ActionRecord) -> Result<(), StoreError>;
    /// Queues the append of [`Games::append_action`] without waiting for it:
    /// the future is ready once it is committed (or failed), and the
    /// appends of one caller are committed in the order they were queued.
    /// `None` from a store that appends only while its caller waits (call
    /// `append_action` then).
    fn append_later(&self, game_id: &str, action: &ActionRecord) -> Option<AppendResult> {
        let _ = (game_id, action);
        None
    }
    /// Whether [`Games::append_later`] queues appends (else it is `None`).
    fn queues_appends(&self) -> bool {
        false
    }
    /// Records that the game ended at `at_ms` with its last action, `version`
    /// (stored already), and its result (for `ListGames`): it is no longer
    /// rebuilt at start-up. If the server stops before this, the restart
    /// rebuilds the game, sees it over and calls this again.
    fn finish(
        &self,
        game_id: &str,
        version: u64,
        outcome: &pb::Outcome,
        at_ms: u64,
    ) -> Result<(), StoreError>;
    /// Records that an unfinished game was given up at `at_ms`.
    fn abandon(&self, game_id: &str, reason: &str, at_ms: u64) -> Result<(), StoreError>;
}
