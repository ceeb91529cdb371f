//! [`Hosted`]: a [`ProtoGame`] with its numbered event log, the one
//! implementation of [`HostedGame`]; and its staged moves ([`Staged`]).

use druids_contract::chance::Scripted;
use druids_contract::codec::{ProtoGame, final_outcome};
use druids_contract::{Kind, pb};
use druids_engine::{Seat, Viewer};

use std::sync::Arc;

use super::legal::{Built, described};
use super::{
    Applied, ApplyError, Choice, CreateError, GatePosition, HostEvent, HostedGame, LegalSource,
    Prelude, StagedMove,
};
use crate::store::Origin;

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
pub struct Hosted<G: ProtoGame> {
    game: G,
    log: Vec<Entry<G>>,
    version: u64,
    started: bool,
    /// Seq of the pending decision's `DecisionNeeded`.
    pending: Option<u64>,
    /// Every applied action in engine form (a few bytes each), for replays;
    /// a resignation is the last entry, without an action.
    moves: Vec<(Seat, Origin, Option<G::Action>)>,
    /// The seat that resigned, which ended the game.
    resigned: Option<Seat>,
    /// The draws the options script (none: every draw from the seed).
    script: Scripted,
    /// Behind a duplicate match's dice gate: every draw waits in the
    /// engine's explicit chance mode until [`HostedGame::release_draws`]
    /// makes it from the seed (the same draw the seed makes at once in an
    /// ungated game, so replays are unchanged).
    gated: bool,
    /// Draws made so far (counted in a gated game only).
    draws: u64,
}

impl<G: ProtoGame> Hosted<G> {
    /// Sets the game up; its setup events open the log.
    pub fn new(players: usize, seed: u64, options: &pb::GameOptions) -> Result<Self, CreateError> {
        let mut script = Scripted::parse(&options.chance_script)?;
        let gated = options.match_dice_gate && script.is_empty();
        let options = G::decode_options(options)?;
        let mut events = Vec::new();
        let game = if gated {
            G::new_explicit(players, seed, &options, &mut events)?
        } else {
            script.new_game(players, seed, &options, &mut events)?
        };
        Ok(Hosted {
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
            resigned: None,
            script,
            gated,
            draws: 0,
        })
    }

    /// Whether seats still decide: play has begun and nobody resigned.
    fn playing(&self) -> bool {
        self.started && self.resigned.is_none()
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
            // Gated: the draw waits for the match; nothing to log yet.
            (None, _) if self.game.pending_draw().is_some() => {
                self.pending = None;
                self.last_seq()
            }
            _ => {
                self.pending = None;
                let outcome = self
                    .game
                    .outcome()
                    .as_ref()
                    .map(|_| final_outcome(&self.game, None).expect("the game is over"));
                self.push_host(HostEvent::Finished {
                    outcome: outcome.map(Box::new),
                })
            }
        }
    }

    /// Applies `action` of `seat` to a copy of the game: the move, staged.
    fn stage_action(
        &mut self,
        seat: Seat,
        action: G::Action,
        prelude: Option<Prelude>,
    ) -> Result<Box<dyn StagedMove + '_>, ApplyError> {
        if !self.started {
            return Err(ApplyError::NotStarted);
        }
        if self.resigned.is_some() {
            return Err(ApplyError::Resigned);
        }
        // The engine applies to a copy (a few hundred bytes), so that a move
        // that is never committed (its storage failed) leaves no trace.
        let mut next = self.game.clone();
        let mut events = Vec::new();
        next.apply(seat, &action, &mut events)
            .map_err(|e| ApplyError::Rule(Box::new(e)))?;
        let mut script = self.script.clone();
        if !self.gated {
            script.play(&mut next, &mut events);
        }
        let made = Made {
            script,
            encoded: G::encode_action(&action),
            seat,
            action,
            next,
            events,
            prelude,
        };
        Ok(Box::new(Staged { hosted: self, made }))
    }

    /// Makes a staged move: the copy becomes the game, its events are logged.
    fn make(&mut self, staged: Made<G>) -> Applied {
        let Made {
            seat,
            action,
            encoded,
            next,
            events,
            prelude,
            script,
        } = staged;
        self.game = next;
        self.script = script;
        self.version += 1;
        let first_seq = self.log.len() as u64 + 1;
        match prelude {
            Some(Prelude::Resumed) => {
                self.push_host(HostEvent::Autopilot { seat, on: false });
            }
            Some(Prelude::TimedOut { autopilot, .. }) => {
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
        if let Some(Prelude::TimedOut {
            starts_autopilot: true,
            ..
        }) = prelude
        {
            self.push_host(HostEvent::Autopilot { seat, on: true });
        }
        let origin = match prelude {
            Some(Prelude::TimedOut {
                autopilot: true, ..
            }) => Origin::Autopilot,
            Some(Prelude::TimedOut {
                autopilot: false, ..
            }) => Origin::Timeout,
            Some(Prelude::Resumed) | None => Origin::Seat,
        };
        self.moves.push((seat, origin, Some(action)));
        let last_seq = self.push_next();
        Applied {
            first_seq,
            last_seq,
            version,
            action: encoded,
        }
    }
}

/// A move of a [`Hosted`] game, accepted by the engine on a copy.
struct Staged<'a, G: ProtoGame> {
    hosted: &'a mut Hosted<G>,
    made: Made<G>,
}

/// What a staged move makes of the game ([`Hosted::make`]).
struct Made<G: ProtoGame> {
    seat: Seat,
    action: G::Action,
    /// The action in canonical form, encoded once: stored, then answered.
    encoded: pb::Action,
    /// The game after the move.
    next: G,
    /// The events the move caused.
    events: Vec<G::Event>,
    prelude: Option<Prelude>,
    /// The chance script after the move's draws.
    script: Scripted,
}

impl<G: ProtoGame> StagedMove for Staged<'_, G> {
    fn action(&self) -> &pb::Action {
        &self.made.encoded
    }

    fn commit(self: Box<Self>) -> Applied {
        let Staged { hosted, made } = *self;
        hosted.make(made)
    }
}

impl<G: ProtoGame> HostedGame for Hosted<G> {
    fn kind(&self) -> Kind {
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
        self.resigned.is_some()
            || (self.game.to_act().is_none() && self.game.pending_draw().is_none())
    }

    fn to_act(&self) -> Option<Seat> {
        self.game.to_act().filter(|_| self.playing())
    }

    fn decision(&self) -> Option<pb::Decision> {
        G::decision(&self.game).filter(|_| self.playing())
    }

    fn decision_description(&self) -> String {
        if self.playing() {
            self.game.decision_description()
        } else {
            String::new()
        }
    }

    fn legal_source(&self, all_payments: bool) -> LegalSource {
        let position = self.playing().then(|| self.game.clone());
        Box::new(move || Arc::new(Built::of(position.as_ref(), all_payments)))
    }

    fn pending_decision_seq(&self) -> Option<u64> {
        self.pending.filter(|_| self.playing())
    }

    fn resign(&mut self, seat: Seat) -> Applied {
        debug_assert!(self.can_resign(seat));
        self.version += 1;
        self.resigned = Some(seat);
        self.pending = None;
        self.moves.push((seat, Origin::Resigned, None));
        let first_seq = self.push_host(HostEvent::Resigned { seat });
        let outcome = final_outcome(&self.game, self.resigned);
        let last_seq = self.push_host(HostEvent::Finished {
            outcome: outcome.map(Box::new),
        });
        Applied {
            first_seq,
            last_seq,
            version: self.version,
            action: pb::Action::default(),
        }
    }

    fn stage(
        &mut self,
        seat: Seat,
        choice: &Choice,
        prelude: Option<Prelude>,
    ) -> Result<Box<dyn StagedMove + '_>, ApplyError> {
        let action = match choice {
            Choice::Action(a) => G::decode_action(a)?,
            &Choice::LegalActionId(id) => {
                if !self.started {
                    return Err(ApplyError::NotStarted);
                }
                let mut legal = Vec::new();
                self.game.legal_actions(&mut legal);
                let len = legal.len();
                if id as usize >= len {
                    return Err(ApplyError::NoSuchLegalAction { id, len });
                }
                legal.swap_remove(id as usize)
            }
        };
        self.stage_action(seat, action, prelude)
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
                    G::redact(e, viewer).map(|e| (described(&e), G::encode_event(&e)))
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
        final_outcome(&self.game, self.resigned)
    }

    fn timeout_action(&self) -> Option<pb::Action> {
        self.game
            .timeout_action()
            .filter(|_| self.playing())
            .map(|a| G::encode_action(&a))
    }

    fn replay_actions(&self) -> Vec<pb::ReplayAction> {
        self.moves
            .iter()
            .map(|(seat, origin, action)| {
                let action = action.as_ref().map(G::encode_action).unwrap_or_default();
                origin.replay_action(*seat, action)
            })
            .collect()
    }

    fn decision_seq(&self, seat: Seat, n: u32) -> Option<u64> {
        let nth = (n as usize).checked_sub(1)?;
        let mine = |e: &Entry<G>| matches!(e.body, Body::Host(HostEvent::DecisionNeeded { seat: s, .. }) if s == seat);
        let (i, _) = self
            .log
            .iter()
            .enumerate()
            .filter(|(_, e)| mine(e))
            .nth(nth)?;
        Some(i as u64 + 1)
    }

    fn own_action_version(&self, seat: Seat, k: u32) -> Option<u64> {
        let nth = (k as usize).checked_sub(1)?;
        // Every move takes one version, from version 1 on.
        let own = |(s, o, _): &&(Seat, Origin, Option<G::Action>)| *s == seat && *o == Origin::Seat;
        let (i, _) = self
            .moves
            .iter()
            .enumerate()
            .filter(|(_, m)| own(m))
            .nth(nth)?;
        Some(i as u64 + 1)
    }

    fn gate(&self) -> Option<GatePosition> {
        if !self.gated {
            return None;
        }
        Some(if self.game.pending_draw().is_some() {
            GatePosition::Waiting { index: self.draws }
        } else if self.is_over() {
            GatePosition::Over
        } else {
            GatePosition::Deciding { made: self.draws }
        })
    }

    fn position(&self) -> u64 {
        self.moves.iter().fold(0, |at, (seat, _, action)| {
            let action = action.as_ref().map(G::encode_action);
            super::position_after(at, *seat, action.as_ref())
        })
    }

    fn release_draws(&mut self, upto: u64) -> Option<u64> {
        if !self.gated {
            return None;
        }
        let mut events = Vec::new();
        while self.draws < upto
            && let Some(outcome) = self.game.seed_draw()
        {
            self.game
                .apply_chance(outcome, &mut events)
                .expect("the seed's draw is one of the pending draw's outcomes");
            self.draws += 1;
        }
        if events.is_empty() {
            return None;
        }
        let version = self.version;
        self.reserve_log(events.len());
        self.log.extend(events.into_iter().map(|e| Entry {
            version,
            body: Body::Engine(e),
        }));
        if self.started && self.game.pending_draw().is_none() {
            self.push_next();
        }
        Some(self.last_seq())
    }
}
