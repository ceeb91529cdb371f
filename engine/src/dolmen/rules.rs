//! The rules: setup, what is pending, the legal actions of the seat to act
//! and the timeout default, and why an action is refused. Applying one action
//! is `apply`'s.
//!
//! The flow of a game:
//! * setup: starting with the start seat, in seat order, each seat places one
//!   druid on a free site, three rounds;
//! * a turn: walk, collect herbs or fly; after a walk or a flight the active
//!   seat leaves a stone on the site its druid left or declines (−1 point), and
//!   has no such decision at all when it has no stones left;
//! * a stone updates the leader of each circle of its site and queues the dolmen
//!   decisions it triggers (circle letter order); they are taken one at a time,
//!   possibly by seats not on turn; then every circle the stone completed scores;
//! * the end: see `apply::end_turn` and `apply::finish_stone`.

use super::action::{Action, Decision};
use super::board::{self, Dir, SITES, Site};
use super::event::Event;
use super::state::{MAX_SEATS, Occupant, Options, Phase, SiteMask, State};
use crate::{Rejection, RuleViolation, Seat, SetupError, TurnError};

/// Why an action was refused. The state is unchanged whenever one is returned.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RuleError {
    /// The game is over, another seat must decide, or the action answers
    /// another kind of decision.
    #[error(transparent)]
    Turn(#[from] TurnError<Decision>),
    /// The site number is not on the board.
    #[error("there is no site {0} (sites are numbered 0 to 72)")]
    NoSuchSite(u8),
    /// No druid of yours stands or lies on the site.
    #[error("you have no druid on {0}")]
    NotYourDruid(Site),
    /// A lying druid cannot walk or collect herbs: it can only fly.
    #[error("your druid on {0} is lying (collecting herbs): it can only fly")]
    DruidLying(Site),
    /// Only a lying druid can fly.
    #[error("your druid on {0} is standing: only a druid that collected herbs can fly")]
    DruidStanding(Site),
    /// The target site holds a druid or a stone.
    #[error("{0} is not free: it holds a druid or a stone")]
    SiteOccupied(Site),
    /// There is no path from `at` in that direction (a segment through a
    /// hexagon or an octagon, or a diagonal move from a site that is no corner).
    #[error("walking {dir:?} from {from}: there is no path {dir:?} from {at}")]
    NoPath {
        /// Where the walk starts.
        from: Site,
        /// Direction.
        dir: Dir,
        /// The site (the start or a jumped druid's) with no path onwards.
        at: Site,
    },
    /// A stone is in the way: stones cannot be jumped or landed on.
    #[error("walking {dir:?} from {from}: the stone on {stone} is in the way")]
    Blocked {
        /// Where the walk starts.
        from: Site,
        /// Direction.
        dir: Dir,
        /// The site of the stone.
        stone: Site,
    },
    /// A diagonal corner move cannot jump: the opposite corner holds a druid.
    #[error("the diagonal move from {0} cannot jump the druid on the opposite corner")]
    DiagonalJump(Site),
    /// The druids in the way reach all round the board back to the walker.
    #[error("walking {dir:?} from {from}: the druids in the way lead back round to the start")]
    JumpLoop {
        /// Where the walk starts.
        from: Site,
        /// Direction.
        dir: Dir,
    },
    /// At 1 point or less a stone must be left.
    #[error("you have {score} point(s): at 1 point or less you may not decline the stone")]
    MayNotDecline {
        /// The seat's score.
        score: i32,
    },
    /// Dolmen values are 1 to 4.
    #[error("there is no dolmen value {0} (values are 1 to 4)")]
    NoSuchValue(u8),
    /// A dolmen placed without its value (the form other seats see).
    #[error("name the value of the dolmen you place")]
    HiddenValue,
    /// You hold no dolmen of that value.
    #[error("you hold no dolmen of value {0}")]
    NoDolmenOfValue(u8),
}

impl RuleViolation for RuleError {
    fn rejection(&self) -> Rejection {
        match self {
            RuleError::Turn(e) => e.rejection(),
            RuleError::NoSuchSite(_) | RuleError::NoSuchValue(_) | RuleError::HiddenValue => {
                Rejection::Malformed
            }
            _ => Rejection::Illegal,
        }
    }
}

/// Sets up a game: empty board, starting material, the start seat places the
/// first druid. The game has no chance element: `seed` is unused.
pub(crate) fn setup(
    players: usize,
    seed: u64,
    options: &Options,
    events: &mut Vec<Event>,
) -> Result<State, SetupError> {
    let _ = (seed, events);
    if !(2..=MAX_SEATS).contains(&players) {
        return Err(SetupError::PlayerCount {
            game: "dolmen",
            min: 2,
            max: MAX_SEATS,
            got: players,
        });
    }
    if options.start_seat.index() >= players {
        return Err(SetupError::Option(format!(
            "start_seat {} is not a seat of a {players}-player game",
            options.start_seat.0
        )));
    }
    if options.max_turns == 0 {
        return Err(SetupError::Option("max_turns must be at least 1".into()));
    }
    Ok(State::new(players, options.start_seat, options.max_turns))
}

/// The kind of decision pending.
pub(crate) fn decision(state: &State) -> Option<Decision> {
    Some(match state.phase {
        Phase::PlaceDruid { .. } => Decision::PlaceDruid,
        Phase::Turn => Decision::Turn,
        Phase::Stone { site } => Decision::Stone {
            site,
            may_decline: may_decline(state, state.active),
        },
        Phase::Dolmen => {
            let p = state.queue.front()?;
            Decision::Dolmen {
                circle: p.circle,
                on_top: p.on_top,
            }
        }
        Phase::Over => return None,
    })
}

/// The seat that must decide now.
pub(crate) fn to_act(state: &State) -> Option<Seat> {
    match state.phase {
        Phase::PlaceDruid { seat } => Some(seat),
        Phase::Turn | Phase::Stone { .. } => Some(state.active),
        Phase::Dolmen => state.queue.front().map(|p| p.seat),
        Phase::Over => None,
    }
}

/// A seat may decline a stone only above 1 point.
#[inline]
pub(crate) fn may_decline(state: &State, seat: Seat) -> bool {
    state.seats[seat.index()].score > 1
}

/// Where a walk from `from` in `dir` lands, and how many druids it jumps: the
/// first step must follow a path; every druid (any colour, standing or lying)
/// on the way is jumped in the same direction; the walk lands on the first site
/// holding neither druid nor stone. A stone or a missing path on the way, a
/// diagonal move onto a druid, or a chain of druids leading all the way round
/// back to `from` make the move illegal.
pub(crate) fn walk_target(state: &State, from: Site, dir: Dir) -> Result<(Site, u8), RuleError> {
    let mut at = from;
    let mut jumped = 0u8;
    // A line holds at most 9 sites; the bound only guards the loop.
    for _ in 0..SITES {
        let next = board::neighbour(at, dir).ok_or(RuleError::NoPath { from, dir, at })?;
        if next == from {
            return Err(RuleError::JumpLoop { from, dir });
        }
        match state.site(next) {
            None => return Ok((next, jumped)),
            Some(Occupant::Stone(_)) => {
                return Err(RuleError::Blocked {
                    from,
                    dir,
                    stone: next,
                });
            }
            Some(Occupant::Druid { .. }) => {
                if dir == Dir::Diagonal {
                    return Err(RuleError::DiagonalJump(from));
                }
                jumped += 1;
                at = next;
            }
        }
    }
    Err(RuleError::JumpLoop { from, dir })
}

/// True when `seat` has any legal turn action: a standing druid (it can always
/// collect herbs) or a lying druid and a free site.
pub(crate) fn can_act(state: &State, seat: Seat) -> bool {
    let druids = state.druid_sites(seat);
    let standing = druids
        .iter()
        .any(|s| matches!(state.site(s), Some(Occupant::Druid { lying: false, .. })));
    standing || (!druids.is_empty() && !state.free_sites().is_empty())
}

/// Appends every legal action of the seat to act.
pub(crate) fn legal_actions(state: &State, out: &mut Vec<Action>) {
    match state.phase {
        Phase::PlaceDruid { .. } => {
            push_sites(out, state.free_sites(), |site| Action::PlaceDruid { site });
        }
        Phase::Turn => {
            // The seat's druids in site order, from the masks the rules keep:
            // no pass over the board.
            for from in state.druid_sites(state.active).iter() {
                if let Some(Occupant::Druid { lying: true, .. }) = state.site(from) {
                    push_sites(out, state.free_sites(), |to| Action::Fly { from, to });
                } else {
                    for dir in Dir::ALL {
                        if walk_target(state, from, dir).is_ok() {
                            out.push(Action::Walk { from, dir });
                        }
                    }
                    out.push(Action::CollectHerbs { site: from });
                }
            }
        }
        Phase::Stone { .. } => {
            out.push(Action::PlaceStone);
            if may_decline(state, state.active) {
                out.push(Action::DeclineStone);
            }
        }
        Phase::Dolmen => {
            if let Some(p) = state.queue.front() {
                let hand = state.seats[p.seat.index()].hand;
                for (i, &k) in hand.iter().enumerate() {
                    if k > 0 {
                        out.push(Action::PlaceDolmen {
                            value: Some(i as u8 + 1),
                        });
                    }
                }
                out.push(Action::PassDolmen);
            }
        }
        Phase::Over => {}
    }
}

/// Appends `make(site)` for each site of `sites`, lowest first. Placing a
/// druid and a lying druid's flights list dozens of sites: room for all is
/// copied in one step, then written in place, which costs about half as much
/// per action as pushing them one by one.
#[inline]
fn push_sites(out: &mut Vec<Action>, sites: SiteMask, make: impl Fn(Site) -> Action) {
    let start = out.len();
    let sites = sites.iter();
    out.extend_from_slice(&ROOM[..sites.len().min(SITES)]);
    for (slot, site) in out[start..].iter_mut().zip(sites) {
        *slot = make(site);
    }
}

/// Room for the actions of [`push_sites`], overwritten.
static ROOM: [Action; SITES] = [Action::PassDolmen; SITES];

/// The action taken for the seat to act when its clock runs out — the least
/// harmful choice per decision kind:
/// * placing a druid: the lowest-numbered free site;
/// * a turn: collect herbs with the standing druid on the lowest-numbered site;
///   with none standing, fly the lying druid on the lowest-numbered site to the
///   lowest-numbered free site;
/// * a stone: leave it ([`Action::PlaceStone`]: declining would cost a point);
/// * a dolmen: pass ([`Action::PassDolmen`]: no penalty, the dolmen stays in hand).
pub(crate) fn timeout_action(state: &State) -> Option<Action> {
    let first_free = || state.free_sites().first();
    match state.phase {
        Phase::PlaceDruid { .. } => first_free().map(|site| Action::PlaceDruid { site }),
        Phase::Turn => {
            let me = state.active;
            let mine = |lying: bool| {
                state
                    .druid_sites(me)
                    .iter()
                    .find(|&s| state.site(s) == Some(Occupant::Druid { seat: me, lying }))
            };
            if let Some(site) = mine(false) {
                return Some(Action::CollectHerbs { site });
            }
            let from = mine(true)?;
            first_free().map(|to| Action::Fly { from, to })
        }
        Phase::Stone { .. } => Some(Action::PlaceStone),
        Phase::Dolmen => Some(Action::PassDolmen),
        Phase::Over => None,
    }
}
