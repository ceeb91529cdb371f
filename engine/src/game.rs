//! The one interface every game engine implements.
//!
//! The server, the bots and the CLI drive games only through [`Game`], so adding a
//! third game means writing its engine and registering it, never touching the
//! code that hosts games. The trait is deliberately small: who must decide, what
//! they may do, applying one decision, what each seat may see, and the result.

use std::fmt;

/// A seat at the table, numbered from 0 in play order (clockwise).
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Seat(pub u8);

impl Seat {
    /// The seat as an index into per-seat arrays.
    #[inline]
    pub const fn index(self) -> usize {
        self.0 as usize
    }
}

impl fmt::Display for Seat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "seat {}", self.0)
    }
}

/// Who is looking at the game: one seat (sees its own secrets) or a spectator
/// (sees only what is public at the table).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Viewer {
    /// A player, who sees the public state plus their own hidden information.
    Seat(Seat),
    /// Anyone else: public information only.
    Spectator,
}

impl Viewer {
    /// Whether this viewer may see the secrets of `seat`.
    #[inline]
    pub fn sees(self, seat: Seat) -> bool {
        self == Viewer::Seat(seat)
    }
}

/// Why an engine refused an action, in the terms a server needs to pick a status code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rejection {
    /// The game is over; nothing more can be applied.
    GameOver,
    /// Another seat must decide now.
    NotYourTurn,
    /// The action is well formed but the rules do not allow it here.
    Illegal,
    /// The action names something that does not exist in this game (a field
    /// beyond the board in use, a site or value out of range): the same
    /// mistake a decoder refuses for absurd numbers, so it gets the same class.
    Malformed,
}

/// The refusals every game shares, whatever its rules: the game is over,
/// another seat must decide, or the action answers another kind of decision
/// (`D`, the game's decision type). Each game's error wraps it, so the wording
/// and the classification live here once.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TurnError<D: fmt::Debug> {
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
        expected: D,
    },
}

impl<D: fmt::Debug> TurnError<D> {
    /// Checks that `seat` may act when `to_act` must: the first check of every
    /// `apply`.
    pub fn check(to_act: Option<Seat>, seat: Seat) -> Result<(), TurnError<D>> {
        match to_act {
            None => Err(TurnError::GameOver),
            Some(expected) if expected != seat => Err(TurnError::NotYourTurn { expected }),
            Some(_) => Ok(()),
        }
    }

    /// The broad class of the refusal.
    pub fn rejection(&self) -> Rejection {
        match self {
            TurnError::GameOver => Rejection::GameOver,
            TurnError::NotYourTurn { .. } => Rejection::NotYourTurn,
            TurnError::WrongDecision { .. } => Rejection::Illegal,
        }
    }
}

/// Errors returned by [`Game::apply`] classify themselves for the server.
pub trait RuleViolation: std::error::Error + Send + Sync + 'static {
    /// The broad reason the action was refused.
    fn rejection(&self) -> Rejection;
}

/// Errors when setting a game up.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SetupError {
    /// The game does not support this number of players.
    #[error("{game} is played by {min} to {max} players, not {got}")]
    PlayerCount {
        /// Game name.
        game: &'static str,
        /// Fewest players allowed.
        min: usize,
        /// Most players allowed.
        max: usize,
        /// Players asked for.
        got: usize,
    },
    /// An option is out of range.
    #[error("invalid option: {0}")]
    Option(String),
}

/// Why a view could not be turned back into a complete game.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DeterminizeError {
    /// The view contradicts the rules' invariants (pieces or goods not
    /// conserved, a decision pending for nobody, ...); `what` names it.
    #[error("the view is inconsistent: {what}")]
    Inconsistent {
        /// The invariant the view breaks.
        what: &'static str,
    },
}

/// Resampling hidden information: a complete game consistent with what one
/// viewer sees (OpenSpiel's `ResampleFromInfostate`). Search bots play from a
/// seat's view by dealing the hidden information at random.
pub trait Determinize: Game {
    /// A complete game whose view for `view`'s viewer is exactly `view`: public
    /// state copied, hidden information dealt at random from `seed`,
    /// consistently with everything the view shows. The result is a legal
    /// position, not necessarily the true one; a view that breaks the game's
    /// invariants is refused rather than turned into an impossible position.
    fn determinize(view: &Self::View, seed: u64) -> Result<Self, DeterminizeError>;
}

/// The end of a game: final scores and who won.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outcome {
    /// Final score of each seat, indexed by seat.
    pub scores: Vec<i32>,
    /// The winning seats (more than one when the tie-breaks leave a tie).
    pub winners: Vec<Seat>,
    /// Seats from first to last place after tie-breaks (tied seats in seat order).
    pub ranking: Vec<Seat>,
    /// True when the game was cut short by the `max_turns` safeguard.
    pub by_safeguard: bool,
    /// Each seat's tie-break keys after its score, indexed by seat, in the
    /// order the rules break a tie on points (higher is better). Public once
    /// the game is over, so that anyone can check the ranking.
    pub tie_breaks: Vec<Vec<i32>>,
    /// What each tie-break key counts, in the same order ("buildings placed").
    pub tie_break_names: Vec<String>,
    /// The seats that resigned, ranked last whatever they scored (see
    /// [`Outcome::resigned_by`]).
    pub resigned: Vec<Seat>,
}

impl Outcome {
    /// Ranks the seats by score, then by their `tie_breaks` keys in order
    /// (higher is better); seats whose score and keys equal the best all win,
    /// and tied seats are ranked in seat order.
    pub fn rank(
        scores: Vec<i32>,
        tie_breaks: Vec<Vec<i32>>,
        tie_break_names: &[&str],
        by_safeguard: bool,
    ) -> Outcome {
        let (ranking, winners) = Self::order(&scores, &tie_breaks);
        Outcome {
            scores,
            winners,
            ranking,
            by_safeguard,
            tie_breaks,
            tie_break_names: tie_break_names.iter().map(|&n| n.to_owned()).collect(),
            resigned: Vec::new(),
        }
    }

    /// This result (the game's standing when `seat` gave up) with `seat`
    /// resigned: it is ranked last and wins nothing, the other seats keep
    /// their order, and the winners are every other seat whose score and
    /// keys equal the best of them.
    pub fn resigned_by(mut self, seat: Seat) -> Outcome {
        self.ranking.retain(|&s| s != seat);
        self.ranking.push(seat);
        self.resigned.push(seat);
        let none = Vec::new();
        let key = |s: Seat| {
            let i = s.index();
            (self.scores[i], self.tie_breaks.get(i).unwrap_or(&none))
        };
        self.winners = match self.ranking.first() {
            Some(&best) if best != seat => self
                .ranking
                .iter()
                .copied()
                .filter(|&s| s != seat && key(s) == key(best))
                .collect(),
            _ => Vec::new(),
        };
        self
    }

    /// The ranking and the winners that scores and tie-break keys give: what
    /// anyone can recompute from a published outcome.
    pub fn order(scores: &[i32], tie_breaks: &[Vec<i32>]) -> (Vec<Seat>, Vec<Seat>) {
        let none = Vec::new();
        let key = |s: Seat| {
            let i = s.index();
            (scores[i], tie_breaks.get(i).unwrap_or(&none))
        };
        let mut ranking: Vec<Seat> = (0..scores.len() as u8).map(Seat).collect();
        // A stable sort keeps tied seats in seat order.
        ranking.sort_by(|&a, &b| key(b).cmp(&key(a)));
        let winners = match ranking.first() {
            Some(&best) => ranking
                .iter()
                .copied()
                .filter(|&s| key(s) == key(best))
                .collect(),
            None => Vec::new(),
        };
        (ranking, winners)
    }
}

/// A game engine: pure, deterministic (all randomness from the seed), no I/O.
///
/// Implementations hold the complete state, including hidden information; what a
/// given viewer may see is produced by [`Game::view`] and [`Game::redact`].
pub trait Game: Clone + fmt::Debug + PartialEq + Send + Sync + 'static {
    /// Options fixed at creation (start seat, safeguards, ...).
    type Options: Clone + fmt::Debug + Default + Send + Sync + 'static;
    /// One decision by one seat; `Display` words it as one line of plain
    /// English ("build a hut on field 12 paying 2 wood, 2 wool").
    type Action: Clone + fmt::Debug + fmt::Display + PartialEq + Send + Sync + 'static;
    /// Something that happened, reported by [`Game::apply`]; `Display` words
    /// it as one line of plain English.
    type Event: Clone + fmt::Debug + fmt::Display + PartialEq + Send + Sync + 'static;
    /// What one viewer may see of the state.
    type View: Clone + fmt::Debug + PartialEq + Send + Sync + 'static;
    /// Why an action was refused.
    type Error: RuleViolation + Clone + PartialEq;

    /// Short stable name of the game ("meduris", "dolmen").
    const NAME: &'static str;
    /// Fewest seats.
    const MIN_PLAYERS: usize;
    /// Most seats.
    const MAX_PLAYERS: usize;
    /// Whether dice decide so much of a result that one game says little
    /// about the players: rated play then uses duplicate matches (the same
    /// seed once per seat rotation).
    const DICE_DRIVEN: bool;

    /// Sets up a new game. Events describing the setup (random placements) are
    /// pushed to `events`.
    fn new(
        players: usize,
        seed: u64,
        options: &Self::Options,
        events: &mut Vec<Self::Event>,
    ) -> Result<Self, SetupError>;

    /// Number of seats.
    fn players(&self) -> usize;

    /// The seat that must decide now, or `None` once the game is over.
    fn to_act(&self) -> Option<Seat>;

    /// Appends every legal action of the seat to act to `out` (nothing when the
    /// game is over). Each payment-carrying action appears once per target with a
    /// default payment; see the game's own API for every distinct payment.
    fn legal_actions(&self, out: &mut Vec<Self::Action>);

    /// Applies `action` for `seat`. On success the events it caused are appended
    /// to `events`; on error the state is unchanged and nothing is appended.
    fn apply(
        &mut self,
        seat: Seat,
        action: &Self::Action,
        events: &mut Vec<Self::Event>,
    ) -> Result<(), Self::Error>;

    /// What `viewer` may see of the current state.
    fn view(&self, viewer: Viewer) -> Self::View;

    /// The event as `viewer` may see it: hidden values are removed, or `None`
    /// when the viewer must not learn of the event at all.
    fn redact(event: &Self::Event, viewer: Viewer) -> Option<Self::Event>;

    /// `action`, taken by `actor`, as `viewer` may see it: the actor's secrets
    /// it carries are removed for everyone else, so that a host can report an
    /// action in a public event (e.g. the one a turn clock applied). The
    /// default shows it unchanged: only games whose actions carry secrets
    /// override it.
    fn redact_action(action: &Self::Action, viewer: Viewer, actor: Seat) -> Self::Action {
        let _ = (viewer, actor);
        action.clone()
    }

    /// The result, once the game is over.
    fn outcome(&self) -> Option<Outcome>;

    /// The seats ranked as the game stands now, scored and tie-broken as
    /// [`Game::outcome`] ranks them at the end: what a game a seat resigned
    /// ends on ([`Outcome::resigned_by`]). Equal to the outcome once over.
    fn standing(&self) -> Outcome;

    /// The action taken for the seat to act when it does not decide in time:
    /// each game documents its least harmful choice per decision kind. The
    /// default is the first legal action. `None` once the game is over.
    fn timeout_action(&self) -> Option<Self::Action> {
        let mut legal = Vec::new();
        self.legal_actions(&mut legal);
        legal.into_iter().next()
    }
}

/// A game's own heuristic: what a position is worth to `seat`, in points
/// (higher is better). Greedy bots maximise it; MCTS uses it to cut long
/// rollouts short. Each game implements it beside its rules.
pub trait Evaluate: Game {
    /// The worth of the position to `seat`, as it stands.
    fn evaluate(&self, seat: Seat) -> f64;
}
