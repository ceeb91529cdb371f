//! Per-game evaluations: what the search bots know about each game. One
//! `impl Searchable` per game.
//!
//! Meduris evaluation (points, from the seat's point of view, for the position
//! as it stands):
//! `score + rune_points(runes held) + temple points if the game ended now + 0.3 × goods held + 0.5 × own huts on the ring`.
//!
//! Runes and temples count what final scoring would give today; goods and huts
//! are what future offerings are paid with and asked at.
//!
//! Die Dolmengötter evaluation: see `impl Searchable for Dolmen` below.

use druids_engine::dolmen::{Circle, Dolmen, board};
use druids_engine::meduris::{Building, Meduris};
use druids_engine::{Game, Seat, Viewer};

use crate::Searchable;

/// Weight of one good held.
const GOOD_VALUE: f64 = 0.3;
/// Weight of one own hut on the ring.
const HUT_VALUE: f64 = 0.5;

impl Searchable for Meduris {
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

/// Weight of one point of dolmen value still in hand (it scores only once placed).
const HAND_VALUE: f64 = 0.5;
/// Weight of leading a circle that is not complete (the next dolmen goes on top).
const LEAD_VALUE: f64 = 0.5;

/// Die Dolmengötter evaluation (points, from the seat's point of view):
/// `score + Σ value × multiplier of own dolmens on the board (what final scoring
/// would give today) + 0.5 × value of dolmens in hand + 0.5 × circles led`.
impl Searchable for Dolmen {
    fn evaluate(&self, seat: Seat) -> f64 {
        let view = self.view(Viewer::Seat(seat));
        let me = &view.seats[seat.index()];
        let mut on_board = 0.0;
        let mut led = 0.0;
        for (i, c) in view.circles.iter().enumerate() {
            let top = board::shape(Circle(i as u8)).max_dolmens();
            for (depth, d) in c.stack.iter().enumerate() {
                if d.seat == seat {
                    let value = d.value.unwrap_or(0) as usize;
                    on_board += (value * (top - depth)) as f64;
                }
            }
            if !c.complete && c.leader == Some(seat) {
                led += 1.0;
            }
        }
        let hand: f64 = me
            .hand
            .map(|h| {
                h.iter()
                    .enumerate()
                    .map(|(v, &n)| ((v + 1) * n as usize) as f64)
                    .sum()
            })
            .unwrap_or(0.0);
        me.score as f64 + on_board + HAND_VALUE * hand + LEAD_VALUE * led
    }
}
