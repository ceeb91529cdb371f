//! How fast the matchmaking pool forms games: `Pool::form` over a pool of
//! 1,000 (and 10,000) open seeks, reported as games formed per second.
//! Seeks are Meduris-like: mostly 4-player, some 2..=4 or 3..=4, ratings
//! spread over 1000–2000, waits up to a minute, a few bots with two seeks.

use std::hint::black_box;

use criterion::{BatchSize, Criterion, Throughput, criterion_group, criterion_main};
use druids_arena::pairing::pool::{Pool, PoolConfig, Seek, SeekId};
use druids_arena::pairing::{BotId, Seats};

/// A fixed pseudo-random stream (SplitMix64) so every run measures the same pool.
fn next(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

const NOW_MS: u64 = 60_000;

fn pool(seeks: u64) -> Pool<u8> {
    let mut state = seeks;
    let mut pool = Pool::new(PoolConfig::default(), |_| Seats::new(2, 4));
    let bots = seeks - seeks / 20;
    for i in 0..seeks {
        let players = match next(&mut state) % 10 {
            0..=5 => 4..=4,
            6..=8 => 2..=4,
            _ => 3..=4,
        };
        let bot = BotId(if i < bots { i } else { next(&mut state) % bots });
        let rating = 1000.0 + (next(&mut state) % 1000) as f64;
        let since_ms = next(&mut state) % NOW_MS;
        pool.add(Seek {
            id: SeekId(i),
            bot,
            kind: 0,
            players,
            rated: true,
            rating,
            since_ms,
        })
        .expect("valid seek");
        pool.set_load(bot, 0, 2);
    }
    pool
}

fn form(c: &mut Criterion) {
    let mut group = c.benchmark_group("pool_form");
    for seeks in [1_000u64, 10_000] {
        let pool = pool(seeks);
        let games = pool.clone().form(NOW_MS).len() as u64;
        println!("{seeks} seeks: {games} games formed per call");
        group.throughput(Throughput::Elements(games));
        group.bench_function(format!("{seeks}_seeks"), |b| {
            b.iter_batched(
                || pool.clone(),
                |mut p| black_box(p.form(black_box(NOW_MS))),
                BatchSize::LargeInput,
            )
        });
    }
    // The steady state: a pool already formed, where nothing more fits,
    // as the server sees it on most ticks.
    let mut settled = pool(1_000);
    settled.form(NOW_MS);
    println!(
        "leftover: {} seeks left after forming from 1,000",
        settled.len()
    );
    group.throughput(Throughput::Elements(settled.len() as u64));
    group.bench_function("leftover_after_1000", |b| {
        b.iter_batched(
            || settled.clone(),
            |mut p| black_box(p.form(black_box(NOW_MS))),
            BatchSize::LargeInput,
        )
    });
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(30).measurement_time(std::time::Duration::from_secs(5));
    targets = form
}
criterion_main!(benches);
