//! Chance under outside control: an explicit-mode game fed the seed's own
//! draws is the seeded game, event for event; scripted draws are played in
//! order and then the seed takes over; a refused outcome changes nothing.

use druids_engine::cairn::{self, Cairn};
use druids_engine::dolmen::Dolmen;
use druids_engine::meduris::{DieFace, Event, Meduris};
use druids_engine::{Chance, ChanceError, ChanceMode, Game, Seat, Viewer, play_script};

/// Plays `game` with the choice `step * 7919 + seed` of each legal list,
/// supplying every draw with `draw(game)`; returns the events.
fn play<G: Chance>(
    mut game: G,
    seed: u64,
    mut events: Vec<G::Event>,
    mut draw: impl FnMut(&G) -> usize,
) -> (G, Vec<G::Event>) {
    let mut legal = Vec::new();
    let mut step = 0usize;
    loop {
        while game.pending_draw().is_some() {
            assert_eq!(game.to_act(), None, "no seat acts while a draw is pending");
            assert_eq!(game.outcome(), None);
            legal.clear();
            game.legal_actions(&mut legal);
            assert!(legal.is_empty());
            let outcome = draw(&game);
            game.apply_chance(outcome, &mut events).unwrap();
        }
        let Some(seat) = game.to_act() else { break };
        legal.clear();
        game.legal_actions(&mut legal);
        let a = legal[(step * 7919 + seed as usize) % legal.len()].clone();
        game.apply(seat, &a, &mut events).unwrap();
        step += 1;
    }
    (game, events)
}

fn seeded<G: Chance>(n: usize, seed: u64) -> (G, Vec<G::Event>) {
    let mut events = Vec::new();
    let game = G::new(n, seed, &G::Options::default(), &mut events).unwrap();
    play(game, seed, events, |_| {
        unreachable!("a seeded game never waits")
    })
}

fn explicit<G: Chance>(n: usize, seed: u64, draw: impl FnMut(&G) -> usize) -> (G, Vec<G::Event>) {
    let mut events = Vec::new();
    let game = G::new_explicit(n, seed, &G::Options::default(), &mut events).unwrap();
    play(game, seed, events, draw)
}

#[test]
fn the_seeds_own_draws_supplied_one_by_one_play_the_seeded_game() {
    for n in 2..=4 {
        for seed in 0..40 {
            let (a, ea) = seeded::<Meduris>(n, seed);
            let mut draws = 0;
            let (b, eb) = explicit::<Meduris>(n, seed, |g| {
                draws += 1;
                g.seed_draw().unwrap()
            });
            assert_eq!(ea, eb, "{n} players, seed {seed}");
            assert_eq!(a.outcome(), b.outcome());
            for s in 0..n as u8 {
                assert_eq!(a.view(Viewer::Seat(Seat(s))), b.view(Viewer::Seat(Seat(s))));
            }
            let rolls = ea
                .iter()
                .filter(|e| matches!(e, Event::DieRolled { .. }))
                .count();
            let setup = if n == 4 { 22 } else { 14 };
            assert_eq!(draws, setup + rolls, "one draw per chip draw and die roll");
        }
    }
    for n in 2..=5 {
        let (a, ea) = seeded::<Dolmen>(n, 3);
        let (b, eb) = explicit::<Dolmen>(n, 3, |_| unreachable!("Dolmen has no draws"));
        assert_eq!((a, ea), (b, eb));
    }
    // The test tree's game: each roll of its die is a draw.
    for n in 2..=4 {
        for seed in 0..20 {
            let (a, ea) = seeded::<Cairn>(n, seed);
            let mut draws = 0;
            let (b, eb) = explicit::<Cairn>(n, seed, |g| {
                draws += 1;
                g.seed_draw().unwrap()
            });
            assert_eq!(ea, eb, "{n} players, seed {seed}");
            assert_eq!(a.outcome(), b.outcome());
            let rolls = ea
                .iter()
                .filter(|e| matches!(e, cairn::Event::Rolled { .. }))
                .count();
            assert_eq!(draws, rolls, "one draw per roll");
        }
    }
}

#[test]
fn a_script_is_played_in_order_then_the_seed_takes_over() {
    let (n, seed) = (4, 11);
    let mut events = Vec::new();
    let mut game = Meduris::new_explicit(n, seed, &Default::default(), &mut events).unwrap();
    // The set-up from the seed, then the first five rolls scripted: -1, +1,
    // stone, wood, wool, then the seed again.
    let mut setup_draws = Vec::new();
    let mut probe = game.clone();
    while probe.pending_draw().is_some() {
        let d = probe.seed_draw().unwrap();
        setup_draws.push(d);
        probe.apply_chance(d, &mut Vec::new()).unwrap();
    }
    let rolls = [5, 4, 3, 0, 1];
    let mut script = setup_draws.iter().copied().chain(rolls);
    let mut legal = Vec::new();
    let mut used = play_script(&mut game, &mut script, &mut events).unwrap();
    while let Some(seat) = game.to_act() {
        legal.clear();
        game.legal_actions(&mut legal);
        let a = legal[events.len() % legal.len()];
        game.apply(seat, &a, &mut events).unwrap();
        used += play_script(&mut game, &mut script, &mut events).unwrap();
    }
    assert_eq!(used, setup_draws.len() + rolls.len());
    assert_eq!(game.chance_mode(), ChanceMode::Seeded);
    let faces: Vec<DieFace> = events
        .iter()
        .filter_map(|e| match e {
            Event::DieRolled { face } => Some(*face),
            _ => None,
        })
        .collect();
    assert_eq!(faces[..5], rolls.map(|r| DieFace::ALL[r]));

    // The same script of the seed's own draws is the seeded game.
    let (_, seeded_events) = seeded::<Meduris>(n, seed);
    let seeded_faces: Vec<usize> = seeded_events
        .iter()
        .filter_map(|e| match e {
            Event::DieRolled { face } => DieFace::ALL.iter().position(|f| f == face),
            _ => None,
        })
        .collect();
    let mut events = Vec::new();
    let mut game = Meduris::new_explicit(n, seed, &Default::default(), &mut events).unwrap();
    let mut script = setup_draws
        .iter()
        .copied()
        .chain(seeded_faces[..7].iter().copied());
    play_script(&mut game, &mut script, &mut events).unwrap();
    let mut step = 0usize;
    while let Some(seat) = game.to_act() {
        legal.clear();
        game.legal_actions(&mut legal);
        let a = legal[(step * 7919 + seed as usize) % legal.len()];
        game.apply(seat, &a, &mut events).unwrap();
        play_script(&mut game, &mut script, &mut events).unwrap();
        step += 1;
    }
    assert_eq!(events, seeded_events);
}

#[test]
fn every_face_can_be_chosen_and_a_refused_outcome_changes_nothing() {
    let mut events = Vec::new();
    let mut game = Meduris::new_explicit(3, 5, &Default::default(), &mut events).unwrap();
    assert_eq!(
        game.apply_chance(32, &mut events),
        Err(ChanceError::NoSuchOutcome {
            outcome: 32,
            outcomes: 6
        })
    );
    play_script(&mut game, &mut std::iter::empty(), &mut events).unwrap();
    assert_eq!(game.pending_draw(), None);
    let before = game.clone();
    assert_eq!(
        game.apply_chance(0, &mut events),
        Err(ChanceError::NoDrawPending)
    );
    assert_eq!(game, before);
    // Place the workers; the first turn waits for its roll.
    game.set_chance_mode(ChanceMode::Explicit, &mut events);
    let mut legal = Vec::new();
    while game.pending_draw().is_none() {
        legal.clear();
        game.legal_actions(&mut legal);
        game.apply(game.to_act().unwrap(), &legal[0], &mut events)
            .unwrap();
    }
    let draw = game.pending_draw().unwrap();
    assert_eq!(draw.outcomes, 6);
    assert!((draw.probability() - 1.0 / 6.0).abs() < 1e-12);
    let n = events.len();
    let before = game.clone();
    assert_eq!(
        game.apply_chance(6, &mut events),
        Err(ChanceError::NoSuchOutcome {
            outcome: 6,
            outcomes: 6
        })
    );
    assert_eq!((game.clone(), events.len()), (before.clone(), n));
    for (k, face) in DieFace::ALL.into_iter().enumerate() {
        let mut branch = before.clone();
        let mut ev = Vec::new();
        assert_eq!(branch.chance_text(k), Some(format!("the die shows {face}")));
        branch.apply_chance(k, &mut ev).unwrap();
        assert_eq!(ev[0], Event::DieRolled { face });
        assert!(branch.to_act().is_some());
    }
}
