//! Ratings: live multiplayer ratings and the maximum-likelihood fit.
