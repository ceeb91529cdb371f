//! A complete Meduris game serialised and restored exactly (the `serde`
//! feature): every field of the state, the hidden goods, the seed's stream
//! and the chance mode with its pending set-up draws included, so that a
//! restored game plays on exactly as the original would.
//!
//! What is restored is untrusted input: before it becomes a [`Meduris`] it
//! is checked to be a position the rules can play on without panicking
//! (every seat, field and count in range, goods and material conserved, the
//! pending decision well formed). The ring's masks are derived data and are
//! rebuilt, never read.

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::Meduris;
use super::action::{Building, Chip, DruidPos};
use super::board::{BoardKind, MAX_FIELDS, MAX_SETUP_DRAWS};
use super::setup::{setup_draw_size, setup_draws};
use super::state::{GOODS_PER_KIND, MAX_SEATS, Phase, Ring, STACK_LIMIT, SeatState, State};
use crate::Seat;

/// A ring as it is written: the board and what stands on each of its fields.
#[derive(Serialize, Deserialize)]
struct RingData {
    board: BoardKind,
    buildings: Vec<Option<Building>>,
    chips: Vec<Option<Chip>>,
}

impl From<&Ring> for RingData {
    fn from(ring: &Ring) -> RingData {
        let n = ring.board().field_count();
        RingData {
            board: ring.board(),
            buildings: (0..n).map(|i| ring.building(i)).collect(),
            chips: (0..n).map(|i| ring.chip(i)).collect(),
        }
    }
}

impl TryFrom<RingData> for Ring {
    type Error = String;

    fn try_from(data: RingData) -> Result<Ring, String> {
        let n = data.board.field_count();
        if data.buildings.len() != n || data.chips.len() != n {
            return Err(format!(
                "the {n}-field ring has a building and a chip slot per field"
            ));
        }
        let mut ring = Ring::new(data.board);
        for (i, (b, c)) in data.buildings.into_iter().zip(data.chips).enumerate() {
            ring.set_building(i, b);
            ring.set_chip(i, c);
        }
        Ok(ring)
    }
}

impl Serialize for Ring {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        RingData::from(self).serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for Ring {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Ring, D::Error> {
        Ring::try_from(RingData::deserialize(deserializer)?).map_err(serde::de::Error::custom)
    }
}

impl Serialize for Meduris {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.state.serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for Meduris {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Meduris, D::Error> {
        let state = State::deserialize(deserializer)?;
        check(&state)
            .map_err(|what| serde::de::Error::custom(format!("not a Meduris position: {what}")))?;
        Ok(Meduris { state })
    }
}

/// Huts, temples and workers each seat starts with, by player count.
fn material(players: usize) -> (u8, u8, u8) {
    if players == 2 { (12, 2, 3) } else { (8, 2, 2) }
}

/// Why the bonus chips on `state`'s ring are none the set-up and the rules
/// could leave: at most the set-up's mix of each kind (2 + 2 + 2), and under a
/// building only a druid chip under a hut (the others are used when a hut is
/// built on them; no temple stands on a chip).
fn check_chips(state: &State) -> Result<(), &'static str> {
    let mut count = [0u8; 3];
    for i in 0..state.len() {
        let Some(chip) = state.ring.chip(i) else {
            continue;
        };
        count[chip as usize] += 1;
        match (chip, state.ring.building(i)) {
            (_, None) | (Chip::DruidOffering, Some(Building::Hut(_))) => {}
            _ => return Err("a bonus chip under a building that uses or forbids it"),
        }
    }
    if count.iter().any(|&c| c > 2) {
        return Err("more bonus chips of a kind than the set-up's 2");
    }
    Ok(())
}

/// Why `state` is no position the rules can play on, if it is not.
fn check(state: &State) -> Result<(), &'static str> {
    let n = state.players as usize;
    if !(2..=MAX_SEATS).contains(&n) {
        return Err("not 2 to 4 seats");
    }
    if state.board != BoardKind::for_players(n) || state.ring.board() != state.board {
        return Err("the board is not the one of this player count");
    }
    let seat_ok = |s: Seat| s.index() < n;
    if !seat_ok(Seat(state.options.start_seat)) || state.options.max_turns == 0 {
        return Err("the options are out of range");
    }
    let len = state.len();
    debug_assert!(len <= MAX_FIELDS);
    let (huts0, temples0, workers0) = material(n);
    // Buildings and workers of each seat, on the board.
    let (mut huts, mut temples, mut workers) =
        ([0u8; MAX_SEATS], [0u8; MAX_SEATS], [0u8; MAX_SEATS]);
    for i in 0..len {
        match state.ring.building(i) {
            Some(Building::Hut(s)) if seat_ok(s) => huts[s.index()] += 1,
            Some(Building::Temple(s)) if seat_ok(s) => temples[s.index()] += 1,
            Some(_) => return Err("a building of no seat"),
            None => {}
        }
    }
    for stack in &state.plateaus {
        if stack.len() > STACK_LIMIT {
            return Err("a plateau holds more than 3 workers");
        }
        for w in stack.workers() {
            if !seat_ok(w) {
                return Err("a worker of no seat");
            }
            workers[w.index()] += 1;
        }
    }
    for (s, seat) in state.seats.iter().enumerate() {
        if s >= n {
            if *seat != SeatState::default() || state.built[s] != 0 {
                return Err("material of a seat beyond the player count");
            }
            continue;
        }
        if seat.goods.0.iter().any(|&k| k > GOODS_PER_KIND)
            || seat.huts_left as u16 + huts[s] as u16 != huts0 as u16
            || seat.temples_left as u16 + temples[s] as u16 != temples0 as u16
            || seat.workers_to_place as u16 + workers[s] as u16 != workers0 as u16
            || state.built[s] as u16 != huts[s] as u16 + temples[s] as u16
            || !(0..=1_000_000).contains(&seat.score)
        {
            return Err("a seat's material is not conserved");
        }
    }
    if state.supply.0.iter().any(|&k| k > GOODS_PER_KIND) || !state.goods_conserved() {
        return Err("goods are not conserved");
    }
    if state.runes.iter().flatten().any(|&s| !seat_ok(s)) {
        return Err("a rune stone of no seat");
    }
    let hut_at = |f: u8| {
        (f as usize) < len && matches!(state.ring.building(f as usize), Some(Building::Hut(_)))
    };
    match state.druid {
        DruidPos::Temple => {}
        DruidPos::StoneField(k) if (1..=3).contains(&k) => {}
        // He only ever stops beside a hut (huts stay): the last round ends
        // when it comes back to his field, so it must hold one.
        DruidPos::Field(f) if hut_at(f) => {}
        DruidPos::Field(f) if (f as usize) < len => return Err("the druid stands by no hut"),
        _ => return Err("the druid stands nowhere on this board"),
    }
    check_chips(state)?;
    if !seat_ok(state.active) || state.end_trigger.is_some_and(|s| !seat_ok(s)) {
        return Err("the active seat or the end's trigger is no seat");
    }
    // The end is triggered by a seat that has built everything; the
    // safeguard ends a game only while no end was triggered, by its last
    // round.
    if let Some(s) = state.end_trigger {
        let seat = &state.seats[s.index()];
        if seat.huts_left != 0 || seat.temples_left != 0 {
            return Err("the end was triggered by a seat with buildings left");
        }
    }
    if state.by_safeguard
        && (state.end_trigger.is_some()
            || !matches!(state.phase, Phase::LastRound { .. } | Phase::Over))
    {
        return Err("the safeguard ended a game that is not in its last round");
    }
    let draws = setup_draws(len);
    if state.setup_draws[..draws]
        .iter()
        .enumerate()
        .any(|(k, &o)| o as usize >= setup_draw_size(len, k))
        || state.setup_draws[draws..MAX_SETUP_DRAWS]
            .iter()
            .any(|&o| o != 0)
    {
        return Err("a set-up draw out of range");
    }
    let druid_at = |f: u8| state.druid == DruidPos::Field(f);
    // Set-up (the chips' draws, then the workers) comes before every turn
    // and every building; turns come once every worker is placed.
    let placing = state.seats[..n].iter().any(|s| s.workers_to_place > 0);
    let setting_up = matches!(
        state.phase,
        Phase::Chips { .. } | Phase::PlaceWorkers { .. }
    );
    if setting_up && (state.turn != 0 || state.built[..n].iter().any(|&b| b != 0)) {
        return Err("a set-up after turns were played");
    }
    if !setting_up && state.phase != Phase::Over && placing {
        return Err("turns while workers are still to be placed");
    }
    let regular = match state.phase {
        Phase::PlaceWorkers { seat } | Phase::TakeGood { seat } | Phase::ReturnGood { seat } => {
            if !seat_ok(seat) {
                return Err("the seat to decide is no seat");
            }
            let held = &state.seats[seat.index()];
            match state.phase {
                Phase::PlaceWorkers { .. } if held.workers_to_place == 0 => {
                    return Err("a worker to place by a seat that has none left");
                }
                // Nobody is asked to take from an empty supply, nor to give
                // back what it does not hold.
                Phase::TakeGood { .. } if state.supply.is_empty() => {
                    return Err("a good to take from an empty supply");
                }
                Phase::ReturnGood { .. } if held.goods.is_empty() => {
                    return Err("a good to give back by a seat that holds none");
                }
                _ => {}
            }
            !matches!(state.phase, Phase::PlaceWorkers { .. })
        }
        Phase::Roll if !state.explicit => {
            return Err("a die to supply in a game without explicit chance");
        }
        Phase::Turn | Phase::Roll => true,
        // An offering is made at the hut the druid stands beside; a ritual
        // started at a hut, and the last round ends at one (it walks from
        // hut to hut until it reaches `end`).
        Phase::Ritual { field, start } => {
            if !hut_at(field) || !hut_at(start) || !druid_at(field) {
                return Err("an offering at a field without a hut or the druid");
            }
            true
        }
        Phase::LastRound { field, end } => {
            if !hut_at(field) || !hut_at(end) || !druid_at(field) {
                return Err("an offering at a field without a hut or the druid");
            }
            false
        }
        // Only explicit chance waits for the chips' draws; they are laid
        // once all are drawn, before any worker.
        Phase::Chips { drawn } => {
            if drawn as usize >= draws
                || state.setup_draws[drawn as usize..].iter().any(|&o| o != 0)
            {
                return Err("a set-up draw beyond the set-up's");
            }
            let workers_out = state.seats[..n]
                .iter()
                .any(|s| s.workers_to_place != workers0);
            let chips_out = (0..len).any(|i| state.ring.chip(i).is_some());
            if !state.explicit || workers_out || chips_out {
                return Err("the chips' draws after the chips or workers were placed");
            }
            false
        }
        Phase::Over => false,
    };
    // While turns are played after the end was triggered, at least one is owed.
    let owed = state.last_turns_left as usize;
    if owed >= n
        || (state.end_trigger.is_none() && owed != 0)
        || (state.end_trigger.is_some() && regular && owed == 0)
    {
        return Err("the last turns owed are out of range");
    }
    // Turns stop at `max_turns` (the safeguard), or at most n - 1 owed
    // turns after an end triggered by then.
    if state.turn == u32::MAX || state.turn > state.options.max_turns.saturating_add(n as u32) {
        return Err("the turn count is beyond the game's max_turns");
    }
    Ok(())
}
