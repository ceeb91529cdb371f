//! The cost of the ratings: one live update for a 4-player game, and the
//! periodic refit over 100,000 stored 4-player results.

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use druids_arena::ratings::{BotId, FitConfig, FitInput, GameResult, LiveConfig, LiveRatings, fit};
use rand_core::{RngCore, SeedableRng};
use rand_pcg::Pcg64Mcg;

/// 4-player Plackett-Luce games among `bots` bots of evenly spread strength.
fn simulate(bots: usize, games: usize, seed: u64) -> Vec<GameResult> {
    let strengths: Vec<f64> = (0..bots)
        .map(|i| 3.0 * i as f64 / bots as f64 - 1.5)
        .collect();
    let mut rng = Pcg64Mcg::seed_from_u64(seed);
    let mut uniform = move || ((rng.next_u64() >> 11) as f64 + 0.5) / (1u64 << 53) as f64;
    let mut ids: Vec<usize> = (0..bots).collect();
    (0..games)
        .map(|_| {
            for i in 0..4 {
                let j = i + (uniform() * (bots - i) as f64) as usize;
                ids.swap(i, j);
            }
            let mut scored: Vec<(f64, usize)> = ids[..4]
                .iter()
                .map(|&b| (strengths[b] - (-uniform().ln()).ln(), b))
                .collect();
            scored.sort_by(|a, b| b.0.total_cmp(&a.0));
            let players = scored
                .iter()
                .enumerate()
                .map(|(place, &(_, b))| (BotId(b as u64), place as u32 + 1))
                .collect();
            GameResult::new(players).expect("valid game")
        })
        .collect()
}

fn live(c: &mut Criterion) {
    let history = simulate(16, 1_000, 1);
    let games = simulate(16, 1_024, 2);
    let mut ratings = LiveRatings::replay(LiveConfig::default(), &history);
    let mut next = 0;
    c.bench_function("live/record_4p", |b| {
        b.iter(|| {
            next = (next + 1) % games.len();
            black_box(ratings.record(black_box(&games[next])))
        })
    });
}

fn refit(c: &mut Criterion) {
    let mut group = c.benchmark_group("fit");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(8));
    for bots in [16, 64] {
        let results = simulate(bots, 100_000, 3);
        let config = FitConfig::default();
        let once = fit(&results, &config).expect("valid config");
        let distinct = results.iter().collect::<FitInput>().distinct_rankings();
        eprintln!(
            "fit over {} results among {bots} bots: {distinct} distinct rankings, {} Newton steps, converged: {}",
            once.results, once.iterations, once.converged
        );
        group.bench_function(format!("100k_4p_{bots}bots"), |b| {
            b.iter(|| fit(black_box(&results), &config))
        });
        // The Newton iterations alone, for a caller that keeps a FitInput.
        let input: FitInput = results.iter().collect();
        group.bench_function(format!("100k_4p_{bots}bots_aggregated"), |b| {
            b.iter(|| black_box(&input).fit(&config))
        });
    }
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(3));
    targets = live, refit
}
criterion_main!(benches);
