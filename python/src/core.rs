//! One game in play, whatever its kind: the engine behind the object-safe
//! [`Play`], which the Python classes hold. Everything speaks in indices of
//! the fixed action space (`druids_engine::Tensors`); its seed, chance mode
//! and history ([`Record`]) are kept beside it, and serialised with it
//! ([`crate::saved`]).

use druids_contract::ProtoGame;
use druids_contract::{Kind, pb};
use druids_engine::{Chance, ChanceMode, Determinize, Evaluate, Outcome, Seat, Tensors, Viewer};
use prost::Message;
use serde::Serialize;
use serde::de::DeserializeOwned;
use std::borrow::Cow;

use crate::saved::{Record, Saved, Step};

/// What every engine the package exposes can do.
pub(crate) trait Engine:
    Chance + Tensors + Determinize + Evaluate + ProtoGame + Serialize + DeserializeOwned
{
}

impl<G> Engine for G where
    G: Chance + Tensors + Determinize + Evaluate + ProtoGame + Serialize + DeserializeOwned
{
}

/// Why a call on a game was refused; the game is unchanged.
#[derive(Debug)]
pub(crate) enum PlayError {
    /// The index names no legal action now.
    NotLegal(usize),
    /// A chance outcome was refused.
    Chance(druids_engine::ChanceError),
    /// The game could not be set up or rebuilt.
    Setup(String),
}

impl std::fmt::Display for PlayError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PlayError::NotLegal(i) => write!(f, "action {i} is not legal now"),
            PlayError::Chance(e) => write!(f, "{e}"),
            PlayError::Setup(e) => write!(f, "{e}"),
        }
    }
}

/// A game of any kind, as the Python classes use it.
pub(crate) trait Play: Send + Sync {
    fn name(&self) -> &'static str;
    fn players(&self) -> usize;
    fn action_count(&self) -> usize;
    fn observation_len(&self) -> usize;
    fn layout(&self) -> Vec<druids_engine::Section>;
    fn to_act(&self) -> Option<usize>;
    fn is_over(&self) -> bool;
    fn pending_draw(&self) -> Option<usize>;
    fn chance_mode(&self) -> ChanceMode;
    fn set_chance_mode(&mut self, mode: ChanceMode);
    fn chance_text(&self, outcome: usize) -> Option<String>;
    fn apply_chance(&mut self, outcome: usize) -> Result<(), PlayError>;
    /// The legal indices, in the default list's order.
    fn legal(&mut self) -> &[usize];
    fn action_text(&mut self, index: usize) -> Option<String>;
    fn apply(&mut self, index: usize) -> Result<(), PlayError>;
    fn observe(&self, viewer: Viewer, out: &mut [f32]);
    fn mask(&mut self, out: &mut [u8]);
    fn outcome(&self) -> Option<Outcome>;
    fn heuristic(&self, seat: Seat) -> f64;
    fn boxed_clone(&self) -> Box<dyn Play>;
    fn record(&self) -> &Record;
    /// The game as one line of JSON ([`crate::saved`]).
    fn serialize(&self) -> String;
    fn resample(&self, viewer: Viewer, seed: u64) -> Result<Box<dyn Play>, PlayError>;
    /// The `StateView` the server sends `viewer` (the parts the engine's
    /// view is made of), encoded.
    fn state_view(&self, viewer: Viewer) -> Vec<u8>;
    /// The index a built-in bot chooses for the seat to act.
    fn bot_choice(&mut self, bot: druids_bots::Strategy, seed: u64, iterations: u32) -> usize;
}

/// A game of kind `G` with its record and a cache of its legal list.
#[derive(Clone)]
pub(crate) struct Core<G: Engine> {
    game: G,
    record: Record,
    legal: Vec<G::Action>,
    indices: Vec<usize>,
    fresh: bool,
    events: Vec<G::Event>,
}

/// How a new game is set up.
pub(crate) struct Setup<'a> {
    pub game: &'a str,
    pub players: usize,
    pub seed: u64,
    pub chance: ChanceMode,
    pub start_seat: u32,
    pub max_turns: u32,
}

impl<G: Engine> Core<G> {
    fn wrap(game: G, record: Record) -> Core<G> {
        Core {
            game,
            record,
            legal: Vec::new(),
            indices: Vec::new(),
            fresh: false,
            events: Vec::new(),
        }
    }

    /// A new game.
    pub(crate) fn new(setup: &Setup) -> Result<Core<G>, PlayError> {
        let options = G::decode_options(&pb::GameOptions {
            start_seat: Some(setup.start_seat),
            max_turns: Some(setup.max_turns),
            ..Default::default()
        })
        .map_err(|e| PlayError::Setup(e.to_string()))?;
        let mut events = Vec::new();
        let made = match setup.chance {
            ChanceMode::Explicit => {
                G::new_explicit(setup.players, setup.seed, &options, &mut events)
            }
            ChanceMode::Seeded => G::new(setup.players, setup.seed, &options, &mut events),
        };
        let game = made.map_err(|e| PlayError::Setup(e.to_string()))?;
        let record = Record {
            players: setup.players,
            seed: setup.seed,
            chance: setup.chance,
            history: Vec::new(),
        };
        Ok(Core::wrap(game, record))
    }

    /// The game [`Play::serialize`] wrote (checked by the engine to be a
    /// playable position).
    pub(crate) fn deserialize(text: &str) -> Result<Core<G>, PlayError> {
        let saved: Saved<G> = serde_json::from_str(text).map_err(|e| {
            PlayError::Setup(format!(
                "not a serialised {} game: {}",
                G::NAME,
                short(&e.to_string())
            ))
        })?;
        let (game, record) = (saved.state.into_owned(), saved.record.into_owned());
        if record.players != game.players() {
            return Err(PlayError::Setup(format!(
                "a serialised game of {} players says {}",
                game.players(),
                record.players
            )));
        }
        // The record's chance mode is the state's, unless the game has no
        // draws to make explicit (then the record keeps what was asked).
        let mode = game.chance_mode();
        if record.chance != mode {
            let mut probe = game.clone();
            probe.set_chance_mode(record.chance, &mut Vec::new());
            if probe.chance_mode() == record.chance {
                return Err(PlayError::Setup(format!(
                    "a serialised game whose record says its chance is {:?} while its state's is {:?}",
                    record.chance, mode
                )));
            }
        }
        Ok(Core::wrap(game, record))
    }

    fn refresh(&mut self) {
        if !self.fresh {
            self.legal.clear();
            self.indices.clear();
            self.game.legal_actions(&mut self.legal);
            druids_engine::legal_indices::<G>(self.record.players, &self.legal, &mut self.indices);
            self.fresh = true;
        }
    }

    fn position(&mut self, index: usize) -> Option<usize> {
        self.refresh();
        self.indices.iter().position(|&i| i == index)
    }
}

impl<G: Engine> Play for Core<G> {
    fn name(&self) -> &'static str {
        G::NAME
    }
    fn players(&self) -> usize {
        self.record.players
    }
    fn action_count(&self) -> usize {
        G::action_count(self.record.players)
    }
    fn observation_len(&self) -> usize {
        G::observation_len(self.record.players)
    }
    fn layout(&self) -> Vec<druids_engine::Section> {
        G::observation_layout(self.record.players)
    }
    fn to_act(&self) -> Option<usize> {
        self.game.to_act().map(Seat::index)
    }
    fn is_over(&self) -> bool {
        self.game.outcome().is_some()
    }
    fn pending_draw(&self) -> Option<usize> {
        self.game.pending_draw().map(|d| d.outcomes)
    }
    fn chance_mode(&self) -> ChanceMode {
        self.record.chance
    }
    fn set_chance_mode(&mut self, mode: ChanceMode) {
        self.events.clear();
        self.game.set_chance_mode(mode, &mut self.events);
        self.record.chance = mode;
        self.record.history.push(Step::Mode(mode));
        self.fresh = false;
    }
    fn chance_text(&self, outcome: usize) -> Option<String> {
        self.game.chance_text(outcome)
    }
    fn apply_chance(&mut self, outcome: usize) -> Result<(), PlayError> {
        self.events.clear();
        self.game
            .apply_chance(outcome, &mut self.events)
            .map_err(PlayError::Chance)?;
        self.record.history.push(Step::Chance { chance: outcome });
        self.fresh = false;
        Ok(())
    }
    fn legal(&mut self) -> &[usize] {
        self.refresh();
        &self.indices
    }
    fn action_text(&mut self, index: usize) -> Option<String> {
        let k = self.position(index)?;
        Some(self.legal[k].to_string())
    }
    fn apply(&mut self, index: usize) -> Result<(), PlayError> {
        let k = self.position(index).ok_or(PlayError::NotLegal(index))?;
        let seat = self.game.to_act().ok_or(PlayError::NotLegal(index))?;
        self.events.clear();
        let action = self.legal[k].clone();
        self.game
            .apply(seat, &action, &mut self.events)
            .map_err(|_| PlayError::NotLegal(index))?;
        self.record.history.push(Step::Action(index));
        self.fresh = false;
        Ok(())
    }
    fn observe(&self, viewer: Viewer, out: &mut [f32]) {
        G::observe(&self.game.view(viewer), out);
    }
    fn mask(&mut self, out: &mut [u8]) {
        out.fill(0);
        self.refresh();
        for &i in &self.indices {
            out[i] = 1;
        }
    }
    fn outcome(&self) -> Option<Outcome> {
        self.game.outcome()
    }
    fn heuristic(&self, seat: Seat) -> f64 {
        self.game.evaluate(seat)
    }
    fn boxed_clone(&self) -> Box<dyn Play> {
        Box::new(self.clone())
    }
    fn record(&self) -> &Record {
        &self.record
    }
    fn serialize(&self) -> String {
        let saved = Saved {
            game: Cow::Borrowed(G::NAME),
            record: Cow::Borrowed(&self.record),
            state: Cow::Borrowed(&self.game),
        };
        serde_json::to_string(&saved).expect("a game serialises")
    }
    fn resample(&self, viewer: Viewer, seed: u64) -> Result<Box<dyn Play>, PlayError> {
        let game = G::determinize(&self.game.view(viewer), seed)
            .map_err(|e| PlayError::Setup(e.to_string()))?;
        let record = Record {
            chance: ChanceMode::Seeded,
            history: Vec::new(),
            ..self.record.clone()
        };
        Ok(Box::new(Core::wrap(game, record)))
    }
    fn state_view(&self, viewer: Viewer) -> Vec<u8> {
        state_view(&self.game, viewer).encode_to_vec()
    }
    fn bot_choice(&mut self, bot: druids_bots::Strategy, seed: u64, iterations: u32) -> usize {
        self.refresh();
        let seat = self.game.to_act().expect("a seat to act");
        let view = self.game.view(Viewer::Seat(seat));
        let mut bot = bot.build::<G>(seed, druids_bots::Budget::Iterations(iterations));
        let action = bot.choose(seat, &view, &self.legal);
        let k = self
            .legal
            .iter()
            .position(|a| *a == action)
            .expect("a bot chooses a legal action");
        self.indices[k]
    }
}

/// The `StateView` a server sends `viewer`: the parts the engine's view is
/// decoded from (`druids_contract::ProtoGame::decode_view`).
pub(crate) fn state_view<G: ProtoGame>(game: &G, viewer: Viewer) -> pb::StateView {
    pb::StateView {
        kind: G::KIND.number(),
        viewer_seat: match viewer {
            Viewer::Seat(s) => Some(s.0 as u32),
            Viewer::Spectator => None,
        },
        to_act: game.to_act().map(|s| s.0 as u32),
        decision: ProtoGame::decision(game),
        outcome: game
            .outcome()
            .as_ref()
            .map(druids_contract::codec::encode_outcome),
        game: Some(G::encode_view(&game.view(viewer))),
        ..Default::default()
    }
}

/// A new game.
pub(crate) fn new_game(setup: &Setup) -> Result<Box<dyn Play>, PlayError> {
    let kind = kind_named(setup.game).map_err(PlayError::Setup)?;
    druids_contract::with_game!(kind, |G| Core::<G>::new(setup)
        .map(|c| Box::new(c) as Box<dyn Play>))
}

/// The game a [`Play::serialize`] text holds.
pub(crate) fn deserialize(text: &str) -> Result<Box<dyn Play>, PlayError> {
    let name = crate::saved::game_name(text).map_err(PlayError::Setup)?;
    let kind = kind_named(&name).map_err(PlayError::Setup)?;
    druids_contract::with_game!(kind, |G| Core::<G>::deserialize(text)
        .map(|c| Box::new(c) as Box<dyn Play>))
}

/// The game of the contract whose short name is `name`, or why there is none
/// (the names listed from the registry).
pub(crate) fn kind_named(name: &str) -> Result<Kind, String> {
    Kind::all().find(|k| k.name() == name).ok_or_else(|| {
        let names: Vec<&str> = Kind::all().map(Kind::name).collect();
        format!("no game is called {:?} ({})", short(name), names.join(", "))
    })
}

/// Client input quoted in a message: at most 64 bytes.
pub(crate) fn short(s: &str) -> &str {
    &s[..s.floor_char_boundary(64)]
}
