//! A game as text (`Game.serialize`, and so pickle): the engine's own serde
//! form of the complete state (`druids-engine`'s `serde` feature: hidden
//! information, the seed's stream and a pending draw included), beside what
//! the Python object keeps of its own — the seed it was made with, the chance
//! mode asked for and the steps taken since (`Game.history`). One line of
//! JSON; restoring it rebuilds the game at once, replaying nothing.

use std::borrow::Cow;

use druids_engine::ChanceMode;
use serde::{Deserialize, Serialize};

/// One step of a game's history, written as an action index, `{"chance":
/// outcome}`, or the mode switched to (`"seeded"`, `"explicit"`).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub(crate) enum Step {
    /// An action, by index in the fixed action space.
    Action(usize),
    /// A chance outcome.
    Chance {
        /// The outcome supplied.
        chance: usize,
    },
    /// A switch of the chance mode.
    Mode(ChanceMode),
}

/// What the Python object keeps beside the engine's state.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct Record {
    pub players: usize,
    /// The seed the game was made with (a resampled game keeps its origin's).
    pub seed: u64,
    /// The chance mode asked for last (a game without draws keeps it too).
    pub chance: ChanceMode,
    pub history: Vec<Step>,
}

/// The text form: the game's name, the record, the engine's state.
#[derive(Serialize, Deserialize)]
#[serde(bound(serialize = "G: Serialize", deserialize = "G: Deserialize<'de>"))]
pub(crate) struct Saved<'a, G: Clone> {
    pub game: Cow<'a, str>,
    pub record: Cow<'a, Record>,
    pub state: Cow<'a, G>,
}

/// The name of the game a text is of, read before the rest.
pub(crate) fn game_name(text: &str) -> Result<String, String> {
    #[derive(Deserialize)]
    struct Name {
        game: String,
    }
    serde_json::from_str::<Name>(text)
        .map(|n| n.game)
        .map_err(|e| format!("not a serialised game: {e}"))
}
