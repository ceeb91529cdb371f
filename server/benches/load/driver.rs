//! A driver: one bot playing four-player Meduris games back to back
//! (GetLegalActions + SubmitAction per action, a spectator stream timing each
//! action's events), every step bounded so that a stall ends the bench.

use std::sync::Arc;
use std::time::{Duration, Instant};

use druids_contract::pb;
use druids_contract::pb::druids_service_client::DruidsServiceClient;
use tonic::Request;
use tonic::transport::Channel;

pub(crate) fn authed<T>(token: &str, m: T) -> Request<T> {
    let mut r = Request::new(m);
    r.metadata_mut()
        .insert("authorization", format!("Bearer {token}").parse().unwrap());
    r
}

/// How long one step of a game (an RPC, or waiting for an action's events)
/// may take before the bench stops with an error naming the game: a stalled
/// game must never pass for a slow run.
pub(crate) const STALL: Duration = Duration::from_secs(30);

/// Awaits `step`, or panics after [`STALL`] saying what was awaited.
pub(crate) async fn bounded<T>(
    step: impl std::future::Future<Output = T>,
    what: impl Fn() -> String,
) -> T {
    match tokio::time::timeout(STALL, step).await {
        Ok(v) => v,
        Err(_) => panic!("stalled for {} s: {}", STALL.as_secs(), what()),
    }
}

/// The next event of a game's stream; panics if the stream fails or ends.
pub(crate) async fn next_event(
    events: &mut tonic::Streaming<pb::GameEvent>,
    what: impl Fn() -> String,
) -> pb::GameEvent {
    match bounded(events.message(), &what).await {
        Ok(Some(e)) => e,
        Ok(None) => panic!("the stream ended while {}", what()),
        Err(s) => panic!("the stream failed ({s}) while {}", what()),
    }
}

/// A game being played by a driver.
pub(crate) struct Game {
    pub(crate) id: String,
    pub(crate) tokens: Vec<String>,
    pub(crate) events: tonic::Streaming<pb::GameEvent>,
    /// Who decides next (none: the game is over).
    pub(crate) to_act: Option<u32>,
}

/// The clients of a driver, one per node, and which one the next call goes
/// to: a node picked at random per call (always the same with one node).
pub(crate) struct Clients {
    pub(crate) nodes: Vec<DruidsServiceClient<Channel>>,
    pub(crate) rng: u64,
}

impl Clients {
    pub(crate) fn pick(&mut self) -> &mut DruidsServiceClient<Channel> {
        if self.nodes.len() > 1 {
            self.rng ^= self.rng << 13;
            self.rng ^= self.rng >> 7;
            self.rng ^= self.rng << 17;
        }
        let i = (self.rng % self.nodes.len() as u64) as usize;
        &mut self.nodes[i]
    }
}

/// Creates a 4-player Meduris game and opens its spectator stream (2 RPCs).
pub(crate) async fn new_game(clients: &mut Clients, seed: u64) -> Game {
    let created = bounded(
        clients.pick().create_game(pb::CreateGameRequest {
            kind: pb::GameKind::Meduris as i32,
            players: 4,
            seed: Some(seed),
            ..Default::default()
        }),
        || format!("creating the game of seed {seed}"),
    )
    .await
    .unwrap()
    .into_inner();
    let id = created.game_id;
    let tokens = created.seats.into_iter().map(|s| s.token).collect();
    let mut events = bounded(
        clients.pick().stream_events(pb::StreamEventsRequest {
            game_id: id.clone(),
            from_seq: 0,
        }),
        || format!("game {id}: opening its stream"),
    )
    .await
    .unwrap()
    .into_inner();
    // The stream opens with a snapshot of the game as it is when the server
    // gets to it, which may be after an action sent meanwhile: the events an
    // action's snapshot covers never come on the stream. So the driver acts
    // only once it has the snapshot (which says who decides); every later
    // decision then arrives as an event.
    let first = next_event(&mut events, || {
        format!("game {id}: waiting for its snapshot")
    })
    .await;
    let Some(pb::game_event::Body::Snapshot(snapshot)) = first.body else {
        panic!("game {id}: the stream did not open with a snapshot: {first:?}");
    };
    Game {
        to_act: snapshot.state.and_then(|s| s.to_act),
        id,
        tokens,
        events,
    }
}

/// What one driver measured.
#[derive(Default)]
pub(crate) struct Driven {
    pub(crate) rpcs: u64,
    pub(crate) submit_ms: Vec<f64>,
    pub(crate) event_ms: Vec<f64>,
}

/// Drives one game at a time: sets up the first one, waits for the start
/// (`go` carries the deadline), then plays until the deadline, starting a new
/// game whenever one ends (its CreateGame and StreamEvents count as RPCs).
pub(crate) async fn drive(
    chans: Vec<Channel>,
    seed: u64,
    ready: Arc<tokio::sync::Barrier>,
    mut go: tokio::sync::watch::Receiver<Option<Instant>>,
) -> Driven {
    let mut client = Clients {
        nodes: chans.into_iter().map(DruidsServiceClient::new).collect(),
        rng: seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1,
    };
    let mut out = Driven::default();
    let mut games = 0;
    let mut game = new_game(&mut client, seed * 1000).await;
    ready.wait().await;
    let deadline = go.wait_for(Option::is_some).await.unwrap().unwrap();
    let mut rng = seed | 1;
    while Instant::now() < deadline {
        if game.to_act.is_none() {
            games += 1;
            game = new_game(&mut client, seed * 1000 + games).await;
            out.rpcs += 2;
        }
        let id = &game.id;
        while let (Some(seat), true) = (game.to_act, Instant::now() < deadline) {
            let token = &game.tokens[seat as usize];
            let legal = bounded(
                client.pick().get_legal_actions(authed(
                    token,
                    pb::GetLegalActionsRequest {
                        game_id: id.clone(),
                        all_payments: false,
                        ..Default::default()
                    },
                )),
                || format!("game {id}: GetLegalActions for seat {seat}"),
            )
            .await
            .unwrap()
            .into_inner();
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            let pick = (rng % legal.actions.len() as u64) as u32;
            let t = Instant::now();
            let reply = bounded(
                client.pick().submit_action(authed(
                    token,
                    pb::SubmitActionRequest {
                        game_id: id.clone(),
                        choice: Some(pb::submit_action_request::Choice::LegalActionId(pick)),
                        expected_version: Some(legal.version),
                        idempotency_key: String::new(),
                    },
                )),
                || format!("game {id}: SubmitAction at version {}", legal.version),
            )
            .await
            .unwrap()
            .into_inner();
            out.submit_ms.push(t.elapsed().as_secs_f64() * 1e3);
            out.rpcs += 2;
            // Event delivery: until the spectator stream shows this version's
            // last event (who decides next, or the end).
            let waiting = || {
                format!(
                    "game {id}: waiting for the events of version {}",
                    reply.version
                )
            };
            game.to_act = loop {
                let e = next_event(&mut game.events, waiting).await;
                if e.version < reply.version {
                    continue;
                }
                match e.body {
                    Some(pb::game_event::Body::DecisionNeeded(d)) => break Some(d.seat),
                    Some(pb::game_event::Body::GameFinished(_)) => break None,
                    _ => {}
                }
            };
            out.event_ms.push(t.elapsed().as_secs_f64() * 1e3);
        }
    }
    out
}
