//! One game on the server: the single owner of its state.
//!
//! A [`Room`] holds the hosted engine, the seats and their token hashes, the
//! turn clocks, what each idempotency key's submission did and the streams
//! open on it, behind one `std::sync::Mutex` that is never held across an
//! `.await`. Its fields are private: everything is done through its methods.
//! Every change goes through the [`Store`] first and is then announced on a
//! `watch` channel carrying the last event seq; streams read the log at their
//! own pace, so a slow reader never holds up the game. Submodules: what a
//! room shows ([`read`]), retries of keyed submissions ([`answers`]), and the
//! referee's decisions ([`referee`]).

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, MutexGuard};

use druids_contract::pb;

use crate::host::{Applied, ApplyError, HostEvent, HostedGame, Prelude};
use druids_engine::Seat;
use tokio::sync::watch;

use crate::auth::TokenHash;
use crate::clock::SeatClocks;
use crate::error::{ServiceError, clip};
use crate::in_play::PlaySlot;
use crate::quota::Bucket;
use crate::store::{ActionRecord, Epoch, Origin, RequestRecord, Store};

mod answers;
mod read;
mod referee;

use answers::{Answered, Digest, digest, fingerprint};
pub use read::{StreamLimits, StreamPlace};
pub use referee::Due;

/// A seat at the table.
#[derive(Clone, Debug, Default)]
pub struct SeatSlot {
    /// Display name.
    pub name: String,
    /// Hash of its token, once claimed.
    pub token: Option<TokenHash>,
}

/// The mutable part of a room.
struct RoomState {
    game: Box<dyn HostedGame>,
    seats: Vec<SeatSlot>,
    clocks: Option<SeatClocks>,
    /// Keyed submissions by (seat, idempotency key): every one of the game,
    /// for as long as the room is in memory (see [`crate::rooms`]).
    answered: HashMap<(Seat, Digest), Answered>,
    /// False for an ended game read back from the store: its keys are gone.
    keys_kept: bool,
    /// Submission budgets, by seat.
    buckets: Vec<Bucket>,
    /// Why the server gave the game up, if it did.
    abandoned: Option<String>,
    /// When anything last happened (creation, a join, an action).
    last_activity_ms: u64,
    /// When the game ended (finished or abandoned), ms since the Unix epoch.
    ended_ms: Option<u64>,
    /// Streams open on this game, spectators' and each seat's.
    streams: read::StreamCounts,
    /// Held while the game is in play; dropped when it ends.
    play: Option<PlaySlot>,
}

impl RoomState {
    /// Points the clock at whoever must decide now, and gives the game's
    /// place among the games in play back once it is over.
    fn after_change(&mut self, now_ms: u64) {
        let next = self.game.to_act().map(|s| (s, self.game.version()));
        if let Some(c) = &mut self.clocks {
            c.ask(next, now_ms);
        }
        if self.game.is_over() || self.abandoned.is_some() {
            self.play = None;
            self.ended_ms.get_or_insert(now_ms);
        }
    }

    fn deadline_ms(&self) -> Option<u64> {
        self.clocks.as_ref()?.pending().map(|p| p.deadline_ms)
    }

    /// Puts the deadline on the event announcing the pending decision (the log
    /// keeps no times, so that replays reproduce it exactly).
    fn stamp_deadlines(&self, events: &mut [pb::GameEvent]) {
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

    fn status(&self) -> pb::GameStatus {
        if self.abandoned.is_some() {
            pb::GameStatus::Abandoned
        } else if self.game.is_over() {
            pb::GameStatus::Finished
        } else if self.game.started() {
            pb::GameStatus::Running
        } else {
            pb::GameStatus::WaitingForPlayers
        }
    }

    fn seat_infos(&self) -> Vec<pb::SeatInfo> {
        self.seats
            .iter()
            .enumerate()
            .map(|(i, s)| pb::SeatInfo {
                seat: i as u32,
                name: s.name.clone(),
                claimed: s.token.is_some(),
            })
            .collect()
    }

    /// Applies an action decided by `origin` for `seat`: the one path of every
    /// action, live or replayed, so that both log the same events.
    fn apply(
        &mut self,
        seat: Seat,
        origin: Origin,
        choice: &pb::submit_action_request::Choice,
        now_ms: u64,
        persist: crate::host::Persist<'_>,
    ) -> Result<Applied, ApplyError> {
        let prelude = match origin {
            Origin::Seat => self
                .clocks
                .as_ref()
                .filter(|c| c.autopilot_seats().any(|s| s == seat))
                .map(|_| Prelude::Resumed),
            Origin::Timeout | Origin::Autopilot => Some(Prelude::TimedOut {
                autopilot: origin == Origin::Autopilot,
            }),
        };
        let applied = match choice {
            pb::submit_action_request::Choice::Action(a) => {
                self.game.apply(seat, a, prelude, persist)
            }
            pb::submit_action_request::Choice::LegalActionId(id) => {
                self.game.apply_legal(seat, *id, prelude, persist)
            }
        }?;
        self.last_activity_ms = now_ms;
        if let Some(c) = &mut self.clocks {
            match origin {
                Origin::Seat => {
                    c.answered(seat, now_ms);
                }
                Origin::Timeout => {
                    if c.timed_out(seat) {
                        self.game.record(HostEvent::Autopilot { seat, on: true });
                    }
                }
                Origin::Autopilot => {}
            }
        }
        self.after_change(now_ms);
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

    fn abandon(&mut self, reason: String, now_ms: u64) {
        self.game.record(HostEvent::Abandoned {
            reason: reason.as_str().into(),
        });
        if let Some(c) = &mut self.clocks {
            c.ask(None, 0);
        }
        self.abandoned = Some(reason);
        self.play = None;
        self.ended_ms.get_or_insert(now_ms);
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
    /// Whether the creator chose the seed.
    pub seed_chosen: bool,
    /// Options.
    pub options: pb::GameOptions,
    /// The lease this node holds the game under ([`Epoch::NONE`] on a single
    /// server): every write carries it.
    pub epoch: Epoch,
}

/// A claimed seat, as JoinGame answers it.
#[derive(Clone, Debug)]
pub struct Claimed {
    /// The seat.
    pub seat: Seat,
    /// Its display name.
    pub name: String,
    /// Whether this claim started the game.
    pub started: bool,
}

/// A game and everything the server knows of it.
pub struct Room {
    /// Game id.
    pub id: String,
    setup: Setup,
    state: Mutex<RoomState>,
    last_seq: watch::Sender<u64>,
    /// Set when another node took the game over: this room is stale.
    moved: AtomicBool,
}

impl Room {
    /// A room for a freshly created (or recovered) game; `play` is its place
    /// among the games in play (none for an ended game read back).
    pub fn new(
        setup: Setup,
        game: Box<dyn HostedGame>,
        seats: Vec<SeatSlot>,
        clocks: Option<SeatClocks>,
        now_ms: u64,
        play: Option<PlaySlot>,
    ) -> Room {
        let last = game.last_seq();
        let seats_len = seats.len();
        let mut state = RoomState {
            buckets: vec![Bucket::default(); seats_len],
            abandoned: None,
            last_activity_ms: now_ms,
            ended_ms: None,
            game,
            seats,
            clocks,
            answered: HashMap::new(),
            keys_kept: true,
            streams: read::StreamCounts::new(seats_len),
            play,
        };
        if state.seats.iter().all(|s| s.token.is_some()) {
            state.game.start();
        }
        state.after_change(now_ms);
        Room {
            id: setup.id.clone(),
            setup,
            state: Mutex::new(state),
            last_seq: watch::channel(last).0,
            moved: AtomicBool::new(false),
        }
    }

    /// Locks the room. A poisoned lock means a panic while applying, which the
    /// engines' tests rule out; the state is then still consistent, because every
    /// change is made on a copy first, so the guard is recovered.
    fn lock(&self) -> MutexGuard<'_, RoomState> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Watches the seq of the last event.
    pub fn subscribe(&self) -> watch::Receiver<u64> {
        self.last_seq.subscribe()
    }

    /// Tells the streams that the log grew.
    fn announce(&self, state: &RoomState) {
        self.last_seq.send_replace(state.game.last_seq());
    }

    /// The game's kind.
    pub fn kind(&self) -> pb::GameKind {
        self.lock().game.kind()
    }

    /// Whether the game can still change (not over, not abandoned).
    pub fn is_live(&self) -> bool {
        let state = self.lock();
        !state.game.is_over() && state.abandoned.is_none()
    }

    /// Actions applied so far.
    pub fn version(&self) -> u64 {
        self.lock().game.version()
    }

    /// When the game ended (finished or abandoned), if it did.
    pub fn ended_ms(&self) -> Option<u64> {
        self.lock().ended_ms
    }

    /// The lease epoch this node holds the game under.
    pub fn epoch(&self) -> Epoch {
        self.setup.epoch
    }

    /// Marks the room stale (another node owns the game now) and wakes its
    /// streams, which end telling their clients to resume elsewhere.
    pub fn retire(&self) {
        self.moved.store(true, Ordering::Release);
        self.last_seq.send_modify(|_| {});
    }

    /// Whether another node owns the game now.
    pub fn has_moved(&self) -> bool {
        self.moved.load(Ordering::Acquire)
    }

    /// Whether the game has a turn clock.
    pub fn has_clock(&self) -> bool {
        self.lock().clocks.is_some()
    }

    /// The token hashes of the claimed seats.
    pub fn token_hashes(&self) -> Vec<TokenHash> {
        self.lock().seats.iter().filter_map(|s| s.token).collect()
    }

    /// The seat whose token hash is `token`, in constant time per seat.
    pub fn seat_of(&self, token: &TokenHash) -> Option<Seat> {
        let mut found = None;
        for (i, slot) in self.lock().seats.iter().enumerate() {
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
    ) -> impl FnMut(&pb::Action) -> Result<(), crate::store::StoreError> + 'a {
        move |action: &pb::Action| {
            store.append_action(
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
                    epoch: self.setup.epoch,
                },
            )
        }
    }

    /// Claims seat `wanted` (or the lowest open one) for `name`, storing the
    /// claim first; `mint` makes the seat's token (and the request record of a
    /// retry-safe call). Returns the claim and the token.
    pub fn claim(
        &self,
        wanted: Option<u32>,
        name: &str,
        store: &dyn Store,
        now_ms: u64,
        mint: impl FnOnce(Seat) -> (String, TokenHash, Option<RequestRecord>),
    ) -> Result<(Claimed, String, TokenHash), ServiceError> {
        let mut state = self.lock();
        if state.game.started() {
            return Err(ServiceError::NoOpenSeat(self.id.clone()));
        }
        let players = state.seats.len();
        let seat = match wanted {
            Some(s) if s as usize >= players => {
                return Err(ServiceError::invalid(
                    "seat",
                    format!(
                        "seat {s} does not exist: the game has seats 0 to {}",
                        players - 1
                    ),
                ));
            }
            Some(s) if state.seats[s as usize].token.is_some() => {
                return Err(ServiceError::SeatTaken(s));
            }
            Some(s) => s as usize,
            None => state
                .seats
                .iter()
                .position(|s| s.token.is_none())
                .expect("a game that has not started has an open seat"),
        };
        let seat = Seat(seat as u8);
        let name = if name.is_empty() {
            format!("seat {}", seat.0)
        } else {
            name.to_owned()
        };
        let started = state
            .seats
            .iter()
            .enumerate()
            .all(|(i, s)| i == seat.index() || s.token.is_some());
        let (token, hash, mut request) = mint(seat);
        if let Some(r) = &mut request {
            r.seat = Some(seat);
            r.started = started;
        }
        store.claim_seat(
            &self.id,
            seat,
            &name,
            &hash,
            request.as_ref(),
            self.setup.epoch,
        )?;
        state.seats[seat.index()] = SeatSlot {
            name: name.clone(),
            token: Some(hash),
        };
        state.game.seat_joined(seat, &name);
        state.last_activity_ms = now_ms;
        if started {
            state.game.start();
        }
        state.after_change(now_ms);
        self.announce(&state);
        Ok((
            Claimed {
                seat,
                name,
                started,
            },
            token,
            hash,
        ))
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
        let fingerprint = fingerprint(req);
        let key = (seat, digest(req.idempotency_key.as_bytes()));
        let mut state = self.lock();
        let keyed = !req.idempotency_key.is_empty();
        if keyed && let Some(first) = state.answered.get(&key) {
            return if first.fingerprint == fingerprint {
                Ok(state.answer(seat, first))
            } else {
                Err(ServiceError::KeyReused {
                    what: "idempotency key",
                    key: clip(&req.idempotency_key),
                })
            };
        }
        if max_per_second > 0
            && let Err(retry_after) = state.buckets[seat.index()].take(max_per_second, 1, now_ms)
        {
            return Err(ServiceError::RateLimited {
                what: format!("{seat} may submit at most {max_per_second} actions per second"),
                retry_after,
            });
        }
        let choice = req.choice.as_ref().ok_or_else(|| {
            ServiceError::invalid("choice", "choice is required: action or legal_action_id")
        })?;
        let expected = req.expected_version.ok_or_else(|| {
            ServiceError::invalid("expected_version", "expected_version is required")
        })?;
        if keyed && state.ended_ms.is_some() && !state.keys_kept {
            return Err(ServiceError::AnswerGone(self.id.clone()));
        }
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
        self.record_end(&state, store, now_ms);
        let answered = state.answered(fingerprint, &applied);
        let reply = state.answer(seat, &answered);
        if keyed {
            state.answered.insert(key, answered);
        }
        self.announce(&state);
        Ok(reply)
    }

    /// Tells the store that the game just ended, if it did, so that it is not
    /// rebuilt at the next start. Not fatal: the action is stored, and a
    /// restart that rebuilds the game sees it over and tells the store then.
    fn record_end(&self, state: &RoomState, store: &dyn Store, now_ms: u64) {
        if state.game.is_over()
            && let Err(e) = store.finish(&self.id, state.game.version(), now_ms)
        {
            tracing::warn!(game_id = %self.id, "cannot record the end of the game: {e}");
        }
    }

    /// Applies an action of the replay a game starts from (CreateGame with
    /// `start_from`), storing it like any action.
    pub fn apply_prefix(
        &self,
        action: pb::ReplayAction,
        store: &dyn Store,
        now_ms: u64,
    ) -> Result<(), ServiceError> {
        let mut state = self.lock();
        let origin = Origin::of_replay(&action);
        let seat = Seat(action.seat as u8);
        let result = self.store_and_apply(
            &mut state,
            seat,
            origin,
            action.action.unwrap_or_default(),
            store,
            now_ms,
        );
        self.record_end(&state, store, now_ms);
        self.announce(&state);
        result
            .map(|_| ())
            .map_err(|e| ServiceError::from_apply(&self.id, e))
    }

    /// Stores and applies a full action the server plays (a turn clock's, the
    /// autopilot's, or a replay prefix's): no client request behind it.
    fn store_and_apply(
        &self,
        state: &mut RoomState,
        seat: Seat,
        origin: Origin,
        action: pb::Action,
        store: &dyn Store,
        now_ms: u64,
    ) -> Result<Applied, ApplyError> {
        let choice = pb::submit_action_request::Choice::Action(action);
        let version = state.game.version();
        let request = pb::SubmitActionRequest {
            choice: Some(choice),
            expected_version: Some(version),
            ..Default::default()
        };
        let mut persist = self.persist(store, seat, origin, version + 1, &request);
        state.apply(seat, origin, &choice, now_ms, &mut persist)
    }

    /// Replays a stored action (already durable: nothing is stored),
    /// remembering its idempotency key if the room keeps them.
    pub fn replay_stored(&self, record: ActionRecord, now_ms: u64) -> Result<(), ApplyError> {
        let mut state = self.lock();
        let choice = pb::submit_action_request::Choice::Action(record.action);
        let applied = state.apply(record.seat, record.origin, &choice, now_ms, &mut |_| Ok(()))?;
        let req = record.request;
        if state.keys_kept && !req.idempotency_key.is_empty() {
            let mut answered = state.answered(fingerprint(&req), &applied);
            // The clock restarted: the answer carries the deadline of now.
            answered.deadline_ms = None;
            let key = (record.seat, digest(req.idempotency_key.as_bytes()));
            state.answered.insert(key, answered);
        }
        self.announce(&state);
        Ok(())
    }

    /// Keeps no idempotency keys: the room is an ended game read back from
    /// the store, whose retries are refused (see [`crate::rooms`]).
    pub fn keep_no_keys(&self) {
        let mut state = self.lock();
        state.keys_kept = false;
        state.answered = HashMap::new();
    }
}
