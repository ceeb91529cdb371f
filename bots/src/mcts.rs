//! Information-set Monte Carlo tree search (single-observer ISMCTS, Cowling,
//! Powley & Whitehouse 2012) with determinization.
//!
//! Every iteration deals the hidden information afresh from the bot's view
//! ([`druids_engine::Determinize`]), walks one shared tree whose edges are actions,
//! choosing among the children legal in *this* determinization by UCB1 with
//! availability counts, expands one new action, plays the rest of the game out
//! at random, and backs the result up: each node is scored from the point of
//! view of the seat that took the action leading to it. The most visited root
//! action is played.

use std::time::{Duration, Instant};

use druids_engine::Seat;
use rand_core::{RngCore, SeedableRng};
use rand_pcg::Pcg64Mcg;

use crate::{Bot, Searchable};

/// How long MCTS thinks per decision.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Budget {
    /// A fixed number of iterations (reproducible).
    Iterations(u32),
    /// A wall-clock time limit.
    Time(Duration),
}

/// Exploration constant of UCB1 (rewards are in [0, 1]).
const EXPLORATION: f64 = 0.7;
/// Playouts longer than this many actions are cut short and scored by the
/// evaluation (safety net; Meduris games are far shorter).
const MAX_PLAYOUT: usize = 2_000;

/// The ISMCTS bot.
pub struct Mcts {
    rng: Pcg64Mcg,
    budget: Budget,
}

impl Mcts {
    /// An MCTS bot with a seeded generator and a thinking budget per decision.
    pub fn new(seed: u64, budget: Budget) -> Mcts {
        Mcts {
            rng: Pcg64Mcg::seed_from_u64(seed),
            budget,
        }
    }
}

struct Node<A> {
    /// Seat that took the action leading here (rewards are from its side).
    mover: Option<Seat>,
    visits: u32,
    /// Times this node was available for selection at its parent.
    available: u32,
    reward: f64,
    children: Vec<(A, usize)>,
}

impl<G: Searchable> Bot<G> for Mcts {
    fn name(&self) -> &'static str {
        crate::Strategy::Mcts.name()
    }

    fn choose(&mut self, _seat: Seat, view: &G::View, legal: &[G::Action]) -> G::Action {
        if legal.len() == 1 {
            return legal[0].clone();
        }
        let mut tree: Vec<Node<G::Action>> = vec![Node {
            mover: None,
            visits: 0,
            available: 0,
            reward: 0.0,
            children: Vec::new(),
        }];
        let started = Instant::now();
        let mut iterations = 0u32;
        let mut moves = Vec::new();
        let mut events = Vec::new();
        let mut path = Vec::new();
        loop {
            match self.budget {
                Budget::Iterations(n) if iterations >= n => break,
                Budget::Time(t) if iterations > 0 && started.elapsed() >= t => break,
                _ => {}
            }
            iterations += 1;
            // A view that describes no position (never one the engine made)
            // leaves the search empty: the first legal action is chosen.
            let Ok(mut game) = G::determinize(view, self.rng.next_u64()) else {
                break;
            };
            path.clear();
            path.push(0);
            let mut node = 0;
            // Selection and expansion.
            while let Some(to_act) = game.to_act() {
                moves.clear();
                game.legal_actions(&mut moves);
                let untried: Vec<usize> = (0..moves.len())
                    .filter(|&i| !tree[node].children.iter().any(|(a, _)| *a == moves[i]))
                    .collect();
                let (action, child) = if !untried.is_empty() {
                    let a = moves[untried[self.rng.next_u32() as usize % untried.len()]].clone();
                    let id = tree.len();
                    tree.push(Node {
                        mover: Some(to_act),
                        visits: 0,
                        available: 0,
                        reward: 0.0,
                        children: Vec::new(),
                    });
                    tree[node].children.push((a.clone(), id));
                    (a, id)
                } else {
                    let mut best = (f64::NEG_INFINITY, usize::MAX);
                    let children = tree[node].children.clone();
                    for (a, c) in &children {
                        if !moves.contains(a) {
                            continue;
                        }
                        tree[*c].available += 1;
                        let n = &tree[*c];
                        let visits = n.visits.max(1) as f64;
                        let ucb = n.reward / visits
                            + EXPLORATION * ((n.available.max(1) as f64).ln() / visits).sqrt();
                        if ucb > best.0 {
                            best = (ucb, *c);
                        }
                    }
                    let a = children
                        .iter()
                        .find(|(_, c)| *c == best.1)
                        .map(|(a, _)| a.clone())
                        .expect("a legal child exists");
                    (a, best.1)
                };
                events.clear();
                if game.apply(to_act, &action, &mut events).is_err() {
                    break;
                }
                path.push(child);
                node = child;
                if tree[child].visits == 0 {
                    break;
                }
            }
            // Playout.
            let mut steps = 0;
            while let Some(to_act) = game.to_act() {
                if steps >= MAX_PLAYOUT {
                    break;
                }
                moves.clear();
                game.legal_actions(&mut moves);
                let a = moves[self.rng.next_u32() as usize % moves.len()].clone();
                events.clear();
                if game.apply(to_act, &a, &mut events).is_err() {
                    break;
                }
                steps += 1;
            }
            let rewards = rewards(&game);
            for &id in &path {
                let n = &mut tree[id];
                n.visits += 1;
                if let Some(m) = n.mover {
                    n.reward += rewards[m.index()];
                }
            }
        }
        let root = &tree[0];
        root.children
            .iter()
            .filter(|(a, _)| legal.contains(a))
            .max_by_key(|(_, c)| tree[*c].visits)
            .map(|(a, _)| a.clone())
            .unwrap_or_else(|| legal[0].clone())
    }
}

/// Reward of each seat in [0, 1]: a win counts 1 (shared among tied winners),
/// and a tenth of the reward follows the final rank so that losing well is
/// preferred to losing badly. Unfinished playouts use the evaluation's ranking.
fn rewards<G: Searchable>(game: &G) -> Vec<f64> {
    let n = game.players();
    let mut r = vec![0.0; n];
    let ranking: Vec<Seat> = match game.outcome() {
        Some(o) => {
            let share = 0.9 / o.winners.len() as f64;
            for w in &o.winners {
                r[w.index()] += share;
            }
            o.ranking
        }
        None => {
            let mut seats: Vec<Seat> = (0..n as u8).map(Seat).collect();
            seats.sort_by(|a, b| game.evaluate(*b).total_cmp(&game.evaluate(*a)));
            seats
        }
    };
    for (place, s) in ranking.iter().enumerate() {
        r[s.index()] += 0.1 * (n - 1 - place) as f64 / (n - 1).max(1) as f64;
    }
    r
}
