//! The commands that talk to a server: create, join, state, watch, play, bot,
//! export and replay. Each uses only the gRPC contract.

use std::io::{BufRead, Write};

use druids::ProtoGame;
use druids::pb;
use druids::pb::game_event::Body;
use druids_bots::{Bot, Budget, Searchable, Strategy};
use druids_engine::dolmen::Dolmen;
use druids_engine::meduris::Meduris;
use druids_engine::{Game, Seat};
use rand_core::{RngCore, SeedableRng};
use rand_pcg::Pcg64Mcg;
use tokio_stream::StreamExt;
use tonic::Code;

use crate::connect::{CliError, Client, authed};
use crate::render;

/// Stream reconnections a bot or watcher tries before giving up.
const RECONNECTS: u32 = 20;

/// `druids create`.
pub struct CreateArgs {
    /// Game kind.
    pub kind: pb::GameKind,
    /// Seats.
    pub players: u32,
    /// Seed.
    pub seed: Option<u64>,
    /// Options.
    pub options: pb::GameOptions,
    /// Seat names.
    pub names: Vec<String>,
    /// Open seats.
    pub open: Vec<u32>,
}

/// Creates a game and prints its id and tokens (or one JSON object).
pub async fn create(client: &mut Client, args: CreateArgs, json: bool) -> Result<(), CliError> {
    let reply = client
        .create_game(pb::CreateGameRequest {
            kind: args.kind as i32,
            players: args.players,
            seed: args.seed,
            options: Some(args.options),
            seat_names: args.names,
            open_seats: args.open,
            request_id: String::new(),
            start_from: None,
        })
        .await?
        .into_inner();
    if json {
        let seats: Vec<_> = reply
            .seats
            .iter()
            .map(|s| serde_json::json!({"seat": s.seat, "name": s.name, "token": s.token}))
            .collect();
        println!(
            "{}",
            serde_json::json!({"game_id": reply.game_id, "seats": seats})
        );
    } else {
        println!("game {}", reply.game_id);
        for s in &reply.seats {
            println!("  seat {} ({}): token {}", s.seat, s.name, s.token);
        }
    }
    Ok(())
}

/// Claims an open seat and prints it.
pub async fn join(
    client: &mut Client,
    game_id: String,
    seat: Option<u32>,
    name: String,
) -> Result<(), CliError> {
    let reply = client
        .join_game(pb::JoinGameRequest {
            game_id,
            seat,
            name,
            request_id: String::new(),
        })
        .await?
        .into_inner();
    let s = reply.seat.unwrap_or_default();
    println!("seat {} ({}): token {}", s.seat, s.name, s.token);
    if reply.started {
        println!("every seat is claimed: the game has started");
    }
    Ok(())
}

async fn get_state(
    client: &mut Client,
    game_id: &str,
    token: Option<&str>,
) -> Result<pb::StateView, CliError> {
    let req = authed(
        token,
        pb::GetStateRequest {
            game_id: game_id.to_owned(),
        },
    )?;
    Ok(client
        .get_state(req)
        .await?
        .into_inner()
        .state
        .unwrap_or_default())
}

/// Prints the state as `token`'s seat (or a spectator) sees it.
pub async fn state(
    client: &mut Client,
    game_id: String,
    token: Option<String>,
) -> Result<(), CliError> {
    print!(
        "{}",
        render::state(&get_state(client, &game_id, token.as_deref()).await?)
    );
    Ok(())
}

/// Follows a game's events from `from_seq`, resuming after a broken stream,
/// and hands each to `on_event` until it returns `false` or the stream ends
/// with the game.
async fn follow<F>(
    client: &mut Client,
    game_id: &str,
    token: Option<&str>,
    from_seq: u64,
    mut on_event: F,
) -> Result<(), CliError>
where
    F: AsyncEventFn,
{
    let mut next = from_seq;
    let mut failures = 0;
    loop {
        let req = authed(
            token,
            pb::StreamEventsRequest {
                game_id: game_id.to_owned(),
                from_seq: next,
            },
        )?;
        let mut stream = match client.stream_events(req).await {
            Ok(s) => s.into_inner(),
            Err(s) if s.code() == Code::Unavailable && failures < RECONNECTS => {
                failures += 1;
                tokio::time::sleep(std::time::Duration::from_millis(100 * failures as u64)).await;
                continue;
            }
            Err(s) => return Err(s.into()),
        };
        loop {
            match stream.next().await {
                Some(Ok(e)) => {
                    failures = 0;
                    next = e.seq + 1;
                    if !on_event.call(client, e).await? {
                        return Ok(());
                    }
                }
                Some(Err(s)) if failures < RECONNECTS => {
                    failures += 1;
                    eprintln!(
                        "stream interrupted ({}); resuming from #{next}",
                        s.message()
                    );
                    break;
                }
                Some(Err(s)) => return Err(s.into()),
                // The server ends a stream when the game is over.
                None => return Ok(()),
            }
        }
    }
}

/// A callback that may call the server itself.
pub trait AsyncEventFn {
    /// Handles one event; `false` stops following.
    fn call(
        &mut self,
        client: &mut Client,
        event: pb::GameEvent,
    ) -> impl std::future::Future<Output = Result<bool, CliError>>;
}

struct Printer;

impl AsyncEventFn for Printer {
    async fn call(&mut self, _: &mut Client, e: pb::GameEvent) -> Result<bool, CliError> {
        println!("{}", render::event(&e));
        Ok(true)
    }
}

/// Prints the event stream, one line per event, until the game ends.
pub async fn watch(
    client: &mut Client,
    game_id: String,
    token: Option<String>,
    from_seq: u64,
) -> Result<(), CliError> {
    follow(client, &game_id, token.as_deref(), from_seq, Printer).await
}

/// How a seat chooses among its legal actions.
pub trait Chooser {
    /// Whether [`Chooser::choose`] needs the seat's state (else it may get a
    /// default `StateView`). A chooser that needs it gets the state of the
    /// same version as the legal actions.
    const NEEDS_STATE: bool = false;

    /// Index of the chosen action in `legal`, `None` to quit.
    fn choose(
        &mut self,
        state: &pb::StateView,
        legal: &[pb::LegalAction],
    ) -> impl std::future::Future<Output = Result<Option<usize>, CliError>>;
}

/// Uniformly random choices from a seeded generator.
pub struct RandomChooser(pub Pcg64Mcg);

impl RandomChooser {
    /// A chooser seeded with `seed`.
    pub fn new(seed: u64) -> RandomChooser {
        RandomChooser(Pcg64Mcg::seed_from_u64(seed))
    }
}

impl Chooser for RandomChooser {
    async fn choose(
        &mut self,
        _: &pb::StateView,
        legal: &[pb::LegalAction],
    ) -> Result<Option<usize>, CliError> {
        Ok(Some((self.0.next_u32() as usize) % legal.len()))
    }
}

/// A built-in bot of `druids-bots` (random, greedy, MCTS) playing over the
/// network: the seat's state is decoded into the engine's view and the legal
/// actions into engine actions ([`ProtoGame::decode_view`],
/// [`ProtoGame::decode_action`]); the bot picks one and its entry of the legal
/// list is submitted by id. The bot sees exactly what the server shows the
/// seat, so it cannot peek at hidden information.
pub struct BotChooser<G: Game> {
    /// The bot; `None` only while it thinks on a blocking thread.
    bot: Option<Box<dyn Bot<G>>>,
}

impl<G: Searchable> BotChooser<G> {
    /// A bot of `strategy`, seeded, with `think` per MCTS decision.
    pub fn new(strategy: Strategy, seed: u64, think: Budget) -> BotChooser<G> {
        BotChooser {
            bot: Some(strategy.build::<G>(seed, think)),
        }
    }
}

impl<G: Searchable + ProtoGame> Chooser for BotChooser<G> {
    const NEEDS_STATE: bool = true;

    async fn choose(
        &mut self,
        state: &pb::StateView,
        legal: &[pb::LegalAction],
    ) -> Result<Option<usize>, CliError> {
        let bad = |what: &str, e: druids::DecodeError| CliError::Protocol(format!("{what}: {e}"));
        let view = G::decode_view(state).map_err(|e| bad("state", e))?;
        let seat = state
            .viewer_seat
            .map(|s| Seat(s as u8))
            .ok_or_else(|| CliError::Protocol("the state names no seat for this token".into()))?;
        let actions = legal
            .iter()
            .map(|la| {
                let action = la
                    .action
                    .as_ref()
                    .ok_or(druids::DecodeError::Missing("legal_actions.action"))
                    .and_then(G::decode_action)
                    .map_err(|e| bad("legal action", e))?;
                Ok((la.id, action))
            })
            .collect::<Result<Vec<_>, CliError>>()?;
        let mut bot = self
            .bot
            .take()
            .expect("the bot is back after each decision");
        // Thinking may take a while (MCTS): off the async workers.
        let (bot, pick) = tokio::task::spawn_blocking(move || {
            let engine: Vec<G::Action> = actions.iter().map(|(_, a)| a.clone()).collect();
            let chosen = bot.choose(seat, &view, &engine);
            let pick = engine.iter().position(|a| *a == chosen);
            (bot, pick)
        })
        .await
        .map_err(|e| CliError::Io(std::io::Error::other(e)))?;
        let name = bot.name();
        self.bot = Some(bot);
        match pick {
            Some(i) => Ok(Some(i)),
            None => Err(CliError::Protocol(format!(
                "the {name} bot chose an action that is not in the legal list"
            ))),
        }
    }
}

/// Plays the token's seat with a built-in bot until the game ends; the game
/// (Meduris or Die Dolmengötter) is whatever the server says it is.
pub async fn play_bot(
    client: &mut Client,
    game_id: &str,
    token: &str,
    strategy: Strategy,
    seed: u64,
    think: Budget,
) -> Result<SeatResult, CliError> {
    if strategy == Strategy::Random {
        // Needs nothing of the game: choose among the listed actions directly.
        let chooser = RandomChooser::new(seed);
        return play_seat(client, game_id, token, chooser, false).await;
    }
    let kind = get_state(client, game_id, Some(token)).await?.kind;
    match pb::GameKind::try_from(kind) {
        Ok(pb::GameKind::Meduris) => {
            let chooser = BotChooser::<Meduris>::new(strategy, seed, think);
            play_seat(client, game_id, token, chooser, false).await
        }
        Ok(pb::GameKind::Dolmen) => {
            let chooser = BotChooser::<Dolmen>::new(strategy, seed, think);
            play_seat(client, game_id, token, chooser, false).await
        }
        _ => Err(CliError::Protocol(format!(
            "game {game_id} is of a kind this client does not know ({kind})"
        ))),
    }
}

/// A person at the terminal: sees the board and numbered actions, types a number.
pub struct HumanChooser;

impl Chooser for HumanChooser {
    async fn choose(
        &mut self,
        state: &pb::StateView,
        legal: &[pb::LegalAction],
    ) -> Result<Option<usize>, CliError> {
        print!("{}", render::state(state));
        for a in legal {
            println!("  [{}] {}", a.id.unwrap_or_default(), a.description);
        }
        let n = legal.len();
        tokio::task::spawn_blocking(move || {
            let stdin = std::io::stdin();
            loop {
                print!("your choice (0-{}, q to quit): ", n - 1);
                std::io::stdout().flush()?;
                let mut line = String::new();
                if stdin.lock().read_line(&mut line)? == 0 {
                    return Ok(None);
                }
                let line = line.trim();
                if line == "q" {
                    return Ok(None);
                }
                match line.parse::<usize>() {
                    Ok(i) if i < n => return Ok(Some(i)),
                    _ => println!("please type a number from 0 to {}", n - 1),
                }
            }
        })
        .await
        .map_err(|e| CliError::Io(std::io::Error::other(e)))?
    }
}

/// What a seat saw when its game ended.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SeatResult {
    /// The outcome, if the game finished (not abandoned).
    pub outcome: Option<pb::Outcome>,
    /// Actions this seat submitted.
    pub actions: u64,
}

struct SeatPlayer<'a, C> {
    game_id: &'a str,
    token: &'a str,
    seat: u32,
    chooser: C,
    verbose: bool,
    result: SeatResult,
    quit: bool,
}

impl<C: Chooser> SeatPlayer<'_, C> {
    /// Decides once if it is this seat's decision: legal actions, choose, submit.
    async fn decide(&mut self, client: &mut Client) -> Result<(), CliError> {
        let legal = client
            .get_legal_actions(authed(
                Some(self.token),
                pb::GetLegalActionsRequest {
                    game_id: self.game_id.to_owned(),
                    all_payments: false,
                    ..Default::default()
                },
            )?)
            .await?
            .into_inner();
        if legal.actions.is_empty() {
            return Ok(()); // Not (or no longer) this seat's decision.
        }
        let state = if self.verbose || C::NEEDS_STATE {
            let state = get_state(client, self.game_id, Some(self.token)).await?;
            if C::NEEDS_STATE && state.version != legal.version {
                // The game moved on between the two calls (a clock ran out):
                // the stream will say who decides next.
                return Ok(());
            }
            state
        } else {
            pb::StateView::default()
        };
        let Some(i) = self.chooser.choose(&state, &legal.actions).await? else {
            self.quit = true;
            return Ok(());
        };
        let req = pb::SubmitActionRequest {
            game_id: self.game_id.to_owned(),
            choice: Some(pb::submit_action_request::Choice::LegalActionId(
                legal.actions[i].id.unwrap_or_default(),
            )),
            expected_version: Some(legal.version),
            idempotency_key: format!("seat{}-v{}", self.seat, legal.version),
        };
        match client.submit_action(authed(Some(self.token), req)?).await {
            Ok(_) => self.result.actions += 1,
            // The game moved on meanwhile (a clock ran out, or this event was
            // stale): the stream will say who decides next.
            Err(s) if matches!(s.code(), Code::Aborted | Code::FailedPrecondition) => {}
            Err(s) => return Err(s.into()),
        }
        Ok(())
    }
}

impl<C: Chooser> AsyncEventFn for &mut SeatPlayer<'_, C> {
    async fn call(&mut self, client: &mut Client, e: pb::GameEvent) -> Result<bool, CliError> {
        if self.verbose && !matches!(e.body, Some(Body::Snapshot(_))) {
            println!("{}", render::event(&e));
        }
        match e.body {
            Some(Body::Snapshot(s))
                if s.state.as_ref().and_then(|s| s.to_act) == Some(self.seat) =>
            {
                self.decide(client).await?;
            }
            Some(Body::DecisionNeeded(d)) if d.seat == self.seat => self.decide(client).await?,
            Some(Body::GameFinished(f)) => {
                self.result.outcome = f.outcome;
                return Ok(false);
            }
            Some(Body::GameAbandoned(_)) => return Ok(false),
            _ => {}
        }
        Ok(!self.quit)
    }
}

/// Plays the token's seat until the game ends, purely from the event stream.
pub async fn play_seat<C: Chooser>(
    client: &mut Client,
    game_id: &str,
    token: &str,
    chooser: C,
    verbose: bool,
) -> Result<SeatResult, CliError> {
    let me = get_state(client, game_id, Some(token)).await?;
    let seat = me
        .viewer_seat
        .ok_or_else(|| CliError::Usage("this token is not a seat token".into()))?;
    let mut player = SeatPlayer {
        game_id,
        token,
        seat,
        chooser,
        verbose,
        result: SeatResult::default(),
        quit: false,
    };
    follow(client, game_id, Some(token), 0, &mut player).await?;
    Ok(player.result)
}

/// Writes the replay of a finished game to `path`.
pub async fn export(
    client: &mut Client,
    game_id: String,
    path: &std::path::Path,
) -> Result<(), CliError> {
    use prost::Message;
    let replay = client
        .export_replay(pb::ExportReplayRequest { game_id })
        .await?
        .into_inner();
    std::fs::write(path, replay.encode_to_vec())?;
    println!(
        "{} actions written to {}",
        replay.actions.len(),
        path.display()
    );
    Ok(())
}

/// Re-runs a replay file through the engine and checks its recorded result.
pub fn replay(path: &std::path::Path) -> Result<(), CliError> {
    use prost::Message;
    let bytes = std::fs::read(path)?;
    let replay = pb::Replay::decode(bytes.as_slice())
        .map_err(|e| CliError::Usage(format!("{} is not a replay file: {e}", path.display())))?;
    match druids::replay::verify(&replay) {
        Ok(outcome) => {
            println!(
                "ok: {} actions reproduce the recorded result {:?}",
                replay.actions.len(),
                outcome.map(|o| o.scores)
            );
            Ok(())
        }
        Err(e) => Err(CliError::Usage(format!(
            "the replay does not reproduce its game: {e}"
        ))),
    }
}

/// Checks the server's gRPC health service for the druids service.
pub async fn health(url: &str) -> Result<(), CliError> {
    use tonic_health::pb::health_check_response::ServingStatus;
    use tonic_health::pb::health_client::HealthClient;
    let channel = tonic::transport::Endpoint::from_shared(url.to_owned())
        .map_err(|e| CliError::Usage(format!("bad server URL {url:?}: {e}")))?
        .connect()
        .await
        .map_err(|source| CliError::Connect {
            url: url.to_owned(),
            source,
        })?;
    let status = HealthClient::new(channel)
        .check(tonic_health::pb::HealthCheckRequest {
            service: "druids.v1.DruidsService".into(),
        })
        .await?
        .into_inner()
        .status;
    if status == ServingStatus::Serving as i32 {
        println!("serving");
        Ok(())
    } else {
        Err(CliError::Usage(format!("not serving (status {status})")))
    }
}
