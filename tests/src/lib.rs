//! Helpers for the contract tests: a real `druids-server` on an ephemeral
//! loopback port, a client over TCP, and a random player that drives a game
//! through the contract only.

pub mod docs;
pub mod heartbeats;
pub mod install;
pub mod pg_relay;
pub mod postgres;
pub mod process;
pub mod raw;

use std::net::SocketAddr;
use std::sync::Arc;

use druids_contract::pb;
use druids_contract::pb::druids_service_client::DruidsServiceClient;
use druids_server::{Clock, Limits, ManualClock, MemoryStore, Service, Store, SystemClock, Tls};
use tokio::net::TcpListener;
use tokio::sync::oneshot;
use tonic::transport::Channel;
use tonic::{Request, Status};

/// A server running on its own port for one test; stopped when dropped.
pub struct TestServer {
    /// Where it listens.
    pub addr: SocketAddr,
    /// The service itself, for what a test does behind the contract's back
    /// (moving a manual clock's referee along).
    pub service: Arc<Service>,
    stop: Option<oneshot::Sender<()>>,
    task: Option<tokio::task::JoinHandle<()>>,
}

impl TestServer {
    /// Starts a server with in-memory storage and no rate limits (tests drive
    /// games from one address far faster than people do).
    pub async fn start() -> TestServer {
        TestServer::with(Arc::new(MemoryStore::default()), Limits::unthrottled()).await
    }

    /// Starts a server with the given store and limits.
    pub async fn with(store: Arc<dyn Store>, limits: Limits) -> TestServer {
        TestServer::with_clock(store, limits, Arc::new(SystemClock)).await
    }

    /// Starts a server telling time by `clock`, after rebuilding the store's games.
    pub async fn with_clock(
        store: Arc<dyn Store>,
        limits: Limits,
        clock: Arc<dyn Clock>,
    ) -> TestServer {
        TestServer::launch(store, limits, clock, None).await
    }

    /// Starts an unthrottled in-memory server whose time stands at `at_ms`
    /// until the returned clock is moved.
    pub async fn on_manual_clock(at_ms: u64) -> (TestServer, Arc<ManualClock>) {
        let clock = Arc::new(ManualClock::at(at_ms));
        let server = TestServer::with_clock(
            Arc::new(MemoryStore::default()),
            Limits::unthrottled(),
            clock.clone(),
        )
        .await;
        (server, clock)
    }

    /// Starts a server that speaks only TLS with the given identity.
    pub async fn with_tls(tls: Tls) -> TestServer {
        TestServer::launch(
            Arc::new(MemoryStore::default()),
            Limits::unthrottled(),
            Arc::new(SystemClock),
            Some(tls),
        )
        .await
    }

    async fn launch(
        store: Arc<dyn Store>,
        limits: Limits,
        clock: Arc<dyn Clock>,
        tls: Option<Tls>,
    ) -> TestServer {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let service = Arc::new(Service::new(store, limits, clock).expect("the store opens"));
        service.recover_all().expect("stored games rebuild");
        TestServer::serving(listener, service, tls)
    }

    /// Serves `service`, built by the caller (a node of a cluster, say), on
    /// `listener`.
    pub fn serving(listener: TcpListener, service: Arc<Service>, tls: Option<Tls>) -> TestServer {
        let addr = listener.local_addr().expect("addr");
        let (tx, rx) = oneshot::channel();
        let served = Arc::clone(&service);
        let task = tokio::spawn(async move {
            druids_server::serve_service(listener, served, tls, async {
                let _ = rx.await;
            })
            .await
            .expect("server");
        });
        TestServer {
            addr,
            service,
            stop: Some(tx),
            task: Some(task),
        }
    }

    /// The server's URL.
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// A new client connection.
    pub async fn client(&self) -> DruidsServiceClient<Channel> {
        DruidsServiceClient::connect(self.url())
            .await
            .expect("connect")
    }

    /// Stops the server and waits until it has shut down.
    pub async fn stop(mut self) {
        if let Some(tx) = self.stop.take() {
            let _ = tx.send(());
        }
        if let Some(task) = self.task.take() {
            task.await.expect("server task");
        }
    }
}

impl Drop for TestServer {
    fn drop(&mut self) {
        if let Some(tx) = self.stop.take() {
            let _ = tx.send(());
        }
    }
}

/// Starts the HTTP face of `server`'s service on an ephemeral port; returns its
/// base URL. It stops with the service.
pub async fn http_face(server: &TestServer) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("addr");
    let service = Arc::clone(&server.service);
    let stopped = service.stopped();
    tokio::spawn(async move {
        druids_server::http::serve_http(listener, service, stopped)
            .await
            .expect("HTTP face");
    });
    format!("http://{addr}")
}

/// `message` with `authorization: Bearer <token>`.
pub fn authed<T>(token: &str, message: T) -> Request<T> {
    let mut req = Request::new(message);
    req.metadata_mut().insert(
        "authorization",
        format!("Bearer {token}").parse().expect("ascii token"),
    );
    req
}

/// Creates a game with every seat claimed; returns its id and tokens by seat.
pub async fn create(
    client: &mut DruidsServiceClient<Channel>,
    kind: pb::GameKind,
    players: u32,
    seed: u64,
) -> (String, Vec<String>) {
    let reply = client
        .create_game(pb::CreateGameRequest {
            kind: kind as i32,
            players,
            seed: Some(seed),
            ..Default::default()
        })
        .await
        .expect("create")
        .into_inner();
    let tokens = reply.seats.into_iter().map(|s| s.token).collect();
    (reply.game_id, tokens)
}

/// A 2-player Meduris game whose seat 1 is left open (it waits for a
/// JoinGame): the reply, with seat 0's token.
pub async fn create_waiting(client: &mut DruidsServiceClient<Channel>) -> pb::CreateGameResponse {
    client
        .create_game(pb::CreateGameRequest {
            kind: pb::GameKind::Meduris as i32,
            players: 2,
            open_seats: vec![1],
            ..Default::default()
        })
        .await
        .expect("a game with an open seat")
        .into_inner()
}

/// Reads `events`, a game's stream, until `seat` is asked to decide at
/// version `from` or later (a snapshot naming it, or its DecisionNeeded).
/// Panics if the stream fails or ends first; bound it with a timeout.
pub async fn seat_asked(events: &mut tonic::Streaming<pb::GameEvent>, seat: u32, from: u64) {
    loop {
        let e = heartbeats::next_event(events)
            .await
            .expect("an event")
            .expect("the stream ended before the seat was asked");
        let to_act = match &e.body {
            Some(pb::game_event::Body::Snapshot(s)) => s.state.as_ref().and_then(|s| s.to_act),
            Some(pb::game_event::Body::DecisionNeeded(d)) => Some(d.seat),
            _ => None,
        };
        if to_act == Some(seat) && e.version >= from {
            return;
        }
    }
}

/// The state as the holder of `token` sees it (`None`: spectator).
pub async fn state(
    client: &mut DruidsServiceClient<Channel>,
    game_id: &str,
    token: Option<&str>,
) -> pb::StateView {
    let msg = pb::GetStateRequest {
        game_id: game_id.to_owned(),
    };
    let req = match token {
        Some(t) => authed(t, msg),
        None => Request::new(msg),
    };
    client
        .get_state(req)
        .await
        .expect("get_state")
        .into_inner()
        .state
        .expect("state")
}

/// The legal actions of the seat holding `token`.
pub async fn legal(
    client: &mut DruidsServiceClient<Channel>,
    game_id: &str,
    token: &str,
    all_payments: bool,
) -> Result<pb::GetLegalActionsResponse, Status> {
    let req = pb::GetLegalActionsRequest {
        game_id: game_id.to_owned(),
        all_payments,
        ..Default::default()
    };
    Ok(client
        .get_legal_actions(authed(token, req))
        .await?
        .into_inner())
}

/// Every event of a game from seq 1 to its end, as the holder of `token` (or
/// a spectator) sees them. Returns once the server closes the stream.
pub async fn all_events(
    client: &mut DruidsServiceClient<Channel>,
    game_id: &str,
    token: Option<&str>,
) -> Vec<pb::GameEvent> {
    let msg = pb::StreamEventsRequest {
        game_id: game_id.to_owned(),
        from_seq: 1,
    };
    let req = match token {
        Some(t) => authed(t, msg),
        None => Request::new(msg),
    };
    let mut stream = client
        .stream_events(req)
        .await
        .expect("stream")
        .into_inner();
    let mut out = Vec::new();
    while let Some(e) = tokio_stream::StreamExt::next(&mut stream).await {
        out.push(e.expect("event"));
    }
    out
}

/// Whether a failed call may be made again, as `docs/bot-protocol.md` tells
/// clients: the server was unavailable (`UNAVAILABLE`, a game moving between
/// nodes too) or the connection broke under the call (`CANCELLED`, or an
/// `UNKNOWN` or `INTERNAL` that tonic made from a transport error, which it
/// keeps as the status's source). An `INTERNAL` or `UNKNOWN` the server sent
/// has no source: it is a server bug, and the test fails on it.
pub fn retry_allowed(s: &Status) -> bool {
    match s.code() {
        tonic::Code::Unavailable | tonic::Code::Cancelled => true,
        tonic::Code::Unknown | tonic::Code::Internal => std::error::Error::source(s).is_some(),
        _ => false,
    }
}

/// How long to wait before retrying after `s` ([`retry_allowed`]): the
/// delay its `RetryInfo` asks for, as the README tells clients, else 100 ms.
pub fn retry_delay(s: &Status) -> std::time::Duration {
    use tonic_types::StatusExt;
    s.get_details_retry_info()
        .and_then(|r| r.retry_delay)
        .unwrap_or(std::time::Duration::from_millis(100))
}

/// A tiny deterministic RNG, so failures reproduce.
pub struct Lcg(pub u64);

impl Lcg {
    /// A number below `n`.
    pub fn below(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 33) as usize) % n
    }
}

/// A game of `kind` with `seed`, started and played `prefix` actions in
/// this process, by the choices [`play_random`] makes with `Lcg(seed)`: the
/// position a server reaches from the same calls.
pub fn played_here(
    kind: druids_contract::Kind,
    players: usize,
    seed: u64,
    prefix: usize,
) -> Box<dyn druids_server::hosted_game::HostedGame> {
    use pb::submit_action_request::Choice::LegalActionId;
    let mut game =
        druids_server::hosted_game::new_game(kind, players, seed, &Default::default()).unwrap();
    game.start();
    let mut rng = Lcg(seed);
    for _ in 0..prefix {
        let seat = game.to_act().expect("the game is not over");
        let n = game.legal_actions(false).len();
        game.apply(seat, &LegalActionId(rng.below(n) as u32), None)
            .unwrap();
    }
    game
}

/// Games `server` lists (`ListGames` without a filter).
pub async fn games_listed(server: &TestServer) -> usize {
    server
        .client()
        .await
        .list_games(pb::ListGamesRequest::default())
        .await
        .expect("ListGames")
        .into_inner()
        .games
        .len()
}

/// Plays `max_actions` random legal actions (or until the end), choosing by
/// legal-action id for whichever seat must decide. Returns actions applied.
pub async fn play_random(
    client: &mut DruidsServiceClient<Channel>,
    game_id: &str,
    tokens: &[String],
    rng: &mut Lcg,
    max_actions: usize,
) -> Result<usize, Status> {
    let mut n = 0;
    while n < max_actions {
        let st = state(client, game_id, None).await;
        let Some(seat) = st.to_act else {
            break;
        };
        let token = &tokens[seat as usize];
        let legal = legal(client, game_id, token, false).await?;
        assert!(
            !legal.actions.is_empty(),
            "the seat to act has no legal action"
        );
        let pick = rng.below(legal.actions.len()) as u32;
        client
            .submit_action(authed(
                token,
                pb::SubmitActionRequest {
                    game_id: game_id.to_owned(),
                    choice: Some(pb::submit_action_request::Choice::LegalActionId(pick)),
                    expected_version: Some(legal.version),
                    idempotency_key: format!("a{}", legal.version),
                },
            ))
            .await?;
        n += 1;
    }
    Ok(n)
}
