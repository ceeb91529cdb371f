//! Setting a game up: the material of each seat and the bonus chips.

use super::action::{Chip, DruidPos};
use super::board::BoardKind;
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
        phase: Phase::PlaceWorkers {
            seat: Seat(options.start_seat),
        },
        active: Seat(options.start_seat),
        turn: 0,
        end_trigger: None,
        last_turns_left: 0,
        by_safeguard: false,
        built: [0; MAX_SEATS],
    };
    place_chips(&mut state, events);
    Ok(state)
}

/// Bonus chips \[ruling: 2 × +2, 2 × free hut, 2 × druid offering\] on 6 fields with at
/// least 3 chip-free fields between any two along the ring: the 6 gaps get 3 fields
/// each plus a random share of the rest, and the pattern starts at a random field.
fn place_chips(state: &mut State, events: &mut Vec<Event>) {
    const CHIPS: usize = 6;
    const MIN_GAP: usize = 3;
    let n = state.len();
    let mut gaps = [MIN_GAP; CHIPS];
    for _ in 0..n - CHIPS * (MIN_GAP + 1) {
        gaps[state::below(&mut state.rng, CHIPS)] += 1;
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
        let j = state::below(&mut state.rng, i + 1);
        kinds.swap(i, j);
    }
    let mut field = state::below(&mut state.rng, n);
    for (chip, gap) in kinds.into_iter().zip(gaps) {
        state.ring.set_chip(field, Some(chip));
        events.push(Event::ChipPlaced {
            field: field as u8,
            chip,
        });
        field = (field + gap + 1) % n;
    }
}
