//! Cairn's die under outside control: in explicit mode a roll waits for its
//! face (six outcomes), and the seed's generator advances in step, so
//! supplying what the seed would draw plays the seeded game exactly.

use super::Cairn;
use crate::{Chance, ChanceError, ChanceMode, Draw, Game, SetupError};

impl Chance for Cairn {
    fn new_explicit(
        players: usize,
        seed: u64,
        options: &Self::Options,
        events: &mut Vec<Self::Event>,
    ) -> Result<Self, SetupError> {
        // The set-up draws nothing: only rolls are chance decisions.
        let mut game = Cairn::new(players, seed, options, events)?;
        game.mode = ChanceMode::Explicit;
        Ok(game)
    }

    fn chance_mode(&self) -> ChanceMode {
        self.mode
    }

    fn set_chance_mode(&mut self, mode: ChanceMode, events: &mut Vec<Self::Event>) {
        self.mode = mode;
        if mode == ChanceMode::Seeded && self.rolling {
            self.rolling = false;
            let face = self.draw();
            self.land(face as u8 + 1, events);
        }
    }

    fn pending_draw(&self) -> Option<Draw> {
        self.rolling.then_some(Draw { outcomes: 6 })
    }

    fn apply_chance(
        &mut self,
        outcome: usize,
        events: &mut Vec<Self::Event>,
    ) -> Result<(), ChanceError> {
        if !self.rolling {
            return Err(ChanceError::NoDrawPending);
        }
        if outcome >= 6 {
            return Err(ChanceError::NoSuchOutcome {
                outcome,
                outcomes: 6,
            });
        }
        self.draw();
        self.rolling = false;
        self.land(outcome as u8 + 1, events);
        Ok(())
    }

    fn seed_draw(&self) -> Option<usize> {
        self.rolling.then(|| self.clone().draw())
    }

    fn chance_text(&self, outcome: usize) -> Option<String> {
        (self.rolling && outcome < 6).then(|| format!("the die shows {}", outcome + 1))
    }
}
