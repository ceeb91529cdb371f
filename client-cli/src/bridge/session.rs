//! One seat played by a program: the bridge's state and its main loop. It
//! follows the game's event stream (resuming a broken stream by seq), reads
//! the seat's pending decision and asks the program, restarts a program that
//! dies, and tells it how the game ended. What the program answers is
//! handled in [`super::answers`].

use std::collections::VecDeque;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use druids_contract::pb;
use druids_contract::pb::game_event::Body;
use tokio::sync::mpsc;
use tokio::time::Instant;
use tokio_stream::StreamExt;
use tonic::{Code, Status};

use super::child::{self, Child, Output, OutputKind, SpawnError};
use super::protocol::{self, BotLine};
use crate::connect::{CliError, Client, ServerAddr, authed};
use crate::render::time::now_ms;
use crate::retry::{asked_delay, code_name, patiently, transient};

/// Consecutive failures of the event stream, or of one call, before the
/// bridge gives up on the server.
const RECONNECTS: u32 = 20;

/// First delay before restarting a bot; doubled after each failure in a row.
pub(super) const RESTART_BASE: Duration = Duration::from_millis(100);

/// Log lines (`#`) passed through between two decisions; more are dropped
/// and counted.
pub(super) const MAX_LOG_LINES: u32 = 200;

/// Unsolicited lines reported one by one between two decisions; more are
/// dropped silently and counted in one warning.
pub(super) const REPORTED_UNSOLICITED: u32 = 3;

/// How long a bot has to exit after `game_end`.
const GOODBYE: Duration = Duration::from_secs(2);

/// What to run and which seat it plays.
pub struct Options {
    /// The bot's command line (`--exec`).
    pub exec: String,
    /// The game.
    pub game_id: String,
    /// The seat's token.
    pub token: String,
}

/// What the bridge reports when the game ends.
#[derive(Debug, Default)]
pub struct Summary {
    /// The seat played.
    pub seat: u32,
    /// Actions the bot chose that the server applied.
    pub actions: u64,
    /// The outcome (unset when the game was abandoned).
    pub outcome: Option<pb::Outcome>,
    /// Times the bot was restarted.
    pub restarts: u32,
}

/// Why the bridge stopped before the game ended.
#[derive(Debug, thiserror::Error)]
pub enum BridgeError {
    /// Talking to the server failed.
    #[error(transparent)]
    Cli(#[from] CliError),
    /// The bot could not be started at all.
    #[error(transparent)]
    Spawn(#[from] SpawnError),
    /// The token is a spectator's.
    #[error("this token is not a seat token")]
    NotASeat,
    /// The bot kept failing.
    #[error(
        "the bot failed {0} times in a row without a valid answer; giving up (the seat's clock plays on)"
    )]
    GaveUp(u32),
}

impl From<Status> for BridgeError {
    fn from(s: Status) -> Self {
        BridgeError::Cli(CliError::Status(s))
    }
}

impl From<BridgeError> for CliError {
    fn from(e: BridgeError) -> Self {
        match e {
            BridgeError::Cli(c) => c,
            BridgeError::Spawn(_) | BridgeError::NotASeat => CliError::Usage(e.to_string()),
            BridgeError::GaveUp(_) => CliError::Io(std::io::Error::other(e.to_string())),
        }
    }
}

/// Plays the seat of `opts.token` with the bot `opts.exec` until the game
/// ends, printing nothing on stdout (the arena's ladder plays its games so).
pub async fn run_game(server: &ServerAddr, opts: Options) -> Result<Summary, CliError> {
    Ok(run(server, opts).await?)
}

/// Plays the seat of `opts.token` with the bot `opts.exec` until the game ends.
async fn run(server: &ServerAddr, opts: Options) -> Result<Summary, BridgeError> {
    let argv = child::split_command(&opts.exec)?;
    // The token goes into every request's metadata: check it once, here.
    authed(Some(&opts.token), ())?;
    let (out_tx, out_rx) = mpsc::channel(child::STDOUT_QUEUE);
    let mut bridge = Bridge {
        client: crate::connect::connect(server).await?,
        game_id: opts.game_id,
        token: opts.token,
        seat: 0,
        argv,
        run_id: run_id(),
        out_tx,
        child: None,
        generation: 0,
        failures: 0,
        restart_at: None,
        outstanding: VecDeque::new(),
        pending: None,
        taken: None,
        window: Window::default(),
        submissions: 0,
        summary: Summary::default(),
    };
    let state = bridge.state().await?;
    bridge.seat = state.viewer_seat.ok_or(BridgeError::NotASeat)?;
    bridge.summary.seat = bridge.seat;
    // The first start must work: a wrong command line is the user's mistake.
    let child = Child::spawn(&bridge.argv, 0, bridge.out_tx.clone(), bridge.label())?;
    bridge.child = Some(child);
    bridge.greet(&state);
    bridge.serve(out_rx).await
}

/// A distinct prefix for this bridge's idempotency keys, so that a second
/// bridge on the same seat (after a crash of the first) never reuses a key
/// for a different action.
fn run_id() -> String {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    format!("{:x}-{:x}", std::process::id(), nanos)
}

/// The seat's decision the bridge is working on.
pub(super) struct Pending {
    pub(super) version: u64,
    pub(super) decision: Option<pb::Decision>,
    pub(super) actions: Vec<pb::LegalAction>,
    pub(super) state: pb::StateView,
    pub(super) deadline_unix_ms: Option<u64>,
    /// Times the decision was sent to a bot.
    pub(super) attempts: u32,
    /// Unusable answers to it from the current bot.
    pub(super) bad_answers: u32,
}

/// What the bot did since the last decision was sent, for flood control.
#[derive(Default)]
pub(super) struct Window {
    pub(super) logs: u32,
    pub(super) unsolicited: u32,
}

/// How the game ended.
pub(super) enum End {
    Finished(Option<pb::Outcome>),
    Abandoned(String),
}

/// Whether an action is in the full legal list (all payments).
pub(super) enum FullList {
    Legal,
    Illegal,
    /// The game moved on while the list was read.
    Moved,
}

pub(super) struct Bridge {
    pub(super) client: Client,
    pub(super) game_id: String,
    pub(super) token: String,
    pub(super) seat: u32,
    pub(super) argv: Vec<String>,
    pub(super) run_id: String,
    pub(super) out_tx: mpsc::Sender<Output>,
    /// The running bot, if any.
    pub(super) child: Option<Child>,
    /// Generation of the newest bot (0 for the first).
    pub(super) generation: u32,
    /// Bot failures since its last valid answer.
    pub(super) failures: u32,
    /// When the next bot starts, while there is none.
    pub(super) restart_at: Option<Instant>,
    /// Versions of the decisions sent to the current bot and not yet
    /// answered, oldest first: a bot answers its messages in order, one line
    /// each, so its next answer line belongs to the front one.
    pub(super) outstanding: VecDeque<u64>,
    /// The decision being worked on.
    pub(super) pending: Option<Pending>,
    /// The newest version taken up as a decision of this seat: events that
    /// announce it again (the re-sent DecisionNeeded after a snapshot, a
    /// resumed stream) are not asked twice.
    pub(super) taken: Option<u64>,
    pub(super) window: Window,
    /// Submissions made, for distinct idempotency keys.
    pub(super) submissions: u64,
    pub(super) summary: Summary,
}

/// `msg` with the seat's `token`.
pub(super) fn request<T>(token: &str, msg: T) -> tonic::Request<T> {
    authed(Some(token), msg).expect("the token was checked when the bridge started")
}

impl Bridge {
    pub(super) fn label(&self) -> String {
        format!("[bot seat {}]", self.seat)
    }

    pub(super) async fn state(&self) -> Result<pb::StateView, BridgeError> {
        let req = pb::GetStateRequest {
            game_id: self.game_id.clone(),
        };
        let token = &self.token;
        let reply = patiently("bridge", || {
            let mut c = self.client.clone();
            let req = request(token, req.clone());
            async move { c.get_state(req).await }
        })
        .await?;
        Ok(reply.state.unwrap_or_default())
    }

    /// Every page of the seat's legal actions (`all` payments or the default
    /// list); `None` when the version changed between pages.
    pub(super) async fn legal(
        &self,
        all: bool,
    ) -> Result<Option<pb::GetLegalActionsResponse>, BridgeError> {
        let mut whole: Option<pb::GetLegalActionsResponse> = None;
        let mut page_token = String::new();
        loop {
            let req = pb::GetLegalActionsRequest {
                game_id: self.game_id.clone(),
                all_payments: all,
                page_size: 0,
                page_token: page_token.clone(),
            };
            let token = &self.token;
            let page = patiently("bridge", || {
                let mut c = self.client.clone();
                let req = request(token, req.clone());
                async move { c.get_legal_actions(req).await }
            })
            .await;
            let page = match page {
                Ok(p) => p,
                // The game is over or moved on: nothing to decide.
                Err(s) if matches!(s.code(), Code::FailedPrecondition | Code::Aborted) => {
                    return Ok(None);
                }
                Err(s) => return Err(s.into()),
            };
            page_token = page.next_page_token.clone();
            match &mut whole {
                None => whole = Some(page),
                Some(w) if w.version == page.version => w.actions.extend(page.actions),
                Some(_) => return Ok(None),
            }
            if page_token.is_empty() {
                return Ok(whole);
            }
        }
    }

    /// Sends `msg` to the current bot; false if it could not take it.
    pub(super) fn tell(&mut self, msg: &serde_json::Value) -> bool {
        let Some(child) = &self.child else {
            return false;
        };
        match child.send(&msg.to_string()) {
            Ok(()) => true,
            Err(e) => {
                eprintln!("bridge: message to the bot dropped: {e}");
                false
            }
        }
    }

    /// The `start` message to a new bot, then the pending decision if any.
    pub(super) fn greet(&mut self, state: &pb::StateView) {
        let msg = protocol::start(&protocol::Start {
            game_id: &self.game_id,
            seat: self.seat,
            restarts: self.summary.restarts,
            state,
        });
        self.tell(&msg);
        if let Some(p) = &mut self.pending {
            p.bad_answers = 0;
            self.ask();
        }
    }

    /// The main loop: events from the server, lines from the bot, restarts.
    async fn serve(mut self, mut out_rx: mpsc::Receiver<Output>) -> Result<Summary, BridgeError> {
        let mut stream: Option<tonic::Streaming<pb::GameEvent>> = None;
        let mut next_seq = 0u64;
        let mut stream_failures = 0u32;
        let mut reopen_at = Instant::now();
        loop {
            if stream.is_none() && Instant::now() >= reopen_at {
                let req = request(
                    &self.token,
                    pb::StreamEventsRequest {
                        game_id: self.game_id.clone(),
                        from_seq: next_seq,
                    },
                );
                match self.client.stream_events(req).await {
                    Ok(s) => stream = Some(s.into_inner()),
                    Err(s) if transient(&s) && stream_failures < RECONNECTS => {
                        eprintln!(
                            "bridge: cannot open the event stream ({}: {}); retrying",
                            code_name(s.code()),
                            s.message()
                        );
                        stream_failures += 1;
                        // As long as the server asks (RetryInfo), else a growing pause.
                        let pause = asked_delay(&s).unwrap_or(RESTART_BASE * stream_failures);
                        reopen_at = Instant::now() + pause;
                    }
                    Err(s) => return Err(s.into()),
                }
            }
            let restart_at = self.restart_at;
            tokio::select! {
                event = async {
                    match stream.as_mut() {
                        Some(s) => s.next().await,
                        None => std::future::pending().await,
                    }
                }, if stream.is_some() => match event {
                    Some(Ok(e)) => {
                        stream_failures = 0;
                        next_seq = next_seq.max(e.seq + 1);
                        if let Some(end) = self.on_event(e).await? {
                            return Ok(self.finish(end, out_rx).await);
                        }
                    }
                    other => {
                        // A broken stream (or one the server closed while
                        // shutting down): resume after the last event seen.
                        stream = None;
                        stream_failures += 1;
                        if stream_failures > RECONNECTS {
                            return Err(match other {
                                Some(Err(s)) => s.into(),
                                _ => Status::unavailable("the event stream keeps ending").into(),
                            });
                        }
                        let why = match other {
                            Some(Err(s)) => s.message().to_owned(),
                            _ => "closed".to_owned(),
                        };
                        eprintln!("bridge: event stream interrupted ({why}); resuming from #{next_seq}");
                        reopen_at = Instant::now() + RESTART_BASE * stream_failures;
                    }
                },
                _ = tokio::time::sleep_until(reopen_at), if stream.is_none() => {}
                out = out_rx.recv() => {
                    // The bridge holds a sender itself, so the channel never closes.
                    if let Some(out) = out {
                        self.on_output(out).await?;
                    }
                }
                _ = tokio::time::sleep_until(restart_at.unwrap_or_else(Instant::now)),
                    if restart_at.is_some() => self.restart().await?,
            }
        }
    }

    /// Handles one event; `Some` when the game has ended.
    async fn on_event(&mut self, e: pb::GameEvent) -> Result<Option<End>, BridgeError> {
        match e.body {
            Some(Body::Snapshot(s)) => {
                let state = s.state.unwrap_or_default();
                match pb::GameStatus::try_from(state.status) {
                    Ok(pb::GameStatus::Finished) => return Ok(Some(End::Finished(state.outcome))),
                    Ok(pb::GameStatus::Abandoned) => {
                        return Ok(Some(End::Abandoned("the game was abandoned".into())));
                    }
                    _ => {}
                }
                if state.to_act == Some(self.seat) {
                    self.consider(e.version).await?;
                }
            }
            Some(Body::DecisionNeeded(d)) if d.seat == self.seat => {
                self.consider(e.version).await?;
            }
            Some(Body::TimedOut(t)) if t.seat == self.seat => {
                // Every action adds one to the version: the clock decided
                // the decision of the version before this event's.
                let decided = e.version.saturating_sub(1);
                if self.pending.as_ref().is_some_and(|p| p.version <= decided) {
                    self.pending = None;
                }
                let who = if t.autopilot {
                    "the autopilot"
                } else {
                    "the turn clock (the bot did not answer in time)"
                };
                let what = if e.description.is_empty() {
                    String::new()
                } else {
                    format!(": {}", e.description)
                };
                eprintln!(
                    "bridge: {who} decided for seat {} at version {decided}{what}",
                    self.seat
                );
                self.tell(&protocol::timed_out(&self.game_id, decided, &t));
            }
            Some(Body::AutopilotChanged(a)) if a.seat == self.seat => {
                eprintln!(
                    "bridge: autopilot {} for seat {}",
                    if a.on { "on" } else { "off" },
                    self.seat
                );
                self.tell(&protocol::autopilot(&self.game_id, a.on));
            }
            Some(Body::GameFinished(f)) => return Ok(Some(End::Finished(f.outcome))),
            Some(Body::GameAbandoned(a)) => return Ok(Some(End::Abandoned(a.reason))),
            // The server is alive: nothing for the bot (docs/bot-protocol.md).
            Some(Body::Heartbeat(_)) => {}
            _ => {}
        }
        Ok(None)
    }

    /// An event says this seat must decide at `version`: take it up unless
    /// it already was.
    async fn consider(&mut self, version: u64) -> Result<(), BridgeError> {
        if self.taken.is_some_and(|t| version <= t) {
            return Ok(());
        }
        self.refresh().await
    }

    /// Reads the seat's pending decision from the server and asks the bot,
    /// if there is one not taken up yet.
    pub(super) async fn refresh(&mut self) -> Result<(), BridgeError> {
        // The legal actions and the state are two calls: if the game moves
        // between them (a clock ran out), read again.
        for _ in 0..3 {
            let Some(legal) = self.legal(false).await? else {
                continue;
            };
            if legal.actions.is_empty() || self.taken.is_some_and(|t| legal.version <= t) {
                return Ok(()); // Not (or no longer, or already) this seat's.
            }
            let state = self.state().await?;
            if state.version != legal.version {
                continue;
            }
            self.taken = Some(legal.version);
            self.pending = Some(Pending {
                version: legal.version,
                decision: legal.decision,
                actions: legal.actions,
                state,
                deadline_unix_ms: legal.deadline_unix_ms,
                attempts: 0,
                bad_answers: 0,
            });
            self.ask();
            return Ok(());
        }
        Ok(())
    }

    /// Sends the pending decision to the bot (if one is running; a new bot is
    /// asked when it starts).
    pub(super) fn ask(&mut self) {
        if self.child.is_none() {
            return;
        }
        let Some(p) = &mut self.pending else {
            return;
        };
        p.attempts += 1;
        let msg = protocol::decision(&protocol::Ask {
            game_id: &self.game_id,
            seat: self.seat,
            version: p.version,
            decision: p.decision.as_ref(),
            actions: &p.actions,
            state: &p.state,
            deadline_unix_ms: p.deadline_unix_ms,
            time_left_ms: p.deadline_unix_ms.map(|d| d.saturating_sub(now_ms())),
            attempt: p.attempts,
        });
        let version = p.version;
        let w = std::mem::take(&mut self.window);
        let over = w.logs.saturating_sub(MAX_LOG_LINES);
        if over > 0 {
            eprintln!(
                "bridge: dropped {over} log lines of the bot over the limit of {MAX_LOG_LINES} per decision"
            );
        }
        if w.unsolicited > REPORTED_UNSOLICITED {
            eprintln!(
                "bridge: dropped {} lines of the bot that answered no pending question since its last decision",
                w.unsolicited
            );
        }
        if self.tell(&msg) {
            self.outstanding.push_back(version);
        }
    }

    /// Handles what the bot printed (or its exit).
    /// The game is over: tell the bot, give it a moment to exit, and end.
    async fn finish(mut self, end: End, mut out_rx: mpsc::Receiver<Output>) -> Summary {
        let end_msg = match &end {
            End::Finished(o) => protocol::End::Finished(o.as_ref()),
            End::Abandoned(r) => protocol::End::Abandoned(r),
        };
        let msg = protocol::game_end(&self.game_id, &end_msg);
        self.tell(&msg);
        if let Some(c) = &mut self.child {
            c.close_stdin();
            let generation = c.generation;
            let _ = tokio::time::timeout(GOODBYE, async {
                while let Some(out) = out_rx.recv().await {
                    if out.generation != generation {
                        continue;
                    }
                    match out.kind {
                        OutputKind::Line(l) => {
                            if let BotLine::Log(text) = protocol::parse_line(&l) {
                                eprintln!("{} {text}", self.label());
                            }
                        }
                        OutputKind::TooLong(_) => {}
                        OutputKind::Exited(_) => break,
                    }
                }
            })
            .await;
        }
        self.child = None;
        if let End::Finished(o) = end {
            self.summary.outcome = o;
        }
        self.summary
    }
}
