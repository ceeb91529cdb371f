//! What one viewer may see: everything on the table, plus the viewer's own goods.
//! Another player's goods are never in a view, not even once the game is over
//! (the rules digest: "never another player's"); the outcome names the winners
//! and, once the game is over, each seat's tie-break keys (buildings placed,
//! goods left in total), so that anyone can check the ranking.

use super::action::{Building, Chip, Decision, DruidPos};
use super::board::BoardKind;
use super::goods::Goods;
use super::state::{Phase, State};
use super::{rules, state};
use crate::{DeterminizeError, Outcome, Seat, Viewer};

/// One field of the ring as seen at the table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FieldView {
    /// Building on it, if any.
    pub building: Option<Building>,
    /// Bonus chip on it (face up), if any; a druid chip may lie under a hut.
    pub chip: Option<Chip>,
}

/// One seat as seen by the viewer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SeatView {
    /// Score.
    pub score: i32,
    /// Huts in stock.
    pub huts_left: u8,
    /// Temples in stock.
    pub temples_left: u8,
    /// Buildings placed so far.
    pub buildings_placed: u8,
    /// Rune stones held.
    pub runes: u8,
    /// Workers still to be placed at setup.
    pub workers_to_place: u8,
    /// Goods behind the screen: only for the viewer's own seat (private while
    /// the game runs; afterwards derivable from the public replay, but views
    /// still show only the viewer's own).
    pub goods: Option<Goods>,
}

/// A viewer's picture of a Meduris game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct View {
    /// Who is looking.
    pub viewer: Viewer,
    /// Which board is in use.
    pub board: BoardKind,
    /// The ring, by field number.
    pub fields: Vec<FieldView>,
    /// Workers on each plateau (wood, wool, copper, stone), bottom first.
    pub plateaus: [Vec<Seat>; 4],
    /// The general supply.
    pub supply: Goods,
    /// Each seat, by seat number.
    pub seats: Vec<SeatView>,
    /// Holder of each area's rune stone, by area.
    pub runes: [Option<Seat>; 9],
    /// The druid.
    pub druid: DruidPos,
    /// Seat whose turn it is.
    pub active: Seat,
    /// Turns started so far.
    pub turn: u32,
    /// Seat that must decide now (None when the game is over).
    pub to_act: Option<Seat>,
    /// Kind of decision pending.
    pub decision: Option<Decision>,
    /// Player who triggered the end, if any.
    pub end_triggered_by: Option<Seat>,
    /// Turns still to be played after the end was triggered.
    pub last_turns_left: u8,
    /// The `max_turns` safeguard of this game.
    pub max_turns: u32,
    /// During a ritual: the field where it started (it never visits a hut twice).
    pub ritual_start: Option<u8>,
    /// During the druid's last round: the field of the last hut he will visit.
    pub last_round_end: Option<u8>,
    /// Result, once over.
    pub outcome: Option<Outcome>,
}

pub(crate) fn view(state: &State, viewer: Viewer) -> View {
    let n = state.players as usize;
    View {
        viewer,
        board: state.board,
        fields: (0..state.len())
            .map(|i| FieldView {
                building: state.building(i),
                chip: state.chip(i),
            })
            .collect(),
        plateaus: std::array::from_fn(|p| state.plateaus[p].workers().collect()),
        supply: state.supply,
        seats: (0..n)
            .map(|i| {
                let s = &state.seats[i];
                let seat = Seat(i as u8);
                SeatView {
                    score: s.score,
                    huts_left: s.huts_left,
                    temples_left: s.temples_left,
                    buildings_placed: state.built[i],
                    runes: state::runes_of(state, seat).count() as u8,
                    workers_to_place: s.workers_to_place,
                    goods: viewer.sees(seat).then_some(s.goods),
                }
            })
            .collect(),
        runes: state.runes,
        druid: state.druid,
        active: state.active,
        turn: state.turn,
        to_act: rules::to_act(state),
        decision: rules::decision(state),
        end_triggered_by: state.end_trigger,
        last_turns_left: state.last_turns_left,
        max_turns: state.options.max_turns,
        ritual_start: match state.phase {
            Phase::Ritual { start, .. } => Some(start),
            _ => None,
        },
        last_round_end: match state.phase {
            Phase::LastRound { end, .. } => Some(end),
            _ => None,
        },
        outcome: super::scoring::outcome(state),
    }
}

/// A complete state consistent with `view`: everything public is copied, and the
/// goods hidden from the viewer are dealt at random among the seats whose goods
/// are hidden, out of the goods that are neither in the supply nor the viewer's.
/// Future die rolls come from `seed`. Used by bots that search (determinization).
/// Refuses, instead of panicking on, a view whose shape no game has (seat,
/// field or worker counts out of range, more goods in sight than exist, an
/// offering at a field without a hut); the caller checks the rest.
pub(crate) fn determinize(view: &View, seed: u64) -> Result<State, DeterminizeError> {
    use super::state::{GOODS_PER_KIND, MAX_SEATS, Options, Ring, SeatState, Stack};
    use rand_core::{RngCore, SeedableRng};

    let bad = |what| Err(DeterminizeError::Inconsistent { what });
    let n = view.seats.len();
    if !(2..=MAX_SEATS).contains(&n) {
        return bad("not 2 to 4 seats");
    }
    if view.fields.len() != view.board.field_count() {
        return bad("the ring does not match the board");
    }
    if view
        .plateaus
        .iter()
        .any(|p| p.len() > super::state::STACK_LIMIT)
        || view.plateaus.iter().flatten().any(|w| w.index() >= n)
    {
        return bad("a plateau holds more than 3 workers, or a worker of no seat");
    }
    let mut seen = view.supply;
    for g in view.seats.iter().filter_map(|s| s.goods) {
        seen.add(g);
    }
    if seen.0.iter().any(|&k| k > GOODS_PER_KIND) {
        return bad("more goods in sight than exist");
    }
    if let Some(Decision::Offering { field, .. }) = view.decision
        && !matches!(
            view.fields.get(field as usize).and_then(|f| f.building),
            Some(Building::Hut(_))
        )
    {
        return bad("an offering at a field without a hut");
    }
    let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(seed);
    let mut seats = [SeatState::default(); MAX_SEATS];
    let mut unknown = Goods([GOODS_PER_KIND; 4]);
    unknown.remove(view.supply);
    let mut hidden = [false; MAX_SEATS];
    for (i, sv) in view.seats.iter().enumerate() {
        seats[i] = SeatState {
            goods: sv.goods.unwrap_or_default(),
            score: sv.score,
            huts_left: sv.huts_left,
            temples_left: sv.temples_left,
            workers_to_place: sv.workers_to_place,
        };
        match sv.goods {
            Some(g) => unknown.remove(g),
            None => hidden[i] = true,
        }
    }
    let hidden_seats: Vec<usize> = (0..n).filter(|&i| hidden[i]).collect();
    // Once the game is over its outcome publishes each seat's goods left (a
    // tie-break key): the hidden goods are then dealt in exactly those numbers.
    let left: Option<Vec<u32>> = match &view.outcome {
        Some(o) if !o.tie_breaks.is_empty() => {
            let key = super::scoring::GOODS_LEFT_KEY;
            let left: Option<Vec<u32>> = (0..n)
                .map(|s| u32::try_from(*o.tie_breaks.get(s)?.get(key)?).ok())
                .collect();
            let Some(left) = left else {
                return bad("the outcome's tie-break keys do not fit the seats");
            };
            let hidden_left: u32 = hidden_seats.iter().map(|&s| left[s]).sum();
            let shown_agree = (0..n)
                .filter(|&s| !hidden[s])
                .all(|s| seats[s].goods.total() == left[s]);
            if hidden_left != unknown.total() || !shown_agree {
                return bad("the outcome's goods left do not match the goods in sight");
            }
            Some(left)
        }
        _ => None,
    };
    let deal = |rng: &mut rand_pcg::Pcg64Mcg| {
        let mut dealt = seats;
        if hidden_seats.is_empty() {
            return dealt;
        }
        match &left {
            Some(left) => {
                let mut units: Vec<super::goods::Good> = super::goods::Good::ALL
                    .into_iter()
                    .flat_map(|g| std::iter::repeat_n(g, unknown.get(g) as usize))
                    .collect();
                for i in (1..units.len()).rev() {
                    units.swap(i, rng.next_u32() as usize % (i + 1));
                }
                let mut units = units.into_iter();
                for &s in &hidden_seats {
                    for good in units.by_ref().take(left[s] as usize) {
                        dealt[s].goods.0[good.index()] += 1;
                    }
                }
            }
            None => {
                for good in super::goods::Good::ALL {
                    for _ in 0..unknown.get(good) {
                        let s = hidden_seats[rng.next_u32() as usize % hidden_seats.len()];
                        dealt[s].goods.0[good.index()] += 1;
                    }
                }
            }
        }
        dealt
    };
    let mut seats = deal(&mut rng);
    // The view tells something of the hidden goods: a seat that must return
    // a good holds one, and once the game is over the outcome's tie-breaks
    // count goods left. Deal again until the deal agrees with both. The true
    // deal does, and ties on points and buildings are rare, so a few deals do.
    let returning = match (view.decision, view.to_act) {
        (Some(Decision::ReturnGood), Some(seat)) if seat.index() < n => Some(seat.index()),
        _ => None,
    };
    let agrees = |seats: &[SeatState; MAX_SEATS]| {
        let keys: Vec<Vec<i32>> = (0..n)
            .map(|i| {
                vec![
                    i32::from(view.seats[i].buildings_placed),
                    seats[i].goods.total() as i32,
                ]
            })
            .collect();
        returning.is_none_or(|i| !seats[i].goods.is_empty())
            && view.outcome.as_ref().is_none_or(|want| {
                Outcome::order(&want.scores, &keys) == (want.ranking.clone(), want.winners.clone())
            })
    };
    for _ in 0..10_000 {
        if agrees(&seats) {
            break;
        }
        seats = deal(&mut rng);
    }
    let mut ring = Ring::new(view.board);
    for (i, f) in view.fields.iter().enumerate() {
        ring.set_building(i, f.building);
        ring.set_chip(i, f.chip);
    }
    let mut built = [0u8; MAX_SEATS];
    for (i, sv) in view.seats.iter().enumerate() {
        built[i] = sv.buildings_placed;
    }
    let plateaus = std::array::from_fn(|p| {
        let mut s = Stack::default();
        for &w in &view.plateaus[p] {
            s.push(w);
        }
        s
    });
    let phase = match (view.decision, view.to_act) {
        (None, _) | (_, None) => Phase::Over,
        (Some(Decision::PlaceWorker), Some(seat)) => Phase::PlaceWorkers { seat },
        (Some(Decision::TakeGood), Some(seat)) => Phase::TakeGood { seat },
        (Some(Decision::ReturnGood), Some(seat)) => Phase::ReturnGood { seat },
        (Some(Decision::Turn), _) => Phase::Turn,
        (
            Some(Decision::Offering {
                field,
                last_round: false,
            }),
            _,
        ) => Phase::Ritual {
            field,
            start: view.ritual_start.unwrap_or(field),
        },
        (
            Some(Decision::Offering {
                field,
                last_round: true,
            }),
            _,
        ) => Phase::LastRound {
            field,
            end: view.last_round_end.unwrap_or(field),
        },
    };
    if !ring.consistent() {
        return bad("the ring's buildings and chips disagree");
    }
    Ok(State {
        board: view.board,
        players: n as u8,
        options: Options {
            start_seat: 0,
            max_turns: view.max_turns,
        },
        rng,
        ring,
        plateaus,
        supply: view.supply,
        seats,
        runes: view.runes,
        druid: view.druid,
        phase,
        active: view.active,
        turn: view.turn,
        end_trigger: view.end_triggered_by,
        last_turns_left: view.last_turns_left,
        by_safeguard: view.outcome.as_ref().is_some_and(|o| o.by_safeguard),
        built,
        explicit: false,
        setup_draws: [0; super::board::MAX_SETUP_DRAWS],
    })
}
