//! How a bot plays a seat: a built-in strategy (decided in this process) or
//! a program behind the bridge (`--exec`). `druids bot` plays one seat with
//! it, the arena's ladder one seat per game of every match.

use druids_bots::{Budget, Strategy};

use crate::args::{BotArgs, budget};
use crate::bridge;
use crate::connect::{CliError, Client, ServerAddr};
use crate::seat::choosers::{BotChooser, RandomChooser};
use crate::seat::follow::get_state;
use crate::seat::player::{SeatResult, play_seat};

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
    let kind = druids_contract::Kind::from_number(kind).map_err(|_| unknown())?;
    druids_contract::with_game!(kind, |G| {
        let chooser = BotChooser::<G>::new(strategy, seed, think);
        play_seat(client, game_id, token, chooser, None).await
    })
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
            think: budget(args.think_ms, args.iterations),
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
            let opts = bridge::Options {
                exec: exec.clone(),
                game_id: game_id.to_owned(),
                token: token.to_owned(),
            };
            let summary = bridge::run_game(server, opts).await?;
            return Ok(SeatResult {
                seat: summary.seat,
                outcome: summary.outcome,
                actions: summary.actions,
                restarts: summary.restarts,
            });
        }
        let seed = self.seed.wrapping_add(nth);
        play_bot(client, game_id, token, self.strategy, seed, self.think).await
    }
}
