//! Applying one action. Every step validates completely before it changes
//! anything, so a rejected action leaves the state exactly as it was; then the
//! turn sequence runs on to the next decision, and to the end of the game.

use super::action::{Action, Building, Chip, DieFace, DruidPos, Plateau};
use super::event::{Event, OfferingKind, ScoreReason};
use super::goods::{Good, Goods};
use super::payment;
use super::rules::{RuleError, decision, to_act};
use super::scoring::{self, add_score};
use super::state::{self, MAX_SEATS, Phase, State, field_goods, hut_cost};
use crate::{Seat, TurnError};

pub(crate) fn apply(
    state: &mut State,
    seat: Seat,
    action: &Action,
    events: &mut Vec<Event>,
) -> Result<(), RuleError> {
    TurnError::check(to_act(state), seat)?;
    let wrong = || {
        RuleError::from(TurnError::WrongDecision {
            expected: decision(state).expect("game not over"),
        })
    };
    match (state.phase, *action) {
        (Phase::PlaceWorkers { .. }, Action::PlaceWorker { plateau }) => {
            place_worker(state, seat, plateau, events)
        }
        (Phase::TakeGood { .. }, Action::TakeGood { good }) => take_good(state, seat, good, events),
        (Phase::ReturnGood { .. }, Action::ReturnGood { good }) => {
            return_good(state, seat, good, events)
        }
        (Phase::Turn, Action::BigYield { from, height, to }) => {
            big_yield(state, seat, from, height, to, events)
        }
        (Phase::Turn, Action::BuildHut { field, payment }) => {
            build(state, seat, field, payment, true, events)
        }
        (Phase::Turn, Action::BuildTemple { field, payment }) => {
            build(state, seat, field, payment, false, events)
        }
        (Phase::Ritual { .. } | Phase::LastRound { .. }, Action::Offer { payment }) => {
            offer(state, seat, Some(payment), events)
        }
        (Phase::Ritual { .. } | Phase::LastRound { .. }, Action::OfferChip) => {
            offer(state, seat, None, events)
        }
        _ => Err(wrong()),
    }
}

fn place_worker(
    state: &mut State,
    seat: Seat,
    plateau: Plateau,
    events: &mut Vec<Event>,
) -> Result<(), RuleError> {
    if !state.plateaus[plateau.index()].has_room() {
        return Err(RuleError::PlateauFull(plateau));
    }
    state.plateaus[plateau.index()].push(seat);
    state.seats[seat.index()].workers_to_place -= 1;
    events.push(Event::WorkerPlaced { seat, plateau });
    // Next seat (in order) that still has workers; all seats hold the same number,
    // so the first one with workers left is simply the next one.
    let next = state.next_seat(seat);
    if state.seats[next.index()].workers_to_place > 0 {
        state.phase = Phase::PlaceWorkers { seat: next };
    } else {
        start_turn(state, state.active, events);
    }
    Ok(())
}

fn take_good(
    state: &mut State,
    seat: Seat,
    good: Good,
    events: &mut Vec<Event>,
) -> Result<(), RuleError> {
    if state.supply.get(good) == 0 {
        return Err(RuleError::SupplyEmpty(good));
    }
    gain(state, seat, good, 1, events);
    continue_plus_one(state, state.next_seat(seat));
    Ok(())
}

fn return_good(
    state: &mut State,
    seat: Seat,
    good: Good,
    events: &mut Vec<Event>,
) -> Result<(), RuleError> {
    if state.seats[seat.index()].goods.get(good) == 0 {
        return Err(RuleError::NotHeld(good));
    }
    let one = Goods::of(good, 1);
    state.seats[seat.index()].goods.remove(one);
    state.supply.add(one);
    events.push(Event::GoodReturned { seat, good });
    continue_minus_one(state, state.next_seat(seat));
    Ok(())
}

/// Asks `seat` and the following seats, up to the active one, to take a good.
/// Nobody is asked once the whole supply is empty.
fn continue_plus_one(state: &mut State, seat: Seat) {
    state.phase = if seat != state.active && !state.supply.is_empty() {
        Phase::TakeGood { seat }
    } else {
        Phase::Turn
    };
}

/// Asks `seat` and the following seats, up to the active one, that hold any good
/// to return one.
fn continue_minus_one(state: &mut State, mut seat: Seat) {
    while seat != state.active {
        if !state.seats[seat.index()].goods.is_empty() {
            state.phase = Phase::ReturnGood { seat };
            return;
        }
        seat = state.next_seat(seat);
    }
    state.phase = Phase::Turn;
}

/// Moves up to `count` of `good` from the supply to `seat`; reports what was given.
fn gain(state: &mut State, seat: Seat, good: Good, count: u8, events: &mut Vec<Event>) {
    let given = count.min(state.supply.get(good));
    if given == 0 {
        return;
    }
    let g = Goods::of(good, given);
    state.supply.remove(g);
    state.seats[seat.index()].goods.add(g);
    events.push(Event::GoodsGained {
        seat,
        good,
        count: given,
    });
}

fn big_yield(
    state: &mut State,
    seat: Seat,
    from: Plateau,
    height: u8,
    to: Plateau,
    events: &mut Vec<Event>,
) -> Result<(), RuleError> {
    if state.plateaus[from.index()].at(height) != Some(seat) {
        return Err(RuleError::NotYourWorker {
            plateau: from,
            height,
        });
    }
    if from == to {
        return Err(RuleError::SamePlateau);
    }
    if !state.plateaus[to.index()].has_room() {
        return Err(RuleError::PlateauFull(to));
    }
    state.plateaus[from.index()].remove(height);
    state.plateaus[to.index()].push(seat);
    events.push(Event::WorkerMoved {
        seat,
        from,
        height,
        to,
    });
    // The worker at height h yields h goods, top worker first.
    let stack = state.plateaus[to.index()];
    for (i, owner) in stack.workers().enumerate().rev() {
        gain(state, owner, to, i as u8 + 1, events);
    }
    end_turn(state, events);
    Ok(())
}

fn build(
    state: &mut State,
    seat: Seat,
    field: u8,
    payment: Goods,
    hut: bool,
    events: &mut Vec<Event>,
) -> Result<(), RuleError> {
    let len = state.len();
    let f = field as usize;
    if f >= len {
        return Err(RuleError::NoSuchField {
            field,
            len: len as u8,
        });
    }
    if state.building(f).is_some() {
        return Err(RuleError::FieldOccupied(field));
    }
    let me = &state.seats[seat.index()];
    let required = if hut {
        if me.huts_left == 0 {
            return Err(RuleError::NoHutsLeft);
        }
        hut_cost(state, f)
    } else {
        if me.temples_left == 0 {
            return Err(RuleError::NoTemplesLeft);
        }
        if state.chip(f).is_some() {
            return Err(RuleError::ChipOnField(field));
        }
        field_goods(state, f)
    };
    if !payment::covers_exactly(payment, required) {
        return Err(RuleError::WrongPayment {
            required,
            paid: payment,
        });
    }
    if !payment.is_subset_of(me.goods) {
        return Err(RuleError::CannotAfford(payment));
    }

    // Valid: from here on nothing fails.
    let me = &mut state.seats[seat.index()];
    me.goods.remove(payment);
    state.supply.add(payment);
    state.built[seat.index()] += 1;
    if hut {
        me.huts_left -= 1;
        state.ring.set_building(f, Some(Building::Hut(seat)));
        events.push(Event::HutBuilt {
            seat,
            field,
            paid: payment,
            settlement: state.settlement_through(f) as u8,
        });
        match state.chip(f) {
            Some(chip @ Chip::PlusTwo) => {
                state.ring.set_chip(f, None);
                events.push(Event::ChipUsed { field, chip });
                add_score(state, seat, 2, ScoreReason::Chip, events);
            }
            Some(chip @ Chip::FreeHut) => {
                state.ring.set_chip(f, None);
                events.push(Event::ChipUsed { field, chip });
            }
            // The druid chip stays under the hut.
            Some(Chip::DruidOffering) | None => {}
        }
        let area = state.field(f).area;
        let from = state.runes[area.index()];
        if from != Some(seat) {
            state.runes[area.index()] = Some(seat);
            events.push(Event::RuneTaken {
                area,
                from,
                to: seat,
            });
        }
    } else {
        me.temples_left -= 1;
        state.ring.set_building(f, Some(Building::Temple(seat)));
        events.push(Event::TempleBuilt {
            seat,
            field,
            paid: payment,
        });
    }
    advance_druid(state, events);
    Ok(())
}

/// Interim rune scoring: 1 point per rune stone held.
fn cross_river(state: &mut State, events: &mut Vec<Event>) {
    events.push(Event::RiverCrossed);
    let mut held = [0i32; MAX_SEATS];
    for s in state.runes.iter().flatten() {
        held[s.index()] += 1;
    }
    for s in 0..state.players {
        if held[s as usize] > 0 {
            add_score(
                state,
                Seat(s),
                held[s as usize],
                ScoreReason::RiverCrossing,
                events,
            );
        }
    }
}

/// After a build: one stone field forward while on the temple or stone fields 1–2,
/// otherwise walk clockwise to the next hut and start a ritual there.
fn advance_druid(state: &mut State, events: &mut Vec<Event>) {
    let start = match state.druid {
        DruidPos::Temple => {
            return move_druid_on_stones(state, 1, events);
        }
        DruidPos::StoneField(k) if k < 3 => {
            return move_druid_on_stones(state, k + 1, events);
        }
        DruidPos::StoneField(_) => None,
        DruidPos::Field(x) => Some(x as usize),
    };
    // FAQ: with no hut on the board he stays where he is.
    if !state.any_hut() {
        return end_turn(state, events);
    }
    let n = state.len();
    let mut pos = match start {
        None => 0,
        Some(x) => {
            // [ruling] If his own hut is the only one, he walks the full ring back to it.
            let mut p = x;
            loop {
                if p == n - 1 {
                    cross_river(state, events);
                }
                p = state.next_field(p);
                if state.is_hut(p) {
                    break p;
                }
            }
        }
    };
    while !state.is_hut(pos) {
        if pos == n - 1 {
            cross_river(state, events);
        }
        pos = state.next_field(pos);
    }
    state.druid = DruidPos::Field(pos as u8);
    events.push(Event::DruidMoved { to: state.druid });
    state.phase = Phase::Ritual {
        field: pos as u8,
        start: pos as u8,
    };
}

fn move_druid_on_stones(state: &mut State, k: u8, events: &mut Vec<Event>) {
    state.druid = DruidPos::StoneField(k);
    events.push(Event::DruidMoved { to: state.druid });
    end_turn(state, events);
}

fn offer(
    state: &mut State,
    seat: Seat,
    payment: Option<Goods>,
    events: &mut Vec<Event>,
) -> Result<(), RuleError> {
    let (field, last_round) = match state.phase {
        Phase::Ritual { field, .. } => (field, false),
        Phase::LastRound { field, .. } => (field, true),
        _ => unreachable!("offer is only dispatched in an offering phase"),
    };
    let f = field as usize;
    let required = field_goods(state, f);
    let holding = state.seats[seat.index()].goods;
    let (kind, paid) = match payment {
        None => {
            if state.chip(f) != Some(Chip::DruidOffering) {
                return Err(RuleError::NoDruidChip(field));
            }
            (OfferingKind::Chip, Goods::EMPTY)
        }
        Some(p) if p.is_empty() => (OfferingKind::Nothing, p),
        Some(p) => {
            let [a, b] = state.field(f).goods;
            let kind = if payment::covers_exactly(p, required) {
                OfferingKind::Both
            } else if payment::covers_exactly(p, Goods::of(a, 1))
                || payment::covers_exactly(p, Goods::of(b, 1))
            {
                OfferingKind::One
            } else {
                return Err(RuleError::WrongOffering { required, paid: p });
            };
            if !p.is_subset_of(holding) {
                return Err(RuleError::CannotAfford(p));
            }
            (kind, p)
        }
    };

    // Valid.
    if kind == OfferingKind::Chip {
        state.ring.set_chip(f, None);
        events.push(Event::ChipUsed {
            field,
            chip: Chip::DruidOffering,
        });
    }
    state.seats[seat.index()].goods.remove(paid);
    state.supply.add(paid);
    events.push(Event::Offering {
        seat,
        field,
        kind,
        paid,
    });
    let delta = match kind {
        OfferingKind::Both | OfferingKind::Chip => state.settlement_through(f) as i32,
        OfferingKind::One => 1,
        OfferingKind::Nothing => -1,
    };
    add_score(state, seat, delta, ScoreReason::Offering, events);

    if last_round {
        continue_last_round(state, f, events);
    } else {
        continue_ritual(state, f, events);
    }
    Ok(())
}

/// After the offering at `f`: the druid moves on to the next hut of the
/// settlement, if there is one he has not visited in this ritual.
fn continue_ritual(state: &mut State, f: usize, events: &mut Vec<Event>) {
    let Phase::Ritual { start, .. } = state.phase else {
        unreachable!("ritual phase")
    };
    let next = state.next_field(f);
    if state.is_hut(next) && next != start as usize {
        if next == 0 {
            cross_river(state, events);
        }
        state.druid = DruidPos::Field(next as u8);
        events.push(Event::DruidMoved { to: state.druid });
        state.phase = Phase::Ritual {
            field: next as u8,
            start,
        };
    } else {
        end_turn(state, events);
    }
}

// ---------------------------------------------------------------------------
// Turn sequence and the end of the game

/// Starts `seat`'s turn: the die roll and its small yield (in explicit chance
/// mode the roll waits for [`crate::Chance::apply_chance`]).
fn start_turn(state: &mut State, seat: Seat, events: &mut Vec<Event>) {
    state.active = seat;
    state.turn += 1;
    events.push(Event::TurnStarted {
        seat,
        turn: state.turn,
    });
    if state.explicit {
        state.phase = Phase::Roll;
        return;
    }
    let face = DieFace::ALL[state::below(&mut state.rng, 6)];
    small_yield(state, face, events);
}

/// Part 1 of a turn: the die shows `face`.
pub(crate) fn small_yield(state: &mut State, face: DieFace, events: &mut Vec<Event>) {
    let seat = state.active;
    events.push(Event::DieRolled { face });
    match face {
        DieFace::Yield(good) => {
            // Top worker first.
            let stack = state.plateaus[good.index()];
            for owner in stack.workers().rev() {
                gain(state, owner, good, 1, events);
            }
            state.phase = Phase::Turn;
        }
        DieFace::PlusOne => {
            if state.supply.is_empty() {
                state.phase = Phase::Turn;
            } else {
                state.phase = Phase::TakeGood { seat };
            }
        }
        DieFace::MinusOne => {
            if state.seats[seat.index()].goods.is_empty() {
                continue_minus_one(state, state.next_seat(seat));
            } else {
                state.phase = Phase::ReturnGood { seat };
            }
        }
    }
}

/// The active seat's turn is complete (after its druid move and ritual).
fn end_turn(state: &mut State, events: &mut Vec<Event>) {
    let me = state.active;
    let s = &state.seats[me.index()];
    if state.end_trigger.is_some() {
        state.last_turns_left -= 1;
    } else if s.huts_left == 0 && s.temples_left == 0 {
        state.end_trigger = Some(me);
        state.last_turns_left = state.players - 1;
        events.push(Event::EndTriggered { seat: me });
    }
    if state.end_trigger.is_some() && state.last_turns_left == 0 {
        return start_last_round(state, events);
    }
    // The safeguard applies only while no end has been triggered: owed final
    // turns are always played.
    if state.end_trigger.is_none() && state.turn >= state.options.max_turns {
        state.by_safeguard = true;
        events.push(Event::SafeguardReached { turns: state.turn });
        return start_last_round(state, events);
    }
    start_turn(state, state.next_seat(me), events);
}

/// The druid's last round \[ruling\]: every hut gets exactly one final offering,
/// from the first hut after his position round to the hut he stands beside; from
/// the stone fields the round starts at field 0. No river scoring.
fn start_last_round(state: &mut State, events: &mut Vec<Event>) {
    events.push(Event::LastRoundStarted {
        marked: state.druid,
    });
    if !state.any_hut() {
        return scoring::finish(state, events);
    }
    let n = state.len();
    let (first, end) = match state.druid {
        DruidPos::Field(x) => {
            let x = x as usize;
            let mut p = state.next_field(x);
            while !state.is_hut(p) {
                p = state.next_field(p);
            }
            (p, x)
        }
        _ => {
            let first = (0..n).find(|&i| state.is_hut(i)).expect("a hut exists");
            let last = (0..n)
                .rev()
                .find(|&i| state.is_hut(i))
                .expect("a hut exists");
            (first, last)
        }
    };
    state.druid = DruidPos::Field(first as u8);
    events.push(Event::DruidMoved { to: state.druid });
    state.phase = Phase::LastRound {
        field: first as u8,
        end: end as u8,
    };
}

fn continue_last_round(state: &mut State, f: usize, events: &mut Vec<Event>) {
    let Phase::LastRound { end, .. } = state.phase else {
        unreachable!("last round phase")
    };
    if f == end as usize {
        return scoring::finish(state, events);
    }
    let mut p = state.next_field(f);
    while !state.is_hut(p) {
        p = state.next_field(p);
    }
    state.druid = DruidPos::Field(p as u8);
    events.push(Event::DruidMoved { to: state.druid });
    state.phase = Phase::LastRound {
        field: p as u8,
        end,
    };
}

/// Test hook: end the active seat's turn as the rules do.
#[cfg(test)]
pub(crate) fn tests_end_turn(state: &mut State, events: &mut Vec<Event>) {
    end_turn(state, events);
}
