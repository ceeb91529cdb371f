//! Applying one action: `apply` validates completely before it changes
//! anything, so a rejected action leaves the state exactly as it was and
//! reports no event; then play runs on to the next decision (stones, dolmen
//! decisions, the next turn) and to the end of the game.

use super::action::Action;
use super::board::{self, Circle, SITES, Site};
use super::event::{EndReason, Event, ScoreReason};
use super::rules::{RuleError, can_act, decision, may_decline, to_act, walk_target};
use super::scoring;
use super::state::{Occupant, Pending, Phase, StackDolmen, State};
use crate::{Seat, TurnError};

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
    match state.site(check_site(site)?) {
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
            let walker = state.site(from);
            state.set_site(from, None);
            state.set_site(to, walker);
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
            state.set_site(site, Some(Occupant::Druid { seat, lying: true }));
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
            state.set_site(from, None);
            state.set_site(to, Some(Occupant::Druid { seat, lying: false }));
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
    state.set_site(site, Some(Occupant::Druid { seat, lying: false }));
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
    state.set_site(site, Some(Occupant::Stone(seat)));
    events.push(Event::StonePlaced {
        seat,
        site,
        stones_left: state.seats[p].stones_left,
    });
    for &circle in board::circles_of(site) {
        state.add_circle_stone(circle, seat);
        let c = &mut state.circles[circle.index()];
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
    let mut due = state.due_circles();
    while due != 0 {
        let circle = Circle(due.trailing_zeros() as u8);
        due &= due - 1;
        events.push(Event::CircleCompleted { circle });
        scoring::score_stack(state, circle, events);
        state.complete_circle(circle);
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
