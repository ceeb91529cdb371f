//! What the engine benchmarks share: random games played, recorded and replayed
//! through the [`Game`] trait, so each game's bench only names its game.
//!
//! Groups, for a game named `G`: `G_random_game/N` (complete random games of N
//! players), `G_legal_actions/4p_positions` (legal-action generation alone on
//! the positions of random 4-player games) and `G_replay/4` and
//! `G_replay/4_with_legal` (recorded 4-player games set up and applied, without
//! and with listing the legal actions at every position, as a random game
//! does): `1 - replay/4 ÷ replay/4_with_legal` is the share of legal-action
//! generation in a random game's engine time.

use criterion::{BenchmarkId, Criterion, Throughput};
use druids_engine::{Game, Seat};
use rand_core::{RngCore, SeedableRng};
use rand_pcg::Pcg64Mcg;
use std::hint::black_box;

/// A recorded game: its seed and every action in order.
type Recorded<G> = (u64, Vec<(Seat, <G as Game>::Action)>);

/// Plays one complete game choosing uniformly among the legal actions, calling
/// `seen` with each position before its action; the buffers are reused across
/// games so the loop itself does not allocate.
fn play<G: Game>(
    players: usize,
    seed: u64,
    rng: &mut Pcg64Mcg,
    legal: &mut Vec<G::Action>,
    events: &mut Vec<G::Event>,
    mut seen: impl FnMut(&G, Seat, &G::Action),
) -> u32 {
    events.clear();
    let mut game = G::new(players, seed, &G::Options::default(), events).unwrap();
    let mut n = 0;
    while let Some(seat) = game.to_act() {
        legal.clear();
        game.legal_actions(legal);
        let a = legal[(rng.next_u32() as usize) % legal.len()].clone();
        seen(&game, seat, &a);
        events.clear();
        game.apply(seat, &a, events).unwrap();
        n += 1;
    }
    n
}

/// `G_random_game/N` for each player count.
pub fn games<G: Game>(c: &mut Criterion, player_counts: &[usize]) {
    let mut group = c.benchmark_group(format!("{}_random_game", G::NAME));
    for &players in player_counts {
        group.throughput(Throughput::Elements(1));
        group.bench_with_input(BenchmarkId::from_parameter(players), &players, |b, &p| {
            let mut rng = Pcg64Mcg::seed_from_u64(1);
            let mut legal = Vec::with_capacity(256);
            let mut events = Vec::with_capacity(64);
            let mut seed = 0;
            b.iter(|| {
                seed += 1;
                black_box(play::<G>(
                    p,
                    seed,
                    &mut rng,
                    &mut legal,
                    &mut events,
                    |_, _, _| {},
                ))
            });
        });
    }
    group.finish();
}

/// `G_legal_actions/4p_positions`: every position of 50 random 4-player games.
pub fn legal_actions<G: Game>(c: &mut Criterion) {
    let mut rng = Pcg64Mcg::seed_from_u64(2);
    let mut positions = Vec::new();
    let mut legal = Vec::new();
    let mut events = Vec::new();
    for seed in 0..50 {
        play::<G>(4, seed, &mut rng, &mut legal, &mut events, |g, _, _| {
            positions.push(g.clone())
        });
    }
    let mut group = c.benchmark_group(format!("{}_legal_actions", G::NAME));
    group.throughput(Throughput::Elements(positions.len() as u64));
    group.bench_function("4p_positions", |b| {
        b.iter(|| {
            let mut total = 0;
            for g in &positions {
                legal.clear();
                g.legal_actions(&mut legal);
                total += legal.len();
            }
            black_box(total)
        })
    });
    group.finish();
}

/// `G_replay/4` and `G_replay/4_with_legal` over 200 recorded random games.
pub fn replay<G: Game>(c: &mut Criterion) {
    let mut rng = Pcg64Mcg::seed_from_u64(1);
    let mut legal = Vec::with_capacity(256);
    let mut events = Vec::with_capacity(64);
    let recorded: Vec<Recorded<G>> = (1..=200u64)
        .map(|seed| {
            let mut actions = Vec::new();
            play::<G>(4, seed, &mut rng, &mut legal, &mut events, |_, s, a| {
                actions.push((s, a.clone()))
            });
            (seed, actions)
        })
        .collect();
    let mut group = c.benchmark_group(format!("{}_replay", G::NAME));
    group.throughput(Throughput::Elements(1));
    for with_legal in [false, true] {
        let name = if with_legal { "4_with_legal" } else { "4" };
        group.bench_function(name, |b| {
            let mut i = 0;
            b.iter(|| {
                let (seed, actions) = &recorded[i % recorded.len()];
                i += 1;
                events.clear();
                let mut game = G::new(4, *seed, &G::Options::default(), &mut events).unwrap();
                let mut listed = 0;
                for (seat, a) in actions {
                    if with_legal {
                        legal.clear();
                        game.legal_actions(&mut legal);
                        listed += legal.len();
                    }
                    events.clear();
                    game.apply(*seat, a, &mut events).unwrap();
                }
                black_box((game.to_act(), listed))
            })
        });
    }
    group.finish();
}
