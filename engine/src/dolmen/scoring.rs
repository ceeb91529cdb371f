//! Completion scoring, final scoring and the outcome.

use super::board::{self, Circle};
use super::event::{EndReason, Event, ScoreReason};
use super::state::{Phase, State};
use crate::{Outcome, Seat};

/// Changes a score and reports it.
pub(crate) fn add_score(
    state: &mut State,
    seat: Seat,
    delta: i32,
    reason: ScoreReason,
    events: &mut Vec<Event>,
) {
    let s = &mut state.seats[seat.index()];
    s.score += delta;
    events.push(Event::ScoreChanged {
        seat,
        delta,
        score: s.score,
        reason,
    });
}

/// Scores a circle's stack and removes it from the game: the top dolmen earns
/// value × the circle's highest multiplier (\[ruling\]: square 3, hexagon 4,
/// octagon 5), each one below the next lower, whatever the stack's height.
pub(crate) fn score_stack(state: &mut State, circle: Circle, events: &mut Vec<Event>) {
    let top = board::shape(circle).max_dolmens() as u8;
    let c = state.circles[circle.index()];
    for (i, d) in c.dolmens().iter().enumerate() {
        let seat = Seat(d.owner);
        let multiplier = top - i as u8;
        events.push(Event::DolmenScored {
            seat,
            circle,
            value: d.value,
            multiplier,
        });
        state.seats[seat.index()].scored[d.value as usize - 1] += 1;
        add_score(
            state,
            seat,
            d.value as i32 * multiplier as i32,
            ScoreReason::Dolmen,
            events,
        );
    }
    state.circles[circle.index()].clear_stack();
}

/// Ends regular play: every dolmen still on the board scores (circles in letter
/// order, each stack top to bottom, incomplete circles included), then the
/// game is over.
pub(crate) fn finish(state: &mut State, reason: EndReason, events: &mut Vec<Event>) {
    events.push(Event::GameEnded { reason });
    for c in board::circles() {
        score_stack(state, c, events);
    }
    state.queue = Default::default();
    state.phase = Phase::Over;
    // No turn is still to be played once the game is over, however it ended
    // (the last stone can end it during the last turns).
    state.last_turns_left = 0;
    state.by_safeguard = reason == EndReason::Safeguard;
    let o = outcome(state).expect("the game is over");
    events.push(Event::GameOver {
        scores: o.scores,
        winners: o.winners,
    });
}

/// The result once the game is over: most points, then most dolmens placed;
/// seats still tied all win. The ranking lists tied seats in seat order.
pub(crate) fn outcome(state: &State) -> Option<Outcome> {
    (state.phase == Phase::Over).then(|| standing(state))
}

/// The seats ranked as the game stands, by the same keys as the final result
/// (what a resignation ends the game on).
pub(crate) fn standing(state: &State) -> Outcome {
    let n = state.n();
    Outcome::rank(
        state.seats[..n].iter().map(|s| s.score).collect(),
        state.seats[..n]
            .iter()
            .map(|s| vec![i32::from(s.placed)])
            .collect(),
        &["dolmens placed"],
        state.by_safeguard,
    )
}
