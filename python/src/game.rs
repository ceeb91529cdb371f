//! `druids_engine.Game`: one game in Python, index by index (the core the
//! PettingZoo and OpenSpiel wrappers and `evaluate` are written on).

use druids_engine::{ChanceMode, Seat, Viewer};
use numpy::{PyArray1, PyArrayMethods};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyTuple};

use crate::core::{Play, PlayError, Setup, deserialize, new_game, short};
use crate::saved::Step;
use crate::unsigned::Unsigned;

impl From<PlayError> for PyErr {
    fn from(e: PlayError) -> PyErr {
        PyValueError::new_err(e.to_string())
    }
}

/// The viewer of a seat number (`None`: a spectator), checked.
pub(crate) fn viewer(players: usize, seat: Option<usize>) -> PyResult<Viewer> {
    match seat {
        None => Ok(Viewer::Spectator),
        Some(s) if s < players => Ok(Viewer::Seat(Seat(s as u8))),
        Some(s) => Err(PyValueError::new_err(format!(
            "seat {s} is not a seat of this {players}-player game"
        ))),
    }
}

pub(crate) fn parse_mode(mode: &str) -> PyResult<ChanceMode> {
    match mode {
        "seeded" | "seed" => Ok(ChanceMode::Seeded),
        "explicit" => Ok(ChanceMode::Explicit),
        other => Err(PyValueError::new_err(format!(
            "chance must be \"seeded\" or \"explicit\", not {:?}",
            short(other)
        ))),
    }
}

/// What each seat gets at the end: the winners share 1 (a shared win is
/// split), the others get 0.
pub(crate) fn returns(play: &dyn Play) -> Vec<f64> {
    let mut r = vec![0.0; play.players()];
    if let Some(o) = play.outcome() {
        for w in &o.winners {
            r[w.index()] = 1.0 / o.winners.len() as f64;
        }
    }
    r
}

/// A game of Meduris or Die Dolmengötter, played by indices of its fixed
/// action space.
#[pyclass(module = "druids_engine._core", name = "Game")]
pub struct PyGame {
    pub(crate) inner: Box<dyn Play>,
}

impl PyGame {
    pub(crate) fn wrap(inner: Box<dyn Play>) -> PyGame {
        PyGame { inner }
    }
}

#[pymethods]
impl PyGame {
    #[new]
    #[pyo3(
        signature = (game, players, seed=Unsigned(0), chance="seeded", start_seat=Unsigned(0), max_turns=Unsigned(1000)),
        text_signature = "(game, players, seed=0, chance='seeded', start_seat=0, max_turns=1000)"
    )]
    fn new(
        game: &str,
        players: Unsigned<usize>,
        seed: Unsigned<u64>,
        chance: &str,
        start_seat: Unsigned<u32>,
        max_turns: Unsigned<u32>,
    ) -> PyResult<Self> {
        let players = players.0;
        let seed = seed.0;
        let start_seat = start_seat.0;
        let max_turns = max_turns.0;
        let setup = Setup {
            game,
            players,
            seed,
            chance: parse_mode(chance)?,
            start_seat,
            max_turns,
        };
        Ok(PyGame::wrap(new_game(&setup)?))
    }

    /// The game's short name ("meduris", "dolmen").
    #[getter]
    fn game(&self) -> &'static str {
        self.inner.name()
    }

    #[getter]
    fn players(&self) -> usize {
        self.inner.players()
    }

    #[getter]
    fn seed(&self) -> u64 {
        self.inner.record().seed
    }

    /// The size of the fixed action space.
    #[getter]
    fn num_actions(&self) -> usize {
        self.inner.action_count()
    }

    /// The number of values of an observation.
    #[getter]
    fn observation_size(&self) -> usize {
        self.inner.observation_len()
    }

    /// The observation's sections: (name, (rows, values per row)), in order.
    fn observation_layout(&self) -> Vec<(&'static str, (usize, usize))> {
        self.inner
            .layout()
            .into_iter()
            .map(|s| (s.name, (s.shape[0], s.shape[1])))
            .collect()
    }

    /// The seat that must decide, or `None` (game over, or a chance draw pending).
    #[getter]
    fn to_act(&self) -> Option<usize> {
        self.inner.to_act()
    }

    #[getter]
    fn is_over(&self) -> bool {
        self.inner.is_over()
    }

    /// Whether a chance draw is pending (only in explicit chance mode).
    #[getter]
    fn is_chance_node(&self) -> bool {
        self.inner.pending_draw().is_some()
    }

    /// The legal actions' indices, in the server's default-list order.
    fn legal_actions(&mut self) -> Vec<usize> {
        self.inner.legal().to_vec()
    }

    /// (index, text) of each legal action.
    fn legal_actions_text(&mut self) -> Vec<(usize, String)> {
        let legal = self.inner.legal().to_vec();
        legal
            .into_iter()
            .map(|i| (i, self.inner.action_text(i).unwrap_or_default()))
            .collect()
    }

    /// A legal action in plain English.
    fn action_text(&mut self, index: Unsigned<usize>) -> PyResult<String> {
        let index = index.0;
        self.inner
            .action_text(index)
            .ok_or_else(|| PlayError::NotLegal(index).into())
    }

    /// Applies the legal action `index` for the seat to act.
    fn apply(&mut self, index: Unsigned<usize>) -> PyResult<()> {
        let index = index.0;
        // Say which of the three it is: over, out of the space, or not now.
        if self.inner.is_over() {
            return Err(PyValueError::new_err(format!(
                "the game is over: action {index} cannot be applied"
            )));
        }
        let count = self.inner.action_count();
        if index >= count {
            return Err(PyValueError::new_err(format!(
                "action {index} is outside the action space (0 to {})",
                count - 1
            )));
        }
        Ok(self.inner.apply(index)?)
    }

    /// The legal-action mask over the fixed action space (bool).
    fn legal_mask<'py>(&mut self, py: Python<'py>) -> Bound<'py, PyArray1<bool>> {
        let mut mask = vec![0u8; self.inner.action_count()];
        self.inner.mask(&mut mask);
        PyArray1::from_iter(py, mask.into_iter().map(|m| m != 0))
    }

    /// The observation of `seat` (`None`: a spectator's), float32.
    #[pyo3(signature = (seat=None))]
    fn observation<'py>(
        &self,
        py: Python<'py>,
        seat: Option<Unsigned<usize>>,
    ) -> PyResult<Bound<'py, PyArray1<f32>>> {
        let viewer = viewer(self.inner.players(), seat.map(|s| s.0))?;
        let out = PyArray1::<f32>::zeros(py, self.inner.observation_len(), false);
        {
            let mut rw = out.readwrite();
            self.inner
                .observe(viewer, rw.as_slice_mut().expect("a fresh contiguous array"));
        }
        Ok(out)
    }

    /// The pending draw's outcomes with their probabilities (empty when none).
    fn chance_outcomes(&self) -> Vec<(usize, f64)> {
        match self.inner.pending_draw() {
            Some(n) => (0..n).map(|o| (o, 1.0 / n as f64)).collect(),
            None => Vec::new(),
        }
    }

    /// An outcome of the pending draw in plain English.
    fn chance_text(&self, outcome: Unsigned<usize>) -> PyResult<String> {
        let outcome = outcome.0;
        self.inner.chance_text(outcome).ok_or_else(|| {
            PyValueError::new_err(format!("{outcome} is not an outcome of a pending draw"))
        })
    }

    /// Supplies the pending draw's outcome.
    fn apply_chance(&mut self, outcome: Unsigned<usize>) -> PyResult<()> {
        let outcome = outcome.0;
        Ok(self.inner.apply_chance(outcome)?)
    }

    /// "seeded" or "explicit".
    #[getter]
    fn chance_mode(&self) -> &'static str {
        match self.inner.chance_mode() {
            ChanceMode::Seeded => "seeded",
            ChanceMode::Explicit => "explicit",
        }
    }

    /// Switches the chance mode; to "seeded", a pending draw is made from the seed.
    fn set_chance_mode(&mut self, mode: &str) -> PyResult<()> {
        let mode = parse_mode(mode)?;
        self.inner.set_chance_mode(mode);
        Ok(())
    }

    /// The result once the game is over: scores, winners, ranking (by seat).
    #[getter]
    fn outcome<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyDict>>> {
        let Some(o) = self.inner.outcome() else {
            return Ok(None);
        };
        let d = PyDict::new(py);
        d.set_item("scores", o.scores.clone())?;
        d.set_item(
            "winners",
            o.winners.iter().map(|s| s.index()).collect::<Vec<_>>(),
        )?;
        d.set_item(
            "ranking",
            o.ranking.iter().map(|s| s.index()).collect::<Vec<_>>(),
        )?;
        d.set_item("by_safeguard", o.by_safeguard)?;
        Ok(Some(d))
    }

    /// Per seat: the winners share 1, the others 0 (all 0 before the end).
    fn returns(&self) -> Vec<f64> {
        returns(self.inner.as_ref())
    }

    /// The game's own heuristic worth of the position to `seat`, in points.
    fn heuristic(&self, seat: Unsigned<usize>) -> PyResult<f64> {
        let seat = seat.0;
        let Viewer::Seat(s) = viewer(self.inner.players(), Some(seat))? else {
            unreachable!("a seat")
        };
        Ok(self.inner.heuristic(s))
    }

    /// An independent copy.
    fn copy(&self) -> PyGame {
        PyGame::wrap(self.inner.boxed_clone())
    }

    fn __copy__(&self) -> PyGame {
        self.copy()
    }

    fn __deepcopy__(&self, _memo: &Bound<'_, PyAny>) -> PyGame {
        self.copy()
    }

    /// The game as one line of JSON: its complete state (hidden
    /// information included), seed, chance mode and history.
    fn serialize(&self) -> String {
        self.inner.serialize()
    }

    /// The game [`PyGame::serialize`] wrote.
    #[staticmethod]
    fn deserialize(text: &str) -> PyResult<PyGame> {
        Ok(PyGame::wrap(deserialize(text)?))
    }

    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyTuple>> {
        let py = slf.py();
        let cls = py.get_type::<PyGame>();
        let make = cls.getattr("deserialize")?;
        let text = slf.borrow().serialize();
        PyTuple::new(py, [make, PyTuple::new(py, [text])?.into_any()])
    }

    /// A game consistent with what `seat` sees (`None`: a spectator): the
    /// public state and that seat's secrets kept, everything hidden from it
    /// dealt at random from `seed`, future draws from `seed`.
    #[pyo3(signature = (seat, seed))]
    fn resample(&self, seat: Option<Unsigned<usize>>, seed: Unsigned<u64>) -> PyResult<PyGame> {
        let seed = seed.0;
        let seat = seat.map(|s| s.0);
        if self.inner.pending_draw().is_some() {
            return Err(PyValueError::new_err(
                "a game waiting for a chance draw cannot be resampled: supply the draw first",
            ));
        }
        let viewer = viewer(self.inner.players(), seat)?;
        Ok(PyGame::wrap(self.inner.resample(viewer, seed)?))
    }

    /// The `StateView` the server would send `seat` (`None`: a spectator),
    /// serialised (the parts an observation is made of).
    #[pyo3(signature = (seat=None))]
    fn state_view<'py>(
        &self,
        py: Python<'py>,
        seat: Option<Unsigned<usize>>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let viewer = viewer(self.inner.players(), seat.map(|s| s.0))?;
        Ok(PyBytes::new(py, &self.inner.state_view(viewer)))
    }

    /// The index a built-in bot ("random", "greedy", "mcts") picks for the
    /// seat to act, seeing only that seat's view; `iterations` is MCTS's budget.
    #[pyo3(
        signature = (bot, seed=Unsigned(0), iterations=Unsigned(200)),
        text_signature = "($self, bot, seed=0, iterations=200)"
    )]
    fn bot_action(
        &mut self,
        py: Python<'_>,
        bot: &str,
        seed: Unsigned<u64>,
        iterations: Unsigned<u32>,
    ) -> PyResult<usize> {
        let seed = seed.0;
        let iterations = iterations.0;
        let strategy: druids_bots::Strategy = bot
            .parse()
            .map_err(|e: druids_bots::UnknownStrategy| PyValueError::new_err(e.to_string()))?;
        if self.inner.to_act().is_none() {
            return Err(PyValueError::new_err("no seat is to act"));
        }
        let inner = &mut self.inner;
        Ok(py.detach(|| inner.bot_choice(strategy, seed, iterations.max(1))))
    }

    /// The steps so far: action indices, {"chance": outcome}, mode switches.
    #[getter]
    fn history<'py>(&self, py: Python<'py>) -> PyResult<Vec<Bound<'py, PyAny>>> {
        self.inner
            .record()
            .history
            .iter()
            .map(|s| match s {
                Step::Action(i) => Ok(i.into_pyobject(py)?.into_any()),
                Step::Chance { chance: o } => {
                    let d = PyDict::new(py);
                    d.set_item("chance", o)?;
                    Ok(d.into_any())
                }
                Step::Mode(ChanceMode::Seeded) => Ok("seeded".into_pyobject(py)?.into_any()),
                Step::Mode(ChanceMode::Explicit) => Ok("explicit".into_pyobject(py)?.into_any()),
            })
            .collect()
    }

    fn __repr__(&self) -> String {
        format!(
            "Game({:?}, players={}, seed={}, steps={})",
            self.inner.name(),
            self.inner.players(),
            self.inner.record().seed,
            self.inner.record().history.len()
        )
    }
}
