//! A complete Die Dolmengötter game serialised and restored exactly (the
//! `serde` feature): every field of the state, the hidden dolmen values
//! included (the game has no random draw, so nothing else is hidden).
//!
//! What is restored is untrusted input: before it becomes a [`Dolmen`] it is
//! checked to be a position the rules can play on without panicking (every
//! seat, site and circle in range, pieces conserved, the pending decision
//! well formed).

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::Dolmen;
use super::board::{self, CIRCLES, SITES};
use super::state::{MAX_QUEUE, Pending, Phase, SeatState, State};
use crate::Seat;

impl Serialize for Dolmen {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.state.serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for Dolmen {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Dolmen, D::Error> {
        // The masks derived from the board are not stored: rebuilt here.
        let state = State::deserialize(deserializer)?.with_masks();
        check(&state).map_err(|what| {
            serde::de::Error::custom(format!("not a Die Dolmengötter position: {what}"))
        })?;
        Ok(Dolmen { state })
    }
}

/// Why `state` is no position the rules can play on, if it is not.
fn check(state: &State) -> Result<(), &'static str> {
    // Also checks the player count, and every piece's seat on the board.
    if !state.pieces_conserved() {
        return Err("pieces are not conserved");
    }
    let n = state.n();
    let seat_ok = |s: Seat| s.index() < n;
    // Turns stop at `max_turns` (the safeguard), or at most n - 1 owed
    // turns after an end triggered by then.
    if state.max_turns == 0
        || state.turn == u32::MAX
        || state.turn > state.max_turns.saturating_add(n as u32)
    {
        return Err("the turn count or the safeguard is out of range");
    }
    if state.seats[n..].iter().any(|s| *s != SeatState::default())
        || state.seats[..n]
            .iter()
            .any(|s| !(-1_000_000..=1_000_000).contains(&s.score))
    {
        return Err("a seat's material is out of range");
    }
    if state
        .circles
        .iter()
        .any(|c| c.leader.is_some_and(|s| !seat_ok(s)))
    {
        return Err("a circle led by no seat");
    }
    let queue = &state.queue;
    if queue.len as usize > MAX_QUEUE
        || queue.items[queue.len as usize..]
            .iter()
            .any(|p| *p != Pending::default())
        || queue
            .as_slice()
            .iter()
            .any(|p| p.circle.index() >= CIRCLES || !seat_ok(p.seat))
    {
        return Err("a queued dolmen decision is out of range");
    }
    if !seat_ok(state.active) || state.end_triggered_by.is_some_and(|s| !seat_ok(s)) {
        return Err("the active seat or the end's trigger is no seat");
    }
    if state.last_turns_left as usize >= n {
        return Err("the last turns owed are out of range");
    }
    // Druids are placed at the set-up only; a stone is owed only by a seat
    // that has one (else the turn ends); the decision due is one the rules
    // let come up (others are dropped when they would).
    let setting_up = matches!(state.phase, Phase::PlaceDruid { .. });
    if !setting_up && state.seats[..n].iter().any(|s| s.druids_to_place != 0) {
        return Err("druids left to place after the set-up");
    }
    match state.phase {
        Phase::PlaceDruid { seat } if !seat_ok(seat) => Err("the seat to decide is no seat"),
        Phase::PlaceDruid { seat } if state.seats[seat.index()].druids_to_place == 0 => {
            Err("a druid to place by a seat that has none left")
        }
        Phase::Stone { .. } if state.seats[state.active.index()].stones_left == 0 => {
            Err("a stone owed by a seat that has none left")
        }
        Phase::Dolmen
            if queue.front().is_some_and(|p| {
                state.circles[p.circle.index()].len as usize >= board::shape(p.circle).max_dolmens()
                    || state.seats[p.seat.index()].dolmens_left() == 0
            }) =>
        {
            Err("a dolmen decision on a full stack or by a seat without dolmens")
        }
        Phase::Stone { site } if site.index() >= SITES || !state.is_free(site) => {
            Err("a stone owed on a site that is not free")
        }
        // Dolmen decisions are queued by a stone and taken before anything else.
        Phase::Dolmen if queue.len == 0 => Err("a dolmen decision with none queued"),
        Phase::PlaceDruid { .. } | Phase::Turn | Phase::Stone { .. } | Phase::Over
            if queue.len != 0 =>
        {
            Err("dolmen decisions queued while none is due")
        }
        _ => Ok(()),
    }
}
