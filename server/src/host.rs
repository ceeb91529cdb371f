//! Hosting a game behind the contract: one engine, its numbered event log and
//! its version, driven only with proto messages.
//!
//! [`HostedGame`] is the object-safe face a server holds for any game;
//! [`Session`] implements it once for every [`ProtoGame`]; [`new_game`] creates
//! any game of the registry ([`druids_contract::with_game!`]), so a new game needs no
//! server code. The host is the server's game lifecycle (versions, event
//! numbering, seats joined, decisions needed); the rules stay in the engines.

use druids_contract::chance::{ScriptError, Scripted};
use druids_contract::codec::{DecodeError, ProtoGame, encode_outcome};
use druids_contract::pb;
use druids_engine::{RuleViolation, Seat, SetupError, Viewer};

use crate::store::{Origin, StoreError};

mod event;

pub use event::HostEvent;

/// Why a game could not be created.
#[derive(Debug, thiserror::Error)]
pub enum CreateError {
    /// The kind is unset or unknown.
    #[error("kind must be GAME_KIND_MEDURIS or GAME_KIND_DOLMEN (got {0})")]
    UnknownKind(i32),
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
    /// No entry of the legal-action list has this id.
    #[error("legal_action_id {id} does not exist (the list has {len} entries)")]
    NoSuchLegalAction {
        /// The id asked for.
        id: u32,
        /// Length of the list.
        len: usize,
    },
    /// The action could not be made durable; it was not applied.
    #[error(transparent)]
    Persist(#[from] StoreError),
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
    },
}

/// What an applied action did to the log.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
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

/// Makes an accepted action durable before it takes effect: called with the
/// action in canonical form once the engine has accepted it; an error cancels it.
pub type Persist<'a> = &'a mut dyn FnMut(&pb::Action) -> Result<(), StoreError>;

/// A game hosted behind the contract, whatever game it is.
///
/// Versions count applied actions from 0. Events are numbered from 1 in one log
/// holding the engine's events and the host's own (seats joining, the start,
/// decisions needed, the end); [`HostedGame::events`] redacts them per viewer.
pub trait HostedGame: Send + Sync {
    /// The game's kind.
    fn kind(&self) -> pb::GameKind;
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
    /// The legal actions of the seat to act. Ids number the default list
    /// from 0; in the list with every payment, an entry also in the default
    /// list carries the same id and the others none, so an id names one
    /// action whichever list it came from.
    fn legal_actions(&self, all_payments: bool) -> Vec<pb::LegalAction>;
    /// Seq of the `DecisionNeeded` event of the pending decision, while one is
    /// pending.
    fn pending_decision_seq(&self) -> Option<u64>;
    /// Applies an action of `seat` once `persist` has stored it; on any error
    /// nothing changes. A `prelude` host event, if any, is logged just before
    /// the action's events (e.g. "this was a timeout").
    fn apply(
        &mut self,
        seat: Seat,
        action: &pb::Action,
        prelude: Option<Prelude>,
        persist: Persist<'_>,
    ) -> Result<Applied, ApplyError>;
    /// Applies entry `id` of the default legal-action list, like [`HostedGame::apply`].
    fn apply_legal(
        &mut self,
        seat: Seat,
        id: u32,
        prelude: Option<Prelude>,
        persist: Persist<'_>,
    ) -> Result<Applied, ApplyError>;
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
}

/// Creates a game of `kind`, whichever game of the registry it is.
pub fn new_game(
    kind: i32,
    players: usize,
    seed: u64,
    options: &pb::GameOptions,
) -> Result<Box<dyn HostedGame>, CreateError> {
    let game = pb::GameKind::try_from(kind).ok().and_then(|k| {
        druids_contract::with_game!(k, |G| Session::<G>::new(players, seed, options)
            .map(|s| Box::new(s) as Box<dyn HostedGame>))
    });
    game.unwrap_or(Err(CreateError::UnknownKind(kind)))
}

/// One entry of the log.
#[derive(Clone, Debug)]
struct Entry<G: ProtoGame> {
    version: u64,
    body: Body<G>,
}

#[derive(Clone, Debug)]
enum Body<G: ProtoGame> {
    /// An engine event, redacted per viewer when read.
    Engine(G::Event),
    /// The server decided for `seat`: the action is redacted per viewer when
    /// read, like an engine event (a dolmen's value is its owner's secret).
    TimedOut {
        seat: Seat,
        action: G::Action,
        autopilot: bool,
    },
    /// A host event, public.
    Host(HostEvent),
}

/// A [`ProtoGame`] with its event log: the one implementation of [`HostedGame`].
#[derive(Clone, Debug)]
pub struct Session<G: ProtoGame> {
    game: G,
    log: Vec<Entry<G>>,
    version: u64,
    started: bool,
    /// Seq of the pending decision's `DecisionNeeded`.
    pending: Option<u64>,
    /// Every applied action in engine form (a few bytes each), for replays.
    moves: Vec<(Seat, Origin, G::Action)>,
    /// The draws the options script (none: every draw from the seed).
    script: Scripted,
}

impl<G: ProtoGame> Session<G> {
    /// Sets the game up; its setup events open the log.
    pub fn new(players: usize, seed: u64, options: &pb::GameOptions) -> Result<Self, CreateError> {
        let mut script = Scripted::parse(&options.chance_script)?;
        let options = G::decode_options(options)?;
        let mut events = Vec::new();
        let game = script.new_game(players, seed, &options, &mut events)?;
        Ok(Session {
            game,
            log: events
                .into_iter()
                .map(|e| Entry {
                    version: 0,
                    body: Body::Engine(e),
                })
                .collect(),
            version: 0,
            started: false,
            pending: None,
            moves: Vec::new(),
            script,
        })
    }

    /// The engine (full information; never show it to a client).
    pub fn game(&self) -> &G {
        &self.game
    }

    /// Makes room for `n` more log entries, growing by a quarter rather than
    /// doubling: the log is most of a game's memory, and a doubled vector
    /// is on average a quarter empty.
    fn reserve_log(&mut self, n: usize) {
        if self.log.capacity() - self.log.len() < n {
            self.log.reserve_exact(n.max(self.log.len() / 4).max(8));
        }
    }

    fn push_host(&mut self, event: HostEvent) -> u64 {
        self.reserve_log(1);
        self.log.push(Entry {
            version: self.version,
            body: Body::Host(event),
        });
        self.log.len() as u64
    }

    /// After an action or the start: who must decide next, or the result.
    fn push_next(&mut self) -> u64 {
        match (self.game.to_act(), G::decision(&self.game)) {
            (Some(seat), decision) => {
                let seq = self.push_host(HostEvent::DecisionNeeded { seat, decision });
                self.pending = Some(seq);
                seq
            }
            _ => {
                self.pending = None;
                let outcome = self.game.outcome().as_ref().map(encode_outcome);
                self.push_host(HostEvent::Finished {
                    outcome: outcome.map(Box::new),
                })
            }
        }
    }

    fn apply_engine(
        &mut self,
        seat: Seat,
        action: &G::Action,
        prelude: Option<Prelude>,
        persist: Persist<'_>,
    ) -> Result<Applied, ApplyError> {
        if !self.started {
            return Err(ApplyError::NotStarted);
        }
        // The engine applies to a copy (a few hundred bytes), so that a storage
        // failure after the engine accepted the action leaves no trace.
        let mut next = self.game.clone();
        let mut script = self.script.clone();
        let mut events = Vec::new();
        let result = next
            .apply(seat, action, &mut events)
            .map_err(|e| ApplyError::Rule(Box::new(e)))
            .and_then(|()| {
                script.play(&mut next, &mut events);
                persist(&G::encode_action(action)).map_err(ApplyError::Persist)
            });
        result?;
        self.game = next;
        self.script = script;
        self.version += 1;
        let first_seq = self.log.len() as u64 + 1;
        match prelude {
            Some(Prelude::Resumed) => {
                self.push_host(HostEvent::Autopilot { seat, on: false });
            }
            Some(Prelude::TimedOut { autopilot }) => {
                self.reserve_log(1);
                self.log.push(Entry {
                    version: self.version,
                    body: Body::TimedOut {
                        seat,
                        action: action.clone(),
                        autopilot,
                    },
                })
            }
            None => {}
        }
        let version = self.version;
        self.reserve_log(events.len());
        self.log.extend(events.into_iter().map(|e| Entry {
            version,
            body: Body::Engine(e),
        }));
        let origin = match prelude {
            Some(Prelude::TimedOut { autopilot: true }) => Origin::Autopilot,
            Some(Prelude::TimedOut { autopilot: false }) => Origin::Timeout,
            Some(Prelude::Resumed) | None => Origin::Seat,
        };
        self.moves.push((seat, origin, action.clone()));
        let last_seq = self.push_next();
        Ok(Applied {
            first_seq,
            last_seq,
            version,
            action: G::encode_action(action),
        })
    }

    fn legal(&self, all_payments: bool) -> Vec<G::Action> {
        let mut out = Vec::new();
        if self.started {
            if all_payments {
                self.game.legal_actions_all_payments(&mut out);
            } else {
                self.game.legal_actions(&mut out);
            }
        }
        out
    }
}

impl<G: ProtoGame> HostedGame for Session<G> {
    fn kind(&self) -> pb::GameKind {
        G::KIND
    }

    fn players(&self) -> usize {
        self.game.players()
    }

    fn version(&self) -> u64 {
        self.version
    }

    fn last_seq(&self) -> u64 {
        self.log.len() as u64
    }

    fn started(&self) -> bool {
        self.started
    }

    fn is_over(&self) -> bool {
        self.game.to_act().is_none()
    }

    fn to_act(&self) -> Option<Seat> {
        self.game.to_act().filter(|_| self.started)
    }

    fn decision(&self) -> Option<pb::Decision> {
        G::decision(&self.game).filter(|_| self.started)
    }

    fn legal_actions(&self, all_payments: bool) -> Vec<pb::LegalAction> {
        use prost::Message;
        let default = self.legal(false);
        if !all_payments {
            return default
                .iter()
                .enumerate()
                .map(|(i, a)| pb::LegalAction {
                    id: Some(i as u32),
                    action: Some(G::encode_action(a)),
                    description: a.to_string(),
                })
                .collect();
        }
        let ids: std::collections::HashMap<Vec<u8>, u32> = default
            .iter()
            .enumerate()
            .map(|(i, a)| (G::encode_action(a).encode_to_vec(), i as u32))
            .collect();
        self.legal(true)
            .iter()
            .map(|a| {
                let action = G::encode_action(a);
                pb::LegalAction {
                    id: ids.get(&action.encode_to_vec()).copied(),
                    action: Some(action),
                    description: a.to_string(),
                }
            })
            .collect()
    }

    fn pending_decision_seq(&self) -> Option<u64> {
        self.pending.filter(|_| self.started)
    }

    fn apply(
        &mut self,
        seat: Seat,
        action: &pb::Action,
        prelude: Option<Prelude>,
        persist: Persist<'_>,
    ) -> Result<Applied, ApplyError> {
        let action = G::decode_action(action)?;
        self.apply_engine(seat, &action, prelude, persist)
    }

    fn apply_legal(
        &mut self,
        seat: Seat,
        id: u32,
        prelude: Option<Prelude>,
        persist: Persist<'_>,
    ) -> Result<Applied, ApplyError> {
        if !self.started {
            return Err(ApplyError::NotStarted);
        }
        let legal = self.legal(false);
        let action = legal
            .get(id as usize)
            .ok_or(ApplyError::NoSuchLegalAction {
                id,
                len: legal.len(),
            })?;
        self.apply_engine(seat, action, prelude, persist)
    }

    fn seat_joined(&mut self, seat: Seat, name: &str) -> u64 {
        self.push_host(HostEvent::SeatJoined {
            seat,
            name: name.into(),
        })
    }

    fn record(&mut self, event: HostEvent) -> u64 {
        self.push_host(event)
    }

    fn start(&mut self) -> u64 {
        if !self.started {
            self.started = true;
            self.push_host(HostEvent::Started);
            self.push_next();
        }
        self.last_seq()
    }

    fn events(
        &self,
        from_seq: u64,
        max: usize,
        viewer: Viewer,
        out: &mut Vec<pb::GameEvent>,
    ) -> u64 {
        let start = from_seq.max(1);
        let mut seq = start;
        let mut sent = 0;
        while sent < max {
            let Some(entry) = self.log.get(seq as usize - 1) else {
                break;
            };
            let described = match &entry.body {
                Body::Host(h) => Some((h.describe(), h.body())),
                Body::Engine(e) => {
                    G::redact(e, viewer).map(|e| (e.to_string(), G::encode_event(&e)))
                }
                Body::TimedOut {
                    seat,
                    action,
                    autopilot,
                } => {
                    let seen = G::redact_action(action, viewer, *seat);
                    let why = if *autopilot {
                        "is on autopilot"
                    } else {
                        "ran out of time"
                    };
                    Some((
                        format!("{seat} {why}: the server decided \"{seen}\" for it"),
                        pb::game_event::Body::TimedOut(pb::TimedOut {
                            seat: seat.0 as u32,
                            action: Some(G::encode_action(&seen)),
                            autopilot: *autopilot,
                        }),
                    ))
                }
            };
            if let Some((description, body)) = described {
                out.push(pb::GameEvent {
                    seq,
                    version: entry.version,
                    description,
                    body: Some(body),
                });
                sent += 1;
            }
            seq += 1;
        }
        seq
    }

    fn view(&self, viewer: Viewer) -> pb::state_view::Game {
        G::encode_view(&self.game.view(viewer))
    }

    fn outcome(&self) -> Option<pb::Outcome> {
        self.game.outcome().as_ref().map(encode_outcome)
    }

    fn timeout_action(&self) -> Option<pb::Action> {
        self.game
            .timeout_action()
            .filter(|_| self.started)
            .map(|a| G::encode_action(&a))
    }

    fn replay_actions(&self) -> Vec<pb::ReplayAction> {
        self.moves
            .iter()
            .map(|(seat, origin, action)| origin.replay_action(*seat, G::encode_action(action)))
            .collect()
    }
}

#[cfg(test)]
mod fuzz_tests;
#[cfg(test)]
mod malformed_tests;
