//! What a room shows: its state as each viewer may see it, its event log for
//! streams, its legal actions, its replay and its `ListGames` line, and the
//! count of streams open on it. Game changes are all in the parent module.

use std::sync::Arc;

use druids_contract::pb;
use druids_engine::{Seat, Viewer};

use super::{Room, RoomState};
use crate::error::ServiceError;
use crate::hosted_game::LegalList;
use crate::legal_pages::Listing;

/// The legal-action lists of one version: the default list and the one
/// with every payment, each once asked for.
pub(super) struct KeptLists {
    version: u64,
    lists: [Option<Arc<dyn LegalList>>; 2],
}

/// The streams open on one game.
pub(super) struct StreamCounts {
    spectators: usize,
    /// Per seat: open, and of those reserved.
    seats: Vec<(usize, usize)>,
}

impl StreamCounts {
    pub(super) fn new(seats: usize) -> StreamCounts {
        StreamCounts {
            spectators: 0,
            seats: vec![(0, 0); seats],
        }
    }
}

/// The budgets a game's streams are counted against (the flags of
/// [`crate::config::Limits`]).
#[derive(Clone, Copy, Debug)]
pub struct StreamLimits {
    /// Streams of one seat.
    pub per_seat: usize,
    /// Of those, how many a seat of a game in play may always open.
    pub reserved_per_seat: usize,
    /// Spectator streams of one game.
    pub spectators_per_game: usize,
}

/// Where a stream's place is: reserved for its seat, or in the shared
/// budgets (server-wide, per address).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StreamPlace {
    /// One of the seat's reserved streams.
    Reserved,
    /// Counted against the shared budgets.
    Shared,
}

impl Room {
    /// The legal actions of `seat` now (all payments or the default list), the
    /// version they belong to, and the pending decision if it is the seat's.
    /// A list is built once per version and list, outside the lock (from a
    /// copy of the position), and kept for the pages after the first.
    pub fn legal_actions(&self, seat: Seat, all_payments: bool) -> Listing {
        let (mut listing, source) = {
            let state = self.lock();
            let version = state.game.version();
            if state.game.to_act() != Some(seat) {
                return Listing {
                    version,
                    decision: None,
                    decision_description: String::new(),
                    actions: None,
                    deadline_unix_ms: None,
                    built: false,
                };
            }
            let kept = state
                .legal
                .as_ref()
                .filter(|k| k.version == version)
                .and_then(|k| k.lists[usize::from(all_payments)].clone());
            let source = kept
                .is_none()
                .then(|| state.game.legal_source(all_payments));
            let listing = Listing {
                version,
                decision: state.game.decision(),
                decision_description: state.game.decision_description(),
                actions: kept,
                deadline_unix_ms: state.deadline_ms(),
                built: false,
            };
            (listing, source)
        };
        if let Some(source) = source {
            let list = source();
            listing.built = true;
            let mut state = self.lock();
            if state.game.version() == listing.version {
                let kept = state.legal.get_or_insert_with(|| {
                    Box::new(KeptLists {
                        version: listing.version,
                        lists: [None, None],
                    })
                });
                if kept.version != listing.version {
                    **kept = KeptLists {
                        version: listing.version,
                        lists: [None, None],
                    };
                }
                kept.lists[usize::from(all_payments)] = Some(Arc::clone(&list));
            }
            listing.actions = Some(list);
        }
        listing
    }

    /// Counts a stream opened on this game by `viewer` within the budgets
    /// of `limits` (per seat, spectators per game); says whether it is one
    /// of the seat's reserved streams, which no other budget counts.
    pub fn open_stream(
        &self,
        viewer: Viewer,
        limits: &StreamLimits,
    ) -> Result<StreamPlace, ServiceError> {
        let mut state = self.lock();
        let live = !state.game.is_over() && state.abandoned.is_none();
        let counts = &mut state.streams;
        match viewer {
            Viewer::Seat(seat) => {
                let (open, reserved) = &mut counts.seats[seat.index()];
                if *open >= limits.per_seat {
                    return Err(ServiceError::Limit(format!(
                        "at most {} streams may be open for one seat",
                        limits.per_seat
                    )));
                }
                *open += 1;
                if live && *reserved < limits.reserved_per_seat {
                    *reserved += 1;
                    return Ok(StreamPlace::Reserved);
                }
            }
            Viewer::Spectator => {
                if counts.spectators >= limits.spectators_per_game {
                    return Err(ServiceError::Limit(format!(
                        "at most {} spectator streams may be open on one game",
                        limits.spectators_per_game
                    )));
                }
                counts.spectators += 1;
            }
        }
        Ok(StreamPlace::Shared)
    }

    /// Frees a stream's slot.
    pub fn close_stream(&self, viewer: Viewer, place: StreamPlace) {
        let mut state = self.lock();
        let counts = &mut state.streams;
        match viewer {
            Viewer::Seat(seat) => {
                let (open, reserved) = &mut counts.seats[seat.index()];
                *open -= 1;
                if place == StreamPlace::Reserved {
                    *reserved -= 1;
                }
            }
            Viewer::Spectator => counts.spectators -= 1,
        }
    }

    /// Streams open on this game.
    pub fn open_streams(&self) -> usize {
        let state = self.lock();
        state.streams.spectators + state.streams.seats.iter().map(|s| s.0).sum::<usize>()
    }

    /// What a stream opened with `from_seq` 0 starts with: the state when
    /// `StreamEvents` is answered, and the seq the stream goes on from.
    ///
    /// While a seat must decide, the pending decision's `DecisionNeeded` is
    /// the last event of the log (nothing is logged between it and the next
    /// action), and it changes no state. So the snapshot is numbered as the
    /// event before it, and the stream goes on from that `DecisionNeeded`
    /// itself: a client that acts on `DecisionNeeded` events needs nothing
    /// else, and one that skips every seq it has seen (or resumes from the
    /// last seq seen + 1) neither misses it nor sees anything twice.
    pub fn snapshot(&self, viewer: Viewer) -> (Vec<pb::GameEvent>, u64) {
        let state = self.lock();
        let last = state.game.last_seq();
        let pending = state
            .game
            .pending_decision_seq()
            .filter(|_| state.status() == pb::GameStatus::Running);
        debug_assert!(
            pending.is_none_or(|p| p == last),
            "a pending DecisionNeeded is the last event"
        );
        let seq = match pending {
            Some(p) if p == last => p - 1,
            _ => last,
        };
        let snapshot = pb::GameEvent {
            seq,
            version: state.game.version(),
            description: String::new(),
            body: Some(pb::game_event::Body::Snapshot(pb::Snapshot {
                state: Some(self.view_of(&state, viewer)),
            })),
        };
        (vec![snapshot], seq + 1)
    }

    /// Appends the events from `cursor` on (at most `max`) as `viewer` sees
    /// them; returns the next cursor, whether the log is read to its end, and
    /// whether the game can no longer change.
    pub fn read_events(
        &self,
        cursor: u64,
        max: usize,
        viewer: Viewer,
        out: &mut Vec<pb::GameEvent>,
    ) -> (u64, bool, bool) {
        let state = self.lock();
        let next = state.game.events(cursor, max, viewer, out);
        state.stamp_deadlines(out);
        (
            next,
            next > state.game.last_seq(),
            state.game.is_over() || state.abandoned.is_some(),
        )
    }

    /// Seq of the `n`-th `DecisionNeeded` of `seat` so far (from 1).
    pub fn decision_seq(&self, seat: Seat, n: u32) -> Option<u64> {
        self.lock().game.decision_seq(seat, n)
    }

    /// The version after `seat`'s `k`-th own action so far (from 1).
    pub fn own_action_version(&self, seat: Seat, k: u32) -> Option<u64> {
        self.lock().game.own_action_version(seat, k)
    }

    /// Seq of the last event.
    pub fn last_seq(&self) -> u64 {
        self.lock().game.last_seq()
    }

    fn view_of(&self, state: &RoomState, viewer: Viewer) -> pb::StateView {
        let game = &state.game;
        pb::StateView {
            game_id: self.id.clone(),
            kind: game.kind().number(),
            status: state.status() as i32,
            version: game.version(),
            last_seq: game.last_seq(),
            seats: state.seat_infos(),
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
            seed_chosen_by_creator: self.setup.seed_chosen,
            decision_description: game.decision_description(),
            waiting_for_match: (matches!(
                game.gate(),
                Some(crate::hosted_game::GatePosition::Waiting { .. })
            ) || state.held.is_some())
                && state.abandoned.is_none(),
            game: Some(game.view(viewer)),
        }
    }

    /// The state as `viewer` may see it.
    pub fn view(&self, viewer: Viewer) -> pb::StateView {
        self.view_of(&self.lock(), viewer)
    }

    /// The replay of a game that is over (finished or abandoned); the seed is
    /// published only here, and only then.
    pub fn replay(&self) -> Result<pb::Replay, ServiceError> {
        let state = self.lock();
        let status = state.status();
        if !matches!(status, pb::GameStatus::Finished | pb::GameStatus::Abandoned) {
            return Err(ServiceError::GameRunning(self.id.clone()));
        }
        Ok(pb::Replay {
            game_id: self.id.clone(),
            kind: state.game.kind().number(),
            players: state.game.players() as u32,
            seed: self.setup.seed,
            options: Some(self.setup.options.clone()),
            actions: state.game.replay_actions(),
            outcome: state.game.outcome(),
            status: status as i32,
        })
    }

    /// A line of `ListGames`.
    pub fn summary(&self) -> pb::GameSummary {
        let state = self.lock();
        pb::GameSummary {
            game_id: self.id.clone(),
            kind: state.game.kind().number(),
            status: state.status() as i32,
            players: state.game.players() as u32,
            version: state.game.version(),
            seats: state.seat_infos(),
            created_unix_ms: self.setup.created_unix_ms,
            outcome: state.game.outcome(),
            match_id: String::new(),
            rated: false,
        }
    }
}
