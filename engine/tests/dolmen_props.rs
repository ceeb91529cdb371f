//! Die Dolmengötter's own properties over many seeded random games (2–5
//! players): every game ends by its own rules, not the safeguard; pieces are
//! conserved after every action; scores never drop below 1; unlisted actions
//! are refused without a trace; the last turns give every other seat exactly
//! one more turn. What every game must satisfy is in `conformance/`.

use druids_engine::dolmen::{Action, Dir, Dolmen, EndReason, Event, Options, Site};
use druids_engine::{Game, Seat, Viewer};
use rand_core::{RngCore, SeedableRng};
use rand_pcg::Pcg64Mcg;

mod conformance;

use conformance::{Conformance, suite};
use druids_engine::dolmen;

/// Die Dolmengötter: the values of a seat's dolmens, in hand and on the board.
impl Conformance for Dolmen {
    fn view_leaks(view: &dolmen::View, viewer: Viewer) -> bool {
        view.seats
            .iter()
            .enumerate()
            .any(|(i, s)| s.hand.is_some() && !viewer.sees(Seat(i as u8)))
            || view
                .circles
                .iter()
                .flat_map(|c| &c.stack)
                .any(|d| d.value.is_some() && !viewer.sees(d.seat))
    }

    fn event_leaks(event: &dolmen::Event, viewer: Viewer) -> bool {
        matches!(*event, dolmen::Event::DolmenPlaced { seat, value: Some(_), .. } if !viewer.sees(seat))
    }

    fn action_leaks(action: &dolmen::Action, viewer: Viewer, actor: Seat) -> bool {
        matches!(action, dolmen::Action::PlaceDolmen { value: Some(_) }) && !viewer.sees(actor)
    }
}

#[test]
fn dolmen_conforms() {
    suite::<Dolmen>(60);
}

const GAMES: u64 = 10_000;

fn pick(rng: &mut Pcg64Mcg, n: usize) -> usize {
    (rng.next_u32() as usize) % n
}

/// Any well-formed action, legal or not (sites up to 79, values 0–5).
fn random_action(rng: &mut Pcg64Mcg) -> Action {
    let site = Site(pick(rng, 80) as u8);
    let other = Site(pick(rng, 80) as u8);
    let dir = Dir::ALL[pick(rng, 5)];
    match pick(rng, 8) {
        0 => Action::PlaceDruid { site },
        1 => Action::Walk { from: site, dir },
        2 => Action::CollectHerbs { site },
        3 => Action::Fly {
            from: site,
            to: other,
        },
        4 => Action::PlaceStone,
        5 => Action::DeclineStone,
        6 => Action::PlaceDolmen {
            value: Some(pick(rng, 6) as u8).filter(|&v| v != 5),
        },
        _ => Action::PassDolmen,
    }
}

struct Played {
    game: Dolmen,
    events: Vec<Event>,
    reason: EndReason,
}

/// Plays one random game, checking the invariants after every action.
fn play_checked(seed: u64, players: usize, check_every_listed: bool) -> Played {
    let mut rng = Pcg64Mcg::seed_from_u64(seed ^ 0xd01_3e4);
    let options = Options {
        start_seat: Seat(pick(&mut rng, players) as u8),
        ..Options::default()
    };
    let mut all_events = Vec::new();
    let mut game = Dolmen::new(players, seed, &options, &mut all_events).unwrap();
    let mut actions = 0usize;
    let mut legal = Vec::new();
    let mut events = Vec::new();
    while let Some(seat) = game.to_act() {
        assert!(actions < 10_000, "seed {seed}: the game must end");
        legal.clear();
        game.legal_actions(&mut legal);
        assert!(
            !legal.is_empty(),
            "seed {seed}: a seat to act always has a legal action"
        );
        // With `check_every_listed`, every entry keeps the pieces.
        for a in &legal {
            if check_every_listed {
                let mut g = game.clone();
                let mut ev = Vec::new();
                g.apply(seat, a, &mut ev)
                    .unwrap_or_else(|e| panic!("seed {seed}: listed {a:?} rejected: {e}"));
                assert!(g.pieces_conserved(), "seed {seed}: after listed {a:?}");
            }
        }

        // A random unlisted action is rejected and changes nothing.
        let before = game.clone();
        let wrong = random_action(&mut rng);
        if !legal.contains(&wrong) {
            events.clear();
            assert!(game.apply(seat, &wrong, &mut events).is_err(), "{wrong:?}");
            assert!(events.is_empty());
            assert_eq!(game, before, "seed {seed}: rejected {wrong:?} left a trace");
        }

        let a = legal[pick(&mut rng, legal.len())];
        events.clear();
        game.apply(seat, &a, &mut events)
            .unwrap_or_else(|e| panic!("seed {seed}: {a:?} rejected: {e}"));
        assert!(!events.is_empty(), "every action reports something");
        assert!(game.pieces_conserved(), "seed {seed}: after {a:?}");
        for e in &events {
            if let Event::ScoreChanged { seat, score, .. } = e {
                assert!(*score >= 1, "seed {seed}: {seat} score {score}");
            }
        }
        actions += 1;
        all_events.extend_from_slice(&events);
    }
    let reason = all_events
        .iter()
        .find_map(|e| match e {
            Event::GameEnded { reason } => Some(*reason),
            _ => None,
        })
        .expect("GameEnded");
    Played {
        game,
        events: all_events,
        reason,
    }
}

/// The end of the game as the events tell it.
fn check_end(seed: u64, players: usize, p: &Played) {
    let outcome = p.game.outcome().expect("over");
    // GameOver is last and matches the outcome.
    assert_eq!(
        p.events.last(),
        Some(&Event::GameOver {
            scores: outcome.scores.clone(),
            winners: outcome.winners.clone(),
        })
    );
    assert_eq!(outcome.by_safeguard, p.reason == EndReason::Safeguard);
    assert_eq!(outcome.ranking.len(), players);
    assert!(
        outcome
            .winners
            .iter()
            .all(|w| outcome.ranking[..outcome.winners.len()].contains(w))
    );
    // No dolmen is left on the board; every one is in hand or scored.
    let view = p.game.view(Viewer::Spectator);
    assert!(view.circles.iter().all(|c| c.stack.is_empty()));
    // After the first LastTurnsBegin, every other seat starts exactly one
    // turn and the triggering seat none — unless the last stone ends first.
    if let Some(i) = p
        .events
        .iter()
        .position(|e| matches!(e, Event::LastTurnsBegin { .. }))
    {
        let Event::LastTurnsBegin { seat: t } = p.events[i] else {
            unreachable!()
        };
        let mut started = vec![0; players];
        for e in &p.events[i..] {
            if let Event::TurnStarted { seat, .. } = e {
                started[seat.index()] += 1;
            }
        }
        match p.reason {
            EndReason::LastDolmen => {
                for (s, &n) in started.iter().enumerate() {
                    let want = if s == t.index() { 0 } else { 1 };
                    assert_eq!(
                        n, want,
                        "seed {seed}: turns after the last dolmen {started:?}"
                    );
                }
            }
            EndReason::LastStone => assert!(started.iter().all(|&n| n <= 1)),
            EndReason::Safeguard => panic!("seed {seed}: safeguard"),
        }
        let again = p.events[i + 1..]
            .iter()
            .filter(|e| matches!(e, Event::LastTurnsBegin { .. }))
            .count();
        assert_eq!(again, 0, "the last turns begin once");
    } else {
        assert_eq!(p.reason, EndReason::LastStone, "seed {seed}");
        assert!(view.seats.iter().all(|s| s.stones_left == 0));
    }
    // Scored dolmens in the events are those in the seats' scored counts.
    let mut scored = vec![[0u8; 4]; players];
    for e in &p.events {
        if let Event::DolmenScored { seat, value, .. } = e {
            scored[seat.index()][*value as usize - 1] += 1;
        }
    }
    for (s, sv) in view.seats.iter().enumerate() {
        assert_eq!(sv.scored, scored[s]);
    }
}

#[test]
fn random_games_keep_every_invariant() {
    let mut safeguard = 0;
    let mut by_reason = [0usize; 3];
    for seed in 0..GAMES {
        let players = 2 + (seed % 4) as usize;
        let p = play_checked(seed, players, seed.is_multiple_of(50));
        check_end(seed, players, &p);
        by_reason[p.reason as usize] += 1;
        if p.reason == EndReason::Safeguard {
            safeguard += 1;
        }
    }
    eprintln!("endings (last dolmen, last stone, safeguard): {by_reason:?}");
    assert_eq!(safeguard, 0, "no game needs the safeguard");
    // Both regular endings happen.
    assert!(
        by_reason[EndReason::LastDolmen as usize] > 100,
        "{by_reason:?}"
    );
    assert!(
        by_reason[EndReason::LastStone as usize] > 100,
        "{by_reason:?}"
    );
}

#[test]
fn the_safeguard_ends_long_games_with_final_scoring() {
    let mut rng = Pcg64Mcg::seed_from_u64(3);
    let mut legal = Vec::new();
    for seed in 0..200u64 {
        let players = 2 + (seed % 4) as usize;
        let options = Options {
            max_turns: 1 + (seed % 40) as u32,
            ..Options::default()
        };
        let mut events = Vec::new();
        let mut game = Dolmen::new(players, seed, &options, &mut events).unwrap();
        while let Some(seat) = game.to_act() {
            legal.clear();
            game.legal_actions(&mut legal);
            let a = legal[pick(&mut rng, legal.len())];
            game.apply(seat, &a, &mut events).unwrap();
            assert!(game.pieces_conserved());
        }
        // Past max_turns only to play the owed last turns (the safeguard
        // applies only while no end has been triggered).
        assert!(
            game.turn() <= options.max_turns
                || events
                    .iter()
                    .any(|e| matches!(e, Event::LastTurnsBegin { .. })),
            "seed {seed}"
        );
        let o = game.outcome().unwrap();
        if o.by_safeguard {
            assert_eq!(game.turn(), options.max_turns);
            assert!(events.contains(&Event::GameEnded {
                reason: EndReason::Safeguard
            }));
        }
    }
}
