//! The values several commands' flags share, parsed once here: a game
//! (`--game`), an arena pool (`meduris:4`), a built-in strategy and its
//! budget, a game and its seat (`--game-id`, `--token`), and the flags of
//! `druids bot`, which both a single seat and the ladder read.
//!
//! Games come from the registry (`druids_contract::registry`) and strategies
//! from `druids_bots::Strategy`, so a new game or strategy needs no edit
//! here. Every command module owns its own flags; this module depends on no
//! command.

use std::time::Duration;

use clap::builder::{PossibleValuesParser, TypedValueParser};
use clap::{Args, ValueEnum};
use druids_bots::{Budget, Strategy};
use druids_contract::{Kind, pb};

/// Which game, and as whom.
#[derive(Args, Clone, Debug)]
pub struct GameArgs {
    /// Game id.
    #[arg(long)]
    pub game_id: String,
    /// Seat token (without it: a spectator; `play` and `bot` need one).
    #[arg(long, env = "DRUIDS_TOKEN", hide_env_values = true)]
    pub token: Option<String>,
}

/// The built-in bots.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum StrategyArg {
    /// Uniformly random legal actions.
    Random,
    /// One-ply search on the game's evaluation.
    Greedy,
    /// Information-set Monte Carlo tree search (--think-ms / --iterations).
    Mcts,
}

impl From<StrategyArg> for Strategy {
    fn from(s: StrategyArg) -> Self {
        match s {
            StrategyArg::Random => Strategy::Random,
            StrategyArg::Greedy => Strategy::Greedy,
            StrategyArg::Mcts => Strategy::Mcts,
        }
    }
}

impl StrategyArg {
    /// Its name on the command line.
    pub fn name(self) -> String {
        self.to_possible_value()
            .map(|v| v.get_name().to_owned())
            .unwrap_or_default()
    }
}

/// The MCTS budget from `--think-ms` / `--iterations`.
pub fn budget(think_ms: u64, iterations: Option<u32>) -> Budget {
    match iterations {
        Some(n) => Budget::Iterations(n),
        None => Budget::Time(Duration::from_millis(think_ms)),
    }
}

/// The names of the registry's games ("meduris", "dolmen", ...).
fn game_names() -> Vec<&'static str> {
    Kind::all().map(Kind::name).collect()
}

/// `--game`: one of the registry's names ("meduris", "dolmen", ...).
pub fn game_kind() -> impl TypedValueParser<Value = Kind> {
    PossibleValuesParser::new(game_names())
        .map(|name| Kind::from_name(&name).expect("the parser lists only registered names"))
}

/// The short name of a game kind as the contract sends it ("?" when unknown).
pub fn game_name(kind: i32) -> &'static str {
    Kind::from_number(kind).map_or("?", Kind::name)
}

/// The name of a `GameStatus` on the command line: "waiting-for-players",
/// "running", ...
pub fn status_name(status: pb::GameStatus) -> String {
    status
        .as_str_name()
        .trim_start_matches("GAME_STATUS_")
        .to_lowercase()
        .replace('_', "-")
}

/// An arena pool to seek in: a game and how many players it may have.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pool {
    /// Which game.
    pub kind: Kind,
    /// Fewest players accepted.
    pub min_players: u32,
    /// Most players accepted.
    pub max_players: u32,
}

impl std::fmt::Display for Pool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let game = self.kind.name();
        if self.min_players == self.max_players {
            write!(f, "{game}:{}", self.min_players)
        } else {
            write!(f, "{game}:{}-{}", self.min_players, self.max_players)
        }
    }
}

/// Parses `meduris:4` or `dolmen:2-4` (a game of the registry, then a player
/// count or range).
pub fn pool(given: &str) -> Result<Pool, String> {
    let names = game_names();
    let (game, players) = given.split_once(':').ok_or_else(|| {
        format!(
            "expected GAME:PLAYERS or GAME:MIN-MAX (e.g. meduris:4, dolmen:2-4), games: {}",
            names.join(", ")
        )
    })?;
    let kind = Kind::from_name(game.trim())
        .ok_or_else(|| format!("unknown game {game:?} (one of {})", names.join(", ")))?;
    let count = |n: &str| {
        n.trim()
            .parse::<u32>()
            .ok()
            .filter(|&n| n >= 2)
            .ok_or_else(|| format!("{n:?} is not a player count (2 or more)"))
    };
    let (min_players, max_players) = match players.split_once('-') {
        Some((lo, hi)) => (count(lo)?, count(hi)?),
        None => {
            let n = count(players)?;
            (n, n)
        }
    };
    if min_players > max_players {
        return Err(format!("{min_players}-{max_players} is an empty range"));
    }
    Ok(Pool {
        kind,
        min_players,
        max_players,
    })
}

/// A bot's seat: one game (`--game-id` and a seat token), or the arena's
/// ladder (`--seek` and/or `--events` with the bot's API key).
#[derive(Args)]
pub struct BotArgs {
    /// Game id: play this game's seat of --token.
    #[arg(long, required_unless_present_any = ["seek", "events"])]
    pub game_id: Option<String>,
    /// Seat token (with --game-id).
    #[arg(long, env = "DRUIDS_TOKEN", hide_env_values = true)]
    pub token: Option<String>,
    /// Arena: play on the ladder in this pool, game and player count or range
    /// (meduris:4, dolmen:2-4), seeking again after every match.
    #[arg(long, value_name = "GAME:PLAYERS", value_parser = pool, conflicts_with = "game_id")]
    pub seek: Option<Pool>,
    /// Arena: the bot's API key (from `druids register`).
    #[arg(long, env = "DRUIDS_BOT_KEY", hide_env_values = true)]
    pub key: Option<String>,
    /// Arena: rated matches (they count for the leaderboard; rated Meduris
    /// matches are duplicate matches, one game per seat rotation).
    #[arg(long, requires = "seek", conflicts_with = "game_id")]
    pub rated: bool,
    /// Arena: stop after this many matches [default: play until Ctrl-C].
    #[arg(long, alias = "matches", requires = "seek", conflicts_with = "game_id")]
    pub games: Option<u32>,
    /// Arena: seeks (and so matches) kept going at the same time.
    #[arg(long, default_value_t = 1, requires = "seek", conflicts_with = "game_id", value_parser = clap::value_parser!(u32).range(1..=64))]
    pub concurrent: u32,
    /// Arena: also follow the bot's events and play the games of the matches
    /// it did not seek (tournaments, challenges) until Ctrl-C.
    #[arg(long, conflicts_with = "game_id")]
    pub events: bool,
    /// Arena: accept every challenge the bot receives (with --events).
    #[arg(long, requires = "events")]
    pub accept_challenges: bool,
    /// Strategy.
    #[arg(long, value_enum, default_value = "random")]
    pub strategy: StrategyArg,
    /// Seed of the bot's choices.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// MCTS thinking time per decision, in milliseconds.
    #[arg(long, default_value_t = 100)]
    pub think_ms: u64,
    /// MCTS iterations per decision instead of a time limit.
    #[arg(long)]
    pub iterations: Option<u32>,
    /// Play with this program instead of a built-in strategy: it reads JSON
    /// lines on stdin and prints its moves (docs/bot-protocol.md).
    #[arg(long, conflicts_with_all = ["strategy", "seed", "think_ms", "iterations"])]
    pub exec: Option<String>,
}

impl BotArgs {
    /// Whether the bot plays the arena (a pool or its event log) rather than
    /// one game's seat.
    pub fn plays_the_arena(&self) -> bool {
        self.seek.is_some() || self.events
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pools_name_a_game_and_a_player_count_or_range() {
        assert_eq!(
            pool("meduris:4").unwrap(),
            Pool {
                kind: Kind::Meduris,
                min_players: 4,
                max_players: 4
            }
        );
        let range = pool("dolmen:2-4").unwrap();
        assert_eq!(
            (range.kind, range.min_players, range.max_players),
            (Kind::Dolmen, 2, 4)
        );
        assert_eq!(range.to_string(), "dolmen:2-4");
        for bad in [
            "meduris",
            "chess:2",
            "meduris:1",
            "meduris:4-2",
            "meduris:x",
            "dolmen:2-",
        ] {
            assert!(pool(bad).is_err(), "{bad}");
        }
    }
}
