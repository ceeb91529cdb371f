//! The RPCs of `DruidsService`: each authenticates its caller, finds where
//! its game is served (here, or forwarded to the owner in a cluster), charges
//! quotas and hands the call to the lobby, the room or the stream feed.

use std::sync::Arc;

use druids_contract::pb::{self, druids_service_server::DruidsService};
use tonic::{Request, Response, Status};
use tracing::{Instrument, info_span};

use super::submit::{Making, make, make_held, settle_queued};
use super::{EventStream, Service};
use crate::bounds::{Checked, checked};
use crate::cluster::Located;
use crate::error::{ServiceError, clip};
use crate::faults::Method;
use crate::heartbeat::{before, with_heartbeats};
use crate::lobby::{Created, Maker};
use crate::quota::Read;
use crate::store::StoreError;
use crate::stream::{KeyStands, feed};
use crate::submission::{Resignation, Submission};

/// The room of a call's game if it is served here; otherwise forwards the
/// call to the game's owner with the client method `$method` and returns.
/// A read (`, read`) is charged to the caller's quotas here before it is
/// forwarded: the entry node charges, the owner does not charge again.
macro_rules! here_or_forward {
    ($service:ident, $request:ident, $caller:ident, $method:ident, read) => {
        here_or_forward!($service, $request, $caller, $method, Some(Read::One))
    };
    ($service:ident, $request:ident, $caller:ident, $method:ident) => {
        here_or_forward!($service, $request, $caller, $method, None)
    };
    ($service:ident, $request:ident, $caller:ident, $method:ident, $read:expr) => {{
        let id = $request.get_ref().game_id.clone();
        match $service.locate(&id, &$caller).await? {
            Located::Here(room) => room,
            Located::There(addr) => {
                let read: Option<Read> = $read;
                if let Some(read) = read {
                    $service.refused($service.read_elsewhere(read, &$caller))?;
                }
                return $service
                    .forward(
                        &addr,
                        &id,
                        $request.map(Checked::into_inner),
                        &$caller,
                        |mut peer, r| async move { peer.$method(r).await },
                    )
                    .await;
            }
        }
    }};
}

impl Service {
    /// CreateGame, or the game of a CreateTestGame whose fault plan, encoded,
    /// is `test_plan`.
    pub(super) async fn create_game_by(
        &self,
        request: Request<pb::CreateGameRequest>,
        test_plan: Option<Vec<u8>>,
    ) -> std::result::Result<pb::CreateGameResponse, Status> {
        let caller = self.caller(&request)?;
        let test = test_plan.is_some();
        // CreateTestGame's game is its field `game`: its refusals say so.
        let nest = move |e: ServiceError| if test { e.nested("", "game") } else { e };
        let request = self.refused(checked(request).map_err(nest))?;
        self.refused(self.setup(&caller))?;
        let (metadata, extensions, req) = request.into_parts();
        let lobby = Arc::clone(&self.lobby);
        let (again, forwarded) = (req.clone(), caller.forwarded);
        let address = caller.peer;
        let created = self
            .off_the_workers(move || {
                let maker = match &test_plan {
                    None => Maker::CreateGame,
                    Some(plan) => Maker::CreateTestGame { plan },
                };
                lobby.create(req, maker, address, forwarded)
            })
            .await?;
        match self.refused(created.map_err(nest))? {
            Created::Answer(reply) => Ok(*reply),
            // Its plan and ledger live on the node that made it.
            Created::Owner { game_id, .. } if test => {
                Ok(self.refused(Err(ServiceError::TestGameElsewhere(clip(&game_id))))?)
            }
            // A retry of a create answered by another node, which owns its
            // game: that node answers it.
            Created::Owner { addr, game_id } => {
                let request = Request::from_parts(metadata, extensions, again.into_inner());
                self.forward(
                    &addr,
                    &game_id,
                    request,
                    &caller,
                    |mut peer, r| async move { peer.create_game(r).await },
                )
                .await
                .map(Response::into_inner)
            }
        }
    }
}

#[tonic::async_trait]
impl DruidsService for Service {
    async fn create_game(
        &self,
        request: Request<pb::CreateGameRequest>,
    ) -> std::result::Result<Response<pb::CreateGameResponse>, Status> {
        self.create_game_by(request, None).await.map(Response::new)
    }

    async fn join_game(
        &self,
        request: Request<pb::JoinGameRequest>,
    ) -> std::result::Result<Response<pb::JoinGameResponse>, Status> {
        let caller = self.caller(&request)?;
        let request = self.refused(checked(request))?;
        self.refused(self.setup(&caller))?;
        if self.cluster.is_some() {
            // The lobby joins games in this node's memory.
            let _room = here_or_forward!(self, request, caller, join_game);
        }
        let req = request.into_inner();
        let lobby = Arc::clone(&self.lobby);
        let reply = self.off_the_workers(move || lobby.join(req)).await?;
        Ok(Response::new(self.refused(reply)?))
    }

    async fn get_legal_actions(
        &self,
        request: Request<pb::GetLegalActionsRequest>,
    ) -> std::result::Result<Response<pb::GetLegalActionsResponse>, Status> {
        let id = request.get_ref().game_id.clone();
        self.under_plan(Method::Legal, id, request, |r| {
            self.get_legal_actions_here(r)
        })
        .await
    }

    async fn submit_action(
        &self,
        request: Request<pb::SubmitActionRequest>,
    ) -> std::result::Result<Response<pb::SubmitActionResponse>, Status> {
        let id = request.get_ref().game_id.clone();
        self.under_plan(Method::Submit, id, request, |r| self.submit_action_here(r))
            .await
    }

    async fn resign(
        &self,
        request: Request<pb::ResignRequest>,
    ) -> std::result::Result<Response<pb::ResignResponse>, Status> {
        let id = request.get_ref().game_id.clone();
        self.under_plan(Method::Resign, id, request, |r| self.resign_here(r))
            .await
    }

    type StreamEventsStream = EventStream;

    async fn stream_events(
        &self,
        request: Request<pb::StreamEventsRequest>,
    ) -> std::result::Result<Response<EventStream>, Status> {
        let caller = self.caller(&request)?;
        let request = self.refused(checked(request))?;
        let id = request.get_ref().game_id.clone();
        let room = match self.locate(&id, &caller).await? {
            Located::Here(room) => room,
            Located::There(addr) => {
                self.refused(self.read_elsewhere(Read::One, &caller))?;
                let upstream = self
                    .forward(
                        &addr,
                        &id,
                        request.map(Checked::into_inner),
                        &caller,
                        |mut peer, r| async move { peer.stream_events(r).await },
                    )
                    .await?
                    .into_inner();
                return Ok(Response::new(self.relay_stream(upstream, id)));
            }
        };
        let planned = self.faults.has_plan(&id).then(|| {
            request
                .remote_addr()
                .map(|a| a.to_string())
                .unwrap_or_default()
        });
        let req = request.into_inner();
        let viewer = self.refused(self.viewer(&room, &caller, false))?;
        if let Some(peer) = &planned {
            self.stream_opened(&room, viewer, req.from_seq, peer)?;
        }
        self.refused(self.read(Read::One, &caller))?;
        self.refused(room.waits_to_reach(req.from_seq))?;
        self.refused(crate::stream::within_log(req.from_seq, room.last_seq()))?;
        let slot = self.refused(self.streams.open(&room, viewer, caller.peer))?;
        let (first, cursor) = match req.from_seq {
            0 => room.snapshot(viewer),
            n => (Vec::new(), n),
        };
        // A seat seen through a bot's API key (not the game's own token)
        // is seen for as long as the key works.
        let key_stands = match (&caller.token, viewer) {
            (Some(token), druids_engine::Viewer::Seat(_)) if room.seat_of(token).is_none() => {
                let (arena, token) = (self.arena.clone(), *token);
                Some(Box::new(move || arena.key_works(&token)) as KeyStands)
            }
            _ => None,
        };
        let span = info_span!("stream_events", game_id = %room.id, viewer = ?viewer);
        let events = Box::pin(feed(
            room,
            slot,
            first,
            cursor,
            self.stop.subscribe(),
            key_stands,
            span,
        ));
        let events = match planned {
            Some(peer) => self.stream_under_plan(&id, viewer, req.from_seq, peer, events),
            None => events,
        };
        // Only here, on the owner: a relayed stream passes the owner's
        // heartbeats on, so their silence shows that the owner is gone.
        let every = self.streams.heartbeat_every();
        Ok(Response::new(Box::pin(with_heartbeats(
            events,
            every,
            (before(req.from_seq), 0),
        ))))
    }

    async fn get_state(
        &self,
        request: Request<pb::GetStateRequest>,
    ) -> std::result::Result<Response<pb::GetStateResponse>, Status> {
        let id = request.get_ref().game_id.clone();
        self.under_plan(Method::State, id, request, |r| self.get_state_here(r))
            .await
    }

    async fn export_replay(
        &self,
        request: Request<pb::ExportReplayRequest>,
    ) -> std::result::Result<Response<pb::Replay>, Status> {
        let id = request.get_ref().game_id.clone();
        self.under_plan(Method::Replay, id, request, |r| self.export_replay_here(r))
            .await
    }

    async fn get_replay_views(
        &self,
        request: Request<pb::GetReplayViewsRequest>,
    ) -> std::result::Result<Response<pb::GetReplayViewsResponse>, Status> {
        let id = request.get_ref().game_id.clone();
        self.under_plan(Method::ReplayViews, id, request, |r| {
            self.get_replay_views_here(r)
        })
        .await
    }

    async fn list_games(
        &self,
        request: Request<pb::ListGamesRequest>,
    ) -> std::result::Result<Response<pb::ListGamesResponse>, Status> {
        let caller = self.caller(&request)?;
        let request = self.refused(checked(request))?;
        self.refused(self.read_of_no_game(Read::List, &caller))?;
        let (rooms, req) = (Arc::clone(&self.rooms), request.into_inner());
        let shared = self.cluster.as_ref().map(|c| Arc::clone(c.leases()));
        let lobby = Arc::clone(&self.lobby);
        let tags = self.arena.match_tags();
        let page = self
            .off_the_workers(move || {
                crate::list_games::list(&rooms, shared.as_deref(), lobby.catalog(), &tags, &req)
            })
            .await?;
        Ok(Response::new(self.refused(page)?))
    }

    async fn list_game_types(
        &self,
        request: Request<pb::ListGameTypesRequest>,
    ) -> std::result::Result<Response<pb::ListGameTypesResponse>, Status> {
        let caller = self.caller(&request)?;
        self.refused(self.read_of_no_game(Read::One, &caller))?;
        Ok(Response::new(self.lobby.catalog().game_types()))
    }
}

/// The calls a fault plan may refuse, hold or lose ([`Service::under_plan`]).
impl Service {
    async fn resign_here(
        &self,
        request: Request<pb::ResignRequest>,
    ) -> std::result::Result<Response<pb::ResignResponse>, Status> {
        let caller = self.caller(&request)?;
        let request = self.refused(checked(request))?;
        let room = here_or_forward!(self, request, caller, resign);
        let seat = self.refused(self.seat(&room, &caller))?;
        let span = info_span!("resign", game_id = %room.id, seat = seat.0);
        let now = self.clock.now_ms();
        let resignation = self.refused(Resignation::parse(request.into_inner().into_inner()))?;
        let rate = self.limits.max_submits_per_second;
        self.refused(room.charge_submission(seat, rate, now))?;
        let (games, rooms) = (Arc::clone(&self.games), Arc::clone(&self.rooms));
        let reply = if games.queues_appends() {
            let blocking = self.blocking.clone();
            let resigning = async move {
                let answered = room
                    .resign_queued(seat, &resignation, games.as_ref(), now)
                    .instrument(span)
                    .await;
                settle_queued(&blocking, room, games, rooms, answered, now).await
            };
            self.blocking.awaiting(resigning).await?
        } else {
            self.off_the_workers(move || {
                let _enter = span.enter();
                let reply = room.resign(seat, &resignation, games.as_ref(), now);
                rooms.settle(&room);
                reply
            })
            .await?
        };
        Ok(Response::new(self.refused(reply)?))
    }

    async fn export_replay_here(
        &self,
        request: Request<pb::ExportReplayRequest>,
    ) -> std::result::Result<Response<pb::Replay>, Status> {
        let caller = self.caller(&request)?;
        let request = self.refused(checked(request))?;
        let room = here_or_forward!(self, request, caller, export_replay, read);
        self.refused(self.read(Read::One, &caller))?;
        Ok(Response::new(self.refused(self.replay_of(&room))?))
    }

    async fn get_replay_views_here(
        &self,
        request: Request<pb::GetReplayViewsRequest>,
    ) -> std::result::Result<Response<pb::GetReplayViewsResponse>, Status> {
        let caller = self.caller(&request)?;
        let request = self.refused(checked(request))?;
        let room = here_or_forward!(self, request, caller, get_replay_views, read);
        self.refused(self.read(Read::One, &caller))?;
        let req = request.into_inner().into_inner();
        let replay = self.refused(self.replay_of(&room))?;
        let page = self.refused(replay_page(&replay, &req))?;
        let summary = room.summary();
        let seed_chosen = room
            .view(druids_engine::Viewer::Spectator)
            .seed_chosen_by_creator;
        let views = self
            .off_the_workers(move || {
                druids_contract::replay::views(&replay, page.viewer, page.from, page.size)
                    .map(|views| (views, replay))
            })
            .await?;
        let (views, replay) = self.refused(views.map_err(|e| {
            ServiceError::Storage(StoreError::Corrupt(format!(
                "game {} does not replay: {e}",
                summary.game_id
            )))
        }))?;
        let last_version = replay.actions.len() as u64;
        let views = views
            .into_iter()
            .map(|v| pb::StateView {
                game_id: summary.game_id.clone(),
                kind: summary.kind,
                status: if v.version == last_version {
                    replay.status
                } else {
                    pb::GameStatus::Running as i32
                },
                version: v.version,
                last_seq: 0,
                seats: summary.seats.clone(),
                viewer_seat: req.seat,
                to_act: v.to_act,
                decision: v.decision,
                outcome: v.outcome,
                deadline_unix_ms: None,
                autopilot_seats: Vec::new(),
                seed_chosen_by_creator: seed_chosen,
                decision_description: v.decision_description,
                waiting_for_match: false,
                game: Some(v.game),
            })
            .collect();
        Ok(Response::new(pb::GetReplayViewsResponse {
            views,
            last_version,
        }))
    }

    async fn get_legal_actions_here(
        &self,
        request: Request<pb::GetLegalActionsRequest>,
    ) -> std::result::Result<Response<pb::GetLegalActionsResponse>, Status> {
        let caller = self.caller(&request)?;
        let request = self.refused(checked(request))?;
        let room = here_or_forward!(self, request, caller, get_legal_actions, read);
        let req = request.into_inner();
        let seat = self.refused(self.seat(&room, &caller))?;
        self.refused(self.read(Read::One, &caller))?;
        // The default list (one entry per target) is built in place, as the
        // in-memory store does, sparing each read a hop to the blocking pool
        // and back; every payment of every target can be a list of tens of
        // thousands, built off the workers when the store blocks.
        let listing = if req.all_payments {
            self.off_the_workers(move || room.legal_actions(seat, true))
                .await?
        } else {
            room.legal_actions(seat, false)
        };
        if listing.built {
            self.metrics.legal_lists.inc();
        }
        let page = crate::legal_pages::page(listing, seat.0 as u32, &req);
        Ok(Response::new(self.refused(page)?))
    }

    async fn submit_action_here(
        &self,
        request: Request<pb::SubmitActionRequest>,
    ) -> std::result::Result<Response<pb::SubmitActionResponse>, Status> {
        let started = std::time::Instant::now();
        let caller = self.caller(&request)?;
        let request = self.refused(checked(request))?;
        let room = here_or_forward!(self, request, caller, submit_action);
        let seat = self.refused(self.seat(&room, &caller))?;
        let kind = room.kind();
        let span = info_span!("submit_action", game_id = %room.id, seat = seat.0);
        // Kept to send on if this node turns out to have lost the game.
        let again = self.cluster.is_some().then(|| {
            Request::from_parts(
                request.metadata().clone(),
                Default::default(),
                (**request.get_ref()).clone(),
            )
        });
        let now = self.clock.now_ms();
        // The edge's policy: the request parsed and bounded, the seat's budget
        // charged; the room only plays what passed.
        let submission = self.refused(Submission::parse(request.into_inner().into_inner()))?;
        let rate = self.limits.max_submits_per_second;
        self.refused(room.charge_submission(seat, rate, now))?;
        let (games, rooms) = (Arc::clone(&self.games), Arc::clone(&self.rooms));
        let id = room.id.clone();
        // A duplicate match's decision at a position another game of the
        // match stands at undecided waits for that game's (`room::twins`).
        let held = self.refused(room.hold(seat, &submission, now))?;
        let making = Making {
            blocking: self.blocking.clone(),
            room,
            games,
            rooms,
            seat,
            span,
        };
        let reply = match held {
            Some(held) => {
                let clock = Arc::clone(&self.clock);
                let made = make_held(making, held, submission, clock);
                let late = ServiceError::HeldPastDeadline;
                self.blocking.awaiting_or(made, late).await??
            }
            // A queued append is awaited in a task of its own.
            None if self.games.queues_appends() => {
                self.blocking
                    .awaiting(make(making, submission, now))
                    .await??
            }
            None => make(making, submission, now).await?,
        };
        if let (Err(ServiceError::Storage(StoreError::Fenced { .. })), Some(again)) =
            (&reply, again)
        {
            // Another node took the game over: this room is stale. Nothing
            // was applied; the owner answers instead.
            self.rooms.retire(&id);
            if !caller.forwarded
                && let Located::There(addr) = self.locate(&id, &caller).await?
            {
                return self
                    .forward(&addr, &id, again, &caller, |mut peer, r| async move {
                        peer.submit_action(r).await
                    })
                    .await;
            }
        }
        let reply = self.refused(reply)?;
        self.metrics
            .actions
            .with_label_values(&[kind.label(), "seat"])
            .inc();
        self.metrics
            .submit_latency
            .observe(started.elapsed().as_secs_f64());
        Ok(Response::new(reply))
    }

    async fn get_state_here(
        &self,
        request: Request<pb::GetStateRequest>,
    ) -> std::result::Result<Response<pb::GetStateResponse>, Status> {
        let caller = self.caller(&request)?;
        let request = self.refused(checked(request))?;
        let room = here_or_forward!(self, request, caller, get_state, read);
        let viewer = self.refused(self.viewer(&room, &caller, false))?;
        self.refused(self.read(Read::One, &caller))?;
        Ok(Response::new(pb::GetStateResponse {
            state: Some(room.view(viewer)),
        }))
    }
}

/// Most views in one GetReplayViews page, and how many when unsaid.
const MAX_REPLAY_VIEWS: usize = 100;
const DEFAULT_REPLAY_VIEWS: usize = 20;

/// What a GetReplayViews request asks of a replay, checked against it.
struct ReplayPage {
    viewer: druids_engine::Viewer,
    from: u64,
    size: usize,
}

fn replay_page(
    replay: &pb::Replay,
    req: &pb::GetReplayViewsRequest,
) -> Result<ReplayPage, ServiceError> {
    let viewer = match req.seat {
        None => druids_engine::Viewer::Spectator,
        Some(seat) if seat < replay.players => {
            druids_engine::Viewer::Seat(druids_engine::Seat(seat as u8))
        }
        Some(seat) => {
            return Err(ServiceError::invalid(
                "seat",
                format!(
                    "seat {seat}: the game has seats 0 to {}",
                    replay.players - 1
                ),
            ));
        }
    };
    let last = replay.actions.len() as u64;
    if req.from_version > last {
        return Err(ServiceError::invalid(
            "from_version",
            format!(
                "from_version {} is beyond the game: its last version is {last}",
                req.from_version
            ),
        ));
    }
    Ok(ReplayPage {
        viewer,
        from: req.from_version,
        size: match req.page_size as usize {
            0 => DEFAULT_REPLAY_VIEWS,
            n => n.min(MAX_REPLAY_VIEWS),
        },
    })
}
