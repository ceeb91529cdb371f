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

/// The built-in strategies: the one list every part of druids reads (the
/// CLI's `--strategy`, the server's practice games, the game descriptors
/// served to clients). A new strategy is a variant here, a line in
/// [`Strategy::ALL`] and its words in [`Strategy::name`] and
/// [`Strategy::description`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Strategy {
    /// Uniformly random legal actions.
    Random,
    /// One-ply search on a documented evaluation.
    Greedy,
    /// Information-set Monte Carlo tree search.
    Mcts,
}

impl Strategy {
    /// Every built-in strategy, weakest first. Each plays every game the
    /// search bots can play ([`Searchable`]), which every registered game is.
    pub const ALL: [Strategy; 3] = [Strategy::Random, Strategy::Greedy, Strategy::Mcts];

    /// Its short stable name ("random", "greedy", "mcts").
    pub const fn name(self) -> &'static str {
        match self {
            Strategy::Random => "random",
            Strategy::Greedy => "greedy",
            Strategy::Mcts => "mcts",
        }
    }

    /// What it does, in a few words for people.
    pub const fn description(self) -> &'static str {
        match self {
            Strategy::Random => "uniformly random legal actions",
            Strategy::Greedy => "one-ply search on the game's own evaluation",
            Strategy::Mcts => "information-set Monte Carlo tree search",
        }
    }

    /// The names of [`Strategy::ALL`], in order.
    pub fn names() -> impl Iterator<Item = &'static str> {
        Strategy::ALL.into_iter().map(Strategy::name)
    }

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

impl std::fmt::Display for Strategy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// A name that is not one of [`Strategy::ALL`].
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown strategy {given:?} (expected one of: {})", Strategy::names().collect::<Vec<_>>().join(", "))]
pub struct UnknownStrategy {
    /// The name given.
    pub given: String,
}

impl std::str::FromStr for Strategy {
    type Err = UnknownStrategy;
    fn from_str(s: &str) -> Result<Self, UnknownStrategy> {
        Strategy::ALL
            .into_iter()
            .find(|k| k.name() == s)
            .ok_or_else(|| UnknownStrategy {
                given: s.to_owned(),
            })
    }
}

/// Default MCTS thinking time per decision.
pub const DEFAULT_THINK: Duration = Duration::from_millis(100);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_strategy_is_found_by_its_name_and_nothing_else_is() {
        for s in Strategy::ALL {
            assert_eq!(s.name().parse::<Strategy>(), Ok(s));
            assert_eq!(s.to_string(), s.name());
        }
        let names: Vec<_> = Strategy::names().collect();
        assert_eq!(names, ["random", "greedy", "mcts"]);
        let err = "alphazero".parse::<Strategy>().unwrap_err();
        assert_eq!(
            err.to_string(),
            "unknown strategy \"alphazero\" (expected one of: random, greedy, mcts)"
        );
    }
}
