//! Chance on cue: `GameOptions.chance_script`, the random draws a test scripts.
//!
//! A game whose options carry a script is set up in the engine's explicit
//! chance mode ([`druids_engine::Chance`]) and every pending draw is supplied
//! from the script in order (an entry of `-1` takes the seed's own draw at
//! that point); once the script is used up the game goes back to its seed.
//! The server, replay checking and anything else that rebuilds a game from
//! its options go through [`Scripted`], so a scripted game replays exactly.

use std::sync::Arc;

use druids_engine::{Chance, ChanceMode, SetupError};

use crate::codec::DecodeError;

/// Most entries a script may have.
pub const MAX_ENTRIES: usize = 1000;
/// Largest outcome an entry may name (an outcome is taken modulo the draw's
/// number of outcomes).
pub const MAX_OUTCOME: i32 = 999;

/// Why a scripted game could not be set up.
#[derive(Debug, thiserror::Error)]
pub enum ScriptError {
    /// The script itself is malformed (too long, an entry out of range).
    #[error(transparent)]
    Decode(#[from] DecodeError),
    /// The engine refused the set-up.
    #[error(transparent)]
    Setup(#[from] SetupError),
    /// The game draws nothing at random, so a script would never be used.
    #[error("options.chance_script: {0} has no random draw to script")]
    NoDraws(&'static str),
}

/// The draws of a script, and how many of them were used.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Scripted {
    /// One entry per draw: `None` takes the seed's draw.
    draws: Arc<[Option<u16>]>,
    used: usize,
}

impl Scripted {
    /// The script of `entries` (`GameOptions.chance_script`), checked.
    pub fn parse(entries: &[i32]) -> Result<Scripted, DecodeError> {
        if entries.len() > MAX_ENTRIES {
            return Err(DecodeError::TooMany {
                field: "options.chance_script",
                got: entries.len() as u64,
                max: MAX_ENTRIES as u64,
            });
        }
        let draws = entries
            .iter()
            .map(|&e| match e {
                -1 => Ok(None),
                0..=MAX_OUTCOME => Ok(Some(e as u16)),
                _ => Err(DecodeError::OutOfSpan {
                    field: "options.chance_script",
                    value: i64::from(e),
                    min: -1,
                    max: i64::from(MAX_OUTCOME),
                }),
            })
            .collect::<Result<Arc<[_]>, _>>()?;
        Ok(Scripted { draws, used: 0 })
    }

    /// Whether there is nothing to script (the game plays from its seed).
    pub fn is_empty(&self) -> bool {
        self.draws.is_empty()
    }

    /// How many entries were used so far.
    pub fn used(&self) -> usize {
        self.used
    }

    /// Sets up a game of `G` whose draws come from this script, then from the
    /// seed; without a script, exactly [`druids_engine::Game::new`].
    pub fn new_game<G: Chance>(
        &mut self,
        players: usize,
        seed: u64,
        options: &G::Options,
        events: &mut Vec<G::Event>,
    ) -> Result<G, ScriptError> {
        if self.is_empty() {
            return Ok(G::new(players, seed, options, events)?);
        }
        let mut game = G::new_explicit(players, seed, options, events)?;
        if game.pending_draw().is_none() {
            return Err(ScriptError::NoDraws(G::NAME));
        }
        self.play(&mut game, events);
        Ok(game)
    }

    /// Supplies every draw `game` waits for from the script while it lasts,
    /// then switches the game to its seed. Call it after the set-up and after
    /// every action; it never fails (an outcome is taken modulo the draw's).
    pub fn play<G: Chance>(&mut self, game: &mut G, events: &mut Vec<G::Event>) {
        while let Some(draw) = game.pending_draw() {
            let outcome = match self.draws.get(self.used) {
                Some(&Some(o)) => usize::from(o) % draw.outcomes,
                Some(None) => game.seed_draw().expect("a draw is pending"),
                None => {
                    game.set_chance_mode(ChanceMode::Seeded, events);
                    return;
                }
            };
            self.used += 1;
            game.apply_chance(outcome, events)
                .expect("an outcome below the draw's count is accepted");
        }
        if self.used >= self.draws.len() && game.chance_mode() == ChanceMode::Explicit {
            game.set_chance_mode(ChanceMode::Seeded, events);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use druids_engine::Game;
    use druids_engine::dolmen::Dolmen;
    use druids_engine::meduris::{DieFace, Event, Good, Meduris};

    /// Plays `game` with the first legal action every time until `rolls` dice
    /// were rolled or it ends; returns the faces rolled.
    fn faces(game: &mut Meduris, script: &mut Scripted, rolls: usize) -> Vec<DieFace> {
        let mut events = Vec::new();
        let mut legal = Vec::new();
        let mut faces = Vec::new();
        while faces.len() < rolls {
            let Some(seat) = game.to_act() else { break };
            legal.clear();
            game.legal_actions(&mut legal);
            events.clear();
            game.apply(seat, &legal[0], &mut events).unwrap();
            script.play(game, &mut events);
            faces.extend(events.iter().filter_map(|e| match e {
                Event::DieRolled { face } => Some(*face),
                _ => None,
            }));
        }
        faces
    }

    #[test]
    fn scripted_dice_come_first_then_the_seed() {
        // 14 set-up draws from the seed, then four dice: "-1", "+1", wood, stone.
        let mut entries = vec![-1; 14];
        entries.extend([5, 4, 0, 3]);
        let mut script = Scripted::parse(&entries).unwrap();
        let mut events = Vec::new();
        let mut game: Meduris = script
            .new_game(2, 7, &Default::default(), &mut events)
            .unwrap();
        // The set-up's draws were the seed's: the same chips as a seeded game.
        let mut seeded_events = Vec::new();
        let mut seeded = Meduris::new(2, 7, &Default::default(), &mut seeded_events).unwrap();
        assert_eq!(events, seeded_events);
        let rolled = faces(&mut game, &mut script, 6);
        assert_eq!(
            rolled[..4],
            [
                DieFace::MinusOne,
                DieFace::PlusOne,
                DieFace::Yield(Good::Wood),
                DieFace::Yield(Good::Stone)
            ]
        );
        assert_eq!(script.used(), 18);
        // After the script, the seed decides: the same faces the seeded game
        // rolls at those turns (its stream moved on in step).
        let seeded_rolls = faces(&mut seeded, &mut Scripted::default(), 6);
        assert_eq!(rolled[4..], seeded_rolls[4..]);
    }

    #[test]
    fn bad_scripts_are_refused() {
        assert!(Scripted::parse(&[1000]).is_err());
        assert!(Scripted::parse(&[-2]).is_err());
        assert!(Scripted::parse(&vec![0; MAX_ENTRIES + 1]).is_err());
        let mut script = Scripted::parse(&[0]).unwrap();
        let refused = script.new_game::<Dolmen>(2, 1, &Default::default(), &mut Vec::new());
        assert!(matches!(refused, Err(ScriptError::NoDraws("dolmen"))));
    }
}
