//! Games and their logs as they are played ([`Games`]): a game is its
//! creation record plus an append-only log of seat claims and actions, and
//! replaying the log through the deterministic engine rebuilds it. The
//! server calls the store *before* a change takes effect, so an
//! acknowledged action is always stored.

use druids_contract::pb;
use druids_engine::Seat;

use crate::{RequestRecord, StoreError, TokenHash};

/// Everything needed to set a game up again.
#[derive(Clone, Debug)]
pub struct GameRecord {
    /// Game id.
    pub id: String,
    /// Which game.
    pub kind: pb::GameKind,
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
}

impl Origin {
    /// The origin stored as `n`.
    pub fn from_i64(n: i64) -> Option<Origin> {
        match n {
            0 => Some(Origin::Seat),
            1 => Some(Origin::Timeout),
            2 => Some(Origin::Autopilot),
            _ => None,
        }
    }

    /// Who decided an action of a replay.
    pub fn of_replay(action: &pb::ReplayAction) -> Origin {
        match (action.timeout, action.autopilot) {
            (_, true) => Origin::Autopilot,
            (true, false) => Origin::Timeout,
            (false, false) => Origin::Seat,
        }
    }

    /// `action` of `seat`, decided this way, as a replay holds it.
    pub fn replay_action(self, seat: Seat, action: pb::Action) -> pb::ReplayAction {
        pb::ReplayAction {
            seat: seat.0 as u32,
            action: Some(action),
            timeout: self == Origin::Timeout,
            autopilot: self == Origin::Autopilot,
        }
    }
}

/// One applied action, as logged.
#[derive(Clone, Debug)]
pub struct ActionRecord {
    /// Version after the action (1 for the first).
    pub version: u64,
    /// Seat that acted.
    pub seat: Seat,
    /// Who decided it.
    pub origin: Origin,
    /// The action in canonical form (what replay applies).
    pub action: pb::Action,
    /// The request as the client sent it (without its game id), so that a retry
    /// with the same idempotency key is still recognised after a restart.
    pub request: pb::SubmitActionRequest,
    /// The lease the writer held the game under.
    pub epoch: Epoch,
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
    /// the game's lease.
    fn append_action(&self, game_id: &str, action: &ActionRecord) -> Result<(), StoreError>;
    /// Records that the game ended at `at_ms` with its last action, `version`
    /// (stored already): it is no longer rebuilt at start-up. If the server
    /// stops before this, the restart rebuilds the game, sees it over and
    /// calls this again.
    fn finish(&self, game_id: &str, version: u64, at_ms: u64) -> Result<(), StoreError>;
    /// Records that an unfinished game was given up at `at_ms`.
    fn abandon(&self, game_id: &str, reason: &str, at_ms: u64) -> Result<(), StoreError>;
}
