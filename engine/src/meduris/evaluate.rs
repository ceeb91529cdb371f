//! The Meduris heuristic the search bots use: a position's worth to a seat,
//! in points, for the position as it stands:
//! `score + rune_points(runes held) + temple points if the game ended now +
//! 0.3 × goods held + 0.5 × own huts on the ring`.
//!
//! Runes and temples count what final scoring would give today; goods and huts
//! are what future offerings are paid with and asked at. It belongs to the
//! game, like its wording, so that a new game brings its own.

use super::{Building, Meduris};
use crate::{Evaluate, Game, Seat, Viewer};

/// Weight of one good held.
const GOOD_VALUE: f64 = 0.3;
/// Weight of one own hut on the ring.
const HUT_VALUE: f64 = 0.5;

impl Evaluate for Meduris {
    fn evaluate(&self, seat: Seat) -> f64 {
        let view = self.view(Viewer::Seat(seat));
        let me = &view.seats[seat.index()];
        let runes = me.runes as f64;
        let n = view.fields.len();
        let is_hut = |i: usize| matches!(view.fields[i].building, Some(Building::Hut(_)));
        let mut temple_points = 0;
        let mut huts = 0;
        for (i, f) in view.fields.iter().enumerate() {
            match f.building {
                Some(Building::Temple(owner)) if owner == seat => {
                    // Huts in the runs directly left and right, each counted once.
                    let mut right = 0;
                    while right < n - 1 && is_hut((i + 1 + right) % n) {
                        right += 1;
                    }
                    let mut left = 0;
                    while left + right < n - 1 && is_hut((i + n - 1 - left) % n) {
                        left += 1;
                    }
                    temple_points += left + right;
                }
                Some(Building::Hut(owner)) if owner == seat => huts += 1,
                _ => {}
            }
        }
        me.score as f64
            + runes * (runes + 1.0) / 2.0
            + temple_points as f64
            + GOOD_VALUE * self.goods(seat).total() as f64
            + HUT_VALUE * huts as f64
    }
}
