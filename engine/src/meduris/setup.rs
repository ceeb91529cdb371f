//! Setting a game up: the material of each seat and the bonus chips.
//!
//! The chips' layout takes [`setup_draws`] random draws, in a fixed order
//! ([`setup_draw_size`]): from the seed at once, or in explicit chance mode
//! one chance decision each, the layout made when the last one is known.

use super::action::{Chip, DruidPos};
use super::board::{BoardKind, CHIPS, MAX_SETUP_DRAWS, MIN_GAP};
use super::event::Event;
use super::goods::Goods;
use super::state::{
    self, GOODS_PER_KIND, MAX_SEATS, Options, Phase, Ring, SeatState, Stack, State,
};
use crate::{Seat, SetupError};
use rand_core::SeedableRng;

pub(crate) fn setup(
    players: usize,
    seed: u64,
    options: &Options,
    explicit: bool,
    events: &mut Vec<Event>,
) -> Result<State, SetupError> {
    if !(2..=MAX_SEATS).contains(&players) {
        return Err(SetupError::PlayerCount {
            game: "meduris",
            min: 2,
            max: MAX_SEATS,
            got: players,
        });
    }
    if options.start_seat as usize >= players {
        return Err(SetupError::Option(format!(
            "start_seat {} is not a seat of a {players}-player game",
            options.start_seat
        )));
    }
    if options.max_turns == 0 {
        return Err(SetupError::Option("max_turns must be at least 1".into()));
    }
    let (huts, workers) = if players == 2 { (12, 3) } else { (8, 2) };
    let mut seats = [SeatState::default(); MAX_SEATS];
    let mut supply = Goods([GOODS_PER_KIND; 4]);
    for s in seats.iter_mut().take(players) {
        *s = SeatState {
            goods: Goods([1; 4]),
            score: 5,
            huts_left: huts,
            temples_left: 2,
            workers_to_place: workers,
        };
        supply.remove(Goods([1; 4]));
    }
    let board = BoardKind::for_players(players);
    let mut state = State {
        board,
        players: players as u8,
        options: *options,
        rng: rand_pcg::Pcg64Mcg::seed_from_u64(seed),
        ring: Ring::new(board),
        plateaus: [Stack::default(); 4],
        supply,
        seats,
        runes: [None; 9],
        druid: DruidPos::Temple,
        phase: Phase::Chips { drawn: 0 },
        active: Seat(options.start_seat),
        turn: 0,
        end_trigger: None,
        last_turns_left: 0,
        by_safeguard: false,
        built: [0; MAX_SEATS],
        explicit,
        setup_draws: [0; MAX_SETUP_DRAWS],
    };
    if !explicit {
        let n = state.len();
        let rng = &mut state.rng;
        let layout = chip_layout(n, |size| state::below(rng, size));
        place_chips(&mut state, layout, events);
    }
    Ok(state)
}

/// How many draws the chips' layout takes on a ring of `n` fields.
pub(crate) const fn setup_draws(n: usize) -> usize {
    n - CHIPS * (MIN_GAP + 1) + CHIPS
}

/// The number of outcomes of draw `k` of the set-up on a ring of `n` fields
/// (see [`chip_layout`]): first a gap (of 6) for each field beyond the
/// minimum spacing, then the shuffle of the 6 chips (6, 5, 4, 3, 2), then
/// the first chip's field (`n`).
pub(crate) const fn setup_draw_size(n: usize, k: usize) -> usize {
    let gaps = n - CHIPS * (MIN_GAP + 1);
    if k < gaps {
        CHIPS
    } else if k < gaps + CHIPS - 1 {
        CHIPS - (k - gaps)
    } else {
        n
    }
}

/// Lays the chips of a set-up in explicit chance mode, once the last draw is
/// in `state.setup_draws`.
pub(crate) fn place_drawn_chips(state: &mut State, events: &mut Vec<Event>) {
    let draws = state.setup_draws;
    let mut next = draws.iter();
    let layout = chip_layout(state.len(), |_| *next.next().expect("all drawn") as usize);
    place_chips(state, layout, events);
}

/// Bonus chips \[ruling: 2 × +2, 2 × free hut, 2 × druid offering\] on 6 fields with at
/// least 3 chip-free fields between any two along the ring: the 6 gaps get 3 fields
/// each plus a random share of the rest, and the pattern starts at a random field.
/// `draw(size)` is a uniform number below `size`, called in the order of
/// [`setup_draw_size`].
fn chip_layout(n: usize, mut draw: impl FnMut(usize) -> usize) -> [(usize, Chip); CHIPS] {
    let mut gaps = [MIN_GAP; CHIPS];
    for _ in 0..n - CHIPS * (MIN_GAP + 1) {
        gaps[draw(CHIPS)] += 1;
    }
    let mut kinds = [
        Chip::PlusTwo,
        Chip::PlusTwo,
        Chip::FreeHut,
        Chip::FreeHut,
        Chip::DruidOffering,
        Chip::DruidOffering,
    ];
    for i in (1..CHIPS).rev() {
        let j = draw(i + 1);
        kinds.swap(i, j);
    }
    let mut field = draw(n);
    let mut layout = [(0, Chip::PlusTwo); CHIPS];
    for ((slot, chip), gap) in layout.iter_mut().zip(kinds).zip(gaps) {
        *slot = (field, chip);
        field = (field + gap + 1) % n;
    }
    layout
}

/// Puts the chips on the ring; the first decision (worker placement) is due.
fn place_chips(state: &mut State, layout: [(usize, Chip); CHIPS], events: &mut Vec<Event>) {
    for (field, chip) in layout {
        state.ring.set_chip(field, Some(chip));
        events.push(Event::ChipPlaced {
            field: field as u8,
            chip,
        });
    }
    state.phase = Phase::PlaceWorkers {
        seat: Seat(state.options.start_seat),
    };
}
