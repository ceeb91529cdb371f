//! The random bot: a uniformly random legal action. The baseline every other
//! bot must beat, and the fastest way to exercise a server.

use druids_engine::{Game, Seat};
use rand_core::{RngCore, SeedableRng};
use rand_pcg::Pcg64Mcg;

use crate::Bot;

/// Picks uniformly among the legal actions.
pub struct Random {
    rng: Pcg64Mcg,
}

impl Random {
    /// A random bot with its own seeded generator.
    pub fn new(seed: u64) -> Random {
        Random {
            rng: Pcg64Mcg::seed_from_u64(seed),
        }
    }
}

impl<G: Game> Bot<G> for Random {
    fn name(&self) -> &'static str {
        crate::Strategy::Random.name()
    }

    fn choose(&mut self, _seat: Seat, _view: &G::View, legal: &[G::Action]) -> G::Action {
        legal[self.rng.next_u32() as usize % legal.len()].clone()
    }
}
