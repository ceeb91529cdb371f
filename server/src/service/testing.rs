//! `TestingService` (fault plans and ledgers, `--test-faults`), and the one
//! place where `DruidsService` calls meet a plan: [`Service::under_plan`]
//! counts a call, lets the plan refuse, hold or lose it, and writes it to
//! the ledger with its answer. A game without a plan never gets here.

use std::future::Future;
use std::sync::Arc;
use std::time::Instant;

use druids_contract::pb::{self, testing_service_server::TestingService};
use druids_engine::{Seat, Viewer};
use prost::Message;
use sha2::{Digest, Sha256};
use tokio::sync::{mpsc, watch};
use tokio_stream::StreamExt;
use tokio_stream::wrappers::ReceiverStream;
use tonic::{Request, Response, Status};
use tonic_types::StatusExt;

use super::{EventStream, Service, bearer};
use crate::auth::TokenHash;
use crate::error::ServiceError;
use crate::faults::{Cue, Method, Plan, StreamEnd};
use crate::stream::STREAM_BUFFER;

/// Most a test clock is advanced in one call (a day).
const MAX_ADVANCE_MS: u64 = 86_400_000;

/// What the ledger notes of a request or an answer besides its status.
pub(super) trait Noted {
    /// Writes this message's part of the ledger's line.
    fn note(&self, call: &mut pb::LedgerCall);
}

impl Noted for pb::SubmitActionRequest {
    fn note(&self, call: &mut pb::LedgerCall) {
        call.expected_version = self.expected_version;
        call.key_digest = key_digest(&self.idempotency_key);
    }
}

impl Noted for pb::SubmitActionResponse {
    fn note(&self, call: &mut pb::LedgerCall) {
        call.answered_version = Some(self.version);
    }
}

impl Noted for pb::GetLegalActionsRequest {
    fn note(&self, _: &mut pb::LedgerCall) {}
}

impl Noted for pb::GetLegalActionsResponse {
    fn note(&self, call: &mut pb::LedgerCall) {
        call.answered_version = Some(self.version);
        call.legal_actions = self.actions.len() as u32;
    }
}

impl Noted for pb::GetStateRequest {
    fn note(&self, _: &mut pb::LedgerCall) {}
}

impl Noted for pb::GetStateResponse {
    fn note(&self, call: &mut pb::LedgerCall) {
        call.answered_version = self.state.as_ref().map(|s| s.version);
    }
}

impl Noted for pb::ResignRequest {
    fn note(&self, call: &mut pb::LedgerCall) {
        call.key_digest = key_digest(&self.idempotency_key);
    }
}

impl Noted for pb::ResignResponse {
    fn note(&self, call: &mut pb::LedgerCall) {
        call.answered_version = Some(self.version);
    }
}

impl Noted for pb::ExportReplayRequest {
    fn note(&self, _: &mut pb::LedgerCall) {}
}

impl Noted for pb::Replay {
    fn note(&self, _: &mut pb::LedgerCall) {}
}

impl Noted for pb::GetReplayViewsRequest {
    fn note(&self, _: &mut pb::LedgerCall) {}
}

impl Noted for pb::GetReplayViewsResponse {
    fn note(&self, _: &mut pb::LedgerCall) {}
}

/// The ledger's digest of an idempotency key (empty without one): the
/// first 8 bytes of its SHA-256, in hex.
fn key_digest(key: &str) -> String {
    if key.is_empty() {
        return String::new();
    }
    let digest = Sha256::digest(key.as_bytes());
    digest[..8].iter().map(|b| format!("{b:02x}")).collect()
}

/// The status of an error answer, as the ledger names it.
fn noted_status(status: &Status, call: &mut pb::LedgerCall) {
    call.code = code_name(status.code());
    call.reason = status
        .get_details_error_info()
        .map(|i| i.reason)
        .unwrap_or_default();
    call.retry_after_ms = status
        .get_details_retry_info()
        .and_then(|r| r.retry_delay)
        .map(|d| d.as_millis() as u64);
}

fn code_name(code: tonic::Code) -> String {
    // The gRPC names (`UNAVAILABLE`), as clients' libraries print them.
    let debug = format!("{code:?}");
    let mut name = String::with_capacity(debug.len() + 4);
    for (i, c) in debug.chars().enumerate() {
        if c.is_uppercase() && i > 0 {
            name.push('_');
        }
        name.push(c.to_ascii_uppercase());
    }
    name
}

impl Service {
    /// The seat of the bearer of `request` in game `id`, if `id` has a plan
    /// and is in memory here (the game's room says whose token it is).
    fn planned_seat<T>(&self, id: &str, request: &Request<T>) -> Option<Option<Seat>> {
        if !self.faults.has_plan(id) {
            return None;
        }
        let room = self.rooms.in_memory(id).ok().flatten()?;
        let seat = bearer(request.metadata())
            .ok()
            .flatten()
            .and_then(|h| room.seat_of(&h));
        Some(seat)
    }

    /// The game's last seq and version, for the ledger.
    fn at(&self, id: &str) -> (u64, u64) {
        match self.rooms.in_memory(id).ok().flatten() {
            Some(room) => (room.last_seq(), room.version()),
            None => (0, 0),
        }
    }

    /// Runs `call` on `request` of game `id` under the game's fault plan, if
    /// it has one: the plan may refuse, hold or lose the call; the ledger
    /// records it with its answer.
    pub(super) async fn under_plan<Req, Res, F, Fut>(
        &self,
        method: Method,
        id: String,
        request: Request<Req>,
        call: F,
    ) -> Result<Response<Res>, Status>
    where
        Req: Noted,
        Res: Noted,
        F: FnOnce(Request<Req>) -> Fut,
        Fut: Future<Output = Result<Response<Res>, Status>>,
    {
        let Some(seat) = self.planned_seat(&id, &request) else {
            return call(request).await;
        };
        let started = Instant::now();
        let mut line = pb::LedgerCall {
            method: method.name().into(),
            peer: request
                .remote_addr()
                .map(|a| a.to_string())
                .unwrap_or_default(),
            ..Default::default()
        };
        request.get_ref().note(&mut line);
        let cue = self.faults.cue(&id, seat, method, self.at(&id));
        let (answer, lost) = match cue {
            Cue::Pass => (call(request).await, None),
            Cue::Refuse(e, fault) => {
                line.fault = fault;
                (Err(self.refusal(e)), None)
            }
            Cue::Hold(hold, fault) => {
                line.fault = Some(fault);
                tokio::time::sleep(hold).await;
                (call(request).await, None)
            }
            Cue::LoseAnswer(fault) => {
                line.fault = Some(fault);
                (call(request).await, Some(fault))
            }
        };
        let answer = match (answer, lost) {
            (Ok(response), Some(_)) => {
                // The call ran; its answer is lost as on a broken connection:
                // no ErrorInfo, as no server sent one.
                response.get_ref().note(&mut line);
                Err(Status::unavailable(
                    "the connection broke before the answer came (a fault of the game's test plan); the call may have been applied: retry it with the same idempotency key",
                ))
            }
            (answer, _) => answer,
        };
        match &answer {
            Ok(response) => {
                line.code = "OK".into();
                response.get_ref().note(&mut line);
            }
            Err(status) => noted_status(status, &mut line),
        }
        line.duration_ms = started.elapsed().as_millis() as u64;
        self.faults.record_call(&id, seat, self.at(&id), line);
        answer
    }

    /// Counts and records the opening of a stream of `viewer` under its
    /// game's plan, which may refuse it.
    pub(super) fn stream_opened(
        &self,
        room: &crate::room::Room,
        viewer: Viewer,
        from_seq: u64,
        peer: &str,
    ) -> Result<(), Status> {
        let at = (room.last_seq(), room.version());
        let seat = match viewer {
            Viewer::Seat(s) => Some(s),
            Viewer::Spectator => None,
        };
        let mut line = pb::LedgerCall {
            method: Method::Stream.name().into(),
            peer: peer.to_owned(),
            from_seq: Some(from_seq),
            code: "OK".into(),
            ..Default::default()
        };
        let cue = self.faults.cue(&room.id, seat, Method::Stream, at);
        let refused = match cue {
            Cue::Refuse(e, fault) => {
                line.fault = fault;
                let status = self.refusal(e);
                noted_status(&status, &mut line);
                Err(status)
            }
            _ => Ok(()),
        };
        self.faults.record_call(&room.id, seat, at, line);
        refused
    }

    /// `e` as an answer, counted as every refusal is.
    fn refusal(&self, e: ServiceError) -> Status {
        match self.refused::<()>(Err(e)) {
            Err(e) => e.into(),
            Ok(()) => unreachable!("an error stays an error"),
        }
    }

    /// The event stream of `viewer` on game `id`, under its plan: opening it
    /// may be refused, it may end after a seq, and its end is recorded.
    pub(super) fn stream_under_plan(
        self: &Service,
        id: &str,
        viewer: Viewer,
        from_seq: u64,
        peer: String,
        mut inner: EventStream,
    ) -> EventStream {
        let seat = match viewer {
            Viewer::Seat(s) => Some(s),
            Viewer::Spectator => None,
        };
        let end = seat.and_then(|s| self.faults.stream_end(id, s));
        let mut restarts = self.faults.restarts(id);
        let (tx, rx) = mpsc::channel(STREAM_BUFFER);
        let faults = Arc::clone(&self.faults);
        let rooms = Arc::clone(&self.rooms);
        let resets = self.faults.resets();
        let id = id.to_owned();
        tokio::spawn(async move {
            let mut last_sent = 0;
            let shutting_down = || -> Status { ServiceError::ShuttingDown.into() };
            let why = loop {
                let item = tokio::select! {
                    item = inner.next() => item,
                    () = tx.closed() => break "client left",
                    () = restarted(&mut restarts) => {
                        let _ = tx.send(Err(shutting_down())).await;
                        break "fault";
                    }
                };
                match item {
                    None => break "game over",
                    Some(Err(status)) => {
                        let _ = tx.send(Err(status)).await;
                        break "server stopping";
                    }
                    Some(Ok(event)) => {
                        let room = || rooms.in_memory(&id).ok().flatten();
                        let point = |after: bool| {
                            let (seat, (fault, at, how)) = (seat?, end?);
                            let room = room()?;
                            let words = match after {
                                false => at.before_sending(&event, &room, seat),
                                true => at.after_sending(&event, &room, seat),
                            }?;
                            Some((fault, words, seat, how))
                        };
                        let mut fired = point(false);
                        if fired.is_none() {
                            let seq = event.seq;
                            if tx.send(Ok(event.clone())).await.is_err() {
                                break "client left";
                            }
                            last_sent = seq;
                            fired = point(true);
                        }
                        if let Some((fault, words, seat, how)) = fired {
                            // Stamped with the game's seq and version, as
                            // every entry is (the words say the stream's).
                            let at = room().map_or((last_sent, 0), |r| (r.last_seq(), r.version()));
                            faults.stream_fault_fired(&id, (fault, &words), seat, at, how, &peer);
                            break end_stream(&tx, how, &peer, resets.as_deref()).await;
                        }
                    }
                }
            };
            let at = match rooms.in_memory(&id).ok().flatten() {
                Some(room) => (room.last_seq(), room.version()),
                None => (0, 0),
            };
            faults.record_stream_end(
                &id,
                seat,
                at,
                pb::LedgerStreamEnd {
                    peer,
                    from_seq,
                    last_sent_seq: last_sent,
                    why: why.into(),
                },
            );
        });
        Box::pin(ReceiverStream::new(rx))
    }

    /// The test key of a TestingService call (refused when the mode is off).
    fn test_key<T>(&self, request: &Request<T>) -> Result<TokenHash, Status> {
        self.refused(self.faults.check_enabled())?;
        self.refused(bearer(request.metadata()))?
            .ok_or_else(|| self.refusal(ServiceError::MissingToken))
    }

    /// A testing call's `game_id`, which it requires.
    fn test_game_id(&self, game_id: &str) -> Result<(), Status> {
        if game_id.is_empty() {
            return Err(self.refusal(ServiceError::invalid(
                "game_id",
                "game_id is required: the game CreateTestGame made",
            )));
        }
        Ok(())
    }
}

/// Completes at the game's next restart (never without a plan).
async fn restarted(restarts: &mut Option<watch::Receiver<u64>>) {
    let changed = match restarts {
        Some(r) => r.changed().await.is_ok(),
        None => false,
    };
    if !changed {
        std::future::pending::<()>().await;
    }
}

#[tonic::async_trait]
impl TestingService for Service {
    async fn create_test_game(
        &self,
        request: Request<pb::CreateTestGameRequest>,
    ) -> Result<Response<pb::CreateTestGameResponse>, Status> {
        self.refused(self.faults.check_enabled())?;
        let req = request.get_ref();
        let game = req.game.clone().unwrap_or_default();
        let plan = req.plan.clone().unwrap_or_default();
        // Checked before the game exists, so that a bad plan creates nothing.
        let players = match game.players {
            0 => usize::from(u8::MAX),
            n => n as usize,
        };
        self.refused(Plan::parse(&plan, players))?;
        let request_id = game.request_id.clone();
        let (metadata, extensions, _) = request.into_parts();
        let create = Request::from_parts(metadata, extensions, game);
        let created = self
            .create_game_by(create, Some(plan.encode_to_vec()))
            .await?;
        let players = created.state.as_ref().map_or(0, |s| s.seats.len());
        let plan = self.refused(Plan::parse(&plan, players))?;
        // A retry (the same request id, game and plan) gets the same key and
        // keeps the plan's ledger as it stands.
        let (key, hash) = self.lobby.test_key(&request_id, &created.game_id);
        self.faults.attach_new(&created.game_id, hash, plan);
        Ok(Response::new(pb::CreateTestGameResponse {
            game: Some(created),
            test_key: key,
        }))
    }

    async fn attach_fault_plan(
        &self,
        request: Request<pb::AttachFaultPlanRequest>,
    ) -> Result<Response<pb::AttachFaultPlanResponse>, Status> {
        let key = self.test_key(&request)?;
        let req = request.into_inner();
        self.test_game_id(&req.game_id)?;
        let room = self.rooms.in_memory(&req.game_id).ok().flatten();
        let players = room.as_ref().map_or(0, |r| r.summary().players as usize);
        let plan = self.refused(Plan::parse(&req.plan.unwrap_or_default(), players))?;
        self.refused(self.faults.replace(&req.game_id, &key, plan))?;
        Ok(Response::new(pb::AttachFaultPlanResponse {
            last_seq: room.map_or(0, |r| r.last_seq()),
        }))
    }

    async fn advance_clock(
        &self,
        request: Request<pb::AdvanceClockRequest>,
    ) -> Result<Response<pb::AdvanceClockResponse>, Status> {
        let key = self.test_key(&request)?;
        let req = request.into_inner();
        self.test_game_id(&req.game_id)?;
        self.refused(self.faults.check_key(&req.game_id, &key))?;
        if !(1..=MAX_ADVANCE_MS).contains(&req.by_ms) {
            return Err(self.refusal(ServiceError::invalid(
                "by_ms",
                format!("by_ms must be 1 to {MAX_ADVANCE_MS} (got {})", req.by_ms),
            )));
        }
        let room = self.refused(self.rooms.in_memory(&req.game_id))?;
        let Some(room) = room.filter(|r| r.has_clock()) else {
            return Err(self.refusal(ServiceError::invalid(
                "game_id",
                "the game has no turn clock (GameOptions.decision_ms) in play here",
            )));
        };
        let deadline = room.advance_clock(req.by_ms);
        let now = self.clock.now_ms();
        let mut timed_out = false;
        if deadline.is_some_and(|d| d <= now) {
            let (games, rooms, room) = (
                Arc::clone(&self.games),
                Arc::clone(&self.rooms),
                Arc::clone(&room),
            );
            let taken = self
                .off_the_workers(move || {
                    let taken = room.expire_one(games.as_ref(), now);
                    rooms.settle(&room);
                    taken
                })
                .await?;
            timed_out = self.refused(taken)?;
        }
        let deadline_unix_ms = room.advance_clock(0);
        Ok(Response::new(pb::AdvanceClockResponse {
            timed_out,
            deadline_unix_ms,
            last_seq: room.last_seq(),
        }))
    }

    async fn get_ledger(
        &self,
        request: Request<pb::GetLedgerRequest>,
    ) -> Result<Response<pb::GetLedgerResponse>, Status> {
        let key = self.test_key(&request)?;
        let req = request.into_inner();
        self.test_game_id(&req.game_id)?;
        let page = self
            .faults
            .ledger(&req.game_id, &key, req.from_index, req.page_size);
        Ok(Response::new(self.refused(page)?))
    }
}

/// Ends a stream at its fault, `how` the plan says; the ledger's `why`.
async fn end_stream(
    tx: &mpsc::Sender<Result<pb::GameEvent, Status>>,
    how: StreamEnd,
    peer: &str,
    resets: Option<&crate::resets::Resets>,
) -> &'static str {
    let shutting_down = || -> Status { ServiceError::ShuttingDown.into() };
    match how {
        StreamEnd::Clean => {}
        StreamEnd::Unavailable | StreamEnd::Restart(_) => {
            let _ = tx.send(Err(shutting_down())).await;
        }
        StreamEnd::Goaway => {
            if let (Some(resets), Ok(peer)) = (resets, peer.parse()) {
                resets.goaway(peer);
            }
            let _ = tx.send(Err(shutting_down())).await;
        }
        StreamEnd::GoawayUnprocessed => {
            if let (Some(resets), Ok(peer)) = (resets, peer.parse()) {
                // Let the connection take every event sent so far before
                // it stops: the GOAWAY follows the event of the fault.
                let _ = tx.reserve_many(tx.max_capacity()).await;
                if resets.goaway_unprocessed(peer) {
                    // The connection's end ends the stream.
                    tx.closed().await;
                    return "goaway";
                }
                // Over TLS: the graceful GOAWAY.
                resets.goaway(peer);
            }
            let _ = tx.send(Err(shutting_down())).await;
        }
        StreamEnd::Reset => {
            if let (Some(resets), Ok(peer)) = (resets, peer.parse())
                && resets.reset(peer)
            {
                // No status: the connection's end ends the stream.
                tx.closed().await;
                return "reset";
            }
        }
    }
    "fault"
}
