//! How a game came to be, as data: its set-up (a new game, or one resampled
//! from a seat's view) and every step since. Replaying a recipe through the
//! engine rebuilds the game exactly (the engine is deterministic), so it is
//! the game's serialisation (OpenSpiel serialises a state the same way, as
//! its history), and it survives any change of the engine's memory layout.

use druids_engine::ChanceMode;
use serde_json::{Value, json};

/// Where a game starts.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Base {
    /// A new game from the recipe's seed.
    New,
    /// `determinize` of a seat's view (a `StateView`, encoded) with `seed`.
    Resampled { view: Vec<u8>, seed: u64 },
}

/// One step of a game's history.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Step {
    /// An action, by index in the fixed action space.
    Action(usize),
    /// A chance outcome.
    Chance(usize),
    /// A switch of the chance mode.
    Mode(ChanceMode),
}

/// A game's set-up and history.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Recipe {
    pub game: String,
    pub players: usize,
    pub seed: u64,
    pub start_seat: u32,
    pub max_turns: u32,
    /// Whether the game was set up in explicit chance mode.
    pub explicit: bool,
    pub base: Base,
    pub history: Vec<Step>,
}

impl Recipe {
    /// Whether draws are explicit now (the last switch, or the set-up's).
    pub(crate) fn explicit_now(&self) -> bool {
        self.history
            .iter()
            .rev()
            .find_map(|s| match s {
                Step::Mode(m) => Some(*m == ChanceMode::Explicit),
                _ => None,
            })
            .unwrap_or(self.explicit)
    }

    /// The recipe as one line of JSON.
    pub(crate) fn to_json(&self) -> String {
        let history: Vec<Value> = self
            .history
            .iter()
            .map(|s| match s {
                Step::Action(i) => json!(i),
                Step::Chance(o) => json!({ "chance": o }),
                Step::Mode(ChanceMode::Seeded) => json!("seeded"),
                Step::Mode(ChanceMode::Explicit) => json!("explicit"),
            })
            .collect();
        let base = match &self.base {
            Base::New => Value::Null,
            Base::Resampled { view, seed } => json!({ "view": hex(view), "seed": seed }),
        };
        json!({
            "game": self.game,
            "players": self.players,
            "seed": self.seed,
            "start_seat": self.start_seat,
            "max_turns": self.max_turns,
            "chance": if self.explicit { "explicit" } else { "seeded" },
            "resampled": base,
            "history": history,
        })
        .to_string()
    }

    /// A recipe from [`Recipe::to_json`]'s text.
    pub(crate) fn from_json(text: &str) -> Result<Recipe, String> {
        let v: Value = serde_json::from_str(text).map_err(|e| format!("not JSON: {e}"))?;
        let u = |k: &str| {
            v.get(k)
                .and_then(Value::as_u64)
                .ok_or_else(|| format!("{k} must be a non-negative integer"))
        };
        let small =
            |k: &str| u(k).and_then(|n| u32::try_from(n).map_err(|_| format!("{k} is too large")));
        let history = v
            .get("history")
            .and_then(Value::as_array)
            .ok_or("history must be a list")?
            .iter()
            .map(|s| match s {
                Value::Number(n) => n.as_u64().map(|i| Step::Action(i as usize)),
                Value::String(m) if m == "seeded" => Some(Step::Mode(ChanceMode::Seeded)),
                Value::String(m) if m == "explicit" => Some(Step::Mode(ChanceMode::Explicit)),
                Value::Object(o) => o
                    .get("chance")
                    .and_then(Value::as_u64)
                    .map(|c| Step::Chance(c as usize)),
                _ => None,
            })
            .collect::<Option<Vec<Step>>>()
            .ok_or("a history step is not an action index, {\"chance\": n}, \"seeded\" or \"explicit\"")?;
        let base = match v.get("resampled") {
            None | Some(Value::Null) => Base::New,
            Some(b) => Base::Resampled {
                view: b
                    .get("view")
                    .and_then(Value::as_str)
                    .and_then(unhex)
                    .ok_or("resampled.view must be hex")?,
                seed: b
                    .get("seed")
                    .and_then(Value::as_u64)
                    .ok_or("resampled.seed must be a non-negative integer")?,
            },
        };
        Ok(Recipe {
            game: v
                .get("game")
                .and_then(Value::as_str)
                .ok_or("game must be a string")?
                .to_string(),
            players: u("players")? as usize,
            seed: u("seed")?,
            start_seat: small("start_seat")?,
            max_turns: small("max_turns")?,
            explicit: v.get("chance").and_then(Value::as_str) == Some("explicit"),
            base,
            history,
        })
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn unhex(s: &str) -> Option<Vec<u8>> {
    if !s.len().is_multiple_of(2) {
        return None;
    }
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(s.get(i..i + 2)?, 16).ok())
        .collect()
}
