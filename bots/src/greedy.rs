//! The greedy bot: tries every legal action on one determinization of what it
//! sees and keeps the one whose resulting position the game's evaluation
//! ([`druids_engine::Evaluate::evaluate`]) rates best for itself. Ties go to the first listed.

use druids_engine::Seat;
use rand_core::{RngCore, SeedableRng};
use rand_pcg::Pcg64Mcg;

use crate::{Bot, Searchable};

/// One-ply search on the game's evaluation.
pub struct Greedy {
    rng: Pcg64Mcg,
}

impl Greedy {
    /// A greedy bot; `seed` drives its determinizations.
    pub fn new(seed: u64) -> Greedy {
        Greedy {
            rng: Pcg64Mcg::seed_from_u64(seed),
        }
    }
}

impl<G: Searchable> Bot<G> for Greedy {
    fn name(&self) -> &'static str {
        crate::Strategy::Greedy.name()
    }

    fn choose(&mut self, seat: Seat, view: &G::View, legal: &[G::Action]) -> G::Action {
        // A view that describes no position (never one the engine made):
        // nothing to search, the first legal action.
        let Ok(base) = G::determinize(view, self.rng.next_u64()) else {
            return legal[0].clone();
        };
        let mut events = Vec::new();
        let mut best = (f64::NEG_INFINITY, 0);
        for (i, action) in legal.iter().enumerate() {
            let mut g = base.clone();
            events.clear();
            if g.apply(seat, action, &mut events).is_err() {
                continue;
            }
            let v = g.evaluate(seat);
            if v > best.0 {
                best = (v, i);
            }
        }
        legal[best.1].clone()
    }
}
