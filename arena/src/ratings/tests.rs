//! Tests of the results, the live ratings and the fit against simulated bots
//! whose true strengths are known.

use rand_core::{RngCore, SeedableRng};
use rand_pcg::Pcg64Mcg;

use super::*;

/// Plays `games` Plackett-Luce games of `seats` players among bots of the
/// given true strengths (bot i has id i). A fraction `tie_rate` of the games
/// end with the second and third places tied.
pub(super) fn simulate(
    strengths: &[f64],
    seats: usize,
    games: usize,
    tie_rate: f64,
    seed: u64,
) -> Vec<GameResult> {
    let mut rng = Pcg64Mcg::seed_from_u64(seed);
    let mut uniform = move || ((rng.next_u64() >> 11) as f64 + 0.5) / (1u64 << 53) as f64;
    let mut bots: Vec<usize> = (0..strengths.len()).collect();
    (0..games)
        .map(|_| {
            // The first `seats` of a partial Fisher-Yates shuffle.
            for i in 0..seats {
                let j = i + (uniform() * (bots.len() - i) as f64) as usize;
                bots.swap(i, j);
            }
            // θ plus Gumbel noise, sorted, is a Plackett-Luce draw.
            let mut scored: Vec<(f64, usize)> = bots[..seats]
                .iter()
                .map(|&b| (strengths[b] - (-uniform().ln()).ln(), b))
                .collect();
            let tie = uniform() < tie_rate;
            scored.sort_by(|a, b| b.0.total_cmp(&a.0));
            // Seats stay in drawn order; ranks come from the sorted scores.
            let players = bots[..seats]
                .iter()
                .map(|&b| {
                    let place = scored.iter().position(|s| s.1 == b).expect("seated") as u32 + 1;
                    let rank = if tie && place == 3 { 2 } else { place };
                    (BotId(b as u64), rank)
                })
                .collect();
            GameResult::new(players).expect("valid game")
        })
        .collect()
}

fn game(players: &[(u64, u32)]) -> GameResult {
    GameResult::new(players.iter().map(|&(b, r)| (BotId(b), r)).collect()).expect("valid game")
}

/// Eight bots half a θ apart: bot 0 weakest, bot 7 strongest.
fn eight_strengths() -> Vec<f64> {
    (0..8).map(|i| (i as f64 - 3.5) * 0.5).collect()
}

// --- Results ---

#[test]
fn a_result_needs_two_distinct_players() {
    assert_eq!(GameResult::new(vec![]), Err(ResultError::TooFewPlayers(0)));
    assert_eq!(
        GameResult::new(vec![(BotId(1), 1)]),
        Err(ResultError::TooFewPlayers(1))
    );
    assert_eq!(
        GameResult::new(vec![(BotId(1), 1), (BotId(2), 2), (BotId(1), 3)]),
        Err(ResultError::DuplicateBot(BotId(1)))
    );
}

#[test]
fn scores_become_ranks_with_ties() {
    let r = GameResult::from_scores(&[
        (BotId(1), 30),
        (BotId(2), 42),
        (BotId(3), 30),
        (BotId(4), 7),
    ])
    .expect("valid");
    assert_eq!(
        r.players(),
        &[(BotId(1), 2), (BotId(2), 1), (BotId(3), 2), (BotId(4), 4)]
    );
}

// --- Live ratings ---

#[test]
fn an_unknown_bot_has_the_initial_rating() {
    let live = LiveRatings::default();
    let r = live.get(BotId(9));
    assert_eq!((r.mu, r.sigma, r.games), (25.0, 25.0 / 3.0, 0));
    assert!(r.display().abs() < 1e-12);
    assert!(live.is_empty() && !live.contains(BotId(9)));
    let mut live = live;
    let saved = LiveRating {
        mu: 30.0,
        sigma: 2.0,
        games: 12,
    };
    live.set(BotId(9), saved);
    assert_eq!(live.get(BotId(9)), saved);
    assert!((saved.display() - 24.0).abs() < 1e-12);
}

#[test]
fn recording_moves_winners_up_and_losers_down() {
    let mut live = LiveRatings::default();
    let changes = live.record(&game(&[(1, 3), (2, 1), (3, 2), (4, 4)]));
    assert_eq!(
        changes.iter().map(|c| c.bot.0).collect::<Vec<_>>(),
        [1, 2, 3, 4]
    );
    let mu = |b: u64| live.get(BotId(b)).mu;
    assert!(mu(2) > mu(3) && mu(3) > mu(1) && mu(1) > mu(4));
    for c in &changes {
        assert_eq!(c.before.games, 0);
        assert_eq!(c.after.games, 1);
        assert!(c.after.sigma < c.before.sigma);
        assert_eq!(live.get(c.bot), c.after);
    }
    assert_eq!(live.leaderboard()[0].0, BotId(2));
}

#[test]
fn a_tie_between_equals_moves_no_mean() {
    let mut live = LiveRatings::default();
    for c in live.record(&game(&[(1, 1), (2, 1)])) {
        assert!((c.after.mu - 25.0).abs() < 1e-12);
        assert!(c.after.sigma < c.before.sigma);
    }
}

#[test]
fn replay_is_bit_identical_to_recording_one_by_one() {
    let results = simulate(&eight_strengths(), 4, 300, 0.1, 1);
    let mut one_by_one = LiveRatings::default();
    for r in &results {
        one_by_one.record(r);
    }
    let replayed = LiveRatings::replay(LiveConfig::default(), &results);
    let bits = |live: &LiveRatings| {
        live.iter()
            .map(|(b, r)| (b, r.mu.to_bits(), r.sigma.to_bits(), r.games))
            .collect::<Vec<_>>()
    };
    assert_eq!(bits(&one_by_one), bits(&replayed));
    assert_eq!(replayed.len(), 8);
}

#[test]
fn live_ratings_order_simulated_bots() {
    let results = simulate(&eight_strengths(), 4, 400, 0.05, 2);
    let live = LiveRatings::replay(LiveConfig::default(), &results);
    let order: Vec<u64> = live.leaderboard().iter().map(|(b, _)| b.0).collect();
    // The live rating is noisier than the fit: ask for the ends and for few
    // inversions (pairs out of order), not the exact order.
    assert_eq!((order[0], order[7]), (7, 0), "{order:?}");
    let inversions = (0..8)
        .flat_map(|i| (i + 1..8).map(move |j| (i, j)))
        .filter(|&(i, j)| order[i] < order[j])
        .count();
    assert!(inversions <= 3, "{inversions} inversions in {order:?}");
}

// --- Fit ---

#[test]
fn a_fit_over_nothing_is_empty() {
    let f = fit(&[], &FitConfig::default()).expect("valid config");
    assert!(f.bots.is_empty() && f.converged);
    assert_eq!((f.results, f.iterations), (0, 0));
    assert!(f.leaderboard().is_empty() && f.get(BotId(1)).is_none());
}

#[test]
fn an_improper_prior_is_refused() {
    let results = [game(&[(1, 1), (2, 2)])];
    for prior_sd in [0.0, -1.0, f64::INFINITY, f64::NAN] {
        let config = FitConfig {
            prior_sd,
            ..FitConfig::default()
        };
        assert!(matches!(
            fit(&results, &config),
            Err(FitError::InvalidPrior(_))
        ));
    }
    let config = FitConfig {
        tolerance: 0.0,
        ..FitConfig::default()
    };
    assert_eq!(fit(&results, &config), Err(FitError::InvalidTolerance(0.0)));
}

#[test]
fn seat_order_and_rank_numbering_do_not_matter() {
    let mut input = FitInput::new();
    input.add(&game(&[(1, 1), (2, 1), (3, 3)]));
    input.add(&game(&[(3, 2), (2, 1), (1, 1)]));
    assert_eq!((input.len(), input.distinct_rankings()), (2, 1));
}

#[test]
fn two_bots_match_the_closed_form() {
    // Bot 1 wins 30 of 40: θ1 = −θ2 = x solves 30 − 40·σ(2x) − x/s² = 0,
    // and the centred variance is 1 / (2·(2c + 1/s²)) with c = 40·p·(1−p).
    let mut results = vec![game(&[(1, 1), (2, 2)]); 30];
    results.extend(vec![game(&[(1, 2), (2, 1)]); 10]);
    let config = FitConfig::default();
    let f = fit(&results, &config).expect("valid config");
    assert!(f.converged);
    let x = f.get(BotId(1)).expect("fitted").theta.value;
    assert!((x + f.get(BotId(2)).expect("fitted").theta.value).abs() < 1e-12);
    let lambda = 1.0 / (config.prior_sd * config.prior_sd);
    let p = 1.0 / (1.0 + (-2.0 * x).exp());
    assert!((30.0 - 40.0 * p - lambda * x).abs() < 1e-9);
    let c = 40.0 * p * (1.0 - p);
    let se = (1.0 / (2.0 * (2.0 * c + lambda))).sqrt();
    assert!((f.get(BotId(1)).expect("fitted").std_error - se).abs() < 1e-9);
    // The prior is weak: close to the unpenalised ½·ln 3.
    assert!((x - 0.5 * 3f64.ln()).abs() < 0.02);
}

#[test]
fn a_bot_that_always_wins_stays_finite() {
    let results = vec![game(&[(1, 1), (2, 2), (3, 3)]); 50];
    let f = fit(&results, &FitConfig::default()).expect("valid config");
    assert!(f.converged);
    let top = f.get(BotId(1)).expect("fitted");
    assert!(top.theta.value.is_finite() && top.theta.high.is_finite() && top.theta.value > 2.0);
    assert_eq!(top.games, 50);
}

#[test]
fn ties_pull_strengths_together() {
    let wins = vec![game(&[(1, 1), (2, 2)]); 6];
    let mut with_ties = wins.clone();
    with_ties.extend(vec![game(&[(1, 1), (2, 1)]); 6]);
    let gap = |results: &[GameResult]| {
        let f = fit(results, &FitConfig::default()).expect("valid config");
        f.get(BotId(1)).expect("fitted").theta.value - f.get(BotId(2)).expect("fitted").theta.value
    };
    assert!(gap(&with_ties) < gap(&wins));
    let draws = vec![game(&[(1, 1), (2, 1), (3, 1)]); 5];
    let f = fit(&draws, &FitConfig::default()).expect("valid config");
    assert!(f.bots.iter().all(|b| b.theta.value.abs() < 1e-12));
}

#[test]
fn the_fit_does_not_depend_on_the_order_of_results() {
    let results = simulate(&eight_strengths(), 4, 400, 0.1, 3);
    let config = FitConfig::default();
    let a = fit(&results, &config).expect("valid config");
    // Reverse the results, rotate every game's seats, renumber tied ranks.
    let shuffled: Vec<GameResult> = results
        .iter()
        .rev()
        .map(|r| {
            let mut players = r.players().to_vec();
            players.rotate_left(1);
            let players = players
                .into_iter()
                .map(|(b, rank)| (b, rank * 10))
                .collect();
            GameResult::new(players).expect("valid game")
        })
        .collect();
    let b = fit(&shuffled, &config).expect("valid config");
    assert_eq!(a.bots.len(), b.bots.len());
    for (x, y) in a.bots.iter().zip(&b.bots) {
        assert_eq!(x.bot, y.bot);
        assert!((x.theta.value - y.theta.value).abs() < 1e-9);
        assert!((x.std_error - y.std_error).abs() < 1e-9);
    }
}

#[test]
fn the_fit_recovers_simulated_strengths() {
    let truth = eight_strengths();
    let results = simulate(&truth, 4, 400, 0.05, 4);
    let f = fit(&results, &FitConfig::default()).expect("valid config");
    assert!(
        f.converged && f.iterations < 20,
        "{} iterations",
        f.iterations
    );
    assert_eq!(f.results, 400);
    let order: Vec<u64> = f.leaderboard().iter().map(|b| b.bot.0).collect();
    assert_eq!(order, [7, 6, 5, 4, 3, 2, 1, 0]);
    let strong = f.get(BotId(7)).expect("fitted");
    let weak = f.get(BotId(0)).expect("fitted");
    assert!(strong.theta.separated_from(&weak.theta));
    assert!(strong.display().separated_from(&weak.display()));
    let mean: f64 = f.bots.iter().map(|b| b.theta.value).sum::<f64>() / 8.0;
    assert!(mean.abs() < 1e-12);
    // 95 % intervals: one miss in eight is ordinary, two would be suspicious.
    let misses = f
        .bots
        .iter()
        .filter(|b| {
            let t = truth[b.bot.0 as usize];
            !(b.theta.low < t && t < b.theta.high)
        })
        .count();
    assert!(
        misses <= 1,
        "{misses} intervals miss the truth: {:?}",
        f.bots
    );
    assert_eq!(f.bots.iter().map(|b| b.games).sum::<u64>(), 1600);
}

#[test]
fn the_display_scale_is_elo_like() {
    assert_eq!(elo(0.0), 1500.0);
    assert!((elo(std::f64::consts::LN_10) - 1900.0).abs() < 1e-9);
    let e = Estimate {
        value: 0.5,
        low: 0.25,
        high: 0.75,
    }
    .to_display();
    assert!((e.value - elo(0.5)).abs() < 1e-12 && (e.low - elo(0.25)).abs() < 1e-12);
    assert!((e.high - elo(0.75)).abs() < 1e-12);
}

// --- Properties over arbitrary small pools ---

mod properties {
    use proptest::prelude::*;

    use super::*;

    /// Up to 30 games of 2 to 4 players among 6 bots, any ranks (ties too).
    fn results() -> impl Strategy<Value = Vec<GameResult>> {
        let one = (2usize..=4)
            .prop_flat_map(|seats| {
                (
                    proptest::sample::subsequence((0u64..6).collect::<Vec<_>>(), seats)
                        .prop_shuffle(),
                    proptest::collection::vec(1u32..=4, seats),
                )
            })
            .prop_map(|(bots, ranks)| {
                GameResult::new(bots.into_iter().map(BotId).zip(ranks).collect())
                    .expect("distinct bots")
            });
        proptest::collection::vec(one, 0..30)
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        #[test]
        fn every_fit_converges_to_finite_centred_strengths(results in results()) {
            let f = fit(&results, &FitConfig::default()).expect("valid config");
            prop_assert!(f.converged);
            prop_assert_eq!(f.results, results.len() as u64);
            let sum: f64 = f.bots.iter().map(|b| b.theta.value).sum();
            prop_assert!(sum.abs() < 1e-9);
            for b in &f.bots {
                prop_assert!(b.theta.value.is_finite() && b.std_error.is_finite() && b.std_error > 0.0);
                prop_assert!(b.theta.low < b.theta.value && b.theta.value < b.theta.high);
            }
            let reversed: Vec<GameResult> = results.iter().rev().cloned().collect();
            prop_assert_eq!(fit(&reversed, &FitConfig::default()).expect("valid config").bots, f.bots);
        }

        #[test]
        fn live_ratings_stay_finite_and_count_games(results in results()) {
            let live = LiveRatings::replay(LiveConfig::default(), &results);
            let games: u64 = live.iter().map(|(_, r)| u64::from(r.games)).sum();
            prop_assert_eq!(games, results.iter().map(|r| r.len() as u64).sum::<u64>());
            for (_, r) in live.iter() {
                prop_assert!(r.mu.is_finite() && r.sigma.is_finite() && r.sigma > 0.0);
            }
        }
    }
}

/// The Weng-Lin update, checked against OpenSkill's (the Python `openskill`
/// 6.2.0 package, `BradleyTerryFull` with the arena's constants and kappa
/// = 1e-6): the values below are its output, produced by
/// `arena/src/ratings/openskill_reference.py` (the command is in its
/// docstring). Before, mean and uncertainty of each bot, its rank, and
/// OpenSkill's mean and uncertainty after.
#[test]
fn the_update_matches_openskill() {
    type Case = (&'static str, &'static [(f64, f64, u32, f64, f64)]);
    const CASES: [Case; 4] = [
        (
            "two new bots, the first wins",
            &[
                (25.0, 25.0 / 3.0, 1, 27.635389493140497, 8.06590141354368),
                (25.0, 25.0 / 3.0, 2, 22.364610506859503, 8.06590141354368),
            ],
        ),
        (
            "four bots of unequal ratings, a tie for second",
            &[
                (30.0, 4.0, 1, 31.427420091980593, 3.9027914838455127),
                (22.0, 6.5, 2, 22.718813677111783, 5.8408164697015685),
                (25.0, 25.0 / 3.0, 2, 24.444332008482675, 6.97352931576029),
                (18.0, 2.0, 4, 17.60657904996135, 1.9947748510368801),
            ],
        ),
        (
            "three bots tie",
            &[
                (27.0, 3.0, 1, 26.743729445001676, 2.977752809515674),
                (25.0, 25.0 / 3.0, 1, 24.644510832929313, 7.392885726767116),
                (20.0, 5.0, 1, 20.839510235876514, 4.83173676638089),
            ],
        ),
        (
            "an upset: the weakest of three wins",
            &[
                (35.0, 2.5, 3, 33.605865205999336, 2.4884564094667003),
                (28.0, 3.5, 2, 27.921480598854806, 3.4412787720551483),
                (15.0, 4.0, 1, 18.669113588425894, 3.947224538734436),
            ],
        ),
    ];
    for (name, bots) in CASES {
        let mut live = LiveRatings::default();
        for (i, &(mu, sigma, ..)) in bots.iter().enumerate() {
            live.set(
                BotId(i as u64),
                LiveRating {
                    mu,
                    sigma,
                    games: 1,
                },
            );
        }
        let ranks: Vec<(u64, u32)> = (0..bots.len()).map(|i| (i as u64, bots[i].2)).collect();
        let changes = live.record(&game(&ranks));
        for (change, &(.., mu, sigma)) in changes.iter().zip(bots) {
            let (got_mu, got_sigma) = (change.after.mu, change.after.sigma);
            assert!(
                (got_mu - mu).abs() < 1e-9 && (got_sigma - sigma).abs() < 1e-9,
                "{name}: bot {}: ({got_mu}, {got_sigma}), OpenSkill ({mu}, {sigma})",
                change.bot.0
            );
        }
    }
}
