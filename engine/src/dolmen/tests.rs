//! Scenario and unit tests: the board as data, the rulebook's octagon example,
//! one test per rule and per \[ruling\] / engine decision. Positions are built
//! directly on the state, then driven through the public `apply`, and the exact
//! outcome is checked.

use super::Dolmen;
use super::action::{Action, Decision};
use super::board::{self, CIRCLES, Circle, Dir, SITES, Shape, Site};
use super::event::{EndReason, Event, ScoreReason};
use super::rules::RuleError;
use super::state::{Occupant, Options, Phase, StackDolmen, State, starting_dolmens};
use super::view::QueuedDolmen;
use crate::{Determinize, Game, Rejection, RuleViolation, Seat, SetupError, TurnError, Viewer};

const RED: Seat = Seat(0);
const YELLOW: Seat = Seat(1);
const BLUE: Seat = Seat(2);

/// The site at (x, y).
fn s(x: u8, y: u8) -> Site {
    board::site_at(x, y).unwrap_or_else(|| panic!("no site at ({x},{y})"))
}

/// The circle with this letter.
fn c(letter: char) -> Circle {
    let i = if letter.is_ascii_lowercase() {
        letter as u8 - b'a' + 26
    } else {
        letter as u8 - b'A'
    };
    Circle(i)
}

/// Where `bare` parks one standing druid per seat: (1, 8), (2, 8), … on the
/// bottom row, out of the way of the scenarios.
fn park(seat: Seat) -> Site {
    s(1 + seat.0, 8)
}

/// A game past setup: one standing druid per seat parked on the bottom row
/// (the other two still "to place", which keeps the piece counts consistent),
/// no stones, `active` to take turn 1.
fn bare(players: usize, active: Seat) -> Dolmen {
    let mut game = Dolmen::new(players, 0, &Options::default(), &mut Vec::new()).unwrap();
    let st = game.state_mut();
    for p in 0..players as u8 {
        let seat = Seat(p);
        st.sites[park(seat).index()] = Some(Occupant::Druid { seat, lying: false });
        st.seats[p as usize].druids_to_place = 2;
    }
    st.phase = Phase::Turn;
    st.active = active;
    st.turn = 1;
    assert!(game.pieces_conserved());
    game
}

/// Puts a druid of `seat` on `site` (one of those "to place").
fn druid(st: &mut State, site: Site, seat: Seat, lying: bool) {
    assert!(st.sites[site.index()].is_none());
    st.sites[site.index()] = Some(Occupant::Druid { seat, lying });
    st.seats[seat.index()].druids_to_place -= 1;
}

/// Moves a parked druid away (back to "to place").
fn unpark(st: &mut State, seat: Seat) {
    st.sites[park(seat).index()] = None;
    st.seats[seat.index()].druids_to_place += 1;
}

/// Puts a stone of `seat` on `site` directly: counts updated, no majorities
/// evaluated (set leaders by hand).
fn put_stone(st: &mut State, site: Site, seat: Seat) {
    assert!(st.sites[site.index()].is_none());
    st.sites[site.index()] = Some(Occupant::Stone(seat));
    st.seats[seat.index()].stones_left -= 1;
    for &circle in board::circles_of(site) {
        let cs = &mut st.circles[circle.index()];
        cs.stones[seat.index()] += 1;
        cs.filled += 1;
    }
}

/// Puts a dolmen of `seat` under the stack of `circle` directly, from its hand.
fn put_dolmen(st: &mut State, circle: Circle, seat: Seat, value: u8) {
    let s = &mut st.seats[seat.index()];
    assert!(s.hand[value as usize - 1] > 0);
    s.hand[value as usize - 1] -= 1;
    s.placed += 1;
    st.circles[circle.index()].push(
        StackDolmen {
            owner: seat.0,
            value,
        },
        false,
    );
}

/// Takes every dolmen but `keep` (value → count) out of a seat's hand, as if
/// they had been placed and scored.
fn leave_in_hand(st: &mut State, seat: Seat, keep: [u8; 4]) {
    let s = &mut st.seats[seat.index()];
    for (v, &k) in keep.iter().enumerate() {
        let gone = s.hand[v] - k;
        s.scored[v] += gone;
        s.placed += gone;
    }
    s.hand = keep;
}

/// Applies a legal action; checks that it was listed and that pieces are conserved.
fn play(game: &mut Dolmen, seat: Seat, action: Action) -> Vec<Event> {
    let mut legal = Vec::new();
    game.legal_actions(&mut legal);
    assert!(
        legal.contains(&action),
        "{action:?} by {seat} is not listed in {legal:?}"
    );
    let events = play_raw(game, seat, action);
    assert!(game.pieces_conserved(), "pieces conserved after {action:?}");
    events
}

/// Applies an action without the conservation check (for positions that
/// shortcut the piece counts).
fn play_raw(game: &mut Dolmen, seat: Seat, action: Action) -> Vec<Event> {
    let mut events = Vec::new();
    if let Err(e) = game.apply(seat, &action, &mut events) {
        panic!("{action:?} by {seat} rejected: {e}");
    }
    events
}

/// Applies an illegal action: it must be rejected, unlisted, and change nothing.
fn reject(game: &mut Dolmen, seat: Seat, action: Action) -> RuleError {
    let before = game.clone();
    let mut legal = Vec::new();
    game.legal_actions(&mut legal);
    let mut events = Vec::new();
    let err = game.apply(seat, &action, &mut events).unwrap_err();
    assert_eq!(*game, before, "a rejected action changes nothing");
    assert!(events.is_empty(), "a rejected action reports nothing");
    if game.to_act() == Some(seat) {
        assert!(
            !legal.contains(&action),
            "{action:?} is listed but rejected"
        );
    }
    err
}

/// Leaves a stone of `seat` on `site` through the rules (as if its druid had
/// just left the site).
fn stone(game: &mut Dolmen, seat: Seat, site: Site) -> Vec<Event> {
    let st = game.state_mut();
    st.phase = Phase::Stone { site };
    st.active = seat;
    play(game, seat, Action::PlaceStone)
}

fn score(game: &Dolmen, seat: Seat) -> i32 {
    game.state().seats[seat.index()].score
}

/// The stack of a circle, top first, as (owner, value).
fn stack(game: &Dolmen, circle: Circle) -> Vec<(Seat, u8)> {
    game.state().circles[circle.index()]
        .dolmens()
        .iter()
        .map(|d| (Seat(d.owner), d.value))
        .collect()
}

fn legal(game: &Dolmen) -> Vec<Action> {
    let mut out = Vec::new();
    game.legal_actions(&mut out);
    out
}

fn dolmen_decision(circle: Circle, on_top: bool) -> Option<Decision> {
    Some(Decision::Dolmen { circle, on_top })
}

fn walk(from: Site, dir: Dir) -> Action {
    Action::Walk { from, dir }
}

// ---------------------------------------------------------------------------
// The board as data (\[ruling\])

#[test]
fn board_has_28_circles_of_the_digests_shapes() {
    let letters = |list: &str, shape: Shape| {
        for l in list.chars().filter(|l| !l.is_whitespace()) {
            assert_eq!(board::shape(c(l)), shape, "circle {l}");
            assert_eq!(board::circle_sites(c(l)).len(), shape.sites(), "circle {l}");
        }
        list.split_whitespace().count()
    };
    assert_eq!(letters("B C I J T V W X", Shape::Octagon), 8);
    assert_eq!(letters("A D E G H K L M N O P Q", Shape::Hexagon), 12);
    assert_eq!(letters("F R S U Y Z a b", Shape::Square), 8);
    assert_eq!(board::circles().count(), CIRCLES);
    assert_eq!(c('a'), Circle(26));
    assert_eq!(Circle(27).letter(), 'b');
}

#[test]
fn board_has_73_sites_numbered_row_by_row_without_octagon_centres() {
    assert_eq!(board::sites().count(), SITES);
    let centres = [
        (2, 1),
        (4, 1),
        (3, 3),
        (5, 3),
        (3, 6),
        (7, 6),
        (1, 7),
        (5, 7),
    ];
    let mut n = 0;
    for y in 0..9 {
        for x in 0..9 {
            if centres.contains(&(x, y)) {
                assert_eq!(board::site_at(x, y), None, "({x},{y}) is an octagon centre");
            } else {
                assert_eq!(board::site_at(x, y), Some(Site(n)));
                assert_eq!(board::coords(Site(n)), (x, y));
                n += 1;
            }
        }
    }
    assert_eq!(n as usize, SITES);
    assert_eq!(board::site_at(9, 0), None);
    assert_eq!(s(8, 8), Site(72));
    assert_eq!(s(0, 1), Site(9));
    assert_eq!(s(0, 2), Site(16));
}

#[test]
fn sites_belong_to_one_two_or_three_circles() {
    let mut by_count = [0; 4];
    for site in board::sites() {
        let cs = board::circles_of(site);
        by_count[cs.len()] += 1;
        assert!(cs.windows(2).all(|w| w[0] < w[1]), "letter order");
        for &circle in cs {
            assert!(board::circle_sites(circle).contains(&site));
        }
    }
    assert_eq!(by_count, [0, 15, 21, 37]);
    for circle in board::circles() {
        let sites = board::circle_sites(circle);
        assert!(sites.windows(2).all(|w| w[0] < w[1]), "increasing");
        for &site in sites {
            assert!(board::circles_of(site).contains(&circle));
        }
    }
    // Spot checks.
    let a: Vec<u8> = board::circle_sites(c('A')).iter().map(|s| s.0).collect();
    assert_eq!(a, [0, 1, 9, 10, 16, 17]);
    let f: Vec<Site> = board::circle_sites(c('F')).to_vec();
    assert_eq!(f, [s(5, 1), s(6, 1), s(5, 2), s(6, 2)]);
    assert_eq!(board::circles_of(s(0, 0)), [c('A')]);
    assert_eq!(board::circles_of(s(2, 2)), [c('B'), c('H'), c('I')]);
    assert_eq!(board::circles_of(s(8, 5)), [c('R'), c('V')]);
    assert_eq!(board::circles_of(s(8, 6)), [c('V')]);
    assert_eq!(board::circles_of(s(7, 7)), [c('V'), c('a'), c('b')]);
}

#[test]
fn paths_follow_circle_boundaries_not_their_insides() {
    // Inside hexagon A (cells (0,0) and (0,1)): the segment (0,1)–(1,1).
    assert_eq!(board::neighbour(s(0, 1), Dir::East), None);
    assert_eq!(board::neighbour(s(1, 1), Dir::West), None);
    // Its boundary: (1,0)–(1,1) is a path.
    assert_eq!(board::neighbour(s(1, 1), Dir::North), Some(s(1, 0)));
    // Inside hexagon E (cells (7,0) and (7,1)): (7,1)–(8,1).
    assert_eq!(board::neighbour(s(7, 1), Dir::East), None);
    // Inside hexagon O (cells (1,4), (2,4)): (2,4)–(2,5).
    assert_eq!(board::neighbour(s(2, 4), Dir::South), None);
    // Towards an octagon's centre there is no path (and no site).
    assert_eq!(board::neighbour(s(2, 0), Dir::South), None);
    assert_eq!(board::neighbour(s(3, 1), Dir::East), None);
    // Board edges are paths.
    assert_eq!(board::neighbour(s(0, 3), Dir::South), Some(s(0, 4)));
    assert_eq!(board::neighbour(s(4, 8), Dir::East), Some(s(5, 8)));
    // Every path goes both ways.
    let back = |d: Dir| match d {
        Dir::North => Dir::South,
        Dir::South => Dir::North,
        Dir::East => Dir::West,
        Dir::West => Dir::East,
        Dir::Diagonal => Dir::Diagonal,
    };
    for site in board::sites() {
        for d in Dir::ALL {
            if let Some(n) = board::neighbour(site, d) {
                assert_ne!(n, site);
                assert_eq!(board::neighbour(n, back(d)), Some(site), "{site} {d:?}");
            }
        }
    }
}

#[test]
fn wrap_around_and_corner_diagonals() {
    // (8, y) and (0, y) are different sites, one step apart.
    assert_eq!(board::neighbour(s(8, 4), Dir::East), Some(s(0, 4)));
    assert_eq!(board::neighbour(s(0, 4), Dir::West), Some(s(8, 4)));
    assert_eq!(board::neighbour(s(0, 4), Dir::East), Some(s(1, 4)));
    assert_eq!(board::neighbour(s(8, 4), Dir::West), Some(s(7, 4)));
    assert_eq!(board::neighbour(s(3, 0), Dir::North), Some(s(3, 8)));
    assert_eq!(board::neighbour(s(3, 8), Dir::South), Some(s(3, 0)));
    // Corners: both wraps and the diagonal.
    assert_eq!(board::neighbour(s(0, 0), Dir::West), Some(s(8, 0)));
    assert_eq!(board::neighbour(s(0, 0), Dir::North), Some(s(0, 8)));
    assert_eq!(board::neighbour(s(0, 0), Dir::Diagonal), Some(s(8, 8)));
    assert_eq!(board::neighbour(s(8, 8), Dir::Diagonal), Some(s(0, 0)));
    assert_eq!(board::neighbour(s(8, 0), Dir::Diagonal), Some(s(0, 8)));
    assert_eq!(board::neighbour(s(0, 8), Dir::Diagonal), Some(s(8, 0)));
    // The diagonal exists only at corners.
    let diagonals = board::sites()
        .filter(|&x| board::neighbour(x, Dir::Diagonal).is_some())
        .count();
    assert_eq!(diagonals, 4);
    assert!(board::is_corner(s(8, 0)) && !board::is_corner(s(4, 0)));
}

// ---------------------------------------------------------------------------
// Setup

#[test]
fn setup_checks_player_count_and_options() {
    let new = |p, o: Options| Dolmen::new(p, 0, &o, &mut Vec::new()).map(|_| ());
    assert!(matches!(
        new(1, Options::default()),
        Err(SetupError::PlayerCount { got: 1, .. })
    ));
    assert!(matches!(
        new(6, Options::default()),
        Err(SetupError::PlayerCount { got: 6, .. })
    ));
    let bad_start = Options {
        start_seat: Seat(3),
        ..Options::default()
    };
    assert!(matches!(new(3, bad_start), Err(SetupError::Option(_))));
    let no_turns = Options {
        max_turns: 0,
        ..Options::default()
    };
    assert!(matches!(new(2, no_turns), Err(SetupError::Option(_))));
}

#[test]
fn starting_material_follows_the_table() {
    for (players, stones, dolmens) in [
        (2, 16, [5, 4, 3, 1]),
        (3, 13, [4, 3, 2, 1]),
        (4, 12, [4, 3, 1, 1]),
        (5, 10, [3, 2, 1, 1]),
    ] {
        let game = Dolmen::new(players, 0, &Options::default(), &mut Vec::new()).unwrap();
        let v = game.view(Viewer::Seat(Seat(0)));
        assert_eq!(v.seats.len(), players);
        for (i, sv) in v.seats.iter().enumerate() {
            assert_eq!(sv.score, 4);
            assert_eq!(sv.stones_left, stones);
            assert_eq!(sv.dolmens_left, dolmens.iter().sum::<u8>());
            assert_eq!(sv.druids_to_place, 3);
            assert_eq!(sv.hand, (i == 0).then_some(dolmens));
        }
        assert_eq!(starting_dolmens(players), dolmens);
        assert!(game.pieces_conserved());
    }
}

#[test]
fn druids_are_placed_in_seat_order_from_the_start_seat_three_rounds() {
    let options = Options {
        start_seat: Seat(2),
        ..Options::default()
    };
    let mut game = Dolmen::new(3, 0, &options, &mut Vec::new()).unwrap();
    let mut order = Vec::new();
    for i in 0..9 {
        assert_eq!(game.decision(), Some(Decision::PlaceDruid));
        let seat = game.to_act().unwrap();
        order.push(seat.0);
        let site = Site(i * 5);
        let ev = play(&mut game, seat, Action::PlaceDruid { site });
        assert_eq!(ev[0], Event::DruidPlaced { seat, site });
        if i == 8 {
            // The first turn goes to the start seat.
            assert_eq!(
                ev[1..],
                [Event::TurnStarted {
                    seat: Seat(2),
                    turn: 1
                }]
            );
        }
    }
    assert_eq!(order, [2, 0, 1, 2, 0, 1, 2, 0, 1]);
    assert_eq!(game.decision(), Some(Decision::Turn));
    assert_eq!(game.to_act(), Some(Seat(2)));
    assert_eq!(game.turn(), 1);
    // A druid cannot go on an occupied site, nor off the board.
    let mut game = Dolmen::new(2, 0, &Options::default(), &mut Vec::new()).unwrap();
    play(&mut game, Seat(0), Action::PlaceDruid { site: Site(7) });
    assert_eq!(
        reject(&mut game, Seat(1), Action::PlaceDruid { site: Site(7) }),
        RuleError::SiteOccupied(Site(7))
    );
    assert_eq!(
        reject(&mut game, Seat(1), Action::PlaceDruid { site: Site(73) }),
        RuleError::NoSuchSite(73)
    );
    assert_eq!(legal(&game).len(), SITES - 1);
}

// ---------------------------------------------------------------------------
// The rulebook's octagon example

/// Red, yellow, blue in octagon I (sites (2,2) (3,2) (4,2) (2,3) (4,3) (2,4)
/// (3,4) (4,4)): the sequence of the rulebook, each dolmen decision in I taken
/// with the given value.
#[test]
fn rulebook_octagon_example() {
    let i = c('I');
    let mut game = bare(3, RED);
    // Red stone: one colour, no majority.
    let ev = stone(&mut game, RED, s(2, 2));
    assert!(!ev.iter().any(|e| matches!(e, Event::LeaderChanged { .. })));
    // Yellow stone: no majority yet (one each).
    stone(&mut game, YELLOW, s(3, 2));
    // Blue stone: still none.
    stone(&mut game, BLUE, s(4, 2));
    assert_eq!(game.state().circles[i.index()].leader, None);
    assert_eq!(game.decision(), Some(Decision::Turn));
    // Yellow stone: yellow leads, dolmen on top.
    let ev = stone(&mut game, YELLOW, s(2, 3));
    assert!(ev.contains(&Event::LeaderChanged {
        circle: i,
        leader: YELLOW
    }));
    assert_eq!(game.decision(), dolmen_decision(i, true));
    assert_eq!(game.to_act(), Some(YELLOW));
    play(&mut game, YELLOW, Action::PlaceDolmen { value: Some(3) });
    // Red stone: red equalises, dolmen under.
    stone(&mut game, RED, s(4, 3));
    assert_eq!(game.decision(), dolmen_decision(i, false));
    assert_eq!(game.to_act(), Some(RED));
    play(&mut game, RED, Action::PlaceDolmen { value: Some(2) });
    // Blue stone: blue equalises (yellow still leads), dolmen under red.
    stone(&mut game, BLUE, s(2, 4));
    assert_eq!(game.decision(), dolmen_decision(i, false));
    play(&mut game, BLUE, Action::PlaceDolmen { value: Some(4) });
    assert_eq!(stack(&game, i), [(YELLOW, 3), (RED, 2), (BLUE, 4)]);
    assert_eq!(game.state().circles[i.index()].leader, Some(YELLOW));

    // Had yellow placed the next stone: nothing (yellow still leads).
    let mut alt = game.clone();
    let ev = stone(&mut alt, YELLOW, s(3, 4));
    assert!(
        !ev.iter()
            .any(|e| matches!(e, Event::LeaderChanged { .. } | Event::DolmenPlaced { .. }))
    );
    assert_eq!(alt.decision(), Some(Decision::Turn));
    assert_eq!(alt.state().circles[i.index()].leader, Some(YELLOW));

    // Blue stone: blue gains sole majority, dolmen on top.
    let ev = stone(&mut game, BLUE, s(3, 4));
    assert!(ev.contains(&Event::LeaderChanged {
        circle: i,
        leader: BLUE
    }));
    assert_eq!(game.decision(), dolmen_decision(i, true));
    play(&mut game, BLUE, Action::PlaceDolmen { value: Some(1) });
    assert!([RED, YELLOW, BLUE].iter().all(|&p| score(&game, p) == 4));

    // Red fills the last site: red equalises blue, dolmen under; in the same
    // stone red also gains J (blue 1, red 2), decided after I (letter order).
    let ev = stone(&mut game, RED, s(4, 4));
    assert!(ev.contains(&Event::LeaderChanged {
        circle: c('J'),
        leader: RED
    }));
    assert_eq!(game.decision(), dolmen_decision(i, false));
    let view = game.view(Viewer::Spectator);
    assert_eq!(
        view.queued_dolmens,
        [QueuedDolmen {
            circle: c('J'),
            seat: RED,
            on_top: true
        }]
    );
    let ev = play(&mut game, RED, Action::PlaceDolmen { value: Some(1) });
    assert_eq!(
        ev,
        [Event::DolmenPlaced {
            seat: RED,
            circle: i,
            on_top: false,
            value: Some(1),
            dolmens_left: 8,
        }]
    );
    assert_eq!(
        stack(&game, i),
        [(BLUE, 1), (YELLOW, 3), (RED, 2), (BLUE, 4), (RED, 1)],
        "top → bottom: blue, yellow, red, blue, red"
    );
    // The circle scores only after the last decision of the stone (J).
    assert_eq!(game.decision(), dolmen_decision(c('J'), true));
    let ev = play(&mut game, RED, Action::PassDolmen);
    let sc = |seat, value, multiplier, delta, score| {
        [
            Event::DolmenScored {
                seat,
                circle: i,
                value,
                multiplier,
            },
            Event::ScoreChanged {
                seat,
                delta,
                score,
                reason: ScoreReason::Dolmen,
            },
        ]
    };
    let mut expected = vec![
        Event::DolmenPassed {
            seat: RED,
            circle: c('J'),
        },
        Event::CircleCompleted { circle: i },
    ];
    expected.extend(sc(BLUE, 1, 5, 5, 9));
    expected.extend(sc(YELLOW, 3, 4, 12, 16));
    expected.extend(sc(RED, 2, 3, 6, 10));
    expected.extend(sc(BLUE, 4, 2, 8, 17));
    expected.extend(sc(RED, 1, 1, 1, 11));
    assert_eq!(ev[..expected.len()], expected[..]);
    assert!(matches!(ev[expected.len()], Event::TurnStarted { .. }));
    assert!(stack(&game, i).is_empty());
    assert!(game.state().circles[i.index()].complete);
    assert_eq!(game.state().seats[RED.index()].scored, [1, 1, 0, 0]);
    assert_eq!(
        (score(&game, RED), score(&game, YELLOW), score(&game, BLUE)),
        (11, 16, 17)
    );
}

// ---------------------------------------------------------------------------
// Walking, collecting herbs, flying

#[test]
fn walk_one_step_then_stone_decision() {
    let mut game = bare(2, RED);
    druid(game.state_mut(), s(1, 0), RED, false);
    let ev = play(&mut game, RED, walk(s(1, 0), Dir::East));
    assert_eq!(
        ev,
        [Event::Walked {
            seat: RED,
            from: s(1, 0),
            to: s(2, 0),
            dir: Dir::East,
            jumped: 0
        }]
    );
    assert_eq!(
        game.decision(),
        Some(Decision::Stone {
            site: s(1, 0),
            may_decline: true
        })
    );
    assert_eq!(legal(&game), [Action::PlaceStone, Action::DeclineStone]);
    let ev = play(&mut game, RED, Action::PlaceStone);
    assert_eq!(
        ev[0],
        Event::StonePlaced {
            seat: RED,
            site: s(1, 0),
            stones_left: 15
        }
    );
    assert_eq!(
        ev[1..],
        [Event::TurnStarted {
            seat: YELLOW,
            turn: 2
        }]
    );
    assert_eq!(
        game.view(Viewer::Spectator).at(s(1, 0)),
        Some(Occupant::Stone(RED))
    );
}

#[test]
fn walk_jumps_a_chain_of_druids_of_any_colour_and_state() {
    let mut game = bare(2, RED);
    let st = game.state_mut();
    druid(st, s(1, 0), RED, false);
    druid(st, s(2, 0), YELLOW, false);
    druid(st, s(3, 0), RED, true);
    let ev = play(&mut game, RED, walk(s(1, 0), Dir::East));
    assert_eq!(
        ev,
        [Event::Walked {
            seat: RED,
            from: s(1, 0),
            to: s(4, 0),
            dir: Dir::East,
            jumped: 2
        }]
    );
    assert_eq!(
        game.state().sites[s(4, 0).index()],
        Some(Occupant::Druid {
            seat: RED,
            lying: false
        })
    );
    assert_eq!(game.state().sites[s(1, 0).index()], None);
}

#[test]
fn a_stone_blocks_a_step_and_a_jump() {
    let mut game = bare(2, RED);
    let st = game.state_mut();
    druid(st, s(1, 0), RED, false);
    druid(st, s(2, 0), YELLOW, false);
    put_stone(st, s(3, 0), YELLOW);
    put_stone(st, s(0, 0), YELLOW);
    assert_eq!(
        reject(&mut game, RED, walk(s(1, 0), Dir::East)),
        RuleError::Blocked {
            from: s(1, 0),
            dir: Dir::East,
            stone: s(3, 0)
        }
    );
    assert_eq!(
        reject(&mut game, RED, walk(s(1, 0), Dir::West)),
        RuleError::Blocked {
            from: s(1, 0),
            dir: Dir::West,
            stone: s(0, 0)
        }
    );
    let walks: Vec<Action> = legal(&game)
        .into_iter()
        .filter(|a| matches!(a, Action::Walk { from, .. } if *from == s(1, 0)))
        .collect();
    // South is (1, 1). North wraps to (1, 8), where red's parked druid would
    // be jumped, but from there north runs into octagon W: no path.
    assert_eq!(walks, [walk(s(1, 0), Dir::South)]);
    assert_eq!(
        reject(&mut game, RED, walk(s(1, 0), Dir::North)),
        RuleError::NoPath {
            from: s(1, 0),
            dir: Dir::North,
            at: s(1, 8)
        }
    );
}

#[test]
fn a_missing_path_blocks_a_step_and_a_jump() {
    let mut game = bare(2, RED);
    let st = game.state_mut();
    druid(st, s(0, 1), RED, false);
    druid(st, s(6, 1), RED, false);
    druid(st, s(7, 1), YELLOW, false);
    // Inside hexagon A.
    assert_eq!(
        reject(&mut game, RED, walk(s(0, 1), Dir::East)),
        RuleError::NoPath {
            from: s(0, 1),
            dir: Dir::East,
            at: s(0, 1)
        }
    );
    // Jumping (7,1) would cross hexagon E.
    assert_eq!(
        reject(&mut game, RED, walk(s(6, 1), Dir::East)),
        RuleError::NoPath {
            from: s(6, 1),
            dir: Dir::East,
            at: s(7, 1)
        }
    );
    // Not from a non-corner diagonally.
    assert!(matches!(
        reject(&mut game, RED, walk(s(6, 1), Dir::Diagonal)),
        RuleError::NoPath { .. }
    ));
}

#[test]
fn walking_wraps_around_the_edges() {
    let mut game = bare(2, RED);
    druid(game.state_mut(), s(8, 4), RED, false);
    let ev = play(&mut game, RED, walk(s(8, 4), Dir::East));
    assert!(matches!(ev[0], Event::Walked { to, jumped: 0, .. } if to == s(0, 4)));

    let mut game = bare(2, RED);
    druid(game.state_mut(), s(3, 0), RED, false);
    let ev = play(&mut game, RED, walk(s(3, 0), Dir::North));
    assert!(matches!(ev[0], Event::Walked { to, .. } if to == s(3, 8)));

    // A jump continues across the wrap.
    let mut game = bare(2, RED);
    let st = game.state_mut();
    druid(st, s(7, 0), RED, false);
    druid(st, s(8, 0), YELLOW, false);
    let ev = play(&mut game, RED, walk(s(7, 0), Dir::East));
    assert!(matches!(ev[0], Event::Walked { to, jumped: 1, .. } if to == s(0, 0)));
}

#[test]
fn corner_diagonal_moves_but_never_jumps() {
    let mut game = bare(2, RED);
    druid(game.state_mut(), s(0, 0), RED, false);
    let ev = play(&mut game, RED, walk(s(0, 0), Dir::Diagonal));
    assert!(
        matches!(ev[0], Event::Walked { to, jumped: 0, dir: Dir::Diagonal, .. } if to == s(8, 8))
    );

    let mut game = bare(2, RED);
    let st = game.state_mut();
    druid(st, s(8, 0), RED, false);
    druid(st, s(0, 8), YELLOW, false);
    assert_eq!(
        reject(&mut game, RED, walk(s(8, 0), Dir::Diagonal)),
        RuleError::DiagonalJump(s(8, 0))
    );
    game.state_mut().sites[s(0, 8).index()] = None;
    game.state_mut().seats[YELLOW.index()].druids_to_place += 1;
    put_stone(game.state_mut(), s(0, 8), YELLOW);
    assert!(matches!(
        reject(&mut game, RED, walk(s(8, 0), Dir::Diagonal)),
        RuleError::Blocked { .. }
    ));
}

#[test]
fn a_chain_of_druids_leading_back_round_is_illegal() {
    // Row 0 is a closed loop of 9 sites (edge, wrap). Druids on all of them.
    let mut game = bare(5, RED);
    let st = game.state_mut();
    for x in 0..9u8 {
        let seat = Seat(x % 5);
        st.sites[s(x, 0).index()] = Some(Occupant::Druid { seat, lying: false });
    }
    assert_eq!(
        reject(&mut game, RED, walk(s(0, 0), Dir::East)),
        RuleError::JumpLoop {
            from: s(0, 0),
            dir: Dir::East
        }
    );
    assert_eq!(
        reject(&mut game, RED, walk(s(0, 0), Dir::West)),
        RuleError::JumpLoop {
            from: s(0, 0),
            dir: Dir::West
        }
    );
}

#[test]
fn collect_herbs_lays_the_druid_down_and_ends_the_turn() {
    let mut game = bare(2, RED);
    druid(game.state_mut(), s(4, 4), RED, false);
    let ev = play(&mut game, RED, Action::CollectHerbs { site: s(4, 4) });
    assert_eq!(
        ev,
        [
            Event::HerbsCollected {
                seat: RED,
                site: s(4, 4)
            },
            Event::TurnStarted {
                seat: YELLOW,
                turn: 2
            }
        ]
    );
    assert_eq!(
        game.state().sites[s(4, 4).index()],
        Some(Occupant::Druid {
            seat: RED,
            lying: true
        })
    );
    assert_eq!(score(&game, RED), 4);
    assert_eq!(game.state().seats[RED.index()].stones_left, 16);
}

#[test]
fn a_lying_druid_can_only_fly_and_stands_up() {
    let mut game = bare(2, RED);
    let st = game.state_mut();
    unpark(st, RED);
    druid(st, s(4, 4), RED, true);
    druid(st, s(5, 5), YELLOW, false);
    let acts = legal(&game);
    assert!(
        acts.iter()
            .all(|a| matches!(a, Action::Fly { from, .. } if *from == s(4, 4)))
    );
    // Every free site: 73 minus the two druids and the yellow parked one.
    assert_eq!(acts.len(), SITES - 3);
    assert_eq!(
        reject(&mut game, RED, walk(s(4, 4), Dir::North)),
        RuleError::DruidLying(s(4, 4))
    );
    assert_eq!(
        reject(&mut game, RED, Action::CollectHerbs { site: s(4, 4) }),
        RuleError::DruidLying(s(4, 4))
    );
    assert_eq!(
        reject(
            &mut game,
            RED,
            Action::Fly {
                from: s(4, 4),
                to: s(5, 5)
            }
        ),
        RuleError::SiteOccupied(s(5, 5))
    );
    assert_eq!(
        reject(
            &mut game,
            RED,
            Action::Fly {
                from: s(5, 5),
                to: s(0, 0)
            }
        ),
        RuleError::NotYourDruid(s(5, 5))
    );
    let ev = play(
        &mut game,
        RED,
        Action::Fly {
            from: s(4, 4),
            to: s(8, 0),
        },
    );
    assert_eq!(
        ev,
        [Event::Flew {
            seat: RED,
            from: s(4, 4),
            to: s(8, 0)
        }]
    );
    assert_eq!(
        game.state().sites[s(8, 0).index()],
        Some(Occupant::Druid {
            seat: RED,
            lying: false
        })
    );
    assert_eq!(
        game.decision(),
        Some(Decision::Stone {
            site: s(4, 4),
            may_decline: true
        })
    );
}

#[test]
fn a_standing_druid_cannot_fly() {
    let mut game = bare(2, RED);
    assert_eq!(
        reject(
            &mut game,
            RED,
            Action::Fly {
                from: park(RED),
                to: s(0, 0)
            }
        ),
        RuleError::DruidStanding(park(RED))
    );
}

// ---------------------------------------------------------------------------
// Stones

#[test]
fn declining_a_stone_costs_a_point() {
    let mut game = bare(2, RED);
    druid(game.state_mut(), s(4, 4), RED, false);
    play(&mut game, RED, walk(s(4, 4), Dir::East));
    let ev = play(&mut game, RED, Action::DeclineStone);
    assert_eq!(
        ev,
        [
            Event::StoneDeclined {
                seat: RED,
                site: s(4, 4)
            },
            Event::ScoreChanged {
                seat: RED,
                delta: -1,
                score: 3,
                reason: ScoreReason::DeclinedStone
            },
            Event::TurnStarted {
                seat: YELLOW,
                turn: 2
            }
        ]
    );
    assert_eq!(game.state().sites[s(4, 4).index()], None);
    assert_eq!(game.state().seats[RED.index()].stones_left, 16);
}

#[test]
fn at_one_point_the_stone_cannot_be_declined() {
    let mut game = bare(2, RED);
    druid(game.state_mut(), s(4, 4), RED, false);
    game.state_mut().seats[RED.index()].score = 1;
    play(&mut game, RED, walk(s(4, 4), Dir::East));
    assert_eq!(
        game.decision(),
        Some(Decision::Stone {
            site: s(4, 4),
            may_decline: false
        })
    );
    assert_eq!(legal(&game), [Action::PlaceStone]);
    let err = reject(&mut game, RED, Action::DeclineStone);
    assert_eq!(err, RuleError::MayNotDecline { score: 1 });
    assert!(err.to_string().contains("may not decline"));
    // At two points it can, down to one.
    game.state_mut().seats[RED.index()].score = 2;
    let ev = play(&mut game, RED, Action::DeclineStone);
    assert!(matches!(
        ev[1],
        Event::ScoreChanged {
            score: 1,
            delta: -1,
            ..
        }
    ));
}

#[test]
fn without_stones_there_is_no_stone_decision_and_no_penalty() {
    let mut game = bare(2, RED);
    druid(game.state_mut(), s(4, 4), RED, false);
    game.state_mut().seats[RED.index()].stones_left = 0;
    let ev = play_raw(&mut game, RED, walk(s(4, 4), Dir::East));
    assert_eq!(ev.len(), 2);
    assert_eq!(
        ev[1],
        Event::TurnStarted {
            seat: YELLOW,
            turn: 2
        }
    );
    assert_eq!(score(&game, RED), 4);
    assert_eq!(game.state().sites[s(4, 4).index()], None);
    assert_eq!(game.decision(), Some(Decision::Turn));
}

// ---------------------------------------------------------------------------
// Majorities and dolmens

#[test]
fn a_second_colour_hands_the_majority_to_the_first_out_of_turn() {
    // Square F: (5,1) (6,1) (5,2) (6,2). Red has two stones; blue joins.
    let f = c('F');
    let mut game = bare(3, BLUE);
    let st = game.state_mut();
    put_stone(st, s(5, 1), RED);
    put_stone(st, s(6, 1), RED);
    let ev = stone(&mut game, BLUE, s(5, 2));
    assert_eq!(
        ev[1..],
        [Event::LeaderChanged {
            circle: f,
            leader: RED
        }]
    );
    assert_eq!(game.decision(), dolmen_decision(f, true));
    assert_eq!(game.to_act(), Some(RED));
    assert_eq!(game.active(), BLUE);
    assert_eq!(
        legal(&game),
        [
            Action::PlaceDolmen { value: Some(1) },
            Action::PlaceDolmen { value: Some(2) },
            Action::PlaceDolmen { value: Some(3) },
            Action::PlaceDolmen { value: Some(4) },
            Action::PassDolmen
        ]
    );
    assert_eq!(
        reject(&mut game, BLUE, Action::PassDolmen),
        RuleError::Turn(TurnError::NotYourTurn { expected: RED })
    );
    assert_eq!(
        reject(&mut game, RED, Action::PlaceDolmen { value: Some(5) }),
        RuleError::NoSuchValue(5)
    );
    assert_eq!(
        reject(&mut game, RED, Action::PlaceStone),
        RuleError::Turn(TurnError::WrongDecision {
            expected: Decision::Dolmen {
                circle: f,
                on_top: true
            }
        })
    );
    let ev = play(&mut game, RED, Action::PlaceDolmen { value: Some(4) });
    assert_eq!(
        ev,
        [
            Event::DolmenPlaced {
                seat: RED,
                circle: f,
                on_top: true,
                value: Some(4),
                dolmens_left: 9
            },
            // Blue's turn is over: red is next.
            Event::TurnStarted { seat: RED, turn: 2 }
        ]
    );
    assert_eq!(stack(&game, f), [(RED, 4)]);
    // Red has no dolmen of value 4 any more.
    game.state_mut().phase = Phase::Dolmen;
    game.state_mut().queue.push(super::state::Pending {
        circle: f,
        seat: RED,
        on_top: true,
    });
    assert_eq!(
        reject(&mut game, RED, Action::PlaceDolmen { value: Some(4) }),
        RuleError::NoDolmenOfValue(4)
    );
}

#[test]
fn a_tie_keeps_the_leader_and_the_equaliser_goes_under() {
    // Hexagon G: (6,1) (7,1) (6,2) (7,2) (6,3) (7,3). Red leads 2:1.
    let g = c('G');
    let mut game = bare(3, RED);
    let st = game.state_mut();
    put_stone(st, s(6, 1), RED);
    put_stone(st, s(7, 1), RED);
    put_stone(st, s(6, 2), YELLOW);
    st.circles[g.index()].leader = Some(RED);
    put_dolmen(st, g, RED, 2);
    // Yellow equalises: dolmen under, red keeps the lead.
    let ev = stone(&mut game, YELLOW, s(7, 2));
    assert!(!ev.iter().any(|e| matches!(e, Event::LeaderChanged { .. })));
    assert_eq!(game.decision(), dolmen_decision(g, false));
    assert_eq!(game.to_act(), Some(YELLOW));
    play(&mut game, YELLOW, Action::PlaceDolmen { value: Some(1) });
    assert_eq!(stack(&game, g), [(RED, 2), (YELLOW, 1)]);
    assert_eq!(game.state().circles[g.index()].leader, Some(RED));
    // Red breaks the tie: it already leads, so nothing.
    let mut alt = game.clone();
    let ev = stone(&mut alt, RED, s(6, 3));
    assert!(!ev.iter().any(|e| matches!(e, Event::LeaderChanged { .. })));
    assert_eq!(alt.decision(), Some(Decision::Turn));
    // Yellow breaks it instead: yellow gains the majority, on top.
    let ev = stone(&mut game, YELLOW, s(6, 3));
    assert!(ev.contains(&Event::LeaderChanged {
        circle: g,
        leader: YELLOW
    }));
    assert_eq!(game.decision(), dolmen_decision(g, true));
}

#[test]
fn two_single_stones_are_no_majority_and_no_equalising() {
    let g = c('G');
    let mut game = bare(2, RED);
    stone(&mut game, RED, s(6, 1));
    let ev = stone(&mut game, YELLOW, s(7, 1));
    assert!(!ev.iter().any(|e| matches!(e, Event::LeaderChanged { .. })));
    assert_eq!(game.decision(), Some(Decision::Turn));
    assert_eq!(game.state().circles[g.index()].leader, None);
}

#[test]
fn increasing_a_lead_gives_nothing() {
    let g = c('G');
    let mut game = bare(2, RED);
    let st = game.state_mut();
    put_stone(st, s(6, 1), RED);
    put_stone(st, s(7, 1), RED);
    put_stone(st, s(6, 2), YELLOW);
    st.circles[g.index()].leader = Some(RED);
    let ev = stone(&mut game, RED, s(7, 2));
    assert_eq!(
        ev,
        [
            Event::StonePlaced {
                seat: RED,
                site: s(7, 2),
                stones_left: 13
            },
            Event::TurnStarted {
                seat: YELLOW,
                turn: 2
            }
        ]
    );
}

#[test]
fn a_full_stack_takes_no_dolmen() {
    // Square F holds at most 3 dolmens.
    let f = c('F');
    let mut game = bare(2, RED);
    let st = game.state_mut();
    put_stone(st, s(5, 1), RED);
    put_stone(st, s(6, 1), YELLOW);
    st.circles[f.index()].leader = Some(RED);
    for v in [1, 2, 1] {
        put_dolmen(st, f, RED, v);
    }
    // Yellow gains the majority: leader changes, but no decision.
    let ev = stone(&mut game, YELLOW, s(5, 2));
    assert_eq!(
        ev[1..],
        [
            Event::LeaderChanged {
                circle: f,
                leader: YELLOW
            },
            Event::TurnStarted { seat: RED, turn: 2 }
        ]
    );
    assert_eq!(stack(&game, f).len(), 3);
}

#[test]
fn a_player_without_dolmens_is_skipped() {
    let f = c('F');
    let mut game = bare(2, RED);
    let st = game.state_mut();
    put_stone(st, s(5, 1), YELLOW);
    put_stone(st, s(6, 1), YELLOW);
    leave_in_hand(st, YELLOW, [0; 4]);
    st.end_triggered_by = Some(YELLOW);
    st.last_turns_left = 1;
    let ev = stone(&mut game, RED, s(5, 2));
    assert_eq!(
        ev[1],
        Event::LeaderChanged {
            circle: f,
            leader: YELLOW
        }
    );
    assert!(!ev.iter().any(|e| matches!(e, Event::DolmenPassed { .. })));
    assert_eq!(game.decision(), Some(Decision::Turn));
    assert!(stack(&game, f).is_empty());
}

#[test]
fn one_stone_completing_two_circles_scores_both_in_letter_order() {
    // F (5,1) (6,1) (5,2) (6,2) and G (6,1) (7,1) (6,2) (7,2) (6,3) (7,3)
    // share (6,1) and (6,2); everything but (6,2) is red.
    let (f, g) = (c('F'), c('G'));
    let mut game = bare(2, RED);
    let st = game.state_mut();
    for site in [
        s(5, 1),
        s(6, 1),
        s(5, 2),
        s(7, 1),
        s(7, 2),
        s(6, 3),
        s(7, 3),
    ] {
        put_stone(st, site, RED);
    }
    put_dolmen(st, f, YELLOW, 2);
    put_dolmen(st, f, RED, 1);
    put_dolmen(st, g, RED, 4);
    let ev = stone(&mut game, RED, s(6, 2));
    let expected = [
        Event::StonePlaced {
            seat: RED,
            site: s(6, 2),
            stones_left: 8,
        },
        Event::CircleCompleted { circle: f },
        Event::DolmenScored {
            seat: YELLOW,
            circle: f,
            value: 2,
            multiplier: 3,
        },
        Event::ScoreChanged {
            seat: YELLOW,
            delta: 6,
            score: 10,
            reason: ScoreReason::Dolmen,
        },
        Event::DolmenScored {
            seat: RED,
            circle: f,
            value: 1,
            multiplier: 2,
        },
        Event::ScoreChanged {
            seat: RED,
            delta: 2,
            score: 6,
            reason: ScoreReason::Dolmen,
        },
        Event::CircleCompleted { circle: g },
        Event::DolmenScored {
            seat: RED,
            circle: g,
            value: 4,
            multiplier: 4,
        },
        Event::ScoreChanged {
            seat: RED,
            delta: 16,
            score: 22,
            reason: ScoreReason::Dolmen,
        },
        Event::TurnStarted {
            seat: YELLOW,
            turn: 2,
        },
    ];
    assert_eq!(ev, expected);
    let v = game.view(Viewer::Spectator);
    assert!(v.circles[f.index()].complete && v.circles[g.index()].complete);
    assert!(!v.circles[c('J').index()].complete);
    assert_eq!(v.seats[RED.index()].scored, [1, 0, 0, 1]);
    assert_eq!(v.seats[YELLOW.index()].scored, [0, 1, 0, 0]);
}

// ---------------------------------------------------------------------------
// The end

/// The seats whose turns started in `events`.
fn turns(events: &[Event]) -> Vec<u8> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::TurnStarted { seat, .. } => Some(seat.0),
            _ => None,
        })
        .collect()
}

/// Plays the current turn by collecting herbs with the parked druid.
fn herbs(game: &mut Dolmen) -> Vec<Event> {
    let seat = game.to_act().unwrap();
    play(game, seat, Action::CollectHerbs { site: park(seat) })
}

#[test]
fn last_dolmen_on_own_turn_gives_every_other_player_one_more_turn() {
    let f = c('F');
    let mut game = bare(3, RED);
    let st = game.state_mut();
    leave_in_hand(st, RED, [1, 0, 0, 0]);
    put_stone(st, s(5, 1), RED);
    put_stone(st, s(6, 1), YELLOW);
    let ev = stone(&mut game, RED, s(5, 2));
    assert!(turns(&ev).is_empty());
    let ev = play(&mut game, RED, Action::PlaceDolmen { value: Some(1) });
    assert_eq!(ev[1], Event::LastTurnsBegin { seat: RED });
    assert_eq!(stack(&game, f), [(RED, 1)]);
    assert_eq!(turns(&ev), [1]);
    let v = game.view(Viewer::Spectator);
    assert_eq!((v.end_triggered_by, v.last_turns_left), (Some(RED), 1));
    let ev = herbs(&mut game);
    assert_eq!(turns(&ev), [2]);
    let ev = herbs(&mut game);
    assert!(turns(&ev).is_empty());
    assert_eq!(
        ev[1],
        Event::GameEnded {
            reason: EndReason::LastDolmen
        }
    );
    // Final scoring of the incomplete F: red's 1 on top × 3.
    assert_eq!(
        ev[2..4],
        [
            Event::DolmenScored {
                seat: RED,
                circle: f,
                value: 1,
                multiplier: 3
            },
            Event::ScoreChanged {
                seat: RED,
                delta: 3,
                score: 7,
                reason: ScoreReason::Dolmen
            }
        ]
    );
    assert_eq!(
        ev[4],
        Event::GameOver {
            scores: vec![7, 4, 4],
            winners: vec![RED]
        }
    );
    assert_eq!(game.to_act(), None);
    assert!(game.pieces_conserved());
    let o = game.outcome().unwrap();
    assert!(!o.by_safeguard);
    assert_eq!(o.ranking, [RED, YELLOW, BLUE]);
    assert_eq!(
        reject(&mut game, RED, Action::PassDolmen),
        RuleError::Turn(TurnError::GameOver)
    );
    assert_eq!(game.timeout_action(), None);
    assert!(legal(&game).is_empty());
}

/// Engine decision: a dolmen placed out of turn (here yellow's, during red's
/// turn) ends red's turn first; then every seat but yellow takes one more turn
/// in seat order from the seat after red: blue, then red again.
#[test]
fn last_dolmen_out_of_turn_the_active_seat_finishes_then_the_others_play_once() {
    let f = c('F');
    let mut game = bare(3, RED);
    let st = game.state_mut();
    leave_in_hand(st, YELLOW, [0, 0, 1, 0]);
    put_stone(st, s(5, 1), YELLOW);
    put_stone(st, s(6, 1), YELLOW);
    stone(&mut game, RED, s(5, 2));
    assert_eq!(game.to_act(), Some(YELLOW));
    let ev = play(&mut game, YELLOW, Action::PlaceDolmen { value: Some(3) });
    assert_eq!(ev[1], Event::LastTurnsBegin { seat: YELLOW });
    assert_eq!(turns(&ev), [2], "yellow is skipped");
    assert_eq!(game.view(Viewer::Spectator).last_turns_left, 1);
    let ev = herbs(&mut game);
    assert_eq!(turns(&ev), [0], "red plays once more");
    assert_eq!(game.view(Viewer::Spectator).last_turns_left, 0);
    let ev = herbs(&mut game);
    assert!(turns(&ev).is_empty());
    assert_eq!(
        ev[1],
        Event::GameEnded {
            reason: EndReason::LastDolmen
        }
    );
    assert_eq!(score(&game, YELLOW), 4 + 3 * 3);
    assert_eq!(stack(&game, f), []);
}

#[test]
fn a_later_last_dolmen_does_not_restart_the_last_turns() {
    let mut game = bare(2, RED);
    let st = game.state_mut();
    leave_in_hand(st, RED, [1, 0, 0, 0]);
    leave_in_hand(st, YELLOW, [1, 0, 0, 0]);
    put_stone(st, s(5, 1), RED);
    put_stone(st, s(6, 1), YELLOW);
    stone(&mut game, RED, s(5, 2));
    let ev = play(&mut game, RED, Action::PlaceDolmen { value: Some(1) });
    assert_eq!(ev[1], Event::LastTurnsBegin { seat: RED });
    // Yellow's last turn: it equalises in F (completing it) and places its
    // last dolmen too: the last turns are not restarted.
    druid(game.state_mut(), s(6, 2), YELLOW, false);
    play(&mut game, YELLOW, walk(s(6, 2), Dir::South));
    play(&mut game, YELLOW, Action::PlaceStone);
    assert_eq!(game.decision(), dolmen_decision(c('F'), false));
    let ev = play(&mut game, YELLOW, Action::PlaceDolmen { value: Some(1) });
    assert!(!ev.contains(&Event::LastTurnsBegin { seat: YELLOW }));
    assert!(ev.contains(&Event::CircleCompleted { circle: c('F') }));
    assert!(ev.contains(&Event::GameEnded {
        reason: EndReason::LastDolmen
    }));
    assert_eq!(game.to_act(), None, "yellow's one more turn is over");
    let v = game.view(Viewer::Spectator);
    assert_eq!(v.end_triggered_by, Some(RED));
}

#[test]
fn the_last_stone_of_all_ends_the_game_at_once_after_its_dolmen_decisions() {
    // Yellow has no stones; red leaves its last one, handing F to yellow.
    let f = c('F');
    let mut game = bare(2, RED);
    let st = game.state_mut();
    put_stone(st, s(5, 1), YELLOW);
    put_stone(st, s(6, 1), YELLOW);
    st.seats[YELLOW.index()].stones_left = 0;
    st.seats[RED.index()].stones_left = 1;
    druid(st, s(5, 2), RED, false);
    play_raw(&mut game, RED, walk(s(5, 2), Dir::West));
    let ev = play_raw(&mut game, RED, Action::PlaceStone);
    assert_eq!(
        ev[1],
        Event::LeaderChanged {
            circle: f,
            leader: YELLOW
        }
    );
    assert_eq!(game.to_act(), Some(YELLOW), "the decision still happens");
    let ev = play_raw(&mut game, YELLOW, Action::PlaceDolmen { value: Some(2) });
    assert_eq!(
        ev[1],
        Event::GameEnded {
            reason: EndReason::LastStone
        }
    );
    assert!(turns(&ev).is_empty());
    assert_eq!(
        ev[2],
        Event::DolmenScored {
            seat: YELLOW,
            circle: f,
            value: 2,
            multiplier: 3
        }
    );
    assert_eq!(
        ev.last(),
        Some(&Event::GameOver {
            scores: vec![4, 10],
            winners: vec![YELLOW]
        })
    );
}

#[test]
fn final_scoring_covers_incomplete_circles_in_letter_order_top_down() {
    let mut game = bare(2, RED);
    let st = game.state_mut();
    st.max_turns = 1;
    put_dolmen(st, c('V'), RED, 1);
    put_dolmen(st, c('V'), YELLOW, 3);
    put_dolmen(st, c('A'), YELLOW, 2);
    let ev = herbs(&mut game);
    let scored: Vec<(u8, char, u8, u8)> = ev
        .iter()
        .filter_map(|e| match *e {
            Event::DolmenScored {
                seat,
                circle,
                value,
                multiplier,
            } => Some((seat.0, circle.letter(), value, multiplier)),
            _ => None,
        })
        .collect();
    assert_eq!(scored, [(1, 'A', 2, 4), (0, 'V', 1, 5), (1, 'V', 3, 4)]);
    assert_eq!(
        ev[1],
        Event::GameEnded {
            reason: EndReason::Safeguard
        }
    );
    assert_eq!((score(&game, RED), score(&game, YELLOW)), (9, 24));
    let o = game.outcome().unwrap();
    assert!(o.by_safeguard);
    assert_eq!(o.winners, [YELLOW]);
    assert!(game.pieces_conserved());
}

/// \[ruling\] The safeguard applies only while no end has been triggered:
/// owed last turns are always played. Here the game is at `max_turns` when
/// yellow places its last dolmen; blue and red still play once each.
#[test]
fn the_safeguard_never_cuts_the_owed_last_turns_short() {
    let mut game = bare(3, RED);
    let st = game.state_mut();
    st.max_turns = st.turn + 1;
    leave_in_hand(st, YELLOW, [0, 0, 1, 0]);
    put_stone(st, s(5, 1), YELLOW);
    put_stone(st, s(6, 1), YELLOW);
    stone(&mut game, RED, s(5, 2));
    let ev = play(&mut game, YELLOW, Action::PlaceDolmen { value: Some(3) });
    assert_eq!(turns(&ev), [2]);
    assert_eq!(game.turn(), game.state().max_turns);
    let ev = herbs(&mut game);
    assert_eq!(turns(&ev), [0], "red's owed turn is played past max_turns");
    let ev = herbs(&mut game);
    assert_eq!(
        ev[1],
        Event::GameEnded {
            reason: EndReason::LastDolmen
        }
    );
    assert!(!game.outcome().unwrap().by_safeguard);
}

/// The view's `last_turns_left` counts turns still to be played: none once the
/// game is over, even when the last stone ends it during the last turns.
#[test]
fn no_last_turns_are_left_once_the_game_is_over() {
    let mut game = bare(3, YELLOW);
    let st = game.state_mut();
    leave_in_hand(st, RED, [0; 4]);
    st.end_triggered_by = Some(RED);
    st.last_turns_left = 1;
    st.seats[RED.index()].stones_left = 0;
    st.seats[BLUE.index()].stones_left = 0;
    st.seats[YELLOW.index()].stones_left = 1;
    druid(st, s(5, 2), YELLOW, false);
    play_raw(&mut game, YELLOW, walk(s(5, 2), Dir::West));
    play_raw(&mut game, YELLOW, Action::PlaceStone);
    while let Some(seat) = game.to_act() {
        play_raw(&mut game, seat, Action::PassDolmen);
    }
    assert!(game.outcome().is_some());
    for viewer in [Viewer::Spectator, Viewer::Seat(RED), Viewer::Seat(YELLOW)] {
        assert_eq!(game.view(viewer).last_turns_left, 0);
    }
}

#[test]
fn safeguard_ends_when_another_turn_would_exceed_max_turns() {
    let options = Options {
        max_turns: 3,
        ..Options::default()
    };
    let mut game = Dolmen::new(2, 0, &options, &mut Vec::new()).unwrap();
    for i in 0..6 {
        let seat = game.to_act().unwrap();
        play(&mut game, seat, Action::PlaceDruid { site: Site(i * 3) });
    }
    assert_eq!(game.turn(), 1);
    herbs_any(&mut game);
    assert_eq!(game.turn(), 2);
    herbs_any(&mut game);
    assert_eq!(game.turn(), 3);
    let ev = herbs_any(&mut game);
    assert_eq!(
        ev[1],
        Event::GameEnded {
            reason: EndReason::Safeguard
        }
    );
    assert_eq!(game.turn(), 3);
    assert!(game.outcome().unwrap().by_safeguard);
}

/// Collects herbs with the seat's first standing druid.
fn herbs_any(game: &mut Dolmen) -> Vec<Event> {
    let seat = game.to_act().unwrap();
    let a = legal(game)
        .into_iter()
        .find(|a| matches!(a, Action::CollectHerbs { .. }))
        .unwrap();
    play(game, seat, a)
}

#[test]
fn ties_are_broken_by_dolmens_placed_then_shared() {
    let mut game = bare(3, RED);
    let st = game.state_mut();
    st.max_turns = 1;
    for seat in [RED, YELLOW, BLUE] {
        st.seats[seat.index()].score = 20;
    }
    st.seats[BLUE.index()].score = 25;
    leave_in_hand(st, RED, [4, 3, 2, 0]); // 1 placed
    leave_in_hand(st, YELLOW, [4, 3, 1, 0]); // 2 placed
    leave_in_hand(st, BLUE, [0, 0, 0, 0]); // 10 placed, but more points
    let mut alt = game.clone();
    let ev = herbs(&mut game);
    assert_eq!(
        ev.last(),
        Some(&Event::GameOver {
            scores: vec![20, 20, 25],
            winners: vec![BLUE]
        })
    );
    assert_eq!(game.outcome().unwrap().ranking, [BLUE, YELLOW, RED]);

    // Blue at 20 too: yellow placed more than red, blue most of all.
    alt.state_mut().seats[BLUE.index()].score = 20;
    let mut alt2 = alt.clone();
    herbs(&mut alt);
    assert_eq!(alt.outcome().unwrap().winners, [BLUE]);
    // Equal points and equal dolmens placed: shared win, seat order.
    let st = alt2.state_mut();
    leave_in_hand(st, RED, [4, 3, 1, 0]);
    st.seats[BLUE.index()].score = 19;
    herbs(&mut alt2);
    let o = alt2.outcome().unwrap();
    assert_eq!(o.winners, [RED, YELLOW]);
    assert_eq!(o.ranking, [RED, YELLOW, BLUE]);
    assert_eq!(o.scores, [20, 20, 19]);
}

#[test]
fn a_seat_without_any_action_passes_its_turn() {
    // \[ruling\]: yellow has no druid on the board: its turn passes.
    let mut game = bare(3, RED);
    unpark(game.state_mut(), YELLOW);
    let ev = herbs(&mut game);
    assert_eq!(
        ev[1..],
        [
            Event::TurnStarted {
                seat: YELLOW,
                turn: 2
            },
            Event::TurnPassed { seat: YELLOW },
            Event::TurnStarted {
                seat: BLUE,
                turn: 3
            }
        ]
    );
    // Lying druids and no free site: no action either. Nobody can act: the
    // game ends rather than loop.
    let mut game = bare(2, RED);
    let st = game.state_mut();
    for site in board::sites() {
        match st.sites[site.index()] {
            None => st.sites[site.index()] = Some(Occupant::Stone(RED)),
            Some(Occupant::Druid { seat, .. }) if seat == YELLOW => {
                st.sites[site.index()] = Some(Occupant::Druid { seat, lying: true })
            }
            _ => {}
        }
    }
    let ev = play_raw(&mut game, RED, Action::CollectHerbs { site: park(RED) });
    assert_eq!(
        ev[1..5],
        [
            Event::TurnStarted {
                seat: YELLOW,
                turn: 2
            },
            Event::TurnPassed { seat: YELLOW },
            Event::TurnStarted { seat: RED, turn: 3 },
            Event::TurnPassed { seat: RED },
        ]
    );
    assert_eq!(
        ev[5],
        Event::GameEnded {
            reason: EndReason::Safeguard
        }
    );
    assert_eq!(game.to_act(), None);
}

// ---------------------------------------------------------------------------
// Timeouts, errors

#[test]
fn timeout_defaults() {
    // Placing a druid: the lowest free site.
    let mut game = Dolmen::new(2, 0, &Options::default(), &mut Vec::new()).unwrap();
    play(&mut game, Seat(0), Action::PlaceDruid { site: Site(0) });
    assert_eq!(
        game.timeout_action(),
        Some(Action::PlaceDruid { site: Site(1) })
    );
    // A turn: collect herbs with the lowest standing druid.
    let mut game = bare(2, RED);
    druid(game.state_mut(), s(4, 4), RED, false);
    assert_eq!(
        game.timeout_action(),
        Some(Action::CollectHerbs { site: s(4, 4) })
    );
    // Only lying druids: fly the lowest to the lowest free site.
    let st = game.state_mut();
    st.sites[s(4, 4).index()] = Some(Occupant::Druid {
        seat: RED,
        lying: true,
    });
    st.sites[park(RED).index()] = Some(Occupant::Druid {
        seat: RED,
        lying: true,
    });
    st.sites[0] = Some(Occupant::Stone(YELLOW));
    assert_eq!(
        game.timeout_action(),
        Some(Action::Fly {
            from: s(4, 4),
            to: Site(1)
        })
    );
    // A stone: leave it. A dolmen: pass.
    game.state_mut().phase = Phase::Stone { site: s(0, 1) };
    assert_eq!(game.timeout_action(), Some(Action::PlaceStone));
    game.state_mut().phase = Phase::Dolmen;
    game.state_mut().queue.push(super::state::Pending {
        circle: c('A'),
        seat: RED,
        on_top: true,
    });
    assert_eq!(game.timeout_action(), Some(Action::PassDolmen));
}

#[test]
fn errors_say_what_was_wrong_and_classify_themselves() {
    let mut game = bare(2, RED);
    druid(game.state_mut(), s(4, 4), RED, false);
    let e = reject(&mut game, YELLOW, Action::CollectHerbs { site: s(4, 4) });
    assert_eq!(e, RuleError::Turn(TurnError::NotYourTurn { expected: RED }));
    assert_eq!(e.rejection(), Rejection::NotYourTurn);
    let e = reject(&mut game, RED, Action::PlaceStone);
    assert_eq!(
        e,
        RuleError::Turn(TurnError::WrongDecision {
            expected: Decision::Turn
        })
    );
    assert_eq!(e.rejection(), Rejection::Illegal);
    let e = reject(&mut game, RED, walk(Site(200), Dir::North));
    assert_eq!(e, RuleError::NoSuchSite(200));
    assert!(e.to_string().contains("no site 200"));
    // A site or value that does not exist is malformed, as the codec says of it.
    assert_eq!(e.rejection(), Rejection::Malformed);
    assert_eq!(RuleError::NoSuchValue(5).rejection(), Rejection::Malformed);
    let e = reject(
        &mut game,
        RED,
        Action::Fly {
            from: s(4, 4),
            to: Site(73),
        },
    );
    assert_eq!(e, RuleError::DruidStanding(s(4, 4)));
    let e = reject(&mut game, RED, Action::CollectHerbs { site: park(YELLOW) });
    assert_eq!(e, RuleError::NotYourDruid(park(YELLOW)));
    assert!(e.to_string().contains("no druid"));
    assert_eq!(
        RuleError::Turn(TurnError::GameOver).rejection(),
        Rejection::GameOver
    );
}

// ---------------------------------------------------------------------------
// Hidden information: redaction, views, determinization

#[test]
fn redact_hides_dolmen_values_from_other_seats_and_spectators() {
    let placed = Event::DolmenPlaced {
        seat: YELLOW,
        circle: c('F'),
        on_top: true,
        value: Some(3),
        dolmens_left: 4,
    };
    let hidden = Event::DolmenPlaced {
        seat: YELLOW,
        circle: c('F'),
        on_top: true,
        value: None,
        dolmens_left: 4,
    };
    assert_eq!(
        Dolmen::redact(&placed, Viewer::Seat(YELLOW)),
        Some(placed.clone())
    );
    assert_eq!(
        Dolmen::redact(&placed, Viewer::Seat(RED)),
        Some(hidden.clone())
    );
    assert_eq!(Dolmen::redact(&placed, Viewer::Spectator), Some(hidden));
    // A scored dolmen's value is public.
    let scored = Event::DolmenScored {
        seat: YELLOW,
        circle: c('F'),
        value: 3,
        multiplier: 3,
    };
    assert_eq!(Dolmen::redact(&scored, Viewer::Seat(RED)), Some(scored));
}

#[test]
fn views_hide_other_hands_and_dolmen_values() {
    let f = c('F');
    let mut game = bare(3, RED);
    let st = game.state_mut();
    put_dolmen(st, f, RED, 4);
    put_dolmen(st, f, YELLOW, 2);
    put_stone(st, s(5, 1), BLUE);
    let red = game.view(Viewer::Seat(RED));
    assert_eq!(red.seats[RED.index()].hand, Some([4, 3, 2, 0]));
    assert_eq!(red.seats[YELLOW.index()].hand, None);
    assert_eq!(red.seats[YELLOW.index()].dolmens_left, 9);
    assert_eq!(red.seats[YELLOW.index()].dolmens_placed, 1);
    let stack_values = |v: &super::View| -> Vec<Option<u8>> {
        v.circles[f.index()].stack.iter().map(|d| d.value).collect()
    };
    assert_eq!(stack_values(&red), [Some(4), None]);
    let yellow = game.view(Viewer::Seat(YELLOW));
    assert_eq!(stack_values(&yellow), [None, Some(2)]);
    assert_eq!(yellow.seats[RED.index()].hand, None);
    let spectator = game.view(Viewer::Spectator);
    assert_eq!(stack_values(&spectator), [None, None]);
    assert!(spectator.seats.iter().all(|s| s.hand.is_none()));
    assert_eq!(spectator.circles[f.index()].stones, [0, 0, 1]);
    assert_eq!(spectator.to_act, Some(RED));
    assert_eq!(spectator.decision, Some(Decision::Turn));
    assert_eq!(spectator.at(s(5, 1)), Some(Occupant::Stone(BLUE)));
    // Apart from the secrets the views agree.
    let strip = |mut v: super::View| {
        v.viewer = Viewer::Spectator;
        for s in &mut v.seats {
            s.hand = None;
        }
        for c in &mut v.circles {
            for d in &mut c.stack {
                d.value = None;
            }
        }
        v
    };
    assert_eq!(strip(red), spectator);
}

#[test]
fn determinize_where_nothing_is_hidden_is_the_true_state() {
    let game = Dolmen::new(4, 0, &Options::default(), &mut Vec::new()).unwrap();
    for viewer in [Viewer::Seat(Seat(2)), Viewer::Spectator] {
        let d = Dolmen::determinize(&game.view(viewer), 9).unwrap();
        assert_eq!(d, game);
    }
}

#[test]
fn determinize_deals_hidden_values_consistently() {
    use rand_core::{RngCore, SeedableRng};
    let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(5);
    let mut checked_dolmen = 0;
    for seed in 0..30u64 {
        let players = 2 + (seed % 4) as usize;
        let mut game = Dolmen::new(players, seed, &Options::default(), &mut Vec::new()).unwrap();
        let mut step = 0u64;
        while let Some(seat) = game.to_act() {
            step += 1;
            if step.is_multiple_of(7) || matches!(game.decision(), Some(Decision::Dolmen { .. })) {
                let viewers = [Viewer::Seat(seat), Viewer::Spectator];
                for viewer in viewers {
                    let view = game.view(viewer);
                    let d = Dolmen::determinize(&view, seed * 1000 + step).unwrap();
                    assert!(d.pieces_conserved(), "seed {seed} step {step}");
                    // The determinized game shows the same view.
                    assert_eq!(d.view(viewer), view, "seed {seed} step {step}");
                    assert_eq!(d.to_act(), game.to_act());
                    assert_eq!(d.decision(), game.decision());
                    // The viewer's own secrets are exact; play goes on.
                    if let Viewer::Seat(me) = viewer {
                        assert_eq!(
                            d.state().seats[me.index()].hand,
                            game.state().seats[me.index()].hand
                        );
                        let mut a = legal(&game);
                        let mut b = legal(&d);
                        a.sort_by_key(|x| format!("{x:?}"));
                        b.sort_by_key(|x| format!("{x:?}"));
                        assert_eq!(a, b, "the viewer has the same choices");
                        if matches!(game.decision(), Some(Decision::Dolmen { .. })) {
                            checked_dolmen += 1;
                        }
                    }
                    let mut d = d;
                    let mut ev = Vec::new();
                    let mut l = legal(&d);
                    let a = l.swap_remove((rng.next_u32() as usize) % l.len());
                    d.apply(d.to_act().unwrap(), &a, &mut ev).unwrap();
                    assert!(d.pieces_conserved());
                }
            }
            let l = legal(&game);
            let a = l[(rng.next_u32() as usize) % l.len()];
            game.apply(seat, &a, &mut Vec::new()).unwrap();
        }
    }
    assert!(checked_dolmen > 50, "dolmen decisions were checked");
}

#[test]
fn determinize_varies_only_hidden_values_with_the_seed() {
    // Yellow has dolmens on the board and in hand: red cannot know which.
    let f = c('F');
    let mut game = bare(2, RED);
    let st = game.state_mut();
    put_dolmen(st, f, YELLOW, 4);
    put_dolmen(st, f, YELLOW, 1);
    let view = game.view(Viewer::Seat(RED));
    let mut stacks = std::collections::BTreeSet::new();
    for seed in 0..50 {
        let d = Dolmen::determinize(&view, seed).unwrap();
        assert!(d.pieces_conserved());
        assert_eq!(
            d.state().seats[RED.index()],
            game.state().seats[RED.index()]
        );
        assert_eq!(d.state().sites, game.state().sites);
        stacks.insert(stack(&d, f));
    }
    assert!(stacks.len() > 3, "values are dealt at random: {stacks:?}");
    assert!(
        stacks
            .iter()
            .all(|s| s.iter().all(|&(seat, _)| seat == YELLOW))
    );
}

/// A placed dolmen's value is its owner's secret in the action too: a host
/// reporting the action (e.g. one a turn clock applied) shows others none.
#[test]
fn the_value_of_a_placed_dolmen_is_redacted_from_the_action_for_others() {
    let place = Action::PlaceDolmen { value: Some(3) };
    assert_eq!(Dolmen::redact_action(&place, Viewer::Seat(RED), RED), place);
    let hidden = Action::PlaceDolmen { value: None };
    assert_eq!(
        Dolmen::redact_action(&place, Viewer::Seat(YELLOW), RED),
        hidden
    );
    assert_eq!(
        Dolmen::redact_action(&place, Viewer::Spectator, RED),
        hidden
    );
    let walk = walk(s(4, 4), Dir::North);
    assert_eq!(Dolmen::redact_action(&walk, Viewer::Spectator, RED), walk);
    assert_eq!(hidden.to_string(), "place a dolmen");
    assert_eq!(place.to_string(), "place a dolmen of value 3");
    // The engine refuses the redacted form: the value must be named.
    let f = c('F');
    let mut game = bare(2, RED);
    let st = game.state_mut();
    put_stone(st, s(5, 1), YELLOW);
    put_stone(st, s(6, 1), YELLOW);
    stone(&mut game, RED, s(5, 2));
    assert_eq!(
        game.decision(),
        Some(Decision::Dolmen {
            circle: f,
            on_top: true
        })
    );
    let seat = game.to_act().unwrap();
    let e = reject(&mut game, seat, hidden);
    assert_eq!(e, RuleError::HiddenValue);
    assert_eq!(e.rejection(), Rejection::Malformed);
}
