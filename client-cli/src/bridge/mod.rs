//! `druids bot --exec CMD`: plays a seat with a program in any language that
//! reads JSON lines on stdin and prints its moves on stdout (as UCI engines,
//! lichess-bot or CodinGame bots do). The bot needs no gRPC, no stubs and no
//! networking; the bridge does all of that and shields the server from the
//! bot's faults.
//!
//! The bridge follows the game's event stream (resuming a broken stream by
//! seq), asks the bot whenever its seat must decide, checks the answer against
//! the legal actions before anything reaches the server, and submits it with
//! an idempotency key (retried as is when the server is unavailable or the
//! connection breaks). A bot
//! that answers too late, answers garbage, crashes or floods its output is
//! handled here: the server only ever sees legal actions the bot chose, and its
//! turn clock covers the seat while the bot is away. `docs/bot-protocol.md` is
//! the bot author's manual; [`protocol`] is the wire format, [`child`] the
//! process handling.

mod answers;
mod child;
pub mod in_process;
mod protocol;
mod session;

pub use session::{Options, run_game};
