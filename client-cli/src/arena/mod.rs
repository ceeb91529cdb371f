//! The arena from the command line (`proto/druids/v1/arena.proto`): bots
//! and the ladder. A bot's account (`register`, `rotate-key`, `revoke-bot`),
//! ratings (`leaderboard`, `bot-info`), challenges, the tournaments the
//! server runs (`arena-tournament`), and the ladder of `druids bot --seek`
//! and `--events`.

pub mod accounts;
pub mod challenge;
pub mod client;
pub mod ladder;
pub mod ratings;
pub mod resume;
pub mod tournament;
