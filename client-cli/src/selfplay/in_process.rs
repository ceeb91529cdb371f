//! In-process self-play: random bots playing complete games directly on the
//! engines, several games at a time on worker threads. This measures the rules
//! engines alone; `--server` mode (see `selfplay`) goes through gRPC instead.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use std::sync::Mutex;

use druids_contract::codec::encode_outcome;
use druids_contract::pb;
use druids_engine::Game;
use rand_core::{RngCore, SeedableRng};
use rand_pcg::Pcg64Mcg;

use crate::connect::CliError;
use crate::lines::{GameRecord, game_line};
use crate::output::GameLog;

/// Totals of a self-play run.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Totals {
    /// Games started.
    pub games: u64,
    /// Games played to the end.
    pub completed: u64,
    /// Games that failed (an engine error: a listed action was refused).
    pub errors: u64,
    /// Actions applied.
    pub actions: u64,
}

/// Plays `games` random games of `G` with `players` seats on `threads` threads.
/// Game `i` uses seed `seed + i`, so a run is reproducible; each game is
/// reported to `log` as it ends.
pub fn run<G: Game>(
    players: usize,
    games: u64,
    threads: usize,
    seed: u64,
    log: &GameLog,
) -> Result<(Totals, f64), CliError> {
    // Fail early on a bad player count rather than once per game.
    G::new(players, seed, &G::Options::default(), &mut Vec::new())?;
    let next = AtomicU64::new(0);
    let failed: Mutex<Option<CliError>> = Mutex::new(None);
    let seats = vec!["random".to_owned(); players];
    let started = Instant::now();
    let totals = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads.max(1))
            .map(|_| {
                scope.spawn(|| {
                    let mut t = Totals::default();
                    let mut legal = Vec::new();
                    let mut events = Vec::new();
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        if i >= games {
                            break t;
                        }
                        t.games += 1;
                        let game_seed = seed.wrapping_add(i);
                        let played = play_one::<G>(players, game_seed, &mut legal, &mut events);
                        let (n, outcome) = match played {
                            Ok((n, outcome)) => {
                                t.completed += 1;
                                (n, outcome)
                            }
                            Err(n) => {
                                t.errors += 1;
                                (n, None)
                            }
                        };
                        t.actions += n;
                        let logged = log.game(|| {
                            game_line(&GameRecord {
                                index: i,
                                game_id: &format!("selfplay-{seed}-{i}"),
                                seed: game_seed,
                                seats: &seats,
                                outcome: outcome.as_ref(),
                                actions: n,
                                error: outcome
                                    .is_none()
                                    .then_some("the engine refused an action it listed"),
                            })
                        });
                        if let Err(e) = logged {
                            failed
                                .lock()
                                .expect("no panics while locked")
                                .get_or_insert(e);
                            next.store(games, Ordering::Relaxed);
                        }
                    }
                })
            })
            .collect();
        workers.into_iter().fold(Totals::default(), |mut acc, w| {
            let t = w.join().expect("self-play worker panicked");
            acc.games += t.games;
            acc.completed += t.completed;
            acc.errors += t.errors;
            acc.actions += t.actions;
            acc
        })
    });
    if let Some(e) = failed.into_inner().expect("no panics while locked") {
        return Err(e);
    }
    Ok((totals, started.elapsed().as_secs_f64()))
}

/// One game between random bots; `Ok((actions, outcome))` when it ended,
/// `Err(actions)` when the engine refused an action it had listed.
fn play_one<G: Game>(
    players: usize,
    seed: u64,
    legal: &mut Vec<G::Action>,
    events: &mut Vec<G::Event>,
) -> Result<(u64, Option<pb::Outcome>), u64> {
    events.clear();
    let mut game = G::new(players, seed, &G::Options::default(), events).map_err(|_| 0u64)?;
    let mut rng = Pcg64Mcg::seed_from_u64(seed ^ 0xb07);
    let mut n = 0;
    while let Some(seat) = game.to_act() {
        legal.clear();
        game.legal_actions(legal);
        if legal.is_empty() {
            return Err(n);
        }
        let action = legal[(rng.next_u32() as usize) % legal.len()].clone();
        events.clear();
        game.apply(seat, &action, events).map_err(|_| n)?;
        n += 1;
    }
    Ok((n, game.outcome().map(|o| encode_outcome(&o))))
}
