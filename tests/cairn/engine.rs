//! Cairn, a small game that lives in the test tree to prove that a game is
//! added through the files `docs/adding-a-game.md` names: `druids-engine`
//! compiles it (as `druids_engine::cairn`) only with its `test-game` feature,
//! which the test builds turn on. Its rules are in `tests/cairn/README.md`:
//! each seat hides an offering (hidden information, and an action whose
//! value only its actor may see), then the seats take turns rolling one die
//! onto a pile they may stop to add to their cairn, or lose on a 1.
//!
//! It implements every trait a game has: [`Game`] (with [`Game::redact`] and
//! [`Game::redact_action`]), [`Determinize`] and [`Evaluate`], `Display`
//! for its actions and events, [`crate::Chance`] (its die under outside
//! control, `chance.rs`) and [`crate::Tensors`] (`tensor.rs`), and with
//! the `serde` feature `Serialize` and a checked `Deserialize` (`saved.rs`).

#[path = "chance.rs"]
mod chance;
#[cfg(feature = "serde")]
#[path = "saved.rs"]
mod saved;
#[path = "tensor.rs"]
mod tensor;

use std::fmt;

use rand_core::{RngCore, SeedableRng};
use rand_pcg::Pcg64Mcg;

use crate::{
    ChanceMode, Determinize, DeterminizeError, Evaluate, Game, Outcome, Rejection, RuleViolation,
    Seat, SetupError, TurnError, Viewer,
};

/// A cairn this high ends the game when its seat stops.
pub const TARGET: u32 = 20;
/// The values an offering may have.
pub const OFFERINGS: std::ops::RangeInclusive<u8> = 1..=3;

/// Options fixed at creation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Options {
    /// The seat that hides first and takes the first turn.
    pub start_seat: u8,
    /// Safeguard: the game ends after this many turns. Not a rule.
    pub max_turns: u32,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            start_seat: 0,
            max_turns: 1000,
        }
    }
}

/// One decision.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Action {
    /// Hide an offering of this value (`None` only as others see it).
    Hide {
        /// The offering's value.
        value: Option<u8>,
    },
    /// Roll the die onto the pile.
    Roll,
    /// Stop: the pile goes onto the seat's cairn.
    Stop,
}

/// What a seat must decide.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Decision {
    /// Which offering to hide.
    Hide,
    /// Roll again or stop.
    Turn,
}

/// Something that happened.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// A seat hid its offering (the value only its owner sees).
    Hidden {
        /// The seat.
        seat: Seat,
        /// The value, for its owner.
        value: Option<u8>,
    },
    /// The die was rolled.
    Rolled {
        /// The seat rolling.
        seat: Seat,
        /// The face, 1 to 6.
        die: u8,
    },
    /// A 1: the pile fell and is lost; the turn passes.
    Collapsed {
        /// The seat.
        seat: Seat,
        /// The pile lost.
        lost: u32,
    },
    /// The seat stopped: its pile went onto its cairn; the turn passes.
    Stopped {
        /// The seat.
        seat: Seat,
        /// The pile added.
        added: u32,
        /// The cairn now.
        cairn: u32,
    },
    /// At the end, an offering is shown and scores.
    Revealed {
        /// Its seat.
        seat: Seat,
        /// Its value.
        value: u8,
    },
    /// The game is over.
    Ended {
        /// By the `max_turns` safeguard rather than the rules.
        by_safeguard: bool,
    },
}

/// One seat as a viewer sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SeatView {
    /// The seat's cairn (its score before the offering).
    pub cairn: u32,
    /// Whether it has hidden its offering.
    pub hidden: bool,
    /// The offering's value: for its owner only.
    pub offering: Option<u8>,
}

/// What a viewer sees.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct View {
    /// Who is looking.
    pub viewer: Viewer,
    /// Every seat, by seat.
    pub seats: Vec<SeatView>,
    /// The seat that must decide, `None` once the game is over.
    pub to_act: Option<Seat>,
    /// What it must decide.
    pub decision: Option<Decision>,
    /// The pile of the turn being played.
    pub pile: u32,
    /// The last face rolled in this turn, if any.
    pub last_die: Option<u8>,
    /// Turns ended so far (stopped or collapsed).
    pub turns: u32,
    /// The options.
    pub options: Options,
}

/// Why an action was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RuleError {
    /// The game is over, another seat must decide, or the action answers
    /// another decision.
    #[error(transparent)]
    Turn(#[from] TurnError<Decision>),
    /// An offering's value must be 1 to 3.
    #[error("an offering is worth 1 to 3, not {0:?}")]
    NoSuchOffering(Option<u8>),
}

impl RuleViolation for RuleError {
    fn rejection(&self) -> Rejection {
        match self {
            RuleError::Turn(e) => e.rejection(),
            RuleError::NoSuchOffering(_) => Rejection::Malformed,
        }
    }
}

/// A Cairn game: the whole state, offerings and the die's generator included.
#[derive(Clone, Debug, PartialEq)]
// The derived code is called by `saved.rs`, which checks what it restores.
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(remote = "Self")
)]
pub struct Cairn {
    options: Options,
    rng: Pcg64Mcg,
    seats: Vec<(u32, Option<u8>)>,
    /// The seat to decide: hiding in seat order, then turns.
    active: Seat,
    pile: u32,
    last_die: Option<u8>,
    turns: u32,
    over: Option<bool>,
    /// Where the die's rolls come from.
    mode: ChanceMode,
    /// In explicit chance mode, a roll waits for its outcome.
    rolling: bool,
}

impl Cairn {
    /// The kind of decision the seat to act must take, `None` once the game
    /// is over.
    pub fn decision(&self) -> Option<Decision> {
        match self.over {
            Some(_) => None,
            None if self.rolling => None,
            None if self.seats[self.active.index()].1.is_none() => Some(Decision::Hide),
            None => Some(Decision::Turn),
        }
    }

    fn next_seat(&self, seat: Seat) -> Seat {
        Seat((seat.0 + 1) % self.seats.len() as u8)
    }

    /// The turn passes; the game ends at the target or by the safeguard.
    fn end_turn(&mut self, seat: Seat, events: &mut Vec<Event>) {
        self.turns += 1;
        self.pile = 0;
        self.last_die = None;
        let won = self.seats[seat.index()].0 >= TARGET;
        let safeguard = self.turns >= self.options.max_turns;
        if won || safeguard {
            for (i, &(_, offering)) in self.seats.iter().enumerate() {
                events.push(Event::Revealed {
                    seat: Seat(i as u8),
                    value: offering.unwrap_or(0),
                });
            }
            let by_safeguard = !won;
            self.over = Some(by_safeguard);
            events.push(Event::Ended { by_safeguard });
        } else {
            self.active = self.next_seat(seat);
        }
    }

    /// The die lands on `die` for the seat to act: the pile grows, or
    /// falls on a 1.
    fn land(&mut self, die: u8, events: &mut Vec<Event>) {
        let seat = self.active;
        events.push(Event::Rolled { seat, die });
        if die == 1 {
            events.push(Event::Collapsed {
                seat,
                lost: self.pile,
            });
            self.end_turn(seat, events);
        } else {
            self.pile += u32::from(die);
            self.last_die = Some(die);
        }
    }

    /// The seed's next face (0 to 5 for 1 to 6), advancing the generator.
    fn draw(&mut self) -> usize {
        (self.rng.next_u32() % 6) as usize
    }

    fn score(&self, seat: Seat) -> u32 {
        let (cairn, offering) = self.seats[seat.index()];
        cairn + u32::from(offering.unwrap_or(0))
    }
}

impl Game for Cairn {
    type Options = Options;
    type Action = Action;
    type Event = Event;
    type View = View;
    type Error = RuleError;

    const NAME: &'static str = "cairn";
    const MIN_PLAYERS: usize = 2;
    const MAX_PLAYERS: usize = 4;
    // One roll of a die can undo a whole turn.
    const DICE_DRIVEN: bool = true;

    fn new(
        players: usize,
        seed: u64,
        options: &Options,
        _events: &mut Vec<Event>,
    ) -> Result<Self, SetupError> {
        if !(Self::MIN_PLAYERS..=Self::MAX_PLAYERS).contains(&players) {
            return Err(SetupError::PlayerCount {
                game: Self::NAME,
                min: Self::MIN_PLAYERS,
                max: Self::MAX_PLAYERS,
                got: players,
            });
        }
        if usize::from(options.start_seat) >= players {
            return Err(SetupError::Option(format!(
                "start_seat {} is not a seat of {players}",
                options.start_seat
            )));
        }
        if options.max_turns == 0 {
            return Err(SetupError::Option("max_turns must be at least 1".into()));
        }
        Ok(Cairn {
            options: *options,
            rng: Pcg64Mcg::seed_from_u64(seed),
            seats: vec![(0, None); players],
            active: Seat(options.start_seat),
            pile: 0,
            last_die: None,
            turns: 0,
            over: None,
            mode: ChanceMode::Seeded,
            rolling: false,
        })
    }

    fn players(&self) -> usize {
        self.seats.len()
    }

    fn to_act(&self) -> Option<Seat> {
        (self.over.is_none() && !self.rolling).then_some(self.active)
    }

    fn legal_actions(&self, out: &mut Vec<Action>) {
        match self.decision() {
            None => {}
            Some(Decision::Hide) => {
                out.extend(OFFERINGS.map(|v| Action::Hide { value: Some(v) }));
            }
            Some(Decision::Turn) => out.extend([Action::Roll, Action::Stop]),
        }
    }

    fn apply(
        &mut self,
        seat: Seat,
        action: &Action,
        events: &mut Vec<Event>,
    ) -> Result<(), RuleError> {
        TurnError::check(self.to_act(), seat)?;
        let decision = self.decision().expect("the game runs");
        match (decision, *action) {
            (Decision::Hide, Action::Hide { value }) => {
                let v = value
                    .filter(|v| OFFERINGS.contains(v))
                    .ok_or(RuleError::NoSuchOffering(value))?;
                self.seats[seat.index()].1 = Some(v);
                events.push(Event::Hidden {
                    seat,
                    value: Some(v),
                });
                // Hiding goes round the table once, then the start seat plays.
                self.active = self.next_seat(seat);
            }
            (Decision::Turn, Action::Roll) => match self.mode {
                ChanceMode::Explicit => self.rolling = true,
                ChanceMode::Seeded => {
                    let face = self.draw();
                    self.land(face as u8 + 1, events);
                }
            },
            (Decision::Turn, Action::Stop) => {
                let cairn = &mut self.seats[seat.index()].0;
                *cairn += self.pile;
                events.push(Event::Stopped {
                    seat,
                    added: self.pile,
                    cairn: *cairn,
                });
                self.end_turn(seat, events);
            }
            (expected, _) => return Err(TurnError::WrongDecision { expected }.into()),
        }
        Ok(())
    }

    fn view(&self, viewer: Viewer) -> View {
        View {
            viewer,
            seats: self
                .seats
                .iter()
                .enumerate()
                .map(|(i, &(cairn, offering))| SeatView {
                    cairn,
                    hidden: offering.is_some(),
                    // Shown to everyone once the game is over.
                    offering: offering
                        .filter(|_| viewer.sees(Seat(i as u8)) || self.over.is_some()),
                })
                .collect(),
            to_act: self.to_act(),
            decision: self.decision(),
            pile: self.pile,
            last_die: self.last_die,
            turns: self.turns,
            options: self.options,
        }
    }

    /// An offering's value is its owner's secret until the end.
    fn redact(event: &Event, viewer: Viewer) -> Option<Event> {
        Some(match *event {
            Event::Hidden { seat, value } => Event::Hidden {
                seat,
                value: value.filter(|_| viewer.sees(seat)),
            },
            other => other,
        })
    }

    /// So is the value of a `Hide` action, for everyone but its actor.
    fn redact_action(action: &Action, viewer: Viewer, actor: Seat) -> Action {
        match *action {
            Action::Hide { value } => Action::Hide {
                value: value.filter(|_| viewer.sees(actor)),
            },
            other => other,
        }
    }

    fn outcome(&self) -> Option<Outcome> {
        let by_safeguard = self.over?;
        Some(Outcome {
            by_safeguard,
            ..self.standing()
        })
    }

    fn standing(&self) -> Outcome {
        let scores: Vec<i32> = (0..self.seats.len())
            .map(|s| self.score(Seat(s as u8)) as i32)
            .collect();
        // No tie-break: seats tied on points all win.
        Outcome::rank(scores, vec![Vec::new(); self.seats.len()], &[], false)
    }

    /// Hiding: the smallest offering; a turn: stop (a pile is never lost).
    fn timeout_action(&self) -> Option<Action> {
        Some(match self.decision()? {
            Decision::Hide => Action::Hide {
                value: Some(*OFFERINGS.start()),
            },
            Decision::Turn => Action::Stop,
        })
    }
}

/// The public state copied; the offerings of other seats that hid theirs
/// dealt at random, and a die drawn from `seed` (the viewer cannot know the
/// rolls to come).
impl Determinize for Cairn {
    fn determinize(view: &View, seed: u64) -> Result<Cairn, DeterminizeError> {
        let bad = |what| Err(DeterminizeError::Inconsistent { what });
        let players = view.seats.len();
        if !(Self::MIN_PLAYERS..=Self::MAX_PLAYERS).contains(&players) {
            return bad("not 2 to 4 seats");
        }
        let mut rng = Pcg64Mcg::seed_from_u64(seed);
        // Over (nobody to act, no decision): every offering is shown.
        let over = view.to_act.is_none() && view.decision.is_none();
        let mut seats = Vec::with_capacity(players);
        for (i, s) in view.seats.iter().enumerate() {
            let offering = match (s.hidden, s.offering) {
                (false, None) => None,
                (true, Some(v)) if view.viewer.sees(Seat(i as u8)) || over => Some(v),
                (true, None) if !view.viewer.sees(Seat(i as u8)) => {
                    let n = OFFERINGS.len() as u32;
                    Some(*OFFERINGS.start() + (rng.next_u32() % n) as u8)
                }
                _ => return bad("an offering is shown to someone else or not hidden"),
            };
            seats.push((s.cairn, offering));
        }
        let game = Cairn {
            options: view.options,
            rng,
            seats,
            active: view.to_act.unwrap_or(Seat(0)),
            pile: view.pile,
            last_die: view.last_die,
            turns: view.turns,
            mode: ChanceMode::Seeded,
            rolling: false,
            // Over by the rules once a cairn reached the target, else by the
            // safeguard.
            over: view
                .to_act
                .is_none()
                .then(|| view.seats.iter().all(|s| s.cairn < TARGET)),
        };
        if game.view(view.viewer) != *view {
            return bad("the view describes no position");
        }
        Ok(game)
    }
}

/// The seat's cairn and pile (half of it: the next roll may lose it), plus
/// its offering (2 when not known), against the best other seat's.
impl Evaluate for Cairn {
    fn evaluate(&self, seat: Seat) -> f64 {
        let worth = |s: Seat| {
            let (cairn, offering) = self.seats[s.index()];
            let pile = if self.active == s { self.pile } else { 0 };
            f64::from(cairn) + f64::from(pile) / 2.0 + f64::from(offering.unwrap_or(2))
        };
        let best_other = (0..self.seats.len() as u8)
            .map(Seat)
            .filter(|&s| s != seat)
            .map(worth)
            .fold(f64::MIN, f64::max);
        worth(seat) - best_other
    }
}

impl fmt::Display for Action {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Action::Hide { value: Some(v) } => write!(f, "hide an offering worth {v}"),
            Action::Hide { value: None } => write!(f, "hide an offering"),
            Action::Roll => write!(f, "roll the die"),
            Action::Stop => write!(f, "stop and add the pile to the cairn"),
        }
    }
}

impl fmt::Display for Decision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Decision::Hide => write!(f, "hide an offering worth 1 to 3"),
            Decision::Turn => write!(f, "roll the die or stop"),
        }
    }
}

impl fmt::Display for Event {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Event::Hidden {
                seat,
                value: Some(v),
            } => write!(f, "{seat} hid an offering worth {v}"),
            Event::Hidden { seat, value: None } => write!(f, "{seat} hid an offering"),
            Event::Rolled { seat, die } => write!(f, "{seat} rolled a {die}"),
            Event::Collapsed { seat, lost } => {
                write!(f, "{seat}'s pile fell: {lost} lost")
            }
            Event::Stopped { seat, added, cairn } => {
                write!(f, "{seat} stopped: {added} onto the cairn, now {cairn}")
            }
            Event::Revealed { seat, value } => write!(f, "{seat}'s offering is worth {value}"),
            Event::Ended { by_safeguard: true } => write!(f, "the game is over (turn limit)"),
            Event::Ended {
                by_safeguard: false,
            } => write!(f, "the game is over"),
        }
    }
}
