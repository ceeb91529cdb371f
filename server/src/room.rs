//! One game on the server: the single owner of its state.
//!
//! A [`Room`] holds the hosted engine, the seats and their token hashes, the
//! turn clocks, and the answers already given per idempotency key, behind one
//! `std::sync::Mutex` that is never held across an `.await`. Every change goes
//! through the [`Store`] first and is then announced on a `watch` channel
//! carrying the last event seq; streams read the log at their own pace, so a
//! slow reader never holds up the game.

use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard};

use druids::{Applied, ApplyError, HostedGame, pb};
use druids_engine::{Seat, Viewer};
use tokio::sync::watch;

use crate::auth::TokenHash;
use crate::clock::{Expiry, SeatClocks};
use crate::error::ServiceError;
use crate::store::{ActionRecord, Origin, Store};

/// Longest display name accepted.
pub const MAX_NAME_BYTES: usize = 64;
/// Longest idempotency key accepted.
pub const MAX_KEY_BYTES: usize = 128;

/// A seat at the table.
#[derive(Clone, Debug, Default)]
pub struct SeatSlot {
    /// Display name.
    pub name: String,
    /// Hash of its token, once claimed.
    pub token: Option<TokenHash>,
}

/// What a submission asked for, to recognise a retry with the same key.
#[derive(Clone, Debug, PartialEq)]
struct Fingerprint {
    choice: Option<pb::submit_action_request::Choice>,
    expected_version: Option<u64>,
}

/// The mutable part of a room.
pub struct RoomState {
    /// The engine and its event log.
    pub game: Box<dyn HostedGame>,
    /// The seats, by number.
    pub seats: Vec<SeatSlot>,
    /// Turn clocks, for games created with one.
    pub clocks: Option<SeatClocks>,
    /// First answers by (seat, idempotency key).
    replies: HashMap<(Seat, String), (Fingerprint, pb::SubmitActionResponse)>,
    /// Submission budgets, by seat.
    buckets: Vec<RateBucket>,
    /// Why the server gave the game up, if it did.
    pub abandoned: Option<String>,
    /// When anything last happened (creation, a join, an action).
    pub last_activity_ms: u64,
    /// Every applied action, for replays.
    pub actions: Vec<pb::ReplayAction>,
    /// Streams open on this game.
    pub streams: usize,
    /// Streams open per seat.
    pub seat_streams: Vec<usize>,
}

impl RoomState {
    /// Points the clock at whoever must decide now.
    fn rewind_clock(&mut self, now_ms: u64) {
        let next = self.game.to_act().map(|s| (s, self.game.version()));
        if let Some(c) = &mut self.clocks {
            c.ask(next, now_ms);
        }
    }

    /// The deadline of the pending decision, if the game has a clock.
    pub fn deadline_ms(&self) -> Option<u64> {
        self.clocks.as_ref()?.pending().map(|p| p.deadline_ms)
    }

    /// Puts the deadline on the event announcing the pending decision (the log
    /// keeps no times, so that replays reproduce it exactly).
    pub fn stamp_deadlines(&self, events: &mut [pb::GameEvent]) {
        let Some(p) = self.clocks.as_ref().and_then(|c| c.pending()) else {
            return;
        };
        for e in events.iter_mut().filter(|e| e.version == p.version) {
            if let Some(pb::game_event::Body::DecisionNeeded(d)) = &mut e.body
                && d.seat == p.seat.0 as u32
            {
                d.deadline_unix_ms = Some(p.deadline_ms);
            }
        }
    }

    /// Applies an action decided by `origin` for `seat`: the one path of every
    /// action, live or replayed, so that both log the same events.
    pub fn apply(
        &mut self,
        seat: Seat,
        origin: Origin,
        choice: &pb::submit_action_request::Choice,
        now_ms: u64,
        persist: druids::Persist<'_>,
    ) -> Result<Applied, ApplyError> {
        let prelude = match origin {
            Origin::Seat => self
                .clocks
                .as_ref()
                .filter(|c| c.autopilot_seats().any(|s| s == seat))
                .map(|_| {
                    pb::game_event::Body::AutopilotChanged(pb::AutopilotChanged {
                        seat: seat.0 as u32,
                        on: false,
                    })
                }),
            Origin::Timeout | Origin::Autopilot => {
                let pb::submit_action_request::Choice::Action(action) = choice else {
                    unreachable!("the server decides with full actions")
                };
                Some(pb::game_event::Body::TimedOut(pb::TimedOut {
                    seat: seat.0 as u32,
                    action: Some(*action),
                    autopilot: origin == Origin::Autopilot,
                }))
            }
        };
        // The host hands the action, in canonical form, to the store: keep it
        // for replays too.
        let mut canonical = None;
        let mut keep = |a: &pb::Action| {
            canonical = Some(*a);
            persist(a)
        };
        let applied = match choice {
            pb::submit_action_request::Choice::Action(a) => {
                self.game.apply(seat, a, prelude, &mut keep)
            }
            pb::submit_action_request::Choice::LegalActionId(id) => {
                self.game.apply_legal(seat, *id, prelude, &mut keep)
            }
        }?;
        self.last_activity_ms = now_ms;
        self.actions.push(pb::ReplayAction {
            seat: seat.0 as u32,
            action: canonical,
            timeout: origin == Origin::Timeout,
            autopilot: origin == Origin::Autopilot,
        });
        if let Some(c) = &mut self.clocks {
            match origin {
                Origin::Seat => {
                    c.answered(seat, now_ms);
                }
                Origin::Timeout => {
                    if c.timed_out(seat) {
                        self.game.record(pb::game_event::Body::AutopilotChanged(
                            pb::AutopilotChanged {
                                seat: seat.0 as u32,
                                on: true,
                            },
                        ));
                    }
                }
                Origin::Autopilot => {}
            }
        }
        self.rewind_clock(now_ms);
        Ok(Applied {
            last_seq: self.game.last_seq(),
            ..applied
        })
    }

    /// The action the server takes for the seat whose clock ran out (`Timeout`:
    /// the engine's documented default) or who is on autopilot (a random legal
    /// action, drawn from the version so that it is reproducible).
    fn server_choice(&self, origin: Origin) -> Option<pb::Action> {
        match origin {
            Origin::Timeout => self.game.timeout_action(),
            Origin::Autopilot => {
                let legal = self.game.legal_actions(false);
                let mut x = self.game.version().wrapping_add(0x9e37_79b9_7f4a_7c15);
                x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
                x ^= x >> 31;
                legal.get((x % legal.len().max(1) as u64) as usize)?.action
            }
            Origin::Seat => None,
        }
    }
}

/// A token bucket: `rate` submissions per second, bursts of up to `rate`.
#[derive(Clone, Copy, Debug, Default)]
struct RateBucket {
    /// Submissions available, in thousandths.
    milli_tokens: u64,
    /// When it was last refilled.
    at_ms: u64,
}

impl RateBucket {
    /// Takes one submission at `now_ms`; false when the budget is spent.
    fn take(&mut self, rate: u32, now_ms: u64) -> bool {
        let cap = rate as u64 * 1000;
        let refill = now_ms
            .saturating_sub(self.at_ms)
            .saturating_mul(rate as u64);
        self.milli_tokens = if self.at_ms == 0 {
            cap
        } else {
            (self.milli_tokens + refill).min(cap)
        };
        self.at_ms = now_ms;
        if self.milli_tokens >= 1000 {
            self.milli_tokens -= 1000;
            true
        } else {
            false
        }
    }
}

/// What a game was created with.
#[derive(Clone, Debug)]
pub struct Setup {
    /// Game id.
    pub id: String,
    /// Creation time, ms since the Unix epoch.
    pub created_unix_ms: u64,
    /// RNG seed.
    pub seed: u64,
    /// Options.
    pub options: pb::GameOptions,
}

/// A game and everything the server knows of it.
pub struct Room {
    /// Game id.
    pub id: String,
    /// Creation time, ms since the Unix epoch.
    pub created_unix_ms: u64,
    /// RNG seed (secret until the game is over: it decides the die rolls).
    seed: u64,
    /// Options as created.
    options: pb::GameOptions,
    state: Mutex<RoomState>,
    last_seq: watch::Sender<u64>,
}

impl Room {
    /// A room for a freshly created (or recovered) game.
    pub fn new(
        setup: Setup,
        game: Box<dyn HostedGame>,
        seats: Vec<SeatSlot>,
        clocks: Option<SeatClocks>,
        now_ms: u64,
    ) -> Room {
        let last = game.last_seq();
        let seats_len = seats.len();
        let mut state = RoomState {
            buckets: vec![RateBucket::default(); seats.len()],
            abandoned: None,
            last_activity_ms: now_ms,
            actions: Vec::new(),
            game,
            seats,
            clocks,
            replies: HashMap::new(),
            streams: 0,
            seat_streams: vec![0; seats_len],
        };
        state.rewind_clock(now_ms);
        Room {
            id: setup.id,
            created_unix_ms: setup.created_unix_ms,
            seed: setup.seed,
            options: setup.options,
            state: Mutex::new(state),
            last_seq: watch::channel(last).0,
        }
    }

    /// Locks the room. A poisoned lock means a panic while applying, which the
    /// engines' tests rule out; the state is then still consistent, because every
    /// change is made on a copy first, so the guard is recovered.
    pub fn lock(&self) -> MutexGuard<'_, RoomState> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Watches the seq of the last event.
    pub fn subscribe(&self) -> watch::Receiver<u64> {
        self.last_seq.subscribe()
    }

    /// Tells the streams that the log grew.
    pub fn announce(&self, state: &RoomState) {
        self.last_seq.send_replace(state.game.last_seq());
    }

    /// Starts play once every seat is claimed (and the clock with it).
    pub fn start(state: &mut RoomState, now_ms: u64) {
        state.game.start();
        state.rewind_clock(now_ms);
    }

    /// The seat whose token hash is `token`, in constant time per seat.
    pub fn seat_of(state: &RoomState, token: &TokenHash) -> Option<Seat> {
        let mut found = None;
        for (i, slot) in state.seats.iter().enumerate() {
            if let Some(t) = &slot.token
                && t.matches(token)
            {
                found = Some(Seat(i as u8));
            }
        }
        found
    }

    fn persist<'a>(
        &'a self,
        store: &'a dyn Store,
        seat: Seat,
        origin: Origin,
        version: u64,
        request: &'a pb::SubmitActionRequest,
    ) -> impl FnMut(&pb::Action) -> Result<(), String> + 'a {
        move |action: &pb::Action| {
            store
                .append_action(
                    &self.id,
                    &ActionRecord {
                        version,
                        seat,
                        origin,
                        action: *action,
                        request: pb::SubmitActionRequest {
                            game_id: String::new(),
                            ..request.clone()
                        },
                    },
                )
                .map_err(|e| e.0)
        }
    }

    /// Applies a submission of `seat`, storing it first.
    pub fn submit(
        &self,
        seat: Seat,
        req: &pb::SubmitActionRequest,
        store: &dyn Store,
        now_ms: u64,
        max_per_second: u32,
    ) -> Result<pb::SubmitActionResponse, ServiceError> {
        if req.idempotency_key.len() > MAX_KEY_BYTES {
            return Err(ServiceError::Invalid(format!(
                "idempotency_key is {} bytes; at most {MAX_KEY_BYTES} allowed",
                req.idempotency_key.len()
            )));
        }
        let fingerprint = Fingerprint {
            choice: req.choice,
            expected_version: req.expected_version,
        };
        let mut state = self.lock();
        let key = (seat, req.idempotency_key.clone());
        if !req.idempotency_key.is_empty()
            && let Some((first, reply)) = state.replies.get(&key)
        {
            return if *first == fingerprint {
                Ok(reply.clone())
            } else {
                Err(ServiceError::KeyReused(req.idempotency_key.clone()))
            };
        }
        if max_per_second > 0 && !state.buckets[seat.index()].take(max_per_second, now_ms) {
            return Err(ServiceError::Limit(format!(
                "{seat} may submit at most {max_per_second} actions per second"
            )));
        }
        let choice = req.choice.as_ref().ok_or_else(|| {
            ServiceError::Invalid("choice is required: action or legal_action_id".into())
        })?;
        let expected = req
            .expected_version
            .ok_or_else(|| ServiceError::Invalid("expected_version is required".into()))?;
        if state.game.is_over() {
            return Err(ServiceError::Finished(self.id.clone()));
        }
        if let Some(reason) = &state.abandoned {
            return Err(ServiceError::Abandoned(self.id.clone(), reason.clone()));
        }
        let current = state.game.version();
        if expected != current {
            return Err(ServiceError::StaleVersion { expected, current });
        }
        let mut persist = self.persist(store, seat, Origin::Seat, current + 1, req);
        let applied = state
            .apply(seat, Origin::Seat, choice, now_ms, &mut persist)
            .map_err(|e| ServiceError::from_apply(&self.id, e))?;
        let reply = pb::SubmitActionResponse {
            version: applied.version,
            events: Room::events_of(&state, applied, seat),
        };
        if !req.idempotency_key.is_empty() {
            state.replies.insert(key, (fingerprint, reply.clone()));
        }
        self.announce(&state);
        Ok(reply)
    }

    /// The events of one applied action, as its seat sees them.
    pub fn events_of(state: &RoomState, applied: Applied, seat: Seat) -> Vec<pb::GameEvent> {
        let mut events = Vec::new();
        let n = (applied.last_seq + 1 - applied.first_seq) as usize;
        state
            .game
            .events(applied.first_seq, n, Viewer::Seat(seat), &mut events);
        state.stamp_deadlines(&mut events);
        events
    }

    /// Decides for every seat whose clock ran out (or who is on autopilot) at
    /// `now_ms`, until a decision is not due. Returns the actions taken.
    pub fn expire(&self, store: &dyn Store, now_ms: u64) -> Result<usize, ServiceError> {
        let mut state = self.lock();
        let mut taken = 0;
        if state.abandoned.is_some() {
            return Ok(0);
        }
        loop {
            let Some(clocks) = &state.clocks else {
                return Ok(taken);
            };
            let (seat, origin) = match clocks.due(now_ms) {
                Expiry::NotDue => break,
                Expiry::TimedOut(s) => (s, Origin::Timeout),
                Expiry::Autopilot(s) => (s, Origin::Autopilot),
            };
            let Some(action) = state.server_choice(origin) else {
                break;
            };
            let version = state.game.version();
            let request = pb::SubmitActionRequest {
                game_id: String::new(),
                choice: Some(pb::submit_action_request::Choice::Action(action)),
                expected_version: Some(version),
                idempotency_key: String::new(),
            };
            let mut persist = self.persist(store, seat, origin, version + 1, &request);
            let choice = pb::submit_action_request::Choice::Action(action);
            let result = state.apply(seat, origin, &choice, now_ms, &mut persist);
            if let Err(e) = result {
                self.announce(&state);
                return Err(ServiceError::from_apply(&self.id, e));
            }
            taken += 1;
        }
        if taken > 0 {
            self.announce(&state);
        }
        Ok(taken)
    }

    /// Gives the game up unfinished (kept, and queryable, never deleted).
    pub fn abandon(state: &mut RoomState, reason: String) {
        state
            .game
            .record(pb::game_event::Body::GameAbandoned(pb::GameAbandoned {
                reason: reason.clone(),
            }));
        if let Some(c) = &mut state.clocks {
            c.ask(None, 0);
        }
        state.abandoned = Some(reason);
    }

    /// Abandons the game if nothing happened for `idle_ms` (0: never).
    pub fn expire_idle(
        &self,
        store: &dyn Store,
        idle_ms: u64,
        now_ms: u64,
    ) -> Result<bool, ServiceError> {
        let mut state = self.lock();
        if idle_ms == 0
            || state.abandoned.is_some()
            || state.game.is_over()
            || now_ms.saturating_sub(state.last_activity_ms) < idle_ms
        {
            return Ok(false);
        }
        let reason = format!("no action for {} s", idle_ms / 1000);
        store
            .abandon(&self.id, &reason)
            .map_err(|e| ServiceError::Storage(e.0))?;
        Room::abandon(&mut state, reason);
        self.announce(&state);
        Ok(true)
    }

    /// Records a replayed action's idempotency key during recovery.
    pub fn remember_key(
        state: &mut RoomState,
        seat: Seat,
        req: pb::SubmitActionRequest,
        reply: pb::SubmitActionResponse,
    ) {
        let fingerprint = Fingerprint {
            choice: req.choice,
            expected_version: req.expected_version,
        };
        state
            .replies
            .insert((seat, req.idempotency_key), (fingerprint, reply));
    }

    /// The game's status.
    pub fn status(state: &RoomState) -> pb::GameStatus {
        if state.abandoned.is_some() {
            pb::GameStatus::Abandoned
        } else if state.game.is_over() {
            pb::GameStatus::Finished
        } else if state.game.started() {
            pb::GameStatus::Running
        } else {
            pb::GameStatus::WaitingForPlayers
        }
    }

    /// The seats as listed to clients.
    pub fn seat_infos(state: &RoomState) -> Vec<pb::SeatInfo> {
        state
            .seats
            .iter()
            .enumerate()
            .map(|(i, s)| pb::SeatInfo {
                seat: i as u32,
                name: s.name.clone(),
                claimed: s.token.is_some(),
            })
            .collect()
    }

    /// The state as `viewer` may see it.
    pub fn view(&self, state: &RoomState, viewer: Viewer) -> pb::StateView {
        let game = &state.game;
        pb::StateView {
            game_id: self.id.clone(),
            kind: game.kind() as i32,
            status: Room::status(state) as i32,
            version: game.version(),
            last_seq: game.last_seq(),
            seats: Room::seat_infos(state),
            viewer_seat: match viewer {
                Viewer::Seat(s) => Some(s.0 as u32),
                Viewer::Spectator => None,
            },
            to_act: game.to_act().map(|s| s.0 as u32),
            decision: game.decision(),
            outcome: game.outcome(),
            deadline_unix_ms: state.deadline_ms(),
            autopilot_seats: state
                .clocks
                .iter()
                .flat_map(|c| c.autopilot_seats())
                .map(|s| s.0 as u32)
                .collect(),
            seed_chosen_by_creator: false,
            game: Some(game.view(viewer)),
        }
    }

    /// The replay of a game that is over (finished or abandoned).
    pub fn replay(&self, state: &RoomState) -> Result<pb::Replay, ServiceError> {
        let status = Room::status(state);
        if !matches!(status, pb::GameStatus::Finished | pb::GameStatus::Abandoned) {
            return Err(ServiceError::Refused(format!(
                "game {} is still being played: only finished or abandoned games can be exported",
                self.id
            )));
        }
        Ok(pb::Replay {
            game_id: self.id.clone(),
            kind: state.game.kind() as i32,
            players: state.game.players() as u32,
            seed: self.seed,
            options: Some(self.options),
            actions: state.actions.clone(),
            outcome: state.game.outcome(),
            status: status as i32,
        })
    }

    /// A line of `ListGames`.
    pub fn summary(&self, state: &RoomState) -> pb::GameSummary {
        pb::GameSummary {
            game_id: self.id.clone(),
            kind: state.game.kind() as i32,
            status: Room::status(state) as i32,
            players: state.game.players() as u32,
            version: state.game.version(),
            seats: Room::seat_infos(state),
            created_unix_ms: self.created_unix_ms,
        }
    }
}
