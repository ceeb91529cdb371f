//! Ratings: live multiplayer ratings and the maximum-likelihood fit.
//!
//! The arena rates bots in two ways, both computed from the same stored
//! results and both recomputable from them at any time:
//!
//! * [`live`]: a Weng-Lin (OpenSkill) rating updated after every rated game.
//!   It is cheap, moves at once, and is what matchmaking and the lobby show.
//!   It depends on the order of the games.
//! * [`fit`]: a Plackett-Luce maximum-likelihood fit over all rated games of
//!   a pool, with 95 % confidence intervals. It is run periodically, does not
//!   depend on the order of the games, and is the arena's reference ranking.
//!
//! A rating pool is one (game kind, player count); the caller keeps one
//! [`LiveRatings`] and fits once per pool. Nothing here knows the games.
//!
//! ```
//! use druids_arena::ratings::{BotId, FitConfig, GameResult, LiveRatings, fit};
//!
//! // Bot 7 won, bots 3 and 5 tied for second.
//! let game = GameResult::new(vec![(BotId(3), 2), (BotId(7), 1), (BotId(5), 2)]).unwrap();
//!
//! let mut live = LiveRatings::default();
//! let changes = live.record(&game);
//! assert!(changes[1].after.mu > changes[1].before.mu);
//!
//! let fitted = fit([&game], &FitConfig::default()).unwrap();
//! let best = &fitted.leaderboard()[0];
//! assert_eq!(best.bot, BotId(7));
//! println!("{}: {:.0}", best.bot, best.display().value);
//! ```

pub mod fit;
mod linalg;
pub mod live;

#[cfg(test)]
mod tests;

use std::collections::BTreeSet;

pub use fit::{Estimate, Fit, FitConfig, FitError, FitInput, FittedBot, fit};
pub use live::{LiveConfig, LiveRating, LiveRatings, RatingChange};

/// A registered bot, as the arena's store numbers it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct BotId(pub u64);

impl std::fmt::Display for BotId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "bot {}", self.0)
    }
}

/// Why a game's players and ranks cannot be rated.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ResultError {
    /// A rated game needs at least two players to say anything.
    #[error("a rated game needs at least 2 players, got {0}")]
    TooFewPlayers(usize),
    /// One bot cannot take two seats of one rated game.
    #[error("{0} appears twice in one game")]
    DuplicateBot(BotId),
}

/// The outcome of one rated game: each player with its finishing rank.
///
/// Rank 1 is best; equal ranks are ties; only the order of the ranks matters
/// (ranks 1, 1, 3 and 1, 1, 2 say the same). The players keep the order they
/// were given in, because the live rating's arithmetic follows that order and
/// a replay must reproduce it exactly.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameResult {
    players: Vec<(BotId, u32)>,
}

impl GameResult {
    /// A result from players and their ranks (1 = best, ties share a rank).
    pub fn new(players: Vec<(BotId, u32)>) -> Result<Self, ResultError> {
        if players.len() < 2 {
            return Err(ResultError::TooFewPlayers(players.len()));
        }
        let mut seen = BTreeSet::new();
        for &(bot, _) in &players {
            if !seen.insert(bot) {
                return Err(ResultError::DuplicateBot(bot));
            }
        }
        Ok(Self { players })
    }

    /// A result from final scores: the higher score ranks better, equal
    /// scores tie. This is how a duplicate match's games, summed per bot,
    /// become one ranking.
    pub fn from_scores(scores: &[(BotId, i64)]) -> Result<Self, ResultError> {
        let players = scores
            .iter()
            .map(|&(bot, score)| {
                let better = scores.iter().filter(|&&(_, s)| s > score).count();
                // Standard competition ranking: 1 + the number of better scores.
                (bot, 1 + better as u32)
            })
            .collect();
        Self::new(players)
    }

    /// The players with their ranks, in the order given.
    pub fn players(&self) -> &[(BotId, u32)] {
        &self.players
    }

    /// How many players took part.
    pub fn len(&self) -> usize {
        self.players.len()
    }

    /// Always false: a result has at least two players.
    pub fn is_empty(&self) -> bool {
        self.players.is_empty()
    }
}

/// Elo points per unit of Plackett-Luce strength: a difference of 400 points
/// means 10:1 odds in a head-to-head comparison, as in chess Elo.
pub const ELO_PER_THETA: f64 = 400.0 / std::f64::consts::LN_10;

/// The display number of an average bot (strength 0).
pub const ELO_CENTER: f64 = 1500.0;

/// The display scale of the fit: Elo-like, `1500 + 400/ln 10 · θ`.
///
/// It is linear, so it maps an estimate and both ends of its interval alike.
pub fn elo(theta: f64) -> f64 {
    ELO_CENTER + ELO_PER_THETA * theta
}
