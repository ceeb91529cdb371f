//! Playing a seat over the network, purely from the event stream: when a
//! `DecisionNeeded` names the seat, fetch the legal actions, let a
//! [`Chooser`] pick one, submit it. A person (`druids play`), the built-in
//! bots (`druids bot`) and self-play's random seats all play this way, exactly
//! as a bot in another language would.

use druids_bots::{Bot, Budget, Searchable, Strategy};
use druids_contract::ProtoGame;
use druids_contract::pb;
use druids_contract::pb::game_event::Body;
use druids_engine::{Game, Seat};
use rand_core::{RngCore, SeedableRng};
use rand_pcg::Pcg64Mcg;
use tonic::Code;

use crate::choice::choice_of;
pub use crate::choice::{Choice, Chooser};
use crate::cli::{BotArgs, GameArgs};
use crate::commands::get_state;
use crate::connect::{self, CliError, Client, ServerAddr, authed};
use crate::follow::{AsyncEventFn, follow};
use crate::human::HumanChooser;
use crate::output::{self, Style};
use crate::{outln, render, tournament};

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
        _: u64,
        legal: &[pb::LegalAction],
    ) -> Result<Option<Choice>, CliError> {
        let i = (self.0.next_u32() as usize) % legal.len();
        Ok(Some(choice_of(legal, i)))
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
        _: u64,
        legal: &[pb::LegalAction],
    ) -> Result<Option<Choice>, CliError> {
        let bad = |what: &str, e: druids_contract::DecodeError| {
            CliError::Protocol(format!("{what}: {e}"))
        };
        let view = G::decode_view(state).map_err(|e| bad("state", e))?;
        let seat = state
            .viewer_seat
            .map(|s| Seat(s as u8))
            .ok_or_else(|| CliError::Protocol("the state names no seat for this token".into()))?;
        let actions = legal
            .iter()
            .map(|la| {
                la.action
                    .as_ref()
                    .ok_or(druids_contract::DecodeError::Missing(
                        "legal_actions.action",
                    ))
                    .and_then(G::decode_action)
                    .map_err(|e| bad("legal action", e))
            })
            .collect::<Result<Vec<_>, CliError>>()?;
        let mut bot = self
            .bot
            .take()
            .expect("the bot is back after each decision");
        // Thinking may take a while (MCTS): off the async workers.
        let (bot, pick) = tokio::task::spawn_blocking(move || {
            let chosen = bot.choose(seat, &view, &actions);
            let pick = actions.iter().position(|a| *a == chosen);
            (bot, pick)
        })
        .await?;
        let name = bot.name();
        self.bot = Some(bot);
        match pick {
            Some(i) => Ok(Some(choice_of(legal, i))),
            None => Err(CliError::Protocol(format!(
                "the {name} bot chose an action that is not in the legal list"
            ))),
        }
    }
}

/// Plays the token's seat with a built-in bot until the game ends; the game is
/// whatever the server says it is.
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
        return play_seat(client, game_id, token, chooser, None).await;
    }
    let kind = get_state(client, game_id, Some(token)).await?.kind;
    let unknown = || {
        CliError::Protocol(format!(
            "game {game_id} is of a kind this client does not know ({kind})"
        ))
    };
    let kind = pb::GameKind::try_from(kind).map_err(|_| unknown())?;
    let played = druids_contract::with_game!(kind, |G| {
        let chooser = BotChooser::<G>::new(strategy, seed, think);
        play_seat(client, game_id, token, chooser, None).await
    });
    played.ok_or_else(unknown)?
}

/// What a seat saw when its game ended.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SeatResult {
    /// The seat played.
    pub seat: u32,
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
    /// Some: print every event (a person playing) in this style.
    verbose: Option<Style>,
    result: SeatResult,
    seats: Vec<pb::SeatInfo>,
    quit: bool,
}

impl<C: Chooser> SeatPlayer<'_, C> {
    /// Decides once if it is this seat's decision: legal actions, choose, submit.
    async fn decide(&mut self, client: &mut Client) -> Result<(), CliError> {
        let legal_request = || {
            authed(
                Some(self.token),
                pb::GetLegalActionsRequest {
                    game_id: self.game_id.to_owned(),
                    ..Default::default()
                },
            )
        };
        legal_request()?;
        let legal = connect::patiently(|| {
            let mut client = client.clone();
            let req = legal_request().expect("checked above");
            async move { client.get_legal_actions(req).await }
        })
        .await?;
        if legal.actions.is_empty() {
            return Ok(()); // Not (or no longer) this seat's decision.
        }
        let state = if self.verbose.is_some() || C::NEEDS_STATE {
            let state = get_state(client, self.game_id, Some(self.token)).await?;
            if state.version != legal.version {
                // The game moved on between the two calls (a clock ran out):
                // the stream will say who decides next.
                return Ok(());
            }
            state
        } else {
            pb::StateView::default()
        };
        let Some(choice) = self
            .chooser
            .choose(&state, legal.version, &legal.actions)
            .await?
        else {
            self.quit = true;
            return Ok(());
        };
        let choice = match choice {
            Choice::Id(id) => pb::submit_action_request::Choice::LegalActionId(id),
            Choice::Action(a) => pb::submit_action_request::Choice::Action(a),
        };
        let req = pb::SubmitActionRequest {
            game_id: self.game_id.to_owned(),
            choice: Some(choice),
            expected_version: Some(legal.version),
            idempotency_key: format!("seat{}-v{}", self.seat, legal.version),
        };
        authed(Some(self.token), ())?;
        // The idempotency key makes a repeated submission safe.
        let submitted = connect::patiently(|| {
            let mut client = client.clone();
            let req = authed(Some(self.token), req.clone()).expect("checked above");
            async move { client.submit_action(req).await }
        })
        .await;
        match submitted {
            Ok(_) => self.result.actions += 1,
            // The game moved on meanwhile (a clock ran out, or this event was
            // stale): the stream will say who decides next.
            Err(s) if matches!(s.code(), Code::Aborted | Code::FailedPrecondition) => {
                if self.verbose.is_some() {
                    eprintln!("not applied: {}", s.message());
                }
            }
            Err(s) => return Err(s.into()),
        }
        Ok(())
    }
}

impl<C: Chooser> AsyncEventFn for &mut SeatPlayer<'_, C> {
    async fn call(&mut self, client: &mut Client, e: pb::GameEvent) -> Result<bool, CliError> {
        if let Some(style) = self.verbose
            && !matches!(e.body, Some(Body::Snapshot(_)))
        {
            outln!("{}", render::event(&e, style))?;
        }
        match e.body {
            Some(Body::Snapshot(s)) => {
                let state = s.state.unwrap_or_default();
                self.seats = state.seats;
                if state.to_act == Some(self.seat) {
                    self.decide(client).await?;
                }
            }
            Some(Body::SeatJoined(j)) => {
                if let Some(s) = self.seats.iter_mut().find(|s| s.seat == j.seat) {
                    s.name = j.name;
                    s.claimed = true;
                }
            }
            Some(Body::DecisionNeeded(d)) if d.seat == self.seat => self.decide(client).await?,
            Some(Body::GameFinished(f)) => {
                if self.verbose.is_some() {
                    let outcome = f.outcome.clone().unwrap_or_default();
                    output::text(render::ranking(&outcome, &self.seats, Some(self.seat)))?;
                }
                self.result.outcome = f.outcome;
                return Ok(false);
            }
            Some(Body::GameAbandoned(_)) => return Ok(false),
            _ => {}
        }
        Ok(!self.quit)
    }
}

/// Plays the token's seat until the game ends, purely from the event stream;
/// with `verbose`, every event is printed.
pub async fn play_seat<C: Chooser>(
    client: &mut Client,
    game_id: &str,
    token: &str,
    chooser: C,
    verbose: Option<Style>,
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
        result: SeatResult {
            seat,
            ..SeatResult::default()
        },
        seats: me.seats,
        quit: false,
    };
    follow(client, game_id, Some(token), 0, &mut player).await?;
    Ok(player.result)
}

/// The seat token `play` and `bot` need.
fn seat_token(game: &GameArgs, command: &str) -> Result<String, CliError> {
    game.token.clone().ok_or_else(|| {
        CliError::Usage(format!(
            "`druids {command}` needs a seat token: --token or DRUIDS_TOKEN"
        ))
    })
}

/// `druids play`: a person plays a seat in the terminal.
pub async fn play(server: &ServerAddr, game: GameArgs) -> Result<(), CliError> {
    let token = seat_token(&game, "play")?;
    let mut client = connect::connect(server).await?;
    let style = Style::for_stdout();
    let human = HumanChooser::new(client.clone(), &game.game_id, &token, style);
    let r = play_seat(&mut client, &game.game_id, &token, human, Some(style)).await?;
    outln!("you made {} decisions", r.actions)
}

/// How a bot plays a seat: a built-in strategy, or a program behind the
/// bridge (`--exec`). `druids bot` plays one seat with it, the arena's ladder
/// one seat per game of every match; either way only the token differs (a
/// seat token, or the bot's API key, which acts as its seat's token in the
/// arena's games).
#[derive(Clone, Debug)]
pub struct SeatStrategy {
    /// The built-in strategy (unused with `exec`).
    pub strategy: Strategy,
    /// Seed of the bot's choices (the `n`th game played adds `n`).
    pub seed: u64,
    /// MCTS budget per decision.
    pub think: Budget,
    /// A program to play with instead, through the bridge.
    pub exec: Option<String>,
}

impl SeatStrategy {
    /// The strategy of `druids bot`'s flags.
    pub fn of(args: &BotArgs) -> SeatStrategy {
        SeatStrategy {
            strategy: args.strategy.into(),
            seed: args.seed,
            think: tournament::budget(args.think_ms, args.iterations),
            exec: args.exec.clone(),
        }
    }

    /// Plays the seat of `token` in `game_id` until the game ends; `nth`
    /// varies the seed from game to game.
    pub async fn play(
        &self,
        server: &ServerAddr,
        client: &mut Client,
        game_id: &str,
        token: &str,
        nth: u64,
    ) -> Result<SeatResult, CliError> {
        if let Some(exec) = &self.exec {
            let opts = crate::bridge::Options {
                exec: exec.clone(),
                game_id: game_id.to_owned(),
                token: token.to_owned(),
            };
            let summary = crate::bridge::run_game(server, opts).await?;
            return Ok(SeatResult {
                seat: summary.seat,
                outcome: summary.outcome,
                actions: summary.actions,
            });
        }
        let seed = self.seed.wrapping_add(nth);
        play_bot(client, game_id, token, self.strategy, seed, self.think).await
    }
}

/// `druids bot`: a built-in bot plays a seat; the end is one JSON line
/// `{"game_id", "seat", "outcome"}` (the outcome in proto3 JSON with every
/// field; null when the game was abandoned), the same line the Python kit
/// prints. With `--seek` or `--events`, the bot plays the arena's ladder instead
/// ([`crate::ladder::ladder`]).
pub async fn bot(server: &ServerAddr, args: BotArgs) -> Result<(), CliError> {
    if args.seek.is_some() || args.events {
        return crate::ladder::ladder(server, &args).await;
    }
    let game = GameArgs {
        game_id: args.game_id.clone().ok_or_else(|| {
            CliError::Usage(
                "`druids bot` needs --game-id and a seat token, or --seek and an API key".into(),
            )
        })?,
        token: args.token.clone(),
    };
    let token = seat_token(&game, "bot")?;
    if let Some(exec) = args.exec {
        let opts = crate::bridge::Options {
            exec,
            game_id: game.game_id,
            token,
        };
        return crate::bridge::play(server, opts).await;
    }
    let mut client = connect::connect(server).await?;
    let game_id = &game.game_id;
    let r = SeatStrategy::of(&args)
        .play(server, &mut client, game_id, &token, 0)
        .await?;
    eprintln!("seat {} made {} decisions", r.seat, r.actions);
    outln!("{}", outcome_line(game_id, &r))
}

/// The JSON line `druids bot` ends with, keys in this order and spaced as
/// Python's `json.dumps` writes them, so both kits print the same line.
pub fn outcome_line(game_id: &str, r: &SeatResult) -> String {
    let outcome = r
        .outcome
        .as_ref()
        .map_or(serde_json::Value::Null, druids_contract::json::to_json);
    format!(
        "{{\"game_id\": {}, \"seat\": {}, \"outcome\": {}}}",
        python_json(&serde_json::Value::from(game_id)),
        r.seat,
        python_json(&outcome)
    )
}

/// `value` with Python's default separators (`", "` and `": "`).
pub(crate) fn python_json(value: &serde_json::Value) -> String {
    use serde::Serialize;
    struct Spaced;
    impl serde_json::ser::Formatter for Spaced {
        fn begin_array_value<W: ?Sized + std::io::Write>(
            &mut self,
            w: &mut W,
            first: bool,
        ) -> std::io::Result<()> {
            if first { Ok(()) } else { w.write_all(b", ") }
        }
        fn begin_object_key<W: ?Sized + std::io::Write>(
            &mut self,
            w: &mut W,
            first: bool,
        ) -> std::io::Result<()> {
            if first { Ok(()) } else { w.write_all(b", ") }
        }
        fn begin_object_value<W: ?Sized + std::io::Write>(
            &mut self,
            w: &mut W,
        ) -> std::io::Result<()> {
            w.write_all(b": ")
        }
    }
    let mut out = Vec::new();
    let mut ser = serde_json::Serializer::with_formatter(&mut out, Spaced);
    value
        .serialize(&mut ser)
        .expect("a JSON value serializes to memory");
    String::from_utf8(out).expect("serde_json writes UTF-8")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bot_line_has_the_shape_shared_with_the_python_kit() {
        let r = SeatResult {
            seat: 1,
            outcome: Some(pb::Outcome {
                scores: vec![3, 9],
                winners: vec![1],
                ranking: vec![1, 0],
                by_safeguard: false,
            }),
            actions: 7,
        };
        assert_eq!(
            outcome_line("g1", &r),
            r#"{"game_id": "g1", "seat": 1, "outcome": {"bySafeguard": false, "ranking": [1, 0], "scores": [3, 9], "winners": [1]}}"#
        );
        let abandoned = SeatResult { outcome: None, ..r };
        assert_eq!(
            outcome_line("g1", &abandoned),
            r#"{"game_id": "g1", "seat": 1, "outcome": null}"#
        );
    }
}
