//! One game on a server, as a person or a script handles it: create or join
//! it, list the server's games, look at one or watch it, export its replay
//! and check a replay file, ask whether the server is serving. Playing a
//! seat is in [`crate::seat`].

pub mod create;
pub mod health;
pub mod list;
pub mod replays;
pub mod view;
