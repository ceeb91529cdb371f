//! The choosers of bots: uniformly random choices among the listed actions,
//! and the built-in bots of `druids-bots` deciding on the decoded view.

use druids_bots::{Bot, Budget, Searchable, Strategy};
use druids_contract::ProtoGame;
use druids_contract::pb;
use druids_engine::{Game, Seat};
use rand_core::{RngCore, SeedableRng};
use rand_pcg::Pcg64Mcg;

use crate::connect::CliError;
use crate::seat::choice::{Choice, Chooser, choice_of};

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
