//! The rules: setup, the legal actions of the seat to act, and applying one
//! action. Every `apply_*` validates completely before it changes anything, so a
//! rejected action leaves the state exactly as it was.

use rand_core::{RngCore, SeedableRng};

use super::action::{Action, Building, Chip, Decision, DieFace, DruidPos, Plateau};
use super::board::{Area, BoardKind, MAX_FIELDS, PAIR_GOODS};
use super::event::{Event, OfferingKind, ScoreReason};
use super::goods::{self, Good, Goods};
use super::scoring;
use super::state::{GOODS_PER_KIND, MAX_SEATS, Options, Phase, Ring, SeatState, Stack, State};
use crate::{Rejection, RuleViolation, Seat, SetupError};

/// Why an action was refused. The state is unchanged whenever one is returned.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RuleError {
    /// The game is over.
    #[error("the game is over")]
    GameOver,
    /// Another seat must decide.
    #[error("it is not your decision: {expected} must decide now")]
    NotYourTurn {
        /// The seat that must decide.
        expected: Seat,
    },
    /// The action is of the wrong kind for the pending decision.
    #[error("this action does not answer the pending decision ({expected:?})")]
    WrongDecision {
        /// The decision that is pending.
        expected: Decision,
    },
    /// The plateau already holds 3 workers.
    #[error("the {0} plateau already holds 3 workers")]
    PlateauFull(Plateau),
    /// A worker must leave its plateau.
    #[error("a worker must move to a different plateau")]
    SamePlateau,
    /// No worker of yours at that place.
    #[error("you have no worker at height {height} of the {plateau} plateau")]
    NotYourWorker {
        /// Plateau.
        plateau: Plateau,
        /// Height.
        height: u8,
    },
    /// The supply has none of this good.
    #[error("the supply has no {0} left")]
    SupplyEmpty(Good),
    /// You hold none of this good.
    #[error("you hold no {0}")]
    NotHeld(Good),
    /// Field number outside the ring.
    #[error("field {field} does not exist (the ring has {len} fields)")]
    NoSuchField {
        /// Field asked for.
        field: u8,
        /// Fields on the ring.
        len: u8,
    },
    /// The field is built on.
    #[error("field {0} is already built on")]
    FieldOccupied(u8),
    /// Temples may not be built on bonus chips.
    #[error("field {0} holds a bonus chip: no temple may be built there")]
    ChipOnField(u8),
    /// No hut left in stock.
    #[error("you have no huts left")]
    NoHutsLeft,
    /// No temple left in stock.
    #[error("you have no temples left")]
    NoTemplesLeft,
    /// The payment does not cover the cost exactly.
    #[error(
        "payment {paid} does not exactly cover {required} (each required good may be replaced by exactly three goods)"
    )]
    WrongPayment {
        /// What the rules require.
        required: Goods,
        /// What was offered.
        paid: Goods,
    },
    /// An offering payment matches neither both goods nor one of them.
    #[error("offering {paid} is neither both of {required}, nor one of them, nor nothing")]
    WrongOffering {
        /// The field's two goods.
        required: Goods,
        /// What was offered.
        paid: Goods,
    },
    /// You do not hold the goods you try to pay.
    #[error("you do not hold {0}")]
    CannotAfford(Goods),
    /// There is no druid chip under this hut.
    #[error("there is no druid offering chip under the hut on field {0}")]
    NoDruidChip(u8),
}

impl RuleViolation for RuleError {
    fn rejection(&self) -> Rejection {
        match self {
            RuleError::GameOver => Rejection::GameOver,
            RuleError::NotYourTurn { .. } => Rejection::NotYourTurn,
            _ => Rejection::Illegal,
        }
    }
}

/// The kind of decision pending in `phase`.
pub(crate) fn decision(state: &State) -> Option<Decision> {
    Some(match state.phase {
        Phase::PlaceWorkers { .. } => Decision::PlaceWorker,
        Phase::TakeGood { .. } => Decision::TakeGood,
        Phase::ReturnGood { .. } => Decision::ReturnGood,
        Phase::Turn => Decision::Turn,
        Phase::Ritual { field, .. } => Decision::Offering {
            field,
            last_round: false,
        },
        Phase::LastRound { field, .. } => Decision::Offering {
            field,
            last_round: true,
        },
        Phase::Over => return None,
    })
}

/// The seat that must decide now.
pub(crate) fn to_act(state: &State) -> Option<Seat> {
    match state.phase {
        Phase::PlaceWorkers { seat } | Phase::TakeGood { seat } | Phase::ReturnGood { seat } => {
            Some(seat)
        }
        Phase::Turn => Some(state.active),
        Phase::Ritual { field, .. } | Phase::LastRound { field, .. } => {
            state.building(field as usize).map(Building::owner)
        }
        Phase::Over => None,
    }
}

// ---------------------------------------------------------------------------
// Setup

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
        gaps[below(&mut state.rng, CHIPS)] += 1;
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
        let j = below(&mut state.rng, i + 1);
        kinds.swap(i, j);
    }
    let mut field = below(&mut state.rng, n);
    for (chip, gap) in kinds.into_iter().zip(gaps) {
        state.ring.set_chip(field, Some(chip));
        events.push(Event::ChipPlaced {
            field: field as u8,
            chip,
        });
        field = (field + gap + 1) % n;
    }
}

/// A uniform number below `n` (tiny bias-free rejection; `n` is small).
fn below(rng: &mut rand_pcg::Pcg64Mcg, n: usize) -> usize {
    let n = n as u32;
    let zone = u32::MAX - u32::MAX % n;
    loop {
        let x = rng.next_u32();
        if x < zone {
            return (x % n) as usize;
        }
    }
}

// ---------------------------------------------------------------------------
// Legal actions

/// The cost of a hut on `field` for the active seat (empty on a free-hut chip).
fn hut_cost(state: &State, field: usize) -> Goods {
    if state.chip(field) == Some(Chip::FreeHut) {
        return Goods::EMPTY;
    }
    let n = state.settlement_through(field) as u8;
    let [a, b] = state.field(field).goods;
    let mut cost = Goods::of(a, n);
    cost.0[b.index()] += n;
    cost
}

pub(crate) fn field_goods(state: &State, field: usize) -> Goods {
    let [a, b] = state.field(field).goods;
    let mut g = Goods::of(a, 1);
    g.0[b.index()] += 1;
    g
}

/// Appends the legal actions of the seat to act. With `all_payments`, every
/// distinct valid payment is listed instead of one default payment per target.
pub(crate) fn legal_actions(state: &State, all_payments: bool, out: &mut Vec<Action>) {
    match state.phase {
        Phase::Over => {}
        Phase::PlaceWorkers { .. } => {
            let mut room = 0;
            for (p, stack) in state.plateaus.iter().enumerate() {
                room |= (stack.has_room() as usize) << p;
            }
            push_listed(out, &LISTS.place[room & 15], room);
        }
        Phase::TakeGood { .. } => {
            push_listed(out, &LISTS.take[kinds(state.supply)], kinds(state.supply))
        }
        Phase::ReturnGood { seat } => {
            let held = kinds(state.seats[seat.index()].goods);
            push_listed(out, &LISTS.give_back[held], held)
        }
        Phase::Turn => turn_actions(state, all_payments, out),
        Phase::Ritual { field, .. } | Phase::LastRound { field, .. } => {
            offering_actions(state, field as usize, all_payments, out)
        }
    }
}

/// The kinds present in `goods`, a bit each (bit `k` for good `k`).
#[inline]
fn kinds(goods: Goods) -> usize {
    goods
        .0
        .iter()
        .enumerate()
        .fold(0, |m, (k, &n)| m | ((n > 0) as usize) << k)
}

/// Appends the first `BITS[set]` actions of `list`: all four are copied (a fixed
/// size, no loop) and the list is cut to length.
#[inline]
fn push_listed(out: &mut Vec<Action>, list: &[Action; 4], set: usize) {
    let len = out.len();
    out.extend_from_slice(list);
    out.truncate(len + BITS[set & 15]);
}

/// The actions naming one good each, for every set of goods (bit `k` for good
/// `k`): those goods in order, padded to four.
struct Lists {
    place: [[Action; 4]; 16],
    take: [[Action; 4]; 16],
    give_back: [[Action; 4]; 16],
}

static LISTS: Lists = {
    /// `kind` 0: place a worker, 1: take a good, 2: return a good.
    const fn lists(kind: u8) -> [[Action; 4]; 16] {
        let mut table = [[Action::OfferChip; 4]; 16];
        let mut set = 0;
        while set < 16 {
            let mut k = 0;
            let mut g = 0;
            while g < 4 {
                if set & (1 << g) != 0 {
                    let good = Good::ALL[g];
                    table[set][k] = match kind {
                        0 => Action::PlaceWorker { plateau: good },
                        1 => Action::TakeGood { good },
                        _ => Action::ReturnGood { good },
                    };
                    k += 1;
                }
                g += 1;
            }
            set += 1;
        }
        table
    }
    Lists {
        place: lists(0),
        take: lists(1),
        give_back: lists(2),
    }
};

fn push_payments(
    required: Goods,
    holding: Goods,
    all: bool,
    out: &mut Vec<Action>,
    make: impl Fn(Goods) -> Action,
) {
    if all {
        let mut payments = Vec::new();
        goods::all_payments(required, holding, &mut payments);
        out.extend(payments.into_iter().map(make));
    } else if let Some(p) = goods::default_payment(required, holding) {
        out.push(make(p));
    }
}

/// The turn's actions: big yields, then for each empty field in ring order its
/// hut and its temple. This is the hot path of random play: everything is
/// decided on bit masks of the ring (bit `i` for field `i`) with what the fields
/// share computed once per position, and the actions are written in one pass
/// into space reserved for them.
fn turn_actions(state: &State, all: bool, out: &mut Vec<Action>) {
    let me = state.active;
    let seat = &state.seats[me.index()];
    // A. Big yield: each of the seat's workers (by plateau, bottom first) to each
    // other plateau with room. Bit 3p + h - 1 of `mine`: the seat has the worker
    // at height h of plateau p; bit p of `room`: plateau p has room.
    let mut room = 0usize;
    let mut mine = 0u32;
    for (p, stack) in state.plateaus.iter().enumerate() {
        room |= (stack.has_room() as usize) << p;
        mine |= stack.heights_of(me) << (3 * p);
    }
    let mut yields = 0;
    for from in 0..4 {
        yields += BITS[(mine >> (3 * from)) as usize & 7] * BITS[room & !(1 << from)];
    }

    // B and C. Build.
    let holding = seat.goods;
    let held = holding.total();
    let can_hut = seat.huts_left > 0;
    let can_temple = seat.temples_left > 0 && held >= 2;
    let n = state.len();
    let ring = &state.ring;
    if all {
        let empty = !ring.built() & ((1u64 << n) - 1);
        let start = out.len();
        out.extend_from_slice(&PLACEHOLDERS[..yields + SPARE]);
        write_yields(&mut out[start..], mine, room);
        out.truncate(start + yields);
        if can_hut || can_temple {
            build_actions_all_payments(state, empty, can_hut, can_temple, out);
        }
        return;
    }

    // Fields with a hut, respectively a temple, to list. A hut's payment is
    // `pay[pair * 4 + class]` for the field's pair of goods (see PAIR_GOODS) and
    // its class, given by bit i of `class1` and of `class2` for field i: 0 for a
    // hut alone (one of each of the two goods), 1 for one joining a single hut
    // (two of each), 2 for a settlement of 3 (three of each); class 3 is paid
    // `pay[32 + i]`: nothing on a free-hut chip, else a larger settlement's cost.
    let (mut huts, mut temples) = (0u64, 0u64);
    let (mut class1, mut class2) = (0u64, 0u64);
    let mut pay = [Goods::EMPTY; 32 + 64];
    let mut unit_pay = [Goods::EMPTY; 8];
    if can_hut || can_temple {
        let fields_of = state.board.pair_set_masks();
        let units;
        (unit_pay, units) = goods::unit_pair_payments(holding);
        let one = fields_of[units as usize & 63];
        let sites = ring.sites();
        if can_temple {
            temples = sites.temple & one;
        }
        if can_hut {
            // The pairs the seat can pay for twice and three times over, and four
            // times (a larger settlement costs at least four of each).
            let (twos, threes) = goods::pairs_payable_twice_and_thrice(holding);
            let (two, three) = (
                fields_of[twos as usize & 63],
                fields_of[threes as usize & 63],
            );
            let (of_two, of_three) = (sites.of_two & two, sites.of_three & three);
            let mut larger = 0;
            if sites.larger & three != 0 {
                let four = goods::pairs_payable(holding, 4) as usize;
                larger = sites.larger & fields_of[four & 63];
            }
            huts = sites.free | (sites.alone & one) | of_two | of_three;
            class1 = sites.free | sites.of_two | larger;
            class2 = sites.free | sites.of_three | larger;
            for p in 0..6 {
                pay[p * 4] = unit_pay[p];
            }
            let pairs = state.board.pairs();
            // Payments for 2 and 3 of each, for the pairs that need them.
            let mut need =
                (sites.pairs_of_two as u32 & twos) | (sites.pairs_of_three as u32 & threes) << 8;
            while need != 0 {
                let bit = need.trailing_zeros() as usize;
                need &= need - 1;
                let (pair, times) = (bit & 7, bit / 8 + 2);
                let [a, b] = PAIR_GOODS[pair % 6];
                pay[pair * 4 + times - 1] = goods::default_pair_payment(a, b, times as u8, holding)
                    .expect("the pair pays for the settlement");
            }
            let mut rest = larger;
            while rest != 0 {
                let field = rest.trailing_zeros() as usize;
                rest &= rest - 1;
                let size = State::new_hut_settlement_size(ring.huts(), n, field);
                let [a, b] = PAIR_GOODS[pairs[field & 63] as usize % 6];
                if let Some(payment) = goods::default_pair_payment(a, b, size, holding) {
                    pay[32 + (field & 63)] = payment;
                    huts |= 1 << field;
                }
            }
        }
    }

    // Space for every action and a few spare slots (a worker's three yields, a
    // field's hut and temple, are written unconditionally, the count advanced
    // only for those listed), copied from a row of placeholders.
    let start = out.len();
    let most = yields + 2 * (huts | temples).count_ones() as usize;
    out.extend_from_slice(&PLACEHOLDERS[..most + SPARE]);
    let dst = &mut out[start..];
    let mut k = write_yields(dst, mine, room);
    let pairs = state.board.pairs();
    let mut todo = huts | temples;
    while todo != 0 {
        let field = todo.trailing_zeros() as usize;
        todo &= todo - 1;
        let pair = pairs[field & 63] as usize & 7;
        let class = (class1 >> field & 1 | (class2 >> field & 1) << 1) as usize;
        let slot = if class == 3 {
            32 + field
        } else {
            pair * 4 + class
        };
        let payment = pay[slot & 127];
        debug_assert!(
            huts & (1 << field) == 0
                || Some(payment) == goods::default_payment(hut_cost(state, field), holding)
        );
        let f = field as u8;
        dst[k] = Action::BuildHut { field: f, payment };
        k += (huts >> field & 1) as usize;
        dst[k] = Action::BuildTemple {
            field: f,
            payment: unit_pay[pair],
        };
        k += (temples >> field & 1) as usize;
    }
    out.truncate(start + k);
}

/// Placeholders for the turn's actions, overwritten: the most a turn can list
/// (9 big yields, a hut and a temple per field) and `SPARE` more.
static PLACEHOLDERS: [Action; 9 + 2 * MAX_FIELDS + SPARE] =
    [Action::OfferChip; 9 + 2 * MAX_FIELDS + SPARE];

/// Slots written past the listed actions (see [`turn_actions`]).
const SPARE: usize = 3;

/// Bits set in each 4-bit number.
const BITS: [usize; 16] = [0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4];

/// Writes the big yields (see [`turn_actions`]) to the start of `dst`, which has
/// room for them and `SPARE` more; returns how many were written. A worker's
/// targets are written three at a time, the count advanced by how many it has.
#[inline]
fn write_yields(dst: &mut [Action], mine: u32, room: usize) -> usize {
    let mut k = 0;
    let mut workers = mine;
    while workers != 0 {
        let bit = workers.trailing_zeros() as usize;
        workers &= workers - 1;
        let (from, height) = (bit / 3, (bit % 3) as u8 + 1);
        let targets = room & !(1 << from) & 15;
        let to = TARGETS[targets];
        for (j, &to) in to.iter().enumerate() {
            dst[k + j] = Action::BigYield {
                from: Good::from_index(from & 3),
                height,
                to: Good::from_index(to as usize & 3),
            };
        }
        k += BITS[targets];
    }
    k
}

/// For each set of plateaus (bit `p` for plateau `p`, at most three), the
/// plateaus in order, padded to three.
const TARGETS: [[u8; 3]; 16] = {
    let mut table = [[0u8; 3]; 16];
    let mut set = 0;
    while set < 16 {
        let mut k = 0;
        let mut p = 0;
        while p < 4 {
            if set & (1 << p) != 0 && k < 3 {
                table[set][k] = p as u8;
                k += 1;
            }
            p += 1;
        }
        set += 1;
    }
    table
};

/// The build actions with every distinct valid payment (on request only).
fn build_actions_all_payments(
    state: &State,
    empty: u64,
    can_hut: bool,
    can_temple: bool,
    out: &mut Vec<Action>,
) {
    let holding = state.seats[state.active.index()].goods;
    let n = state.len();
    for field in (0..n).filter(|&f| empty & (1 << f) != 0) {
        let f = field as u8;
        let chip = state.chip(field);
        let unit = field_goods(state, field);
        if can_hut {
            let make = |payment| Action::BuildHut { field: f, payment };
            if chip == Some(Chip::FreeHut) {
                out.push(make(Goods::EMPTY));
            } else {
                let size = State::new_hut_settlement_size(state.ring.huts(), n, field);
                push_payments(Goods(unit.0.map(|k| k * size)), holding, true, out, make);
            }
        }
        if can_temple && chip.is_none() {
            let make = |payment| Action::BuildTemple { field: f, payment };
            push_payments(unit, holding, true, out, make);
        }
    }
}

fn offering_actions(state: &State, field: usize, all: bool, out: &mut Vec<Action>) {
    let owner = state
        .building(field)
        .map(Building::owner)
        .expect("offering at a hut");
    let holding = state.seats[owner.index()].goods;
    let [a, b] = state.field(field).goods;
    let chip = state.chip(field) == Some(Chip::DruidOffering);
    let make = |payment| Action::Offer { payment };
    if !all {
        // The chip, both goods, one of them, nothing. Paying `a` by three goods
        // is the same payment as paying `b` by three goods (both come from the
        // largest surpluses of the same holding), so `b`'s is listed only if
        // different. Written in place, each slot kept only if listed.
        let (both, one_a, one_b) = goods::offering_payments(a, b, holding);
        let len = out.len();
        out.extend_from_slice(&[Action::OfferChip; 5]);
        let list = &mut out[len..];
        let mut k = chip as usize;
        list[k] = make(both.unwrap_or_default());
        k += both.is_some() as usize;
        list[k] = make(one_a.unwrap_or_default());
        k += one_a.is_some() as usize;
        list[k] = make(one_b.unwrap_or_default());
        k += (one_b.is_some() && one_b != one_a) as usize;
        list[k] = make(Goods::EMPTY);
        out.truncate(len + k + 1);
        return;
    }
    if chip {
        out.push(Action::OfferChip);
    }
    push_payments(field_goods(state, field), holding, all, out, make);
    // "One good": any three goods replace either of the two, so a 3-good payment
    // answers both requirements and is listed once; the second list adds only
    // what the first does not hold.
    let ones = out.len();
    push_payments(Goods::of(a, 1), holding, all, out, make);
    let mut second = Vec::new();
    goods::all_payments(Goods::of(b, 1), holding, &mut second);
    for payment in second {
        if !out[ones..].contains(&make(payment)) {
            out.push(make(payment));
        }
    }
    out.push(make(Goods::EMPTY));
}

// ---------------------------------------------------------------------------
// Apply

pub(crate) fn apply(
    state: &mut State,
    seat: Seat,
    action: &Action,
    events: &mut Vec<Event>,
) -> Result<(), RuleError> {
    let Some(expected) = to_act(state) else {
        return Err(RuleError::GameOver);
    };
    if seat != expected {
        return Err(RuleError::NotYourTurn { expected });
    }
    let wrong = || RuleError::WrongDecision {
        expected: decision(state).expect("game not over"),
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
    if !goods::covers_exactly(payment, required) {
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
            let kind = if goods::covers_exactly(p, required) {
                OfferingKind::Both
            } else if goods::covers_exactly(p, Goods::of(a, 1))
                || goods::covers_exactly(p, Goods::of(b, 1))
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

/// Starts `seat`'s turn: the die roll and its small yield.
fn start_turn(state: &mut State, seat: Seat, events: &mut Vec<Event>) {
    state.active = seat;
    state.turn += 1;
    events.push(Event::TurnStarted {
        seat,
        turn: state.turn,
    });
    let face = DieFace::ALL[below(&mut state.rng, 6)];
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
    if state.turn >= state.options.max_turns {
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

/// Which rune areas a seat holds (used by views and scoring).
pub(crate) fn runes_of(state: &State, seat: Seat) -> impl Iterator<Item = Area> + '_ {
    Area::ALL
        .into_iter()
        .filter(move |a| state.runes[a.index()] == Some(seat))
}

/// Test hook: end the active seat's turn as the rules do.
#[cfg(test)]
pub(crate) fn tests_end_turn(state: &mut State, events: &mut Vec<Event>) {
    end_turn(state, events);
}

/// The default decision when a seat runs out of time [see README, turn clocks]:
/// place a worker on the first plateau with room (wood, wool, copper, stone);
/// take the good the supply holds most of; return the good you hold most of
/// (ties: first in that order); for a turn, the big yield that brings you the
/// most goods (ties: first listed); at an offering, offer nothing.
pub(crate) fn timeout_action(state: &State) -> Option<Action> {
    let most = |g: Goods| {
        Good::ALL
            .into_iter()
            .filter(|k| g.get(*k) > 0)
            .max_by_key(|k| (g.get(*k), std::cmp::Reverse(k.index())))
    };
    Some(match state.phase {
        Phase::Over => return None,
        Phase::PlaceWorkers { .. } => Action::PlaceWorker {
            plateau: Good::ALL
                .into_iter()
                .find(|p| state.plateaus[p.index()].has_room())?,
        },
        Phase::TakeGood { .. } => Action::TakeGood {
            good: most(state.supply)?,
        },
        Phase::ReturnGood { seat } => Action::ReturnGood {
            good: most(state.seats[seat.index()].goods)?,
        },
        Phase::Turn => {
            let mut legal = Vec::new();
            turn_actions(state, false, &mut legal);
            let gain_of = |a: &Action| match *a {
                Action::BigYield { to, .. } => {
                    let height = state.plateaus[to.index()].len() as u8 + 1;
                    height.min(state.supply.get(to)) as i32
                }
                _ => -1,
            };
            let best = legal.iter().map(gain_of).max()?;
            *legal.iter().find(|a| gain_of(a) == best)?
        }
        Phase::Ritual { .. } | Phase::LastRound { .. } => Action::Offer {
            payment: Goods::EMPTY,
        },
    })
}
