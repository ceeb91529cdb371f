//! One game on the server: the single owner of its state.
//!
//! A [`Room`] holds the hosted engine, the seats and their token hashes, and the
//! answers already given per idempotency key, behind one `std::sync::Mutex` that
//! is never held across an `.await`. Every change goes through the [`Store`]
//! first and is then announced on a `watch` channel carrying the last event
//! seq; streams read the log at their own pace, so a slow reader never holds
//! up the game.

use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard};

use druids::{HostedGame, pb};
use druids_engine::{Seat, Viewer};
use tokio::sync::watch;

use crate::auth::TokenHash;
use crate::error::ServiceError;
use crate::store::{ActionRecord, Store};

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
    /// First answers by (seat, idempotency key).
    replies: HashMap<(Seat, String), (Fingerprint, pb::SubmitActionResponse)>,
    /// Streams open on this game.
    pub streams: usize,
}

/// A game and everything the server knows of it.
pub struct Room {
    /// Game id.
    pub id: String,
    /// Creation time, ms since the Unix epoch.
    pub created_unix_ms: u64,
    state: Mutex<RoomState>,
    last_seq: watch::Sender<u64>,
}

impl Room {
    /// A room for a freshly created (or recovered) game.
    pub fn new(
        id: String,
        created_unix_ms: u64,
        game: Box<dyn HostedGame>,
        seats: Vec<SeatSlot>,
    ) -> Room {
        let last = game.last_seq();
        Room {
            id,
            created_unix_ms,
            state: Mutex::new(RoomState {
                game,
                seats,
                replies: HashMap::new(),
                streams: 0,
            }),
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

    /// Applies a submission of `seat`, storing it first.
    pub fn submit(
        &self,
        seat: Seat,
        req: &pb::SubmitActionRequest,
        store: &dyn Store,
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
        let choice = req.choice.as_ref().ok_or_else(|| {
            ServiceError::Invalid("choice is required: action or legal_action_id".into())
        })?;
        let expected = req
            .expected_version
            .ok_or_else(|| ServiceError::Invalid("expected_version is required".into()))?;
        if state.game.is_over() {
            return Err(ServiceError::Finished(self.id.clone()));
        }
        let current = state.game.version();
        if expected != current {
            return Err(ServiceError::StaleVersion { expected, current });
        }
        let mut persist = |action: &pb::Action| {
            store
                .append_action(
                    &self.id,
                    &ActionRecord {
                        version: current + 1,
                        seat,
                        action: *action,
                        request: pb::SubmitActionRequest {
                            game_id: String::new(),
                            ..req.clone()
                        },
                    },
                )
                .map_err(|e| e.0)
        };
        let applied = match choice {
            pb::submit_action_request::Choice::Action(a) => state.game.apply(seat, a, &mut persist),
            pb::submit_action_request::Choice::LegalActionId(id) => {
                state.game.apply_legal(seat, *id, &mut persist)
            }
        }
        .map_err(|e| ServiceError::from_apply(&self.id, e))?;
        let mut events = Vec::new();
        let n = (applied.last_seq + 1 - applied.first_seq) as usize;
        state
            .game
            .events(applied.first_seq, n, Viewer::Seat(seat), &mut events);
        let reply = pb::SubmitActionResponse {
            version: applied.version,
            events,
        };
        if !req.idempotency_key.is_empty() {
            state.replies.insert(key, (fingerprint, reply.clone()));
        }
        self.announce(&state);
        Ok(reply)
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
        if state.game.is_over() {
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
            game: Some(game.view(viewer)),
        }
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
