//! The ladder of `druids bot --seek` and `--events` (`proto/druids/v1/arena.proto`).
//!
//! The ladder keeps `--concurrent` seeks going. Each one waits in the pool
//! until the server forms a match, plays every game the Seek stream names
//! (the bot's API key is its seat's token there) with the same strategy as
//! `druids bot`, and seeks again once the match is over, until `--games`
//! matches were started or Ctrl-C: the first Ctrl-C cancels the open seeks
//! and lets the matches in progress finish, a second one quits at once.
//!
//! With `--events` the bot also follows its event log and plays the games
//! of the matches it did not seek (tournaments, challenges):
//! [`events`]. A game is played once whoever names it first (the
//! Seek stream or the log): the ladder claims every game id it starts.
//!
//! stdout gets one JSON line per game played and one per match finished;
//! progress goes to stderr.

pub mod events;
pub mod lines;
pub mod run;
mod seek;
mod state;
