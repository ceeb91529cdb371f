//! Property tests over many seeded random Meduris games: every game ends, goods
//! are conserved after every action, listed actions apply, unlisted actions are
//! rejected without a trace, and the same seed and actions replay exactly.

use druids_engine::meduris::{Action, Event, Good, Goods, Meduris, Options};
use druids_engine::{Determinize, Game, Seat};
use rand_core::{RngCore, SeedableRng};
use rand_pcg::Pcg64Mcg;

const GAMES: u64 = 10_000;

fn pick(rng: &mut Pcg64Mcg, n: usize) -> usize {
    (rng.next_u32() as usize) % n
}

fn random_goods(rng: &mut Pcg64Mcg) -> Goods {
    let mut g = Goods::EMPTY;
    for i in 0..4 {
        g.0[i] = (rng.next_u32() % 4) as u8;
    }
    g
}

/// Any well-formed action, legal or not.
fn random_action(rng: &mut Pcg64Mcg) -> Action {
    let good = Good::from_index(pick(rng, 4));
    let other = Good::from_index(pick(rng, 4));
    match pick(rng, 8) {
        0 => Action::PlaceWorker { plateau: good },
        1 => Action::TakeGood { good },
        2 => Action::ReturnGood { good },
        3 => Action::BigYield {
            from: good,
            height: pick(rng, 4) as u8,
            to: other,
        },
        4 => Action::BuildHut {
            field: pick(rng, 42) as u8,
            payment: random_goods(rng),
        },
        5 => Action::BuildTemple {
            field: pick(rng, 42) as u8,
            payment: random_goods(rng),
        },
        6 => Action::Offer {
            payment: random_goods(rng),
        },
        _ => Action::OfferChip,
    }
}

struct Played {
    game: Meduris,
    actions: Vec<(Seat, Action)>,
    events: usize,
}

/// Plays one random game, checking the invariants after every action.
fn play_checked(seed: u64, players: usize, check_every_listed: bool) -> Played {
    let mut rng = Pcg64Mcg::seed_from_u64(seed ^ 0x5eed);
    let options = Options {
        start_seat: pick(&mut rng, players) as u8,
        ..Options::default()
    };
    let mut events = Vec::new();
    let mut game = Meduris::new(players, seed, &options, &mut events).unwrap();
    let mut actions = Vec::new();
    let mut legal = Vec::new();
    let mut all = Vec::new();
    let mut n_events = events.len();
    while let Some(seat) = game.to_act() {
        assert!(actions.len() < 20_000, "seed {seed}: the game must end");
        legal.clear();
        game.legal_actions(&mut legal);
        assert!(
            !legal.is_empty(),
            "seed {seed}: a seat to act always has a legal action"
        );

        // Every listed action applies (and the list has no duplicates).
        for (i, a) in legal.iter().enumerate() {
            assert!(!legal[..i].contains(a), "seed {seed}: {a:?} listed twice");
            let mut probe = game.clone();
            events.clear();
            probe
                .apply(seat, a, &mut events)
                .unwrap_or_else(|e| panic!("seed {seed}: listed {a:?} rejected: {e}"));
        }
        if check_every_listed {
            // Every distinct payment, on request: distinct, applicable, and a
            // superset of the default list.
            all.clear();
            game.legal_actions_all_payments(&mut all);
            for (i, a) in all.iter().enumerate() {
                assert!(!all[..i].contains(a), "seed {seed}: {a:?} listed twice");
                let mut probe = game.clone();
                events.clear();
                probe
                    .apply(seat, a, &mut events)
                    .unwrap_or_else(|e| panic!("seed {seed}: listed {a:?} rejected: {e}"));
            }
            assert!(legal.iter().all(|a| all.contains(a)), "seed {seed}");
        }
        // A listed build with one good too many is an overpayment: rejected, no trace.
        if let Some(
            &(Action::BuildHut { field, mut payment } | Action::BuildTemple { field, mut payment }),
        ) = legal
            .iter()
            .find(|a| matches!(a, Action::BuildHut { .. } | Action::BuildTemple { .. }))
        {
            payment.0[pick(&mut rng, 4)] += 1;
            for over in [
                Action::BuildHut { field, payment },
                Action::BuildTemple { field, payment },
            ] {
                let mut probe = game.clone();
                events.clear();
                assert!(
                    probe.apply(seat, &over, &mut events).is_err(),
                    "seed {seed}: {over:?}"
                );
                assert_eq!(
                    probe, game,
                    "seed {seed}: rejected {over:?} changed the state"
                );
                assert!(events.is_empty());
            }
        }

        // A random action: if the engine accepts it, it must be legal (listed
        // with some payment); if it refuses, nothing may change.
        let wild = random_action(&mut rng);
        let mut probe = game.clone();
        events.clear();
        match probe.apply(seat, &wild, &mut events) {
            Ok(()) => {
                all.clear();
                game.legal_actions_all_payments(&mut all);
                assert!(
                    all.contains(&wild),
                    "seed {seed}: accepted unlisted {wild:?}"
                );
            }
            Err(_) => {
                assert_eq!(
                    probe, game,
                    "seed {seed}: rejected {wild:?} changed the state"
                );
                assert!(events.is_empty());
            }
        }
        // Another seat acting is always refused.
        let other = Seat((seat.0 + 1) % players as u8);
        let mut probe = game.clone();
        assert!(probe.apply(other, &legal[0], &mut events).is_err());
        assert_eq!(probe, game);

        let action = legal[pick(&mut rng, legal.len())];
        events.clear();
        game.apply(seat, &action, &mut events).unwrap();
        n_events += events.len();
        assert!(
            game.goods_conserved(),
            "seed {seed}: goods conserved after {action:?}"
        );
        actions.push((seat, action));
    }
    let outcome = game.outcome().expect("finished games have an outcome");
    assert_eq!(outcome.scores.len(), players);
    assert!(outcome.scores.iter().all(|&s| s >= 0));
    assert!(!outcome.winners.is_empty());
    Played {
        game,
        actions,
        events: n_events,
    }
}

#[test]
fn ten_thousand_random_games_keep_every_invariant() {
    let mut safeguard = 0;
    let mut total_actions = 0;
    for seed in 0..GAMES {
        let players = 2 + (seed % 3) as usize;
        let played = play_checked(seed, players, seed % 10 == 0);
        // Same seed and same actions: the same final state, byte for byte.
        assert_eq!(
            replay(seed, players, &played.actions),
            played.game,
            "seed {seed}"
        );
        total_actions += played.actions.len();
        if played.game.outcome().unwrap().by_safeguard {
            safeguard += 1;
        }
    }
    assert!(total_actions > GAMES as usize * 50);
    assert_eq!(
        safeguard, 0,
        "random games end by the rules, not the safeguard"
    );
}

/// Replays recorded actions on a fresh game with the options `play_checked` used.
fn replay(seed: u64, players: usize, actions: &[(Seat, Action)]) -> Meduris {
    let mut rng = Pcg64Mcg::seed_from_u64(seed ^ 0x5eed);
    let options = Options {
        start_seat: pick(&mut rng, players) as u8,
        ..Options::default()
    };
    let mut events = Vec::new();
    let mut game = Meduris::new(players, seed, &options, &mut events).unwrap();
    for (seat, action) in actions {
        game.apply(*seat, action, &mut events).unwrap();
    }
    game
}

#[test]
fn same_seed_and_actions_replay_to_the_same_state() {
    for seed in 0..300 {
        let players = 2 + (seed % 3) as usize;
        let first = play_checked(seed, players, false);
        let mut rng = Pcg64Mcg::seed_from_u64(seed ^ 0x5eed);
        let options = Options {
            start_seat: pick(&mut rng, players) as u8,
            ..Options::default()
        };
        let mut events = Vec::new();
        let mut replay = Meduris::new(players, seed, &options, &mut events).unwrap();
        for (seat, action) in &first.actions {
            replay.apply(*seat, action, &mut events).unwrap();
        }
        assert_eq!(events.len(), first.events);
        assert_eq!(replay, first.game, "seed {seed}");
    }
}

#[test]
fn views_never_show_another_seats_goods() {
    use druids_engine::Viewer;
    let mut rng = Pcg64Mcg::seed_from_u64(3);
    let mut events = Vec::new();
    let mut game = Meduris::new(4, 3, &Options::default(), &mut events).unwrap();
    let mut legal = Vec::new();
    while let Some(seat) = game.to_act() {
        let spectator = game.view(Viewer::Spectator);
        assert!(spectator.seats.iter().all(|s| s.goods.is_none()));
        let mine = game.view(Viewer::Seat(seat));
        for (i, s) in mine.seats.iter().enumerate() {
            if i == seat.index() {
                assert_eq!(s.goods, Some(game.goods(seat)));
            } else {
                assert_eq!(s.goods, None);
            }
        }
        legal.clear();
        game.legal_actions(&mut legal);
        let a = legal[pick(&mut rng, legal.len())];
        game.apply(seat, &a, &mut events).unwrap();
    }
    // Not after the game either, in the view or in the final event.
    assert!(
        game.view(Viewer::Spectator)
            .seats
            .iter()
            .all(|s| s.goods.is_none())
    );
    let Some(Event::GameOver { goods_left, .. }) = events.last() else {
        panic!("the last event is GameOver");
    };
    assert!(goods_left.iter().all(Option::is_some));
    let Some(Event::GameOver { goods_left, .. }) =
        Meduris::redact(events.last().unwrap(), Viewer::Seat(Seat(2)))
    else {
        unreachable!()
    };
    for (i, g) in goods_left.iter().enumerate() {
        assert_eq!(g.is_some(), i == 2);
    }
}

#[test]
fn determinizing_a_view_keeps_everything_public_and_conserves_goods() {
    use druids_engine::Viewer;
    let mut rng = Pcg64Mcg::seed_from_u64(5);
    for seed in 0..200u64 {
        let players = 2 + (seed % 3) as usize;
        let mut events = Vec::new();
        let mut game = Meduris::new(players, seed, &Options::default(), &mut events).unwrap();
        let mut legal = Vec::new();
        while let Some(seat) = game.to_act() {
            let view = game.view(Viewer::Seat(seat));
            let guess = Meduris::determinize(&view, seed).unwrap();
            assert!(guess.goods_conserved());
            assert_eq!(guess.goods(seat), game.goods(seat));
            assert_eq!(guess.to_act(), game.to_act());
            assert_eq!(guess.decision(), game.decision());
            // Public state is identical: the views of the viewer agree.
            assert_eq!(guess.view(Viewer::Seat(seat)), view);
            // The seat's own legal actions do not depend on the others' goods.
            let mut mine = Vec::new();
            guess.legal_actions(&mut mine);
            legal.clear();
            game.legal_actions(&mut legal);
            assert_eq!(mine, legal);
            let a = legal[pick(&mut rng, legal.len())];
            game.apply(seat, &a, &mut events).unwrap();
        }
    }
}

#[test]
fn the_timeout_action_is_always_legal_and_games_of_timeouts_end() {
    // All-timeout games never build, so they run into the max_turns safeguard.
    for seed in 0..30u64 {
        let players = 2 + (seed % 3) as usize;
        let mut events = Vec::new();
        let mut game = Meduris::new(players, seed, &Options::default(), &mut events).unwrap();
        let mut all = Vec::new();
        let mut n = 0;
        while let Some(seat) = game.to_act() {
            let a = game
                .timeout_action()
                .expect("a default exists while the game runs");
            // Timeout actions carry no payment, so the default list holds them.
            all.clear();
            game.legal_actions(&mut all);
            assert!(all.contains(&a), "seed {seed}: {a:?} is legal");
            game.apply(seat, &a, &mut events).unwrap();
            n += 1;
            assert!(n < 100_000);
        }
        assert!(game.timeout_action().is_none());
    }
}
