//! The arena from the command line (`proto/druids/v1/arena.proto`): bots
//! and the ladder. A bot's account (`register`, `rotate-key`, `revoke-bot`),
//! ratings (`leaderboard`, `bot-info`), the pools before seeking (`pools`),
//! challenges, the tournaments the
//! server runs (`arena-tournament`), and the ladder of `druids bot --seek`
//! and `--events`.

pub mod accounts;
pub mod challenge;
pub mod client;
pub mod ladder;
pub mod pools;
pub mod ratings;
pub mod resume;
pub mod tournament;
