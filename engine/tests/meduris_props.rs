//! Meduris's own properties over many seeded random games: every game ends by
//! the rules, goods are conserved after every action, every distinct payment
//! listed on request applies, overpayments and unlisted actions are refused
//! without a trace. What every game must satisfy is in `conformance/`.

use druids_engine::meduris::{Action, Good, Goods, Meduris, Options};
use druids_engine::{Game, Seat};
use rand_core::{RngCore, SeedableRng};
use rand_pcg::Pcg64Mcg;

mod conformance;

use conformance::{Conformance, suite};
use druids_engine::{Viewer, meduris};

/// Meduris: a seat's goods.
impl Conformance for Meduris {
    fn view_leaks(view: &meduris::View, viewer: Viewer) -> bool {
        view.seats
            .iter()
            .enumerate()
            .any(|(i, s)| s.goods.is_some() && !viewer.sees(Seat(i as u8)))
    }

    fn event_leaks(event: &meduris::Event, viewer: Viewer) -> bool {
        match event {
            meduris::Event::GameOver(end) => end
                .goods_left
                .iter()
                .enumerate()
                .any(|(i, g)| g.is_some() && !viewer.sees(Seat(i as u8))),
            _ => false,
        }
    }

    fn action_leaks(_: &meduris::Action, _: Viewer, _: Seat) -> bool {
        false
    }
}

#[test]
fn meduris_conforms() {
    suite::<Meduris>(100);
}

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
    while let Some(seat) = game.to_act() {
        assert!(actions.len() < 20_000, "seed {seed}: the game must end");
        legal.clear();
        game.legal_actions(&mut legal);
        assert!(
            !legal.is_empty(),
            "seed {seed}: a seat to act always has a legal action"
        );

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
        let action = legal[pick(&mut rng, legal.len())];
        events.clear();
        game.apply(seat, &action, &mut events).unwrap();
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
    Played { game, actions }
}

#[test]
fn ten_thousand_random_games_keep_every_invariant() {
    let mut safeguard = 0;
    let mut total_actions = 0;
    for seed in 0..GAMES {
        let players = 2 + (seed % 3) as usize;
        let played = play_checked(seed, players, seed % 10 == 0);
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
