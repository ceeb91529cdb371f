//! Complete random Meduris games per second, for 2, 3 and 4 players, plus the
//! cost of legal-action generation alone on positions from such games, and
//! recorded 4-player games replayed with and without listing the legal actions
//! at every position: `1 - meduris_replay/4 ÷ meduris_replay/4_with_legal` is the
//! share of legal-action generation in a random game's engine time.
//!
//! Run: `cargo bench -p druids-engine --bench meduris`
//! (quick: `cargo bench -p druids-engine --bench meduris -- --warm-up-time 1 --measurement-time 3`)

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use druids_engine::meduris::{Action, Event, Meduris, Options};
use druids_engine::{Game, Seat};
use rand_core::{RngCore, SeedableRng};
use rand_pcg::Pcg64Mcg;
use std::hint::black_box;

/// Plays one complete game choosing uniformly among the legal actions; the
/// buffers are reused across games so the loop itself does not allocate.
fn random_game(
    players: usize,
    seed: u64,
    rng: &mut Pcg64Mcg,
    legal: &mut Vec<Action>,
    events: &mut Vec<Event>,
) -> u32 {
    events.clear();
    let mut game = Meduris::new(players, seed, &Options::default(), events).unwrap();
    let mut n = 0;
    while let Some(seat) = game.to_act() {
        legal.clear();
        game.legal_actions(legal);
        let a = legal[(rng.next_u32() as usize) % legal.len()];
        events.clear();
        game.apply(seat, &a, events).unwrap();
        n += 1;
    }
    n
}

fn games(c: &mut Criterion) {
    let mut group = c.benchmark_group("meduris_random_game");
    for players in [2usize, 3, 4] {
        group.throughput(Throughput::Elements(1));
        group.bench_with_input(BenchmarkId::from_parameter(players), &players, |b, &p| {
            let mut rng = Pcg64Mcg::seed_from_u64(1);
            let mut legal = Vec::with_capacity(256);
            let mut events = Vec::with_capacity(64);
            let mut seed = 0;
            b.iter(|| {
                seed += 1;
                black_box(random_game(p, seed, &mut rng, &mut legal, &mut events))
            });
        });
    }
    group.finish();
}

fn legal_actions(c: &mut Criterion) {
    // Positions sampled from random 4-player games.
    let mut rng = Pcg64Mcg::seed_from_u64(2);
    let mut positions = Vec::new();
    let mut legal = Vec::new();
    let mut events = Vec::new();
    for seed in 0..50 {
        let mut game = Meduris::new(4, seed, &Options::default(), &mut events).unwrap();
        while let Some(seat) = game.to_act() {
            positions.push(game.clone());
            legal.clear();
            game.legal_actions(&mut legal);
            let a = legal[(rng.next_u32() as usize) % legal.len()];
            game.apply(seat, &a, &mut events).unwrap();
        }
    }
    let mut group = c.benchmark_group("meduris_legal_actions");
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

/// Random 4-player games, recorded: seeds and the actions played.
fn record_games(count: u64) -> Vec<(u64, Vec<(Seat, Action)>)> {
    let mut rng = Pcg64Mcg::seed_from_u64(1);
    let mut legal = Vec::new();
    let mut events = Vec::new();
    (1..=count)
        .map(|seed| {
            let mut game = Meduris::new(4, seed, &Options::default(), &mut events).unwrap();
            let mut actions = Vec::new();
            while let Some(seat) = game.to_act() {
                legal.clear();
                game.legal_actions(&mut legal);
                let a = legal[(rng.next_u32() as usize) % legal.len()];
                game.apply(seat, &a, &mut events).unwrap();
                actions.push((seat, a));
            }
            (seed, actions)
        })
        .collect()
}

fn replay(c: &mut Criterion) {
    // The same kind of games as `meduris_random_game/4`, recorded, then replayed:
    // `meduris_replay/4` sets up and applies only, `meduris_replay/4_with_legal`
    // also lists the legal actions at every position, as a random game does. The
    // share of legal-action generation in a game's engine time is
    // 1 - replay/4 ÷ replay/4_with_legal.
    let recorded = record_games(200);
    let mut events = Vec::with_capacity(64);
    let mut legal = Vec::with_capacity(256);
    let mut group = c.benchmark_group("meduris_replay");
    group.throughput(Throughput::Elements(1));
    for with_legal in [false, true] {
        let name = if with_legal { "4_with_legal" } else { "4" };
        group.bench_function(name, |b| {
            let mut i = 0;
            b.iter(|| {
                let (seed, actions) = &recorded[i % recorded.len()];
                i += 1;
                events.clear();
                let mut game = Meduris::new(4, *seed, &Options::default(), &mut events).unwrap();
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

criterion_group!(benches, games, legal_actions, replay);
criterion_main!(benches);
