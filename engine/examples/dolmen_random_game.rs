//! Plays random Die Dolmengötter games and prints a summary (a quick manual
//! check, and a target for profilers).
//!
//! Run: `cargo run --release -p druids-engine --example dolmen_random_game -- [games] [players]`
//! (players 0, the default, mixes 2 to 5).
use druids_engine::dolmen::{Dolmen, EndReason, Event};
use druids_engine::{Game, Seat};
use rand_core::{RngCore, SeedableRng};

fn main() {
    let mut args = std::env::args().skip(1);
    let games: u64 = args.next().and_then(|a| a.parse().ok()).unwrap_or(1000);
    let fixed: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(0);
    let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(7);
    let mut actions = Vec::new();
    let mut events = Vec::new();
    let mut total_actions = 0u64;
    let mut turns = 0u64;
    let mut endings = [0u64; 3];
    let mut wins = [0u64; 5];
    let t = std::time::Instant::now();
    for g in 0..games {
        let players = if fixed == 0 {
            2 + (g % 4) as usize
        } else {
            fixed
        };
        events.clear();
        let mut game = Dolmen::new(players, g, &Default::default(), &mut events).unwrap();
        while let Some(seat) = game.to_act() {
            actions.clear();
            game.legal_actions(&mut actions);
            let a = actions[(rng.next_u32() as usize) % actions.len()];
            events.clear();
            game.apply(seat, &a, &mut events).unwrap();
            total_actions += 1;
            for e in &events {
                if let Event::GameEnded { reason } = e {
                    endings[match reason {
                        EndReason::LastDolmen => 0,
                        EndReason::LastStone => 1,
                        EndReason::Safeguard => 2,
                    }] += 1;
                }
            }
        }
        turns += game.turn() as u64;
        for w in game.outcome().unwrap().winners {
            wins[Seat::index(w)] += 1;
        }
    }
    let secs = t.elapsed().as_secs_f64();
    println!(
        "{games} games in {secs:.2} s ({:.0} games/s), {:.1} actions and {:.1} turns per game",
        games as f64 / secs,
        total_actions as f64 / games as f64,
        turns as f64 / games as f64
    );
    println!(
        "endings: last dolmen {}, last stone {}, safeguard {}; wins by seat {wins:?}",
        endings[0], endings[1], endings[2]
    );
}
