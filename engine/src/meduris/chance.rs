//! Meduris's random draws as chance decisions ([`crate::Chance`]): the
//! set-up's draws for the bonus chips, then one die roll per turn.

use super::Meduris;
use super::action::DieFace;
use super::apply::small_yield;
use super::event::Event;
use super::setup::{self, place_drawn_chips, setup_draw_size, setup_draws};
use super::state::{self, Phase, State};
use crate::{Chance, ChanceError, ChanceMode, Draw, SetupError};

/// The draw `state` waits for.
fn pending(state: &State) -> Option<Draw> {
    match state.phase {
        Phase::Chips { drawn } => Some(Draw {
            outcomes: setup_draw_size(state.len(), drawn as usize),
        }),
        Phase::Roll => Some(Draw { outcomes: 6 }),
        _ => None,
    }
}

/// Resolves the pending draw with `outcome` (checked by the caller).
fn resolve(state: &mut State, outcome: usize, events: &mut Vec<Event>) {
    match state.phase {
        Phase::Chips { drawn } => {
            state.setup_draws[drawn as usize] = outcome as u8;
            if drawn as usize + 1 == setup_draws(state.len()) {
                place_drawn_chips(state, events);
            } else {
                state.phase = Phase::Chips { drawn: drawn + 1 };
            }
        }
        Phase::Roll => small_yield(state, DieFace::ALL[outcome], events),
        _ => unreachable!("resolve is called with a draw pending"),
    }
}

/// The die's faces, as the events word them.
fn face_text(face: DieFace) -> String {
    Event::DieRolled { face }.to_string()
}

impl Chance for Meduris {
    fn new_explicit(
        players: usize,
        seed: u64,
        options: &Self::Options,
        events: &mut Vec<Event>,
    ) -> Result<Self, SetupError> {
        setup::setup(players, seed, options, true, events).map(|state| Meduris { state })
    }

    fn chance_mode(&self) -> ChanceMode {
        if self.state.explicit {
            ChanceMode::Explicit
        } else {
            ChanceMode::Seeded
        }
    }

    fn set_chance_mode(&mut self, mode: ChanceMode, events: &mut Vec<Event>) {
        let state = &mut self.state;
        state.explicit = mode == ChanceMode::Explicit;
        if state.explicit {
            return;
        }
        while let Some(draw) = pending(state) {
            let outcome = state::below(&mut state.rng, draw.outcomes);
            resolve(state, outcome, events);
        }
    }

    fn pending_draw(&self) -> Option<Draw> {
        pending(&self.state)
    }

    fn apply_chance(&mut self, outcome: usize, events: &mut Vec<Event>) -> Result<(), ChanceError> {
        let draw = pending(&self.state).ok_or(ChanceError::NoDrawPending)?;
        if outcome >= draw.outcomes {
            return Err(ChanceError::NoSuchOutcome {
                outcome,
                outcomes: draw.outcomes,
            });
        }
        // The seed's stream moves on in step (see `crate::Chance`).
        state::below(&mut self.state.rng, draw.outcomes);
        resolve(&mut self.state, outcome, events);
        Ok(())
    }

    fn seed_draw(&self) -> Option<usize> {
        let draw = pending(&self.state)?;
        Some(state::below(&mut self.state.rng.clone(), draw.outcomes))
    }

    fn chance_text(&self, outcome: usize) -> Option<String> {
        let draw = pending(&self.state)?;
        if outcome >= draw.outcomes {
            return None;
        }
        Some(match self.state.phase {
            Phase::Roll => face_text(DieFace::ALL[outcome]),
            Phase::Chips { drawn } => format!(
                "set-up draw {} of {}: {outcome} (of {})",
                drawn + 1,
                setup_draws(self.state.len()),
                draw.outcomes
            ),
            _ => unreachable!("a draw is pending"),
        })
    }
}
