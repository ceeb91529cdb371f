//! Plays complete random games through the `Game` trait, exactly as the
//! criterion bench does, for instruction counts under callgrind
//! (BENCHMARKS.md): `random_games GAME PLAYERS GAMES`.
use druids_engine::Game;
use druids_engine::dolmen::Dolmen;
use druids_engine::meduris::Meduris;
use rand_core::{RngCore, SeedableRng};

fn play<G: Game>(players: usize, games: u64) -> u64 {
    let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(1);
    let (mut legal, mut events) = (Vec::with_capacity(256), Vec::with_capacity(64));
    let mut decisions = 0;
    for seed in 0..games {
        events.clear();
        let mut game = G::new(players, seed, &G::Options::default(), &mut events).unwrap();
        while let Some(seat) = game.to_act() {
            legal.clear();
            game.legal_actions(&mut legal);
            let a = legal[(rng.next_u32() as usize) % legal.len()].clone();
            events.clear();
            game.apply(seat, &a, &mut events).unwrap();
            decisions += 1;
        }
    }
    decisions
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let game = args.get(1).map_or("meduris", String::as_str);
    let players = args.get(2).and_then(|a| a.parse().ok()).unwrap_or(4);
    let games = args.get(3).and_then(|a| a.parse().ok()).unwrap_or(1000);
    let decisions = match game {
        "dolmen" => play::<Dolmen>(players, games),
        _ => play::<Meduris>(players, games),
    };
    println!("{game} {players} players: {games} games, {decisions} decisions");
}
