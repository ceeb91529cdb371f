//! Plays random Meduris games and prints a summary (a quick manual check).
use druids_engine::meduris::Meduris;
use druids_engine::{Game, Seat};
use rand_core::{RngCore, SeedableRng};

fn main() {
    let games: u64 = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(1000);
    let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(7);
    let mut actions = Vec::new();
    let mut events = Vec::new();
    let mut total_actions = 0u64;
    let mut turns = 0u64;
    let t = std::time::Instant::now();
    for g in 0..games {
        let players = 2 + (g % 3) as usize;
        events.clear();
        let mut game = Meduris::new(players, g, &Default::default(), &mut events).unwrap();
        while let Some(seat) = game.to_act() {
            actions.clear();
            game.legal_actions(&mut actions);
            let a = actions[(rng.next_u32() as usize) % actions.len()];
            events.clear();
            game.apply(seat, &a, &mut events).unwrap();
            total_actions += 1;
            assert!(game.goods_conserved());
        }
        turns += game.turn() as u64;
        let _ = Seat(0);
    }
    println!(
        "{games} games, {total_actions} actions, {turns} turns, {:?}",
        t.elapsed()
    );
}
