//! The house bots' levels (`--house-bots`): which built-in strategy each
//! plays and, for MCTS, its fixed iteration budget. A configuration value,
//! parsed with the server's flags; the arena's house bots
//! (`crate::arena::house`) are made from it.

use std::str::FromStr;

use druids_bots::{Budget, Strategy};

/// One strength of house bot: a built-in strategy, MCTS with a fixed
/// iteration budget (so that its strength does not depend on the machine's
/// load).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Level {
    /// The strategy.
    pub strategy: Strategy,
    /// MCTS iterations per decision (0 for the others).
    pub iterations: u32,
}

impl Level {
    /// The house bot's name: `house-` and the level.
    pub fn name(&self) -> String {
        match self.strategy {
            Strategy::Mcts => format!("house-mcts-{}", self.iterations),
            s => format!("house-{}", s.name()),
        }
    }

    /// Its thinking budget.
    pub fn budget(&self) -> Budget {
        Budget::Iterations(self.iterations.max(1))
    }
}

impl FromStr for Level {
    type Err = String;

    /// `random`, `greedy`, `mcts-N` (N iterations, 1 to 100000).
    fn from_str(s: &str) -> Result<Level, String> {
        let s = s.trim();
        if let Some(n) = s.strip_prefix("mcts-") {
            let iterations: u32 = n
                .parse()
                .ok()
                .filter(|n| (1..=100_000).contains(n))
                .ok_or_else(|| format!("{s}: mcts-N takes 1 to 100000 iterations"))?;
            return Ok(Level {
                strategy: Strategy::Mcts,
                iterations,
            });
        }
        match s.parse::<Strategy>() {
            Ok(Strategy::Mcts) | Err(_) => Err(format!(
                "{s}: a house bot level is random, greedy or mcts-N (N iterations)"
            )),
            Ok(strategy) => Ok(Level {
                strategy,
                iterations: 0,
            }),
        }
    }
}

/// The house bots' levels, as `--house-bots` lists them (`none`: no house
/// bots).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Levels(pub Vec<Level>);

impl FromStr for Levels {
    type Err = String;

    fn from_str(s: &str) -> Result<Levels, String> {
        if s.trim().is_empty() || s.trim() == "none" {
            return Ok(Levels(Vec::new()));
        }
        let levels = s
            .split(',')
            .map(str::parse)
            .collect::<Result<Vec<Level>, String>>()?;
        let mut names: Vec<String> = levels.iter().map(Level::name).collect();
        names.sort();
        names.dedup();
        if names.len() < levels.len() {
            return Err(format!("{s}: a level is listed twice"));
        }
        Ok(Levels(levels))
    }
}
