//! Chance under outside control: every random draw of an engine as a chance
//! decision, for searches that branch over the dice and for tests and servers
//! that script them.
//!
//! A game made with [`Game::new`] draws from its seed, as it always did. One
//! made with [`Chance::new_explicit`] stops at each draw instead:
//! [`Chance::pending_draw`] names it (how many outcomes, all equally likely)
//! and [`Chance::apply_chance`] supplies the outcome. While a draw is pending
//! no seat is to act ([`Game::to_act`] is `None`, [`Game::outcome`] too, the
//! legal list is empty). The seed's stream of draws advances in step with the
//! outcomes supplied, so [`Chance::seed_draw`] is always what the seed would
//! draw at this point: supplying it every time plays the seeded game exactly,
//! and [`Chance::set_chance_mode`] back to [`ChanceMode::Seeded`] continues
//! from the seed as if the earlier draws had been its own. A server that
//! scripts the dice feeds its script's outcomes in order, then switches to
//! the seed ([`play_script`]).

use crate::Game;

/// Where a game's random draws come from.
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(rename_all = "lowercase")
)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum ChanceMode {
    /// Every draw from the game's seed, at once (the default; what servers play).
    #[default]
    Seeded,
    /// Every draw is a chance decision, supplied by [`Chance::apply_chance`].
    Explicit,
}

/// A random draw the game waits for: one of `outcomes` equally likely
/// outcomes, numbered from 0.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Draw {
    /// How many outcomes the draw has (at least 1).
    pub outcomes: usize,
}

impl Draw {
    /// The probability of each outcome.
    pub fn probability(self) -> f64 {
        1.0 / self.outcomes as f64
    }
}

/// Why a chance outcome was refused; the game is unchanged.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ChanceError {
    /// No draw is pending (the game is seeded, or a seat must decide).
    #[error("no chance draw is pending")]
    NoDrawPending,
    /// The outcome is not one of the draw's.
    #[error("outcome {outcome} is not one of the draw's {outcomes} outcomes")]
    NoSuchOutcome {
        /// The outcome supplied.
        outcome: usize,
        /// How many the draw has.
        outcomes: usize,
    },
}

/// A game whose random draws can be chance decisions (see the module).
/// Games without randomness implement it with no draw ever pending.
pub trait Chance: Game {
    /// Like [`Game::new`], in [`ChanceMode::Explicit`]: the set-up's own draws
    /// are the first chance decisions. `seed` is the stream
    /// [`Chance::seed_draw`] reads.
    fn new_explicit(
        players: usize,
        seed: u64,
        options: &Self::Options,
        events: &mut Vec<Self::Event>,
    ) -> Result<Self, crate::SetupError>;

    /// Where the draws come from now.
    fn chance_mode(&self) -> ChanceMode;

    /// Switches the mode. To [`ChanceMode::Seeded`]: a pending draw, and every
    /// later one, is drawn from the seed at once (its events are appended).
    /// To [`ChanceMode::Explicit`]: from the next draw on.
    fn set_chance_mode(&mut self, mode: ChanceMode, events: &mut Vec<Self::Event>);

    /// The draw the game waits for, if any (only in explicit mode).
    fn pending_draw(&self) -> Option<Draw>;

    /// Supplies the pending draw's outcome; the game runs on to the next
    /// decision or draw, appending the events.
    fn apply_chance(
        &mut self,
        outcome: usize,
        events: &mut Vec<Self::Event>,
    ) -> Result<(), ChanceError>;

    /// The outcome the seed gives the pending draw (nothing is changed).
    fn seed_draw(&self) -> Option<usize>;

    /// An outcome of the pending draw in plain English ("the die shows
    /// wool"); `None` when no draw is pending or the outcome is not one of it.
    fn chance_text(&self, outcome: usize) -> Option<String>;
}

/// Supplies pending draws from `script` in order while it lasts, then
/// switches the game to [`ChanceMode::Seeded`] (later draws from the seed).
/// Call it after setting up a game with [`Chance::new_explicit`] and after
/// every action: it returns how many scripted outcomes it used, or the first
/// one the pending draw refuses.
pub fn play_script<G: Chance>(
    game: &mut G,
    script: &mut impl Iterator<Item = usize>,
    events: &mut Vec<G::Event>,
) -> Result<usize, ChanceError> {
    let mut used = 0;
    while game.pending_draw().is_some() {
        match script.next() {
            Some(outcome) => {
                game.apply_chance(outcome, events)?;
                used += 1;
            }
            None => game.set_chance_mode(ChanceMode::Seeded, events),
        }
    }
    Ok(used)
}
