//! Hosting a game behind the contract: one engine, its numbered event log and
//! its version, driven only with proto messages.
//!
//! [`HostedGame`] is the object-safe face a server holds for any game;
//! [`Hosted`] implements it once for every game ([`druids_contract::codec::ProtoGame`]); [`new_game`] creates
//! any game of the registry ([`druids_contract::with_game!`]), so a new game needs no
//! server code. This is the server's game lifecycle (versions, event
//! numbering, seats joined, decisions needed); the rules stay in the engines.
//!
//! An action is applied in two steps, so that it is stored in between
//! without the game calling back into the server: [`HostedGame::stage`]
//! checks it on a copy and encodes it once, the caller stores that, and
//! [`StagedMove::commit`] makes the move (dropping it instead leaves no trace).

use std::ops::Range;
use std::sync::Arc;

use druids_contract::chance::ScriptError;
use druids_contract::codec::DecodeError;
use druids_contract::{Kind, pb};
use druids_engine::{RuleViolation, Seat, SetupError, Viewer};

mod event;
mod hosted;
mod legal;

pub use event::HostEvent;
pub use hosted::Hosted;

/// Why a game could not be created.
#[derive(Debug, thiserror::Error)]
pub enum CreateError {
    /// The options are malformed.
    #[error(transparent)]
    Decode(#[from] DecodeError),
    /// The engine refused the set-up (player count, option out of range).
    #[error(transparent)]
    Setup(#[from] SetupError),
    /// A chance script for a game that draws nothing at random.
    #[error("options.chance_script: {0} has no random draw to script")]
    NoDraws(&'static str),
}

impl From<ScriptError> for CreateError {
    fn from(e: ScriptError) -> CreateError {
        match e {
            ScriptError::Decode(e) => CreateError::Decode(e),
            ScriptError::Setup(e) => CreateError::Setup(e),
            ScriptError::NoDraws(game) => CreateError::NoDraws(game),
        }
    }
}

/// Why an action was not applied. The game is unchanged in every case.
#[derive(Debug, thiserror::Error)]
pub enum ApplyError {
    /// The action is malformed.
    #[error("malformed action: {0}")]
    Decode(#[from] DecodeError),
    /// Seats are still open: nobody may act yet.
    #[error("the game has not started: seats are still open")]
    NotStarted,
    /// A seat resigned: the game is over.
    #[error("the game is over: a seat resigned")]
    Resigned,
    /// No entry of the legal-action list has this id.
    #[error("legal_action_id {id} does not exist (the list has {len} entries)")]
    NoSuchLegalAction {
        /// The id asked for.
        id: u32,
        /// Length of the list.
        len: usize,
    },
    /// The engine refused the action (its own error, which says why and
    /// classifies itself with [`RuleViolation::rejection`]).
    #[error("{0}")]
    Rule(Box<dyn RuleViolation>),
}

/// A host event logged just before an action's own events.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Prelude {
    /// The seat was on autopilot and decided itself again (`AutopilotChanged`
    /// off).
    Resumed,
    /// The server decided for the seat: its clock ran out, or it is on
    /// autopilot (`TimedOut`, carrying the action as each viewer may see it).
    TimedOut {
        /// Whether the autopilot decided (rather than the clock's default).
        autopilot: bool,
        /// Whether this timeout puts the seat on autopilot: its
        /// `AutopilotChanged` is logged after the action's events and before
        /// the next `DecisionNeeded`, so that a pending decision's
        /// `DecisionNeeded` is always the last event of the log.
        starts_autopilot: bool,
    },
}

/// What an applied action did to the log.
#[derive(Clone, Debug, PartialEq)]
pub struct Applied {
    /// Seq of the first event the action caused.
    pub first_seq: u64,
    /// Seq of the last event the action caused.
    pub last_seq: u64,
    /// The version after the action.
    pub version: u64,
    /// The action applied, in canonical form (what a replay holds).
    pub action: pb::Action,
}

/// What a seat chose: a full action, or the id of an entry of the default
/// legal-action list.
pub type Choice = pb::submit_action_request::Choice;

/// An action the engine accepted, not made yet: [`StagedMove::commit`] makes
/// it; dropping it leaves the game as it was.
pub trait StagedMove {
    /// The action in canonical form: what the log stores and a replay applies.
    fn action(&self) -> &pb::Action;
    /// Makes the move: the game, its version and its event log change.
    fn commit(self: Box<Self>) -> Applied;
}

/// A game hosted behind the contract, whatever game it is.
///
/// Versions count applied actions from 0. Events are numbered from 1 in one log
/// holding the engine's events and the host's own (seats joining, the start,
/// decisions needed, the end); [`HostedGame::events`] redacts them per viewer.
pub trait HostedGame: Send + Sync {
    /// The game's kind.
    fn kind(&self) -> Kind;
    /// Number of seats.
    fn players(&self) -> usize;
    /// Actions applied so far.
    fn version(&self) -> u64;
    /// Seq of the last event in the log (0 when it is empty).
    fn last_seq(&self) -> u64;
    /// Whether play has begun (every seat claimed).
    fn started(&self) -> bool;
    /// Whether the game is over.
    fn is_over(&self) -> bool;
    /// The seat that must decide, once started and until the end.
    fn to_act(&self) -> Option<Seat>;
    /// The pending decision, once started and until the end.
    fn decision(&self) -> Option<pb::Decision>;
    /// The pending decision in the engine's words, once started and until
    /// the end (empty otherwise).
    fn decision_description(&self) -> String;
    /// What the legal actions of the seat to act are built from: a copy of
    /// the position, taken now (under the room's lock) and built by calling
    /// it later (outside it). Ids number the default list from 0; in the
    /// list with every payment, an entry also in the default list carries
    /// the same id and the others none, so an id names one action whichever
    /// list it came from.
    fn legal_source(&self, all_payments: bool) -> LegalSource;
    /// The legal actions of the seat to act, built at once (see
    /// [`HostedGame::legal_source`]).
    fn legal_actions(&self, all_payments: bool) -> Vec<pb::LegalAction> {
        let list = self.legal_source(all_payments)();
        list.entries(0..list.len())
    }
    /// Seq of the `DecisionNeeded` event of the pending decision, while one is
    /// pending.
    fn pending_decision_seq(&self) -> Option<u64>;
    /// Checks `seat`'s `choice` against the rules on a copy of the game; on
    /// any error nothing changes, and nothing changes either until the move
    /// returned is committed. A `prelude` host event, if any, is logged just
    /// before the action's events (e.g. "this was a timeout").
    fn stage(
        &mut self,
        seat: Seat,
        choice: &Choice,
        prelude: Option<Prelude>,
    ) -> Result<Box<dyn StagedMove + '_>, ApplyError>;
    /// Stages and commits at once: for an action that is not stored first
    /// (one read back from the store, or a check).
    fn apply(
        &mut self,
        seat: Seat,
        choice: &Choice,
        prelude: Option<Prelude>,
    ) -> Result<Applied, ApplyError> {
        Ok(self.stage(seat, choice, prelude)?.commit())
    }
    /// `seat` gives up, once play has begun and until the end: the game
    /// ends at once (a version of its own, `SeatResigned` then
    /// `GameFinished`), with the seat ranked last. Callers store it first
    /// (it cannot fail once checked: [`HostedGame::can_resign`]).
    fn resign(&mut self, seat: Seat) -> Applied;
    /// Whether `seat` may resign now: play has begun, the game is not over,
    /// and the seat is one of its seats.
    fn can_resign(&self, seat: Seat) -> bool {
        self.started() && !self.is_over() && seat.index() < self.players()
    }
    /// Records that a seat was claimed.
    fn seat_joined(&mut self, seat: Seat, name: &str) -> u64;
    /// Appends a public host event (turn clocks, autopilot) to the log.
    fn record(&mut self, event: HostEvent) -> u64;
    /// Starts play: records the start and the first decision needed.
    fn start(&mut self) -> u64;
    /// Appends to `out` the events with seq in `from_seq..` (at most `max`), as
    /// `viewer` may see them; hidden events are skipped. Returns the seq after
    /// the last one examined.
    fn events(
        &self,
        from_seq: u64,
        max: usize,
        viewer: Viewer,
        out: &mut Vec<pb::GameEvent>,
    ) -> u64;
    /// The game's own part of the state, as `viewer` may see it.
    fn view(&self, viewer: Viewer) -> pb::state_view::Game;
    /// The result, once over.
    fn outcome(&self) -> Option<pb::Outcome>;
    /// The engine's documented default for the pending decision (turn clocks).
    fn timeout_action(&self) -> Option<pb::Action>;
    /// Every applied action, in order, as a replay holds it.
    fn replay_actions(&self) -> Vec<pb::ReplayAction>;
    /// Seq of the `n`-th `DecisionNeeded` of `seat` in the log (from 1).
    fn decision_seq(&self, seat: Seat, n: u32) -> Option<u64>;
    /// The version after the `k`-th action of `seat`'s own (from 1; not one
    /// the server applied for it).
    fn own_action_version(&self, seat: Seat, k: u32) -> Option<u64>;
    /// For a game behind a duplicate match's dice gate
    /// (`GameOptions.match_dice_gate`): where it stands in the match's shared
    /// sequence of draws. `None` for any other game.
    fn gate(&self) -> Option<GatePosition>;
    /// Makes the draws this game waits for whose index is below `upto`, from
    /// its seed (the match's gate decided every game has reached them); the
    /// game runs on to its next decision or draw. Returns the seq of the last
    /// event logged, if any was. Nothing happens in a game without the gate.
    fn release_draws(&mut self, upto: u64) -> Option<u64>;
    /// Where the game stands as its moves say: a digest of every move made
    /// (seat and action), equal for two games of one seed exactly when they
    /// are the same game so far ([`position_after`]).
    fn position(&self) -> u64;
}

/// The digest of the position `before` ([`HostedGame::position`]) once
/// `seat` made `action` (a resignation: none).
pub fn position_after(before: u64, seat: Seat, action: Option<&pb::Action>) -> u64 {
    use prost::Message;
    use std::hash::{Hash, Hasher};
    // SipHash with fixed keys: the same in every room of this process,
    // which is where the games compared are.
    let mut h = std::hash::DefaultHasher::new();
    before.hash(&mut h);
    seat.0.hash(&mut h);
    action.map(Message::encode_to_vec).hash(&mut h);
    h.finish()
}

/// Where a gated game stands in its match's sequence of draws.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GatePosition {
    /// It waits for draw `index` (no seat decides meanwhile).
    Waiting {
        /// The draw's index in the match's sequence (from 0).
        index: u64,
    },
    /// A seat decides (or play has not begun); `made` draws were made so far.
    Deciding {
        /// Draws made so far.
        made: u64,
    },
    /// The game is over.
    Over,
}

impl GatePosition {
    /// The draws this game has reached: those it made, and the one it waits
    /// for (`u64::MAX` once over: it holds no other game back).
    pub fn reached(self) -> u64 {
        match self {
            GatePosition::Waiting { index } => index + 1,
            GatePosition::Deciding { made } => made,
            GatePosition::Over => u64::MAX,
        }
    }
}

/// A position's legal-action list, built once and read in pages: it keeps
/// the actions in the engine's compact form and words and encodes only the
/// entries a page asks for, so a page costs about what it returns.
pub trait LegalList: Send + Sync {
    /// Entries in the list.
    fn len(&self) -> usize;
    /// Whether the list is empty.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// The entries in `range` (clamped to the list), as the contract sends them.
    fn entries(&self, range: Range<usize>) -> Vec<pb::LegalAction>;
}

/// Builds a legal-action list from a copy of a position
/// ([`HostedGame::legal_source`]).
pub type LegalSource = Box<dyn FnOnce() -> Arc<dyn LegalList> + Send>;

/// Creates a game of `kind`, whichever game of the registry it is.
pub fn new_game(
    kind: Kind,
    players: usize,
    seed: u64,
    options: &pb::GameOptions,
) -> Result<Box<dyn HostedGame>, CreateError> {
    druids_contract::with_game!(kind, |G| Hosted::<G>::new(players, seed, options)
        .map(|s| Box::new(s) as Box<dyn HostedGame>))
}

#[cfg(test)]
mod fuzz_tests;
#[cfg(test)]
mod malformed_tests;
