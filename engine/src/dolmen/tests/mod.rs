//! Scenario and unit tests: the board as data, the rulebook's octagon example,
//! one test per rule and per \[ruling\] / engine decision. Positions are built
//! directly on the state, then driven through the public `apply`, and the exact
//! outcome is checked.

use super::Dolmen;
use super::action::{Action, Decision};
use super::board::{self, CIRCLES, Circle, Dir, SITES, Shape, Site};
use super::event::{EndReason, Event, ScoreReason};
use super::rules::RuleError;
use super::state::{Occupant, Options, Phase, StackDolmen, State, starting_dolmens};
use super::view::QueuedDolmen;
use crate::{Determinize, Game, Rejection, RuleViolation, Seat, SetupError, TurnError, Viewer};

const RED: Seat = Seat(0);
const YELLOW: Seat = Seat(1);
const BLUE: Seat = Seat(2);

/// The site at (x, y).
fn s(x: u8, y: u8) -> Site {
    board::site_at(x, y).unwrap_or_else(|| panic!("no site at ({x},{y})"))
}

/// The circle with this letter.
fn c(letter: char) -> Circle {
    let i = if letter.is_ascii_lowercase() {
        letter as u8 - b'a' + 26
    } else {
        letter as u8 - b'A'
    };
    Circle(i)
}

/// Where `bare` parks one standing druid per seat: (1, 8), (2, 8), … on the
/// bottom row, out of the way of the scenarios.
fn park(seat: Seat) -> Site {
    s(1 + seat.0, 8)
}

/// A game past setup: one standing druid per seat parked on the bottom row
/// (the other two still "to place", which keeps the piece counts consistent),
/// no stones, `active` to take turn 1.
fn bare(players: usize, active: Seat) -> Dolmen {
    let mut game = Dolmen::new(players, 0, &Options::default(), &mut Vec::new()).unwrap();
    let st = game.state_mut();
    for p in 0..players as u8 {
        let seat = Seat(p);
        st.set_site(park(seat), Some(Occupant::Druid { seat, lying: false }));
        st.seats[p as usize].druids_to_place = 2;
    }
    st.phase = Phase::Turn;
    st.active = active;
    st.turn = 1;
    assert!(game.pieces_conserved());
    game
}

/// Puts a druid of `seat` on `site` (one of those "to place").
fn druid(st: &mut State, site: Site, seat: Seat, lying: bool) {
    assert!(st.site(site).is_none());
    st.set_site(site, Some(Occupant::Druid { seat, lying }));
    st.seats[seat.index()].druids_to_place -= 1;
}

/// Moves a parked druid away (back to "to place").
fn unpark(st: &mut State, seat: Seat) {
    st.set_site(park(seat), None);
    st.seats[seat.index()].druids_to_place += 1;
}

/// Puts a stone of `seat` on `site` directly: counts updated, no majorities
/// evaluated (set leaders by hand).
fn put_stone(st: &mut State, site: Site, seat: Seat) {
    assert!(st.site(site).is_none());
    st.set_site(site, Some(Occupant::Stone(seat)));
    st.seats[seat.index()].stones_left -= 1;
    for &circle in board::circles_of(site) {
        st.add_circle_stone(circle, seat);
    }
}

/// Puts a dolmen of `seat` under the stack of `circle` directly, from its hand.
fn put_dolmen(st: &mut State, circle: Circle, seat: Seat, value: u8) {
    let s = &mut st.seats[seat.index()];
    assert!(s.hand[value as usize - 1] > 0);
    s.hand[value as usize - 1] -= 1;
    s.placed += 1;
    st.circles[circle.index()].push(
        StackDolmen {
            owner: seat.0,
            value,
        },
        false,
    );
}

/// Takes every dolmen but `keep` (value → count) out of a seat's hand, as if
/// they had been placed and scored.
fn leave_in_hand(st: &mut State, seat: Seat, keep: [u8; 4]) {
    let s = &mut st.seats[seat.index()];
    for (v, &k) in keep.iter().enumerate() {
        let gone = s.hand[v] - k;
        s.scored[v] += gone;
        s.placed += gone;
    }
    s.hand = keep;
}

/// Applies a legal action; checks that it was listed and that pieces are conserved.
fn play(game: &mut Dolmen, seat: Seat, action: Action) -> Vec<Event> {
    let mut legal = Vec::new();
    game.legal_actions(&mut legal);
    assert!(
        legal.contains(&action),
        "{action:?} by {seat} is not listed in {legal:?}"
    );
    let events = play_raw(game, seat, action);
    assert!(game.pieces_conserved(), "pieces conserved after {action:?}");
    events
}

/// Applies an action without the conservation check (for positions that
/// shortcut the piece counts).
fn play_raw(game: &mut Dolmen, seat: Seat, action: Action) -> Vec<Event> {
    let mut events = Vec::new();
    if let Err(e) = game.apply(seat, &action, &mut events) {
        panic!("{action:?} by {seat} rejected: {e}");
    }
    events
}

/// Applies an illegal action: it must be rejected, unlisted, and change nothing.
fn reject(game: &mut Dolmen, seat: Seat, action: Action) -> RuleError {
    let before = game.clone();
    let mut legal = Vec::new();
    game.legal_actions(&mut legal);
    let mut events = Vec::new();
    let err = game.apply(seat, &action, &mut events).unwrap_err();
    assert_eq!(*game, before, "a rejected action changes nothing");
    assert!(events.is_empty(), "a rejected action reports nothing");
    if game.to_act() == Some(seat) {
        assert!(
            !legal.contains(&action),
            "{action:?} is listed but rejected"
        );
    }
    err
}

/// Leaves a stone of `seat` on `site` through the rules (as if its druid had
/// just left the site).
fn stone(game: &mut Dolmen, seat: Seat, site: Site) -> Vec<Event> {
    let st = game.state_mut();
    st.phase = Phase::Stone { site };
    st.active = seat;
    play(game, seat, Action::PlaceStone)
}

fn score(game: &Dolmen, seat: Seat) -> i32 {
    game.state().seats[seat.index()].score
}

/// The stack of a circle, top first, as (owner, value).
fn stack(game: &Dolmen, circle: Circle) -> Vec<(Seat, u8)> {
    game.state().circles[circle.index()]
        .dolmens()
        .iter()
        .map(|d| (Seat(d.owner), d.value))
        .collect()
}

fn legal(game: &Dolmen) -> Vec<Action> {
    let mut out = Vec::new();
    game.legal_actions(&mut out);
    out
}

fn dolmen_decision(circle: Circle, on_top: bool) -> Option<Decision> {
    Some(Decision::Dolmen { circle, on_top })
}

fn walk(from: Site, dir: Dir) -> Action {
    Action::Walk { from, dir }
}

mod board_data;
mod dolmens;
mod end;
mod hidden;
mod moves;
mod setup;
