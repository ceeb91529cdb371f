//! One game in play, whatever its kind: the engine behind the object-safe
//! [`Play`], which the Python classes hold. Everything speaks in indices of
//! the fixed action space (`druids_engine::Tensors`); the game's recipe
//! ([`Recipe`]) is kept beside it so that it can be serialised.

use druids_contract::ProtoGame;
use druids_contract::{Kind, pb};
use druids_engine::{Chance, ChanceMode, Determinize, Evaluate, Outcome, Seat, Tensors, Viewer};
use prost::Message;

use crate::recipe::{Base, Recipe, Step};

/// What every engine the package exposes can do.
pub(crate) trait Engine: Chance + Tensors + Determinize + Evaluate + ProtoGame {}

impl<G: Chance + Tensors + Determinize + Evaluate + ProtoGame> Engine for G {}

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
    fn recipe(&self) -> &Recipe;
    fn resample(&self, viewer: Viewer, seed: u64) -> Result<Box<dyn Play>, PlayError>;
    /// The `StateView` the server sends `viewer` (the parts the engine's
    /// view is made of), encoded.
    fn state_view(&self, viewer: Viewer) -> Vec<u8>;
    /// The index a built-in bot chooses for the seat to act.
    fn bot_choice(&mut self, bot: druids_bots::Strategy, seed: u64, iterations: u32) -> usize;
}

/// A game of kind `G` with its recipe and a cache of its legal list.
#[derive(Clone)]
pub(crate) struct Core<G: Engine> {
    game: G,
    recipe: Recipe,
    legal: Vec<G::Action>,
    indices: Vec<usize>,
    fresh: bool,
    events: Vec<G::Event>,
}

impl<G: Engine> Core<G> {
    /// A new game from `recipe`'s set-up, its history replayed.
    pub(crate) fn build(recipe: Recipe) -> Result<Core<G>, PlayError> {
        let options = G::decode_options(&pb::GameOptions {
            start_seat: Some(recipe.start_seat),
            max_turns: Some(recipe.max_turns),
            ..Default::default()
        })
        .map_err(|e| PlayError::Setup(e.to_string()))?;
        let mut events = Vec::new();
        let game = match &recipe.base {
            Base::New => {
                let made = if recipe.explicit {
                    G::new_explicit(recipe.players, recipe.seed, &options, &mut events)
                } else {
                    G::new(recipe.players, recipe.seed, &options, &mut events)
                };
                made.map_err(|e| PlayError::Setup(e.to_string()))?
            }
            Base::Resampled { view, seed } => {
                let wire = pb::StateView::decode(view.as_slice())
                    .map_err(|e| PlayError::Setup(format!("a resampled base: {e}")))?;
                let view = G::decode_view(&wire).map_err(|e| PlayError::Setup(e.to_string()))?;
                G::determinize(&view, *seed).map_err(|e| PlayError::Setup(e.to_string()))?
            }
        };
        let history = recipe.history.clone();
        let mut core = Core {
            game,
            recipe: Recipe {
                history: Vec::new(),
                ..recipe
            },
            legal: Vec::new(),
            indices: Vec::new(),
            fresh: false,
            events,
        };
        for step in history {
            match step {
                Step::Action(i) => core.apply(i)?,
                Step::Chance(o) => core.apply_chance(o)?,
                Step::Mode(m) => core.set_chance_mode(m),
            }
        }
        Ok(core)
    }

    fn refresh(&mut self) {
        if !self.fresh {
            self.legal.clear();
            self.indices.clear();
            self.game.legal_actions(&mut self.legal);
            druids_engine::legal_indices::<G>(self.recipe.players, &self.legal, &mut self.indices);
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
        self.recipe.players
    }
    fn action_count(&self) -> usize {
        G::action_count(self.recipe.players)
    }
    fn observation_len(&self) -> usize {
        G::observation_len(self.recipe.players)
    }
    fn layout(&self) -> Vec<druids_engine::Section> {
        G::observation_layout(self.recipe.players)
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
        if self.recipe.explicit_now() {
            ChanceMode::Explicit
        } else {
            ChanceMode::Seeded
        }
    }
    fn set_chance_mode(&mut self, mode: ChanceMode) {
        self.events.clear();
        self.game.set_chance_mode(mode, &mut self.events);
        self.recipe.history.push(Step::Mode(mode));
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
        self.recipe.history.push(Step::Chance(outcome));
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
        self.recipe.history.push(Step::Action(index));
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
    fn recipe(&self) -> &Recipe {
        &self.recipe
    }
    fn resample(&self, viewer: Viewer, seed: u64) -> Result<Box<dyn Play>, PlayError> {
        let recipe = Recipe {
            base: Base::Resampled {
                view: self.state_view(viewer),
                seed,
            },
            history: Vec::new(),
            explicit: false,
            ..self.recipe.clone()
        };
        Ok(Box::new(Core::<G>::build(recipe)?))
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

/// A new game of the kind named `name` ("meduris", "dolmen").
pub(crate) fn new_game(recipe: Recipe) -> Result<Box<dyn Play>, PlayError> {
    let kind = kind_named(&recipe.game).map_err(PlayError::Setup)?;
    druids_contract::with_game!(kind, |G| Core::<G>::build(recipe)
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
    let mut end = s.len().min(64);
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}
