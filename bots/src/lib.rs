//! Built-in bots for every druids game.
//!
//! A bot decides from what its seat may see and nothing more: [`Bot::choose`]
//! receives the seat's [`Game::View`] and the legal actions, never the engine
//! state, so a bot cannot peek at hidden goods or dolmen values by construction.
//! Bots that search ([`Greedy`], [`Mcts`]) build full positions from the view by
//! *determinization*: hidden information is dealt at random, consistently with
//! everything the view shows ([`Determinize::determinize`], a method of the
//! engine).

#![warn(missing_docs)]

pub mod arena;
mod greedy;
mod mcts;
mod random;

use std::time::Duration;

use druids_engine::{Determinize, Evaluate, Game, Seat};

pub use greedy::Greedy;
pub use mcts::{Budget, Mcts};
pub use random::Random;

/// A game the search bots can play: positions can be rebuilt from a seat's view
/// (the engine's [`Determinize`]) and scored by the game's own heuristic (the
/// engine's [`Evaluate`]). Every engine that has both is searchable, so a new
/// game needs nothing here.
pub trait Searchable: Determinize + Evaluate {}

impl<G: Determinize + Evaluate> Searchable for G {}

/// A player program: picks one of the legal actions from its seat's view.
pub trait Bot<G: Game>: Send {
    /// Short name ("random", "greedy", "mcts").
    fn name(&self) -> &'static str;

    /// Chooses one of `legal` (never empty) for `seat`, seeing only `view`.
    fn choose(&mut self, seat: Seat, view: &G::View, legal: &[G::Action]) -> G::Action;
}

/// The built-in strategies, by name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Strategy {
    /// Uniformly random legal actions.
    Random,
    /// One-ply search on a documented evaluation.
    Greedy,
    /// Information-set Monte Carlo tree search.
    Mcts,
}

impl std::str::FromStr for Strategy {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "random" => Ok(Strategy::Random),
            "greedy" => Ok(Strategy::Greedy),
            "mcts" => Ok(Strategy::Mcts),
            other => Err(format!(
                "unknown strategy {other:?} (expected random, greedy or mcts)"
            )),
        }
    }
}

impl Strategy {
    /// A new bot of this strategy; `seed` makes its choices reproducible and
    /// `think` is the MCTS budget per decision.
    pub fn build<G: Searchable>(self, seed: u64, think: Budget) -> Box<dyn Bot<G>> {
        match self {
            Strategy::Random => Box::new(Random::new(seed)),
            Strategy::Greedy => Box::new(Greedy::new(seed)),
            Strategy::Mcts => Box::new(Mcts::new(seed, think)),
        }
    }
}

/// Default MCTS thinking time per decision.
pub const DEFAULT_THINK: Duration = Duration::from_millis(100);
