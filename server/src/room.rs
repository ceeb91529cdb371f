//! One game on the server: the single owner of its state.
//!
//! A [`Room`] holds the hosted engine, the seats and their token hashes, the
//! turn clocks, what each idempotency key's submission did and the streams
//! open on it, behind one `std::sync::Mutex` that is never held across an
//! `.await`. Its fields are private: everything is done through its methods.
//! Every change goes through the store first and is then announced
//! ([`Room::changed`]); streams read the log at their own pace, so a slow
//! reader never holds up the game. Submodules: actions
//! played ([`play`]: staged by the engine, stored, then committed; with a
//! store that queues its appends, the commit awaited without the lock:
//! [`queued`]), seats
//! claimed ([`seats`]), what a room shows ([`read`]), retries of keyed
//! submissions ([`answers`]), the referee's decisions ([`referee`]), and a
//! seat giving up ([`resign`]).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, MutexGuard};

use druids_contract::pb;

use druids_engine::Seat;
use tokio::sync::Notify;
use tokio::sync::futures::Notified;

use crate::auth::TokenHash;
use crate::clock::SeatClocks;
use crate::hosted_game::{Applied, HostEvent, HostedGame, Prelude};
use crate::play_slots::PlaySlot;
use crate::quota::Bucket;
use crate::store::{Epoch, Origin};

mod answers;
mod gate;
mod play;
mod queued;
mod read;
mod referee;
mod resign;
mod seats;
mod twins;

pub use twins::Hold;

use answers::Answers;
pub use queued::Answered;
pub use read::{StreamLimits, StreamPlace};
pub use referee::Due;
pub use seats::Claimed;

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
    /// Keyed submissions: every one of the game, for as long as the room is
    /// in memory (see [`crate::rooms`]).
    answered: Answers,
    /// False for an ended game read back from the store past its grace
    /// period: its keys are gone.
    keys_kept: bool,
    /// For an ended game read back from the store within its grace period
    /// (after a restart): when its keys stop being honoured.
    keys_until_ms: Option<u64>,
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
    /// By seat, the version of the last decision the server took for it
    /// (its clock ran out, or its autopilot played): a submission for that
    /// version came after its deadline, which a bot is told apart from a
    /// race (`DEADLINE_PASSED`, not `STALE_VERSION`).
    decided_for: Vec<Option<u64>>,
    /// Held while the game is in play; dropped when it ends.
    play: Option<PlaySlot>,
    /// The legal-action lists built at the current version, for the pages
    /// after the first; dropped at every change.
    legal: Option<Box<read::KeptLists>>,
    /// True while an action of this room waits for its commit ([`queued`]):
    /// no other action is decided until it is made or dropped.
    appending: bool,
    /// A decision held for the match's other games ([`twins`]).
    held: Option<twins::Held>,
}

impl RoomState {
    /// Points the clock at whoever must decide now, and gives the game's
    /// place among the games in play back once it is over.
    fn after_change(&mut self, now_ms: u64) {
        self.legal = None;
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
        // A decision held for the match's other games: no clock runs.
        if self.held.is_some() {
            return None;
        }
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

    /// The host event logged before an action of `seat` decided by `origin`:
    /// the seat taking its decisions back from the autopilot, or the server
    /// deciding for it.
    fn prelude(&self, seat: Seat, origin: Origin) -> Option<Prelude> {
        match origin {
            Origin::Seat => self
                .clocks
                .as_ref()
                .filter(|c| c.autopilot_seats().any(|s| s == seat))
                .map(|_| Prelude::Resumed),
            Origin::Timeout | Origin::Autopilot => Some(Prelude::TimedOut {
                autopilot: origin == Origin::Autopilot,
                starts_autopilot: origin == Origin::Timeout
                    && self
                        .clocks
                        .as_ref()
                        .is_some_and(|c| c.timeout_starts_autopilot(seat)),
            }),
            Origin::Resigned => None,
        }
    }

    /// After an action of `seat` decided by `origin` was made: the clocks,
    /// the activity, and the log's last seq on what it did.
    fn acted(&mut self, seat: Seat, origin: Origin, applied: Applied, now_ms: u64) -> Applied {
        self.last_activity_ms = now_ms;
        if let Some(c) = &mut self.clocks {
            match origin {
                Origin::Seat => {
                    c.answered(seat, now_ms);
                }
                Origin::Timeout => {
                    // Its AutopilotChanged is already logged, by the prelude.
                    c.timed_out(seat);
                }
                Origin::Autopilot | Origin::Resigned => {}
            }
        }
        if matches!(origin, Origin::Timeout | Origin::Autopilot)
            && let Some(slot) = self.decided_for.get_mut(usize::from(seat.0))
        {
            *slot = Some(applied.version - 1);
        }
        self.after_change(now_ms);
        Applied {
            last_seq: self.game.last_seq(),
            ..applied
        }
    }

    /// The action the server takes for the seat whose clock ran out (`Timeout`:
    /// the engine's documented default) or who is on autopilot (a random legal
    /// action, drawn from the game's `seed` and the version: reproducible, and
    /// as secret as the seed while the game runs, so that the pick does not
    /// tell a watcher how long the seat's list was, which its hidden holdings
    /// decide).
    fn server_choice(&self, origin: Origin, seed: u64) -> Option<pb::Action> {
        match origin {
            Origin::Timeout => self.game.timeout_action(),
            Origin::Autopilot => {
                let legal = self.game.legal_actions(false);
                let mut x = (seed ^ self.game.version()).wrapping_add(0x9e37_79b9_7f4a_7c15);
                x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
                x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
                x ^= x >> 31;
                legal
                    .get((x % legal.len().max(1) as u64) as usize)?
                    .action
                    .clone()
            }
            Origin::Seat | Origin::Resigned => None,
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

/// What a room keeps of its [`Setup`] (the id is the room's own).
struct Created {
    created_unix_ms: u64,
    seed: u64,
    seed_chosen: bool,
    options: pb::GameOptions,
    epoch: Epoch,
}

/// A game and everything the server knows of it.
pub struct Room {
    /// Game id.
    pub id: String,
    setup: Created,
    state: Mutex<RoomState>,
    /// Woken when the log grows or the room goes stale: the streams' cue to
    /// read on. A `Notify` lives inside the room (a `watch` channel would
    /// allocate several hundred bytes per game for a value no one needs:
    /// streams read the log, not the notice).
    changed: Notify,
    /// Set when another node took the game over: this room is stale.
    moved: AtomicBool,
    /// The other games of its duplicate match, once the arena names them
    /// ([`twins`]).
    twins: std::sync::OnceLock<Box<twins::Twins>>,
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
        let seats_len = seats.len();
        let mut state = RoomState {
            buckets: vec![Bucket::default(); seats_len],
            abandoned: None,
            last_activity_ms: now_ms,
            ended_ms: None,
            game,
            seats,
            clocks,
            answered: Answers::default(),
            keys_kept: true,
            keys_until_ms: None,
            streams: read::StreamCounts::new(seats_len),
            decided_for: vec![None; seats_len],
            play,
            legal: None,
            appending: false,
            held: None,
        };
        if state.seats.iter().all(|s| s.token.is_some()) {
            state.game.start();
        }
        state.after_change(now_ms);
        let Setup {
            id,
            created_unix_ms,
            seed,
            seed_chosen,
            options,
            epoch,
        } = setup;
        Room {
            id,
            setup: Created {
                created_unix_ms,
                seed,
                seed_chosen,
                options,
                epoch,
            },
            state: Mutex::new(state),
            changed: Notify::new(),
            moved: AtomicBool::new(false),
            twins: std::sync::OnceLock::new(),
        }
    }

    /// Locks the room. A poisoned lock means a panic while applying, which the
    /// engines' tests rule out; the state is then still consistent, because every
    /// change is made on a copy first, so the guard is recovered.
    fn lock(&self) -> MutexGuard<'_, RoomState> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Completes at the next change of the log (or when the room goes
    /// stale). To miss none, a stream enables it before it reads the log.
    pub fn changed(&self) -> Notified<'_> {
        self.changed.notified()
    }

    /// Tells the streams that the log grew.
    fn announce(&self, _: &RoomState) {
        self.changed.notify_waiters();
        self.tell_twins();
    }

    /// The game's kind.
    pub fn kind(&self) -> druids_contract::Kind {
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
        self.changed.notify_waiters();
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

    /// Counts `now_ms` as the game's last activity (a rebuilt game's
    /// idleness counts from the restart).
    pub fn active_at(&self, now_ms: u64) {
        let mut state = self.lock();
        state.last_activity_ms = state.last_activity_ms.max(now_ms);
    }

    /// Keeps no idempotency keys: the room is an ended game read back from
    /// the store after its grace period, whose retries are refused (see
    /// [`crate::rooms`]).
    pub fn keep_no_keys(&self) {
        let mut state = self.lock();
        state.keys_kept = false;
        state.answered = Answers::default();
    }

    /// Honours the idempotency keys of an ended game read back from the
    /// store until `until_ms`, the end of its grace period (which a restart
    /// does not shorten), and refuses retries from then on.
    pub fn keep_keys_until(&self, until_ms: u64) {
        self.lock().keys_until_ms = Some(until_ms);
    }
}
