//! The `druids.v1.DruidsService` service: requests are validated here, at the edge,
//! then handed to the game's [`Room`]. No rule of any game is known here.

use std::pin::Pin;
use std::sync::Arc;

use dashmap::DashMap;
use druids::pb::{self, druids_service_server::DruidsService};
use druids_engine::{Seat, Viewer};
use tokio::sync::{mpsc, watch};
use tokio_stream::Stream;
use tokio_stream::wrappers::ReceiverStream;
use tonic::{Request, Response, Status};
use tracing::{Instrument, info, info_span};

use crate::auth::{self, TokenHash};
use crate::clock::{Clock, ClockRules, SeatClocks};
use crate::config::Limits;
use crate::error::ServiceError;
use crate::metrics::{Metrics, TimedStore};
use crate::room::{MAX_NAME_BYTES, Room, SeatSlot, Setup};
use crate::store::{GameRecord, Store};

/// Events read from the log per lock of a room, for a stream.
const STREAM_BATCH: usize = 128;
/// Events buffered per stream before the reader must catch up.
const STREAM_BUFFER: usize = 64;

/// The games of this server and what it needs to serve them.
pub struct Service {
    games: DashMap<String, Arc<Room>>,
    /// The games the referee looks at: with a turn clock, or any unfinished
    /// game when idle games expire.
    watched: DashMap<String, Arc<Room>>,
    /// Every live token hash, to tell a token of another game from a forged one.
    tokens: DashMap<TokenHash, String>,
    store: Arc<dyn Store>,
    limits: Limits,
    clock: Arc<dyn Clock>,
    stop: watch::Sender<bool>,
    metrics: Arc<Metrics>,
}

type Result<T> = std::result::Result<T, ServiceError>;

fn check_name(name: &str) -> Result<()> {
    if name.len() > MAX_NAME_BYTES {
        return Err(ServiceError::Invalid(format!(
            "name {name:?} is longer than {MAX_NAME_BYTES} bytes"
        )));
    }
    Ok(())
}

impl Service {
    /// A service over `store`, telling time by `clock`.
    pub fn new(store: Arc<dyn Store>, limits: Limits, clock: Arc<dyn Clock>) -> Service {
        let metrics = Arc::new(Metrics::new());
        let store: Arc<dyn Store> = Arc::new(TimedStore::new(store, Arc::clone(&metrics)));
        Service {
            metrics,
            games: DashMap::new(),
            watched: DashMap::new(),
            tokens: DashMap::new(),
            store,
            limits,
            clock,
            stop: watch::channel(false).0,
        }
    }

    /// Rebuilds every game of the store (at start-up).
    pub fn recover_all(&self) -> std::result::Result<usize, crate::ServeError> {
        let stored = self.store.load()?;
        let n = stored.len();
        let now = self.clock.now_ms();
        for game in stored {
            self.insert_room(crate::recover::recover(game, now)?);
        }
        Ok(n)
    }

    /// Completes once the server is shutting down.
    pub fn stopped(&self) -> impl std::future::Future<Output = ()> + Send + 'static {
        let mut rx = self.stop.subscribe();
        async move {
            let _ = rx.wait_for(|stop| *stop).await.map(|_| ());
        }
    }

    /// Ends every stream (the server is shutting down).
    pub fn shutdown(&self) {
        let _ = self.stop.send(true);
    }

    /// The server's metrics.
    pub fn metrics(&self) -> &Metrics {
        &self.metrics
    }

    /// How many games there are of each kind and status.
    pub fn census(&self) -> Vec<(pb::GameKind, pb::GameStatus, usize)> {
        let mut counts = std::collections::BTreeMap::new();
        for r in self.games.iter() {
            let state = r.value().lock();
            *counts
                .entry((state.game.kind() as i32, Room::status(&state) as i32))
                .or_insert(0) += 1;
        }
        counts
            .into_iter()
            .map(|((k, s), n)| {
                (
                    pb::GameKind::try_from(k).unwrap_or_default(),
                    pb::GameStatus::try_from(s).unwrap_or_default(),
                    n,
                )
            })
            .collect()
    }

    /// Counts a refused request.
    fn refused<T>(&self, result: Result<T>) -> Result<T> {
        if let Err(e) = &result {
            self.metrics
                .rejected
                .with_label_values(&[&format!("{:?}", e.code())])
                .inc();
        }
        result
    }

    /// The limits in force.
    pub fn limits(&self) -> &Limits {
        &self.limits
    }

    /// The clock the service tells time by.
    pub fn clock(&self) -> &dyn Clock {
        self.clock.as_ref()
    }

    /// Applies the turn clocks: decides for every seat whose time ran out or
    /// who is on autopilot. Returns the number of actions taken.
    pub fn expire_due(&self) -> usize {
        let now = self.clock.now_ms();
        // Only games with a clock, or all unfinished ones when idle games
        // expire, are watched; finished games leave the list here.
        let rooms: Vec<Arc<Room>> = self.watched.iter().map(|r| Arc::clone(r.value())).collect();
        let idle_ms = self.limits.idle_game_secs.saturating_mul(1000);
        let mut taken = 0;
        for room in rooms {
            match room.expire(self.store.as_ref(), now) {
                Ok(0) => {}
                Ok(n) => {
                    taken += n;
                    let kind = room.lock().game.kind();
                    self.metrics
                        .actions
                        .with_label_values(&[kind.as_str_name(), "server"])
                        .inc_by(n as u64);
                }
                Err(e) => tracing::warn!(game_id = %room.id, "cannot apply a timeout: {e}"),
            }
            match room.expire_idle(self.store.as_ref(), idle_ms, now) {
                Ok(true) => tracing::info!(game_id = %room.id, "idle game abandoned"),
                Ok(false) => {}
                Err(e) => tracing::warn!(game_id = %room.id, "cannot abandon an idle game: {e}"),
            }
            let state = room.lock();
            if state.game.is_over() || state.abandoned.is_some() {
                drop(state);
                self.watched.remove(&room.id);
            }
        }
        taken
    }

    /// Adds a recovered game.
    pub fn insert_room(&self, room: Room) {
        let watch = {
            let state = room.lock();
            for slot in state.seats.iter() {
                if let Some(t) = slot.token {
                    self.tokens.insert(t, room.id.clone());
                }
            }
            let live = !state.game.is_over() && state.abandoned.is_none();
            live && (state.clocks.is_some() || self.limits.idle_game_secs > 0)
        };
        let room = Arc::new(room);
        if watch {
            self.watched.insert(room.id.clone(), Arc::clone(&room));
        }
        self.games.insert(room.id.clone(), room);
    }

    fn room(&self, id: &str) -> Result<Arc<Room>> {
        if id.is_empty() {
            return Err(ServiceError::Invalid("game_id is required".into()));
        }
        self.games
            .get(id)
            .map(|r| Arc::clone(r.value()))
            .ok_or_else(|| ServiceError::GameNotFound(id.to_owned()))
    }

    /// The viewer behind the request's token: a seat of this game, or a
    /// spectator when there is no token (if `seat_required` is false).
    fn viewer<T>(&self, room: &Room, req: &Request<T>, seat_required: bool) -> Result<Viewer> {
        let Some(hash) = auth::bearer(req.metadata())? else {
            return if seat_required {
                Err(ServiceError::MissingToken)
            } else {
                Ok(Viewer::Spectator)
            };
        };
        if let Some(seat) = Room::seat_of(&room.lock(), &hash) {
            return Ok(Viewer::Seat(seat));
        }
        if self.tokens.contains_key(&hash) {
            Err(ServiceError::TokenOfOtherGame(room.id.clone()))
        } else {
            Err(ServiceError::UnknownToken(room.id.clone()))
        }
    }

    fn seat<T>(&self, room: &Room, req: &Request<T>) -> Result<Seat> {
        match self.viewer(room, req, true)? {
            Viewer::Seat(s) => Ok(s),
            Viewer::Spectator => Err(ServiceError::MissingToken),
        }
    }

    fn create(&self, req: pb::CreateGameRequest) -> Result<pb::CreateGameResponse> {
        if self.games.len() >= self.limits.max_games {
            return Err(ServiceError::Limit(format!(
                "this server holds at most {} games",
                self.limits.max_games
            )));
        }
        let players = req.players as usize;
        if !req.seat_names.is_empty() && req.seat_names.len() != players {
            return Err(ServiceError::Invalid(format!(
                "seat_names has {} names for {players} seats: give none or one per seat",
                req.seat_names.len()
            )));
        }
        for name in &req.seat_names {
            check_name(name)?;
        }
        let mut open = vec![false; players];
        for &s in &req.open_seats {
            match open.get_mut(s as usize) {
                Some(o) if !*o => *o = true,
                Some(_) => {
                    return Err(ServiceError::Invalid(format!(
                        "open_seats lists seat {s} twice"
                    )));
                }
                None => {
                    return Err(ServiceError::Invalid(format!(
                        "open_seats lists seat {s}, but the game has seats 0 to {}",
                        players.saturating_sub(1)
                    )));
                }
            }
        }
        let seed = req.seed.unwrap_or_else(rand::random);
        let options = req.options.unwrap_or_default();
        let game = druids::new_game(req.kind, players, seed, &options)?;
        let id = auth::new_game_id();
        let mut seats = Vec::with_capacity(players);
        let mut tokens = Vec::new();
        for (i, &is_open) in open.iter().enumerate() {
            let name = req.seat_names.get(i).cloned().unwrap_or_else(|| {
                if is_open {
                    String::new()
                } else {
                    format!("seat {i}")
                }
            });
            if is_open {
                seats.push(SeatSlot { name, token: None });
            } else {
                let (token, hash) = auth::new_token();
                tokens.push(pb::SeatToken {
                    seat: i as u32,
                    name: name.clone(),
                    token,
                });
                seats.push(SeatSlot {
                    name,
                    token: Some(hash),
                });
            }
        }
        let created = self.clock.now_ms();
        self.store
            .create_game(&GameRecord {
                id: id.clone(),
                kind: game.kind(),
                players,
                seed,
                options,
                created_unix_ms: created,
                seats: seats
                    .iter()
                    .enumerate()
                    .filter_map(|(i, s)| s.token.map(|t| (Seat(i as u8), s.name.clone(), t)))
                    .collect(),
            })
            .map_err(|e| ServiceError::Storage(e.0))?;
        let now = self.clock.now_ms();
        let clocks = ClockRules::of(&options).map(|r| SeatClocks::new(r, players));
        let setup = Setup {
            id: id.clone(),
            created_unix_ms: created,
            seed,
            options,
        };
        let room = Room::new(setup, game, seats, clocks, now);
        if open.iter().all(|o| !o) {
            Room::start(&mut room.lock(), now);
        }
        let state = room.view(&room.lock(), Viewer::Spectator);
        self.insert_room(room);
        info!(game_id = %id, kind = ?state.kind, players, seed, "game created");
        Ok(pb::CreateGameResponse {
            game_id: id,
            seats: tokens,
            state: Some(state),
        })
    }

    /// Runs `f`, which writes to the store, without stalling the other tasks of
    /// this async worker while a durable store waits for the disk: on the
    /// multi-threaded runtime the server runs on, the worker hands its other
    /// tasks over for the duration (`block_in_place`). Elsewhere (an in-memory
    /// store, or a single-threaded runtime in tests) `f` simply runs.
    fn off_the_workers<T>(&self, f: impl FnOnce() -> T) -> T {
        let multi_threaded = tokio::runtime::Handle::try_current()
            .is_ok_and(|h| h.runtime_flavor() == tokio::runtime::RuntimeFlavor::MultiThread);
        if self.store.is_durable() && multi_threaded {
            tokio::task::block_in_place(f)
        } else {
            f()
        }
    }

    fn join(&self, req: pb::JoinGameRequest) -> Result<pb::JoinGameResponse> {
        check_name(&req.name)?;
        let room = self.room(&req.game_id)?;
        let mut state = room.lock();
        if state.game.started() {
            return Err(ServiceError::Refused(format!(
                "game {} has no open seat: it has started",
                room.id
            )));
        }
        let players = state.seats.len();
        let seat = match req.seat {
            Some(s) if s as usize >= players => {
                return Err(ServiceError::Invalid(format!(
                    "seat {s} does not exist: the game has seats 0 to {}",
                    players - 1
                )));
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
        let name = if req.name.is_empty() {
            format!("seat {seat}")
        } else {
            req.name
        };
        let (token, hash) = auth::new_token();
        self.store
            .claim_seat(&room.id, Seat(seat as u8), &name, &hash)
            .map_err(|e| ServiceError::Storage(e.0))?;
        state.seats[seat] = SeatSlot {
            name: name.clone(),
            token: Some(hash),
        };
        state.game.seat_joined(Seat(seat as u8), &name);
        state.last_activity_ms = self.clock.now_ms();
        let started = state.seats.iter().all(|s| s.token.is_some());
        if started {
            Room::start(&mut state, self.clock.now_ms());
        }
        room.announce(&state);
        drop(state);
        self.tokens.insert(hash, room.id.clone());
        info!(game_id = %room.id, seat, started, "seat claimed");
        Ok(pb::JoinGameResponse {
            seat: Some(pb::SeatToken {
                seat: seat as u32,
                name,
                token,
            }),
            started,
        })
    }

    /// Streams open on all games.
    pub fn open_streams(&self) -> usize {
        self.games.iter().map(|r| r.value().lock().streams).sum()
    }

    fn open_stream(&self, room: &Room, viewer: Viewer) -> Result<()> {
        let mut state = room.lock();
        if state.streams >= self.limits.max_streams_per_game {
            return Err(ServiceError::Limit(format!(
                "at most {} streams may be open on one game",
                self.limits.max_streams_per_game
            )));
        }
        if let Viewer::Seat(seat) = viewer {
            if state.seat_streams[seat.index()] >= self.limits.max_streams_per_seat {
                return Err(ServiceError::Limit(format!(
                    "at most {} streams may be open for one seat",
                    self.limits.max_streams_per_seat
                )));
            }
            state.seat_streams[seat.index()] += 1;
        }
        state.streams += 1;
        Ok(())
    }
}

/// Closes a stream's slot on its game when the stream task ends.
struct StreamSlot(Arc<Room>, Viewer);

impl Drop for StreamSlot {
    fn drop(&mut self) {
        let mut state = self.0.lock();
        state.streams -= 1;
        if let Viewer::Seat(seat) = self.1 {
            state.seat_streams[seat.index()] -= 1;
        }
    }
}

/// The snapshot a stream opened with `from_seq` 0 starts with: the state when
/// `StreamEvents` is answered, so a client that acts as soon as the call returns
/// still receives the events of its action. Also the seq the stream goes on from.
fn snapshot(room: &Room, viewer: Viewer) -> (pb::GameEvent, u64) {
    let state = room.lock();
    let seq = state.game.last_seq();
    let event = pb::GameEvent {
        seq,
        version: state.game.version(),
        description: String::new(),
        body: Some(pb::game_event::Body::Snapshot(pb::Snapshot {
            state: Some(room.view(&state, viewer)),
        })),
    };
    (event, seq + 1)
}

/// Feeds one stream: `first` (a snapshot), if any, then the events from seq
/// `cursor` on — history, then live events — at the reader's pace.
async fn pump(
    room: Arc<Room>,
    viewer: Viewer,
    first: Option<pb::GameEvent>,
    mut cursor: u64,
    tx: mpsc::Sender<std::result::Result<pb::GameEvent, Status>>,
    mut shutdown: watch::Receiver<bool>,
) {
    let _slot = StreamSlot(Arc::clone(&room), viewer);
    let mut last = room.subscribe();
    if let Some(snapshot) = first
        && tx.send(Ok(snapshot)).await.is_err()
    {
        return;
    }
    let mut batch = Vec::with_capacity(STREAM_BATCH);
    loop {
        last.borrow_and_update();
        let (caught_up, over) = {
            let state = room.lock();
            cursor = state.game.events(cursor, STREAM_BATCH, viewer, &mut batch);
            state.stamp_deadlines(&mut batch);
            (
                cursor > state.game.last_seq(),
                state.game.is_over() || state.abandoned.is_some(),
            )
        };
        for event in batch.drain(..) {
            if tx.send(Ok(event)).await.is_err() {
                return;
            }
        }
        if caught_up {
            if over {
                return;
            }
            tokio::select! {
                changed = last.changed() => if changed.is_err() { return },
                // The client went away while the game was quiet: free the slot now.
                () = tx.closed() => return,
                () = stopped(&mut shutdown) => {
                    let _ = tx.send(Err(Status::unavailable("the server is shutting down"))).await;
                    return;
                }
            }
        }
    }
}

/// Completes once the server is shutting down.
async fn stopped(shutdown: &mut watch::Receiver<bool>) {
    let _ = shutdown.wait_for(|stop| *stop).await.map(|_| ());
}

/// The event stream of `StreamEvents`.
pub type EventStream =
    Pin<Box<dyn Stream<Item = std::result::Result<pb::GameEvent, Status>> + Send>>;

#[tonic::async_trait]
impl DruidsService for Service {
    async fn create_game(
        &self,
        request: Request<pb::CreateGameRequest>,
    ) -> std::result::Result<Response<pb::CreateGameResponse>, Status> {
        let req = request.into_inner();
        Ok(Response::new(
            self.refused(self.off_the_workers(|| self.create(req)))?,
        ))
    }

    async fn join_game(
        &self,
        request: Request<pb::JoinGameRequest>,
    ) -> std::result::Result<Response<pb::JoinGameResponse>, Status> {
        let req = request.into_inner();
        let span = info_span!("join_game", game_id = %req.game_id);
        let _enter = span.enter();
        Ok(Response::new(
            self.refused(self.off_the_workers(|| self.join(req)))?,
        ))
    }

    async fn get_legal_actions(
        &self,
        request: Request<pb::GetLegalActionsRequest>,
    ) -> std::result::Result<Response<pb::GetLegalActionsResponse>, Status> {
        let room = self.room(&request.get_ref().game_id)?;
        let seat = self.seat(&room, &request)?;
        let state = room.lock();
        let mine = state.game.to_act() == Some(seat);
        Ok(Response::new(pb::GetLegalActionsResponse {
            version: state.game.version(),
            seat: seat.0 as u32,
            decision: if mine { state.game.decision() } else { None },
            actions: if mine {
                state.game.legal_actions(request.get_ref().all_payments)
            } else {
                Vec::new()
            },
            deadline_unix_ms: if mine { state.deadline_ms() } else { None },
            next_page_token: String::new(),
        }))
    }

    async fn submit_action(
        &self,
        request: Request<pb::SubmitActionRequest>,
    ) -> std::result::Result<Response<pb::SubmitActionResponse>, Status> {
        let started = std::time::Instant::now();
        let room = self.refused(self.room(&request.get_ref().game_id))?;
        let seat = self.refused(self.seat(&room, &request))?;
        let kind = room.lock().game.kind();
        let span = info_span!("submit_action", game_id = %room.id, seat = seat.0);
        let req = request.into_inner();
        let now = self.clock.now_ms();
        let rate = self.limits.max_submits_per_second;
        let reply = if self.store.is_durable() {
            // The store blocks on the disk: keep it off the async workers.
            let store = Arc::clone(&self.store);
            tokio::task::spawn_blocking(move || {
                let _enter = span.enter();
                room.submit(seat, &req, store.as_ref(), now, rate)
            })
            .await
            .map_err(|e| Status::internal(format!("submission task failed: {e}")))?
        } else {
            let _enter = span.enter();
            room.submit(seat, &req, self.store.as_ref(), now, rate)
        };
        let reply = self.refused(reply)?;
        self.metrics
            .actions
            .with_label_values(&[kind.as_str_name(), "seat"])
            .inc();
        self.metrics
            .submit_latency
            .observe(started.elapsed().as_secs_f64());
        Ok(Response::new(reply))
    }

    type StreamEventsStream = EventStream;

    async fn stream_events(
        &self,
        request: Request<pb::StreamEventsRequest>,
    ) -> std::result::Result<Response<EventStream>, Status> {
        let room = self.room(&request.get_ref().game_id)?;
        let viewer = self.viewer(&room, &request, false)?;
        let from_seq = request.get_ref().from_seq;
        let last = room.lock().game.last_seq();
        if from_seq > last + 1 {
            return Err(ServiceError::Invalid(format!(
                "from_seq {from_seq} is beyond the log: the last event is {last}"
            ))
            .into());
        }
        self.open_stream(&room, viewer)?;
        let (first, cursor) = match from_seq {
            0 => {
                let (snapshot, cursor) = snapshot(&room, viewer);
                (Some(snapshot), cursor)
            }
            n => (None, n),
        };
        let (tx, rx) = mpsc::channel(STREAM_BUFFER);
        let span = info_span!("stream_events", game_id = %room.id, viewer = ?viewer);
        let shutdown = self.stop.subscribe();
        tokio::spawn(pump(room, viewer, first, cursor, tx, shutdown).instrument(span));
        Ok(Response::new(Box::pin(ReceiverStream::new(rx))))
    }

    async fn get_state(
        &self,
        request: Request<pb::GetStateRequest>,
    ) -> std::result::Result<Response<pb::GetStateResponse>, Status> {
        let room = self.room(&request.get_ref().game_id)?;
        let viewer = self.viewer(&room, &request, false)?;
        let state = room.view(&room.lock(), viewer);
        Ok(Response::new(pb::GetStateResponse { state: Some(state) }))
    }

    async fn export_replay(
        &self,
        request: Request<pb::ExportReplayRequest>,
    ) -> std::result::Result<Response<pb::Replay>, Status> {
        let room = self.room(&request.get_ref().game_id)?;
        let replay = room.replay(&room.lock())?;
        Ok(Response::new(replay))
    }

    async fn list_games(
        &self,
        request: Request<pb::ListGamesRequest>,
    ) -> std::result::Result<Response<pb::ListGamesResponse>, Status> {
        let req = request.into_inner();
        let limit = match req.page_size {
            0 => 1000,
            n => n.min(1000) as usize,
        };
        let mut games: Vec<pb::GameSummary> = self
            .games
            .iter()
            .map(|r| {
                let room = r.value();
                room.summary(&room.lock())
            })
            .filter(|g| {
                (req.kind == 0 || g.kind == req.kind) && (req.status == 0 || g.status == req.status)
            })
            .collect();
        games.sort_by(|a, b| {
            b.created_unix_ms
                .cmp(&a.created_unix_ms)
                .then(a.game_id.cmp(&b.game_id))
        });
        games.truncate(limit);
        Ok(Response::new(pb::ListGamesResponse {
            games,
            next_page_token: String::new(),
        }))
    }
}
