//! The arena's matchmaking windows against the README's.

use super::{POOL, pool_rating};

/// The README's matchmaking windows, in mu: the pool's window around a
/// seek, turned back from the pool's points into mu.
fn window_in_mu(waited_ms: u64) -> f64 {
    POOL.window(waited_ms) / (pool_rating(26.0) - pool_rating(25.0))
}

#[test]
fn the_matchmaking_windows_are_the_readmes() {
    // "within ±5 mu at once, widening to ±20 mu after 10 s; after 15 s
    // any rating"
    assert!((window_in_mu(0) - 5.0).abs() < 1e-9, "{}", window_in_mu(0));
    assert!(
        (window_in_mu(10_000) - 20.0).abs() < 1e-9,
        "{}",
        window_in_mu(10_000)
    );
    assert!(window_in_mu(9_000) < 20.0 && window_in_mu(5_000) > 5.0);
    assert!(window_in_mu(14_999).is_finite());
    assert_eq!(POOL.window(15_000), f64::INFINITY);
    // The scale: 20 points per mu, a new bot at 1500.
    assert_eq!(pool_rating(25.0), 1500.0);
    assert_eq!(pool_rating(30.0) - pool_rating(25.0), 100.0);
}
