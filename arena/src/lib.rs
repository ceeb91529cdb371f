//! The arena's pure parts, kept apart from the server so that they can be
//! tested and measured without a network or a database: ratings (the live
//! multiplayer rating and the periodic maximum-likelihood fit), the
//! matchmaking pool, the schedules of tournaments and duplicate matches, and
//! the statistics of an evaluation (win rates, mean scores, a fit of many
//! games between programs). Everything here is deterministic: the same
//! inputs give the same outputs.

pub mod evaluation;
pub mod pairing;
pub mod ratings;
