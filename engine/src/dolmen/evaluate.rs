//! The Die Dolmengötter heuristic the search bots use: a position's worth to
//! a seat, in points. It belongs to the game, like its wording, so that a new
//! game brings its own.

use super::{Circle, Dolmen, board};
use crate::{Evaluate, Game, Seat, Viewer};

/// Weight of one point of dolmen value still in hand (it scores only once placed).
const HAND_VALUE: f64 = 0.5;
/// Weight of leading a circle that is not complete (the next dolmen goes on top).
const LEAD_VALUE: f64 = 0.5;

/// Die Dolmengötter evaluation (points, from the seat's point of view):
/// `score + Σ value × multiplier of own dolmens on the board (what final scoring
/// would give today) + 0.5 × value of dolmens in hand + 0.5 × circles led`.
impl Evaluate for Dolmen {
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
