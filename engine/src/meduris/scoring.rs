//! Final scoring (temples and rune stones) and the winner with its tie-breaks.

use super::action::Building;
use super::event::{Event, FinalResult, ScoreReason};
use super::state::{Phase, State};
use crate::{Outcome, Seat};

/// Points for holding `k` rune stones at the end: 1 + 2 + … + k.
pub const fn rune_points(k: i32) -> i32 {
    k * (k + 1) / 2
}

/// Scores temples and rune stones, ends the game and announces the result.
pub(crate) fn finish(state: &mut State, events: &mut Vec<Event>) {
    // Temples: 1 point per hut in the settlements directly left and right.
    for f in 0..state.len() {
        if let Some(Building::Temple(owner)) = state.building(f) {
            let huts = state.huts_beside(f) as i32;
            if huts > 0 {
                add_score(state, owner, huts, ScoreReason::Temple, events);
            }
        }
    }
    // Rune stones.
    for s in 0..state.players {
        let k = state.runes.iter().filter(|r| **r == Some(Seat(s))).count() as i32;
        if k > 0 {
            add_score(state, Seat(s), rune_points(k), ScoreReason::Runes, events);
        }
    }
    state.phase = Phase::Over;
    let outcome = outcome(state).expect("game over");
    let players = state.players as usize;
    events.push(Event::GameOver(Box::new(FinalResult {
        scores: outcome.scores,
        goods_left: state.seats[..players]
            .iter()
            .map(|s| Some(s.goods))
            .collect(),
        winners: outcome.winners,
    })));
}

/// What breaks a tie on points, in order.
pub(crate) const TIE_BREAKS: [&str; 2] = ["buildings placed", "goods left"];
/// Where goods left stands among [`TIE_BREAKS`].
pub(crate) const GOODS_LEFT_KEY: usize = 1;

/// The result once the game is over: most points, then most buildings placed,
/// then most goods left; seats still tied all win.
pub(crate) fn outcome(state: &State) -> Option<Outcome> {
    (state.phase == Phase::Over).then(|| standing(state))
}

/// The seats ranked as the game stands, by the same keys as the final result
/// (what a resignation ends the game on).
pub(crate) fn standing(state: &State) -> Outcome {
    let n = state.players as usize;
    Outcome::rank(
        state.seats[..n].iter().map(|s| s.score).collect(),
        (0..n)
            .map(|s| {
                vec![
                    i32::from(state.built[s]),
                    state.seats[s].goods.total() as i32,
                ]
            })
            .collect(),
        &TIE_BREAKS,
        state.by_safeguard,
    )
}

/// Changes a score, never below 0, and reports the change actually made.
pub(crate) fn add_score(
    state: &mut State,
    seat: Seat,
    delta: i32,
    reason: ScoreReason,
    events: &mut Vec<Event>,
) {
    let s = &mut state.seats[seat.index()].score;
    let new = (*s + delta).max(0);
    let applied = new - *s;
    *s = new;
    events.push(Event::Scored {
        seat,
        delta: applied,
        total: new,
        reason,
    });
}
