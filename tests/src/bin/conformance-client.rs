//! A small seat client for the proofs of `druids conformance`
//! (tests/tests/suite/conformance.rs): plays its seat as the contract asks,
//! except for the one duty `--break DUTY` names, which it breaks the way
//! real clients do. Each broken client must FAIL the scenario that grades
//! its duty and pass every other.
//!
//! It reads its seat from `DRUIDS_SERVER`, `DRUIDS_GAME_ID` and
//! `DRUIDS_TOKEN`, as `druids conformance` starts every client.

use std::time::Duration;

use druids_contract::pb;
use druids_contract::pb::druids_service_client::DruidsServiceClient;
use druids_contract::pb::game_event::Body;
use druids_tests::authed;
use tokio_stream::StreamExt;
use tonic::transport::Channel;
use tonic::{Code, Status};
use tonic_types::StatusExt;

/// The duty this client breaks.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Break {
    Nothing,
    /// Retries at once, whatever RetryInfo says.
    IgnoresRetryInfo,
    /// After a broken stream, subscribes again from the game's first event
    /// and acts on every old DecisionNeeded again (with fresh keys).
    RestartsFromStart,
    /// Retries a lost answer with a new idempotency key.
    NewKeyOnLostAnswer,
    /// Sends no idempotency key at all (so a retry of a lost answer is a
    /// second decision).
    NoKeys,
    /// Gives up when an answer is refused as STALE_VERSION.
    StaleIsFatal,
    /// Takes no notice that its decision timed out: sends the refused
    /// answer again, same key, a few times.
    IgnoresTimedOut,
    /// Exits when its event stream ends.
    NeverReconnects,
    /// Sends an action that is not listed at its 3rd decision.
    SendsIllegal,
    /// Resigns at its first decision, then follows the game to its end.
    Resigns,
    /// Resumes a broken stream five events after the last one it had (and
    /// reads the state to decide, so that the game goes on).
    SkipsOnResume,
    /// Stays running after the game ended, until killed.
    Lingers,
    /// From its 6th decision on (past the submits the plans count), after
    /// each of its actions, sends one while another seat is to act, until
    /// one is refused as NOT_YOUR_TURN (the other seat may have moved first).
    SendsOutOfTurn,
}

impl Break {
    fn parse(name: &str) -> Option<Break> {
        Some(match name {
            "nothing" => Break::Nothing,
            "ignores-retry-info" => Break::IgnoresRetryInfo,
            "restarts-from-start" => Break::RestartsFromStart,
            "new-key-on-lost-answer" => Break::NewKeyOnLostAnswer,
            "no-keys" => Break::NoKeys,
            "stale-is-fatal" => Break::StaleIsFatal,
            "ignores-timed-out" => Break::IgnoresTimedOut,
            "never-reconnects" => Break::NeverReconnects,
            "sends-illegal" => Break::SendsIllegal,
            "resigns" => Break::Resigns,
            "skips-on-resume" => Break::SkipsOnResume,
            "lingers" => Break::Lingers,
            "sends-out-of-turn" => Break::SendsOutOfTurn,
            _ => return None,
        })
    }
}

struct Seat {
    client: DruidsServiceClient<Channel>,
    game_id: String,
    token: String,
    seat: u32,
    broken: Break,
    decisions: u32,
    keys: u64,
    /// Reading the game again from its first event (RestartsFromStart).
    replaying: bool,
    /// An action sent out of turn was refused so (SendsOutOfTurn).
    sent_out_of_turn: bool,
}

/// Calls made again at most this often before the client gives up.
const TRIES: u32 = 200;

fn transient(s: &Status) -> bool {
    match s.code() {
        Code::Unavailable | Code::ResourceExhausted => true,
        // A broken connection (UNKNOWN), a call a GOAWAY did not process
        // (INTERNAL), or one hyper dropped unsent when its connection went
        // away (CANCELLED), as tonic reports them: the transport's error as
        // the source; a status the server sent has none.
        Code::Unknown | Code::Internal | Code::Cancelled => std::error::Error::source(s).is_some(),
        _ => false,
    }
}

impl Seat {
    /// How long to wait before making a call refused with `s` again.
    fn pause(&self, s: &Status) -> Duration {
        if self.broken == Break::IgnoresRetryInfo {
            return Duration::from_millis(1);
        }
        s.get_details_retry_info()
            .and_then(|r| r.retry_delay)
            .unwrap_or(Duration::from_millis(50))
    }

    fn key(&mut self, version: u64) -> String {
        if self.broken == Break::NoKeys {
            return String::new();
        }
        self.keys += 1;
        format!(
            "{}-{}-v{version}-{}",
            std::process::id(),
            self.seat,
            self.keys
        )
    }

    async fn state(&mut self) -> Result<pb::StateView, Status> {
        for _ in 0..TRIES {
            let req = authed(
                &self.token,
                pb::GetStateRequest {
                    game_id: self.game_id.clone(),
                },
            );
            match self.client.get_state(req).await {
                Ok(r) => return Ok(r.into_inner().state.unwrap_or_default()),
                Err(s) if transient(&s) => tokio::time::sleep(self.pause(&s)).await,
                Err(s) => return Err(s),
            }
        }
        Err(Status::unavailable("GetState kept failing"))
    }

    async fn legal(&mut self) -> Result<pb::GetLegalActionsResponse, Status> {
        for _ in 0..TRIES {
            let msg = pb::GetLegalActionsRequest {
                game_id: self.game_id.clone(),
                ..Default::default()
            };
            match self
                .client
                .get_legal_actions(authed(&self.token, msg))
                .await
            {
                Ok(r) => return Ok(r.into_inner()),
                Err(s) if transient(&s) => tokio::time::sleep(self.pause(&s)).await,
                Err(s) => return Err(s),
            }
        }
        Err(Status::unavailable("GetLegalActions kept failing"))
    }

    /// Acts on a DecisionNeeded (or a snapshot) at `event_version`.
    async fn decide(&mut self, event_version: u64) -> Result<(), Status> {
        if self.broken == Break::Resigns {
            let msg = pb::ResignRequest {
                game_id: self.game_id.clone(),
                idempotency_key: "resigns".into(),
            };
            return self
                .client
                .resign(authed(&self.token, msg))
                .await
                .map(|_| ());
        }
        let legal = self.legal().await?;
        // An old decision: a correct client lets it be; one that replays
        // the game from its start answers it again.
        let version = if self.replaying && event_version < legal.version {
            event_version
        } else if legal.actions.is_empty() {
            return Ok(());
        } else {
            legal.version
        };
        let n = legal.actions.len().max(1) as u64;
        let mut id = legal
            .actions
            .get(((version * 7 + u64::from(self.seat)) % n) as usize)
            .and_then(|a| a.id)
            .unwrap_or(0);
        self.decisions += 1;
        if self.broken == Break::SendsIllegal && self.decisions == 3 {
            id = legal.actions.iter().filter_map(|a| a.id).max().unwrap_or(0) + 1000;
        }
        let mut key = self.key(version);
        for _ in 0..TRIES {
            let msg = pb::SubmitActionRequest {
                game_id: self.game_id.clone(),
                choice: Some(pb::submit_action_request::Choice::LegalActionId(id)),
                expected_version: Some(version),
                idempotency_key: key.clone(),
            };
            let s = match self
                .client
                .submit_action(authed(&self.token, msg.clone()))
                .await
            {
                Ok(_) => return self.out_of_turn().await,
                Err(s) => s,
            };
            let reason = s
                .get_details_error_info()
                .map(|i| i.reason)
                .unwrap_or_default();
            match s.code() {
                c if transient(&s) => {
                    let lost = c == Code::Unavailable && reason.is_empty();
                    if lost && self.broken == Break::NewKeyOnLostAnswer {
                        key = self.key(version);
                    }
                    tokio::time::sleep(self.pause(&s)).await;
                }
                Code::Aborted => {
                    match self.broken {
                        Break::StaleIsFatal => {
                            eprintln!("giving up: {}", s.message());
                            std::process::exit(1);
                        }
                        Break::IgnoresTimedOut => {
                            for _ in 0..5 {
                                tokio::time::sleep(Duration::from_millis(20)).await;
                                let _ = self
                                    .client
                                    .submit_action(authed(&self.token, msg.clone()))
                                    .await;
                            }
                        }
                        _ => {}
                    }
                    // The game moved on: the stream says who decides next.
                    return Ok(());
                }
                Code::FailedPrecondition | Code::InvalidArgument
                    if reason == "ILLEGAL_ACTION" || s.code() == Code::InvalidArgument =>
                {
                    id = legal.actions.first().and_then(|a| a.id).unwrap_or(0);
                    key = self.key(version);
                }
                // Not (or no longer) this seat's turn, or the game is over.
                Code::FailedPrecondition => return Ok(()),
                _ => return Err(s),
            }
        }
        Err(Status::unavailable("SubmitAction kept failing"))
    }

    /// SendsOutOfTurn: an action while another seat is to act (when one
    /// is), until one was refused as out of turn.
    async fn out_of_turn(&mut self) -> Result<(), Status> {
        if self.broken != Break::SendsOutOfTurn || self.decisions < 6 || self.sent_out_of_turn {
            return Ok(());
        }
        let state = self.state().await?;
        if state.to_act.is_some_and(|s| s != self.seat) {
            let msg = pb::SubmitActionRequest {
                game_id: self.game_id.clone(),
                choice: Some(pb::submit_action_request::Choice::LegalActionId(0)),
                expected_version: Some(state.version),
                idempotency_key: self.key(state.version),
            };
            if let Err(s) = self.client.submit_action(authed(&self.token, msg)).await {
                self.sent_out_of_turn = s
                    .get_details_error_info()
                    .is_some_and(|i| i.reason == "NOT_YOUR_TURN");
            }
        }
        Ok(())
    }

    /// Follows the game and decides; returns when it is over.
    async fn play(&mut self) -> Result<(), Status> {
        let mut next = 0;
        let mut opened = 0;
        loop {
            let req = authed(
                &self.token,
                pb::StreamEventsRequest {
                    game_id: self.game_id.clone(),
                    from_seq: next,
                },
            );
            let mut stream = match self.client.stream_events(req).await {
                Ok(s) => s.into_inner(),
                Err(s) if transient(&s) && opened < TRIES => {
                    opened += 1;
                    tokio::time::sleep(self.pause(&s)).await;
                    continue;
                }
                Err(s) => return Err(s),
            };
            while let Some(Ok(e)) = stream.next().await {
                next = e.seq + 1;
                match e.body {
                    Some(Body::Snapshot(s))
                        if s.state.as_ref().and_then(|s| s.to_act) == Some(self.seat) =>
                    {
                        self.decide(e.version).await?
                    }
                    Some(Body::DecisionNeeded(d)) if d.seat == self.seat => {
                        self.decide(e.version).await?
                    }
                    Some(Body::GameFinished(_) | Body::GameAbandoned(_)) => return Ok(()),
                    _ => {}
                }
            }
            // The stream ended with the game going on.
            match self.broken {
                Break::NeverReconnects => {
                    eprintln!("the event stream ended");
                    return Ok(());
                }
                Break::RestartsFromStart => {
                    next = 1;
                    self.replaying = true;
                }
                Break::SkipsOnResume => next += 5,
                _ => {}
            }
            let state = self.state().await?;
            if state.status == pb::GameStatus::Finished as i32
                || state.status == pb::GameStatus::Abandoned as i32
            {
                return Ok(());
            }
            // What the skipped events would have asked of it.
            if self.broken == Break::SkipsOnResume && state.to_act == Some(self.seat) {
                self.decide(state.version).await?;
            }
            opened += 1;
            if opened > TRIES {
                return Err(Status::unavailable("the event stream keeps ending"));
            }
        }
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let args: Vec<String> = std::env::args().collect();
    let broken = match args.get(1..) {
        Some([flag, duty]) if flag == "--break" => Break::parse(duty),
        Some([]) => Some(Break::Nothing),
        _ => None,
    };
    let Some(broken) = broken else {
        eprintln!("usage: conformance-client [--break DUTY]");
        std::process::exit(2);
    };
    let env = |name: &str| std::env::var(name).unwrap_or_else(|_| panic!("{name} is not set"));
    let server = env("DRUIDS_SERVER");
    let client = DruidsServiceClient::connect(server)
        .await
        .expect("the server");
    let mut seat = Seat {
        client,
        game_id: env("DRUIDS_GAME_ID"),
        token: env("DRUIDS_TOKEN"),
        seat: 0,
        broken,
        decisions: 0,
        keys: 0,
        replaying: false,
        sent_out_of_turn: false,
    };
    let result = async {
        seat.seat = seat.state().await?.viewer_seat.unwrap_or_default();
        seat.play().await
    }
    .await;
    if let Err(s) = result {
        eprintln!("error: {:?}: {}", s.code(), s.message());
        std::process::exit(1);
    }
    if broken == Break::Lingers {
        // Until the runner kills it.
        std::future::pending::<()>().await;
    }
}
