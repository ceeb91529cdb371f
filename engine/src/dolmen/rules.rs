//! The rules: setup, the legal actions of the seat to act, and applying one
//! action. `apply` validates completely before it changes anything, so a
//! rejected action leaves the state exactly as it was and reports no event.
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
//! * the end: see [`end_turn`] and [`finish_stone`].

use super::action::{Action, Decision};
use super::board::{self, CIRCLES, Circle, Dir, SITES, Site};
use super::event::{EndReason, Event, ScoreReason};
use super::scoring;
use super::state::{MAX_SEATS, Occupant, Options, Pending, Phase, StackDolmen, State};
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
fn may_decline(state: &State, seat: Seat) -> bool {
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
        match state.sites[next.index()] {
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
fn can_act(state: &State, seat: Seat) -> bool {
    let mut lying = false;
    let mut free = false;
    for occ in &state.sites {
        match *occ {
            Some(Occupant::Druid { seat: s, lying: l }) if s == seat => {
                if !l {
                    return true;
                }
                lying = true;
            }
            None => free = true,
            _ => {}
        }
    }
    lying && free
}

/// Appends every legal action of the seat to act.
pub(crate) fn legal_actions(state: &State, out: &mut Vec<Action>) {
    match state.phase {
        Phase::PlaceDruid { .. } => {
            for site in board::sites() {
                if state.is_free(site) {
                    out.push(Action::PlaceDruid { site });
                }
            }
        }
        Phase::Turn => {
            let me = state.active;
            for from in board::sites() {
                match state.sites[from.index()] {
                    Some(Occupant::Druid { seat, lying: false }) if seat == me => {
                        for dir in Dir::ALL {
                            if walk_target(state, from, dir).is_ok() {
                                out.push(Action::Walk { from, dir });
                            }
                        }
                        out.push(Action::CollectHerbs { site: from });
                    }
                    Some(Occupant::Druid { seat, lying: true }) if seat == me => {
                        for to in board::sites() {
                            if state.is_free(to) {
                                out.push(Action::Fly { from, to });
                            }
                        }
                    }
                    _ => {}
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

/// The site, if it is on the board.
fn check_site(site: Site) -> Result<Site, RuleError> {
    if site.index() < SITES {
        Ok(site)
    } else {
        Err(RuleError::NoSuchSite(site.0))
    }
}

/// Whether `seat`'s druid on `site` is lying.
fn own_druid(state: &State, seat: Seat, site: Site) -> Result<bool, RuleError> {
    match state.sites[check_site(site)?.index()] {
        Some(Occupant::Druid { seat: s, lying }) if s == seat => Ok(lying),
        _ => Err(RuleError::NotYourDruid(site)),
    }
}

/// Applies `action` for `seat`: validates everything first, then mutates.
pub(crate) fn apply(
    state: &mut State,
    seat: Seat,
    action: &Action,
    events: &mut Vec<Event>,
) -> Result<(), RuleError> {
    TurnError::check(to_act(state), seat)?;
    match (state.phase, *action) {
        (Phase::PlaceDruid { .. }, Action::PlaceDruid { site }) => {
            if !state.is_free(check_site(site)?) {
                return Err(RuleError::SiteOccupied(site));
            }
            place_druid(state, seat, site, events);
        }
        (Phase::Turn, Action::Walk { from, dir }) => {
            if own_druid(state, seat, from)? {
                return Err(RuleError::DruidLying(from));
            }
            let (to, jumped) = walk_target(state, from, dir)?;
            state.sites[to.index()] = state.sites[from.index()].take();
            events.push(Event::Walked {
                seat,
                from,
                to,
                dir,
                jumped,
            });
            after_move(state, from, events);
        }
        (Phase::Turn, Action::CollectHerbs { site }) => {
            if own_druid(state, seat, site)? {
                return Err(RuleError::DruidLying(site));
            }
            state.sites[site.index()] = Some(Occupant::Druid { seat, lying: true });
            events.push(Event::HerbsCollected { seat, site });
            end_turn(state, events);
        }
        (Phase::Turn, Action::Fly { from, to }) => {
            if !own_druid(state, seat, from)? {
                return Err(RuleError::DruidStanding(from));
            }
            if !state.is_free(check_site(to)?) {
                return Err(RuleError::SiteOccupied(to));
            }
            state.sites[from.index()] = None;
            state.sites[to.index()] = Some(Occupant::Druid { seat, lying: false });
            events.push(Event::Flew { seat, from, to });
            after_move(state, from, events);
        }
        (Phase::Stone { site }, Action::PlaceStone) => {
            place_stone(state, seat, site, events);
        }
        (Phase::Stone { site }, Action::DeclineStone) => {
            let score = state.seats[seat.index()].score;
            if !may_decline(state, seat) {
                return Err(RuleError::MayNotDecline { score });
            }
            events.push(Event::StoneDeclined { seat, site });
            scoring::add_score(state, seat, -1, ScoreReason::DeclinedStone, events);
            end_turn(state, events);
        }
        (Phase::Dolmen, Action::PlaceDolmen { value }) => {
            let value = value.ok_or(RuleError::HiddenValue)?;
            if !(1..=4).contains(&value) {
                return Err(RuleError::NoSuchValue(value));
            }
            if state.seats[seat.index()].hand[value as usize - 1] == 0 {
                return Err(RuleError::NoDolmenOfValue(value));
            }
            place_dolmen(state, seat, value, events);
        }
        (Phase::Dolmen, Action::PassDolmen) => {
            let p = state.queue.front().expect("a dolmen decision is pending");
            events.push(Event::DolmenPassed {
                seat,
                circle: p.circle,
            });
            state.queue.pop();
            next_dolmen(state, events);
        }
        _ => {
            return Err(TurnError::WrongDecision {
                expected: decision(state).expect("the game is not over"),
            }
            .into());
        }
    }
    Ok(())
}

/// Setup: puts a druid on `site`; the next seat in order places next, and the
/// first turn begins once every seat has placed its three druids.
fn place_druid(state: &mut State, seat: Seat, site: Site, events: &mut Vec<Event>) {
    state.sites[site.index()] = Some(Occupant::Druid { seat, lying: false });
    state.seats[seat.index()].druids_to_place -= 1;
    events.push(Event::DruidPlaced { seat, site });
    let next = state.next_seat(seat);
    if state.seats[next.index()].druids_to_place > 0 {
        state.phase = Phase::PlaceDruid { seat: next };
    } else {
        // The last druid is placed by the seat before the start seat: the
        // first turn goes to the seat after it.
        state.active = seat;
        end_turn(state, events);
    }
}

/// After a walk or a flight: the stone decision, unless the seat has no stones
/// left (then no stone and no penalty, and the turn ends).
fn after_move(state: &mut State, left: Site, events: &mut Vec<Event>) {
    if state.seats[state.active.index()].stones_left > 0 {
        state.phase = Phase::Stone { site: left };
    } else {
        end_turn(state, events);
    }
}

/// The colour with sole majority among `stones`: at least two colours present
/// and one with strictly more stones than each other colour.
fn sole_majority(stones: &[u8]) -> Option<Seat> {
    let mut best = 0u8;
    let mut holder = None;
    let mut tied = false;
    let mut colours = 0;
    for (s, &k) in stones.iter().enumerate() {
        if k == 0 {
            continue;
        }
        colours += 1;
        if k > best {
            best = k;
            holder = Some(Seat(s as u8));
            tied = false;
        } else if k == best {
            tied = true;
        }
    }
    if colours >= 2 && !tied { holder } else { None }
}

/// Leaves `seat`'s stone on `site`, updates the leaders of the site's circles
/// and queues the dolmen decisions it triggers, in circle letter order:
/// * a colour that now has sole majority and did not lead becomes the leader,
///   and its player may place a dolmen on top — even when another colour's
///   stone handed it the majority; increasing a lead one has gives nothing;
/// * otherwise, when the stone's colour does not lead and now has exactly as
///   many stones as the leader (who keeps the lead in a tie), its player may
///   place a dolmen under the stack.
fn place_stone(state: &mut State, seat: Seat, site: Site, events: &mut Vec<Event>) {
    let n = state.n();
    let p = seat.index();
    state.seats[p].stones_left -= 1;
    state.sites[site.index()] = Some(Occupant::Stone(seat));
    events.push(Event::StonePlaced {
        seat,
        site,
        stones_left: state.seats[p].stones_left,
    });
    for &circle in board::circles_of(site) {
        let c = &mut state.circles[circle.index()];
        c.stones[p] += 1;
        c.filled += 1;
        match sole_majority(&c.stones[..n]) {
            Some(holder) if c.leader != Some(holder) => {
                c.leader = Some(holder);
                events.push(Event::LeaderChanged {
                    circle,
                    leader: holder,
                });
                state.queue.push(Pending {
                    circle,
                    seat: holder,
                    on_top: true,
                });
            }
            Some(_) => {}
            None => {
                if let Some(leader) = c.leader
                    && leader != seat
                    && c.stones[p] == c.stones[leader.index()]
                {
                    state.queue.push(Pending {
                        circle,
                        seat,
                        on_top: false,
                    });
                }
            }
        }
    }
    next_dolmen(state, events);
}

/// Moves on to the next queued dolmen decision that can be taken: decisions
/// whose stack is full or whose player has no dolmen left at the moment they
/// come up are dropped without an event. With none left, the stone is done.
fn next_dolmen(state: &mut State, events: &mut Vec<Event>) {
    while let Some(p) = state.queue.front() {
        let room =
            (state.circles[p.circle.index()].len as usize) < board::shape(p.circle).max_dolmens();
        if room && state.seats[p.seat.index()].dolmens_left() > 0 {
            state.phase = Phase::Dolmen;
            return;
        }
        state.queue.pop();
    }
    finish_stone(state, events);
}

/// Places `seat`'s dolmen of `value` for the front decision. Placing one's last
/// dolmen starts the last turns (only the first time it happens in a game).
fn place_dolmen(state: &mut State, seat: Seat, value: u8, events: &mut Vec<Event>) {
    let p = state.queue.front().expect("a dolmen decision is pending");
    let s = &mut state.seats[seat.index()];
    s.hand[value as usize - 1] -= 1;
    s.placed += 1;
    let dolmens_left = s.dolmens_left();
    state.circles[p.circle.index()].push(
        StackDolmen {
            owner: seat.0,
            value,
        },
        p.on_top,
    );
    events.push(Event::DolmenPlaced {
        seat,
        circle: p.circle,
        on_top: p.on_top,
        value: Some(value),
        dolmens_left,
    });
    if dolmens_left == 0 && state.end_triggered_by.is_none() {
        // Every other player has exactly one more turn (see `end_turn`).
        state.end_triggered_by = Some(seat);
        state.last_turns_left = state.players - 1;
        events.push(Event::LastTurnsBegin { seat });
    }
    state.queue.pop();
    next_dolmen(state, events);
}

/// After the dolmen decisions of a stone: every circle it completed scores
/// (letter order). A full circle that is not yet complete can only be one the
/// last stone filled. When that was the last stone of all players, the game
/// ends at once; otherwise the turn ends.
fn finish_stone(state: &mut State, events: &mut Vec<Event>) {
    for c in 0..CIRCLES {
        let circle = Circle(c as u8);
        let cs = &state.circles[c];
        if !cs.complete && cs.filled as usize == board::shape(circle).sites() {
            events.push(Event::CircleCompleted { circle });
            scoring::score_stack(state, circle, events);
            state.circles[c].complete = true;
        }
    }
    if state.seats[..state.n()].iter().all(|s| s.stones_left == 0) {
        scoring::finish(state, EndReason::LastStone, events);
    } else {
        end_turn(state, events);
    }
}

/// Ends the active seat's turn and starts the next one.
///
/// Engine decision (the rulebook only says "every other player has one more
/// turn"): once a seat has placed its last dolmen — possibly out of turn, in a
/// dolmen decision during another seat's turn — the current turn is finished,
/// then every seat except the one that placed its last dolmen takes exactly one
/// more turn, in seat order starting from the seat after the active one (so
/// when the end is triggered out of turn, the active seat plays once more as
/// the last of them), and the game ends.
///
/// The `max_turns` safeguard (\[ruling\]) ends the game when another turn
/// would exceed it, but only while no end has been triggered: the owed last
/// turns are always played. A seat with no legal action at all loses its turn
/// (\[ruling\]: `TurnPassed`); should every seat in a row be unable to act, the
/// game ends as by the safeguard rather than loop.
pub(crate) fn end_turn(state: &mut State, events: &mut Vec<Event>) {
    let mut passes = 0;
    loop {
        let next = match state.end_triggered_by {
            Some(trigger) => {
                if state.last_turns_left == 0 {
                    scoring::finish(state, EndReason::LastDolmen, events);
                    return;
                }
                let mut s = state.next_seat(state.active);
                if s == trigger {
                    s = state.next_seat(s);
                }
                state.last_turns_left -= 1;
                s
            }
            None => state.next_seat(state.active),
        };
        // Owed last turns are always played: the safeguard only cuts short a
        // game whose end has not been triggered.
        if state.end_triggered_by.is_none() && state.turn >= state.max_turns {
            scoring::finish(state, EndReason::Safeguard, events);
            return;
        }
        state.turn += 1;
        state.active = next;
        state.phase = Phase::Turn;
        events.push(Event::TurnStarted {
            seat: next,
            turn: state.turn,
        });
        if can_act(state, next) {
            return;
        }
        events.push(Event::TurnPassed { seat: next });
        passes += 1;
        if passes >= state.n() {
            scoring::finish(state, EndReason::Safeguard, events);
            return;
        }
    }
}

/// The action taken for the seat to act when its clock runs out — the least
/// harmful choice per decision kind:
/// * placing a druid: the lowest-numbered free site;
/// * a turn: collect herbs with the standing druid on the lowest-numbered site;
///   with none standing, fly the lying druid on the lowest-numbered site to the
///   lowest-numbered free site;
/// * a stone: leave it ([`Action::PlaceStone`]: declining would cost a point);
/// * a dolmen: pass ([`Action::PassDolmen`]: no penalty, the dolmen stays in hand).
pub(crate) fn timeout_action(state: &State) -> Option<Action> {
    let first_free = || board::sites().find(|&s| state.is_free(s));
    match state.phase {
        Phase::PlaceDruid { .. } => first_free().map(|site| Action::PlaceDruid { site }),
        Phase::Turn => {
            let me = state.active;
            let mine = |lying: bool| {
                board::sites()
                    .find(|s| state.sites[s.index()] == Some(Occupant::Druid { seat: me, lying }))
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
