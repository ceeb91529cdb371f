//! Pure rules engines for the games hosted by druids.
//!
//! Every game implements [`Game`]: deterministic from its seed, no I/O, no async.
//! The server and bots drive games only through that trait.
//!
//! With the `serde` feature, each game ([`meduris::Meduris`],
//! [`dolmen::Dolmen`]) is `Serialize` and `Deserialize`: its complete state
//! (hidden information, the seed's stream and the chance mode included) in
//! any serde format, restored exactly and checked to be a playable position
//! before it is accepted.

#![warn(missing_docs)]

mod chance;
mod game;
mod tensor;

pub use game::{
    Determinize, DeterminizeError, Evaluate, Game, Outcome, Rejection, RuleViolation, Seat,
    SetupError, TurnError, Viewer,
};

pub use chance::{Chance, ChanceError, ChanceMode, Draw, play_script};

pub use tensor::{Section, Tensors, legal_indices};

pub mod dolmen;
pub mod meduris;

/// Cairn, a small game kept in the test tree (`tests/cairn/`) that proves a
/// game is added through the files `docs/adding-a-game.md` names; built only
/// with the `test-game` feature, which the test builds turn on.
#[cfg(feature = "test-game")]
#[path = "../../tests/cairn/engine.rs"]
pub mod cairn;
