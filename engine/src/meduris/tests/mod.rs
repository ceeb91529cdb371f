//! Scenario tests: every rulebook example and FAQ item from the digest, and one
//! test per rule. Positions are built directly on the state, then driven through
//! the public `apply`, and the exact outcome is checked.

use super::Meduris;
use super::action::{Action, Building, Chip, Decision, DieFace, DruidPos};
use super::board::Area;
use super::event::{Event, OfferingKind, ScoreReason};
use super::goods::{Good, Good::*, Goods};
use super::state::{Phase, Stack, State};
use super::{apply, rules, state};
use crate::{Game, Seat, TurnError};

const PURPLE: Seat = Seat(0);
const BLUE: Seat = Seat(1);
const GREEN: Seat = Seat(2);
const RED: Seat = Seat(3);

fn g(pairs: &[(Good, u8)]) -> Goods {
    Goods::from_pairs(pairs)
}

/// A game past setup: no workers, no chips, no goods anywhere but the supply,
/// `active` to play the main part of a turn, druid on his temple.
fn bare(players: usize, active: Seat) -> Meduris {
    let mut game = Meduris::new(players, 1, &Default::default(), &mut Vec::new()).unwrap();
    let st = game.state_mut();
    for f in 0..st.len() {
        st.ring.set_chip(f, None);
    }
    st.plateaus = [Stack::default(); 4];
    for s in 0..players {
        st.seats[s].workers_to_place = 0;
        st.seats[s].goods = Goods::EMPTY;
    }
    st.supply = Goods([18; 4]);
    st.phase = Phase::Turn;
    st.active = active;
    st.turn = 1;
    game
}

/// Sets a seat's goods, moving the difference from/to the supply (conservation holds).
fn set_goods(st: &mut State, seat: Seat, goods: Goods) {
    st.supply.add(st.seats[seat.index()].goods);
    st.seats[seat.index()].goods = goods;
    st.supply.remove(goods);
}

fn hut(st: &mut State, field: usize, seat: Seat) {
    st.ring.set_building(field, Some(Building::Hut(seat)));
}

fn temple(st: &mut State, field: usize, seat: Seat) {
    st.ring.set_building(field, Some(Building::Temple(seat)));
}

fn stack(st: &mut State, plateau: Good, workers: &[Seat]) {
    let mut s = Stack::default();
    for &w in workers {
        s.push(w);
    }
    st.plateaus[plateau.index()] = s;
}

fn play(game: &mut Meduris, seat: Seat, action: Action) -> Vec<Event> {
    let mut events = Vec::new();
    let before = game.clone();
    if let Err(e) = game.apply(seat, &action, &mut events) {
        panic!("{action:?} by {seat} rejected: {e}");
    }
    assert!(game.goods_conserved(), "goods conserved after {action:?}");
    let _ = before;
    events
}

fn reject(game: &mut Meduris, seat: Seat, action: Action) -> rules::RuleError {
    let before = game.clone();
    let mut events = Vec::new();
    let err = game.apply(seat, &action, &mut events).unwrap_err();
    assert_eq!(*game, before, "a rejected action changes nothing");
    assert!(events.is_empty());
    err
}

fn score(game: &Meduris, seat: Seat) -> i32 {
    game.state().seats[seat.index()].score
}

fn offer(payment: Goods) -> Action {
    Action::Offer { payment }
}

fn scored(events: &[Event], who: Seat, why: ScoreReason) -> i32 {
    events
        .iter()
        .filter_map(|e| match *e {
            Event::Scored {
                seat,
                delta,
                reason,
                ..
            } if seat == who && reason == why => Some(delta),
            _ => None,
        })
        .sum()
}

mod end;
mod examples;
mod listing;
mod pictures;
mod rule_by_rule;
mod setup_and_errors;
