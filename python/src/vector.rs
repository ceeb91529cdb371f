//! `druids_engine.VectorEnv`: N games stepped by one call. Observations,
//! masks, rewards, terminations and seats to act are written into numpy
//! arrays made once (the same objects after every step: no copy), with the
//! GIL released while Rust works, optionally on several threads. A game that
//! ends is reported (reward, termination) and replaced at once by the next
//! game of its slot: the arrays then show the new game (same-step reset).
//!
//! The arrays belong to the env: Python gets read-only views of them (a
//! row's mask is updated only where it changed, so a write would outlive
//! the step), which the next step or reset changes in place: copy what is
//! kept. The arrays themselves are writable only while Rust writes into
//! them, so no view of them can be made writable either.
//!
//! Seeds: the k-th game (from 0) of slot i is played from seed
//! `seed + i + k * num_envs`, whatever the number of threads.

use druids_contract::with_game;
use druids_engine::{Chance, Game, Seat, Tensors, Viewer};
use numpy::{PyArray1, PyArray2, PyArrayMethods, PyReadonlyArray1};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;

use crate::core::kind_named;
use crate::unsigned::Unsigned;

/// The arrays of a range of slots, row by row.
struct Rows<'a> {
    observations: &'a mut [f32],
    masks: &'a mut [bool],
    rewards: &'a mut [f32],
    terminations: &'a mut [bool],
    to_act: &'a mut [i32],
}

/// A batch of games of one kind.
trait Batch: Send + Sync {
    fn reset(&mut self, seed: u64, rows: Rows<'_>, threads: usize);
    /// Checks every action before any is applied.
    fn check(&mut self, actions: &[i64]) -> Result<(), String>;
    fn step(&mut self, actions: &[i64], rows: Rows<'_>, threads: usize);
}

/// One slot: its game, its legal list and their indices.
struct Slot<G: Game> {
    game: G,
    legal: Vec<G::Action>,
    indices: Vec<usize>,
    events: Vec<G::Event>,
    played: u64,
}

struct Games<G: Game> {
    slots: Vec<Slot<G>>,
    players: usize,
    seed: u64,
    obs_len: usize,
    actions: usize,
}

impl<G: Chance + Tensors> Games<G> {
    fn widths(&self) -> Widths {
        Widths {
            observation: self.obs_len,
            actions: self.actions,
            players: self.players,
        }
    }

    fn new_game(players: usize, seed: u64) -> G {
        G::new(players, seed, &G::Options::default(), &mut Vec::new())
            .expect("the player count was checked")
    }
}

impl<G: Game + Tensors> Slot<G> {
    /// Lists the legal actions and writes the slot's row.
    fn write(&mut self, players: usize, obs: &mut [f32], mask: &mut [bool], to_act: &mut i32) {
        // The row holds the last mask written (or zeros): clearing what was
        // set is cheaper than clearing thousands of Dolmengötter actions.
        for &i in &self.indices {
            mask[i] = false;
        }
        self.legal.clear();
        self.indices.clear();
        self.game.legal_actions(&mut self.legal);
        druids_engine::legal_indices::<G>(players, &self.legal, &mut self.indices);
        for &i in &self.indices {
            mask[i] = true;
        }
        let seat = self.game.to_act().expect("a live game has a seat to act");
        *to_act = seat.0 as i32;
        G::observe(&self.game.view(Viewer::Seat(seat)), obs);
    }
}

/// One slot's row of each array.
struct Row<'a> {
    observation: &'a mut [f32],
    mask: &'a mut [bool],
    rewards: &'a mut [f32],
    terminated: &'a mut bool,
    to_act: &'a mut i32,
}

/// What is done to one slot (its index, the slot, its row).
type Work<'w, G> = dyn Fn(usize, &mut Slot<G>, Row<'_>) + Sync + 'w;

/// The widths of a row of each array.
#[derive(Clone, Copy)]
struct Widths {
    observation: usize,
    actions: usize,
    players: usize,
}

/// Runs `work` on the slots from `first` on, with their rows.
fn run_slots<G: Game>(
    first: usize,
    slots: &mut [Slot<G>],
    rows: Rows<'_>,
    w: Widths,
    work: &Work<'_, G>,
) {
    let each = rows
        .observations
        .chunks_mut(w.observation)
        .zip(rows.masks.chunks_mut(w.actions))
        .zip(rows.rewards.chunks_mut(w.players))
        .zip(rows.terminations.iter_mut())
        .zip(rows.to_act.iter_mut());
    for (k, (slot, ((((observation, mask), rewards), terminated), to_act))) in
        slots.iter_mut().zip(each).enumerate()
    {
        let row = Row {
            observation,
            mask,
            rewards,
            terminated,
            to_act,
        };
        work(first + k, slot, row);
    }
}

/// Runs `work` on every slot with its rows, on up to `threads` threads.
fn par_slots<G: Game>(
    slots: &mut [Slot<G>],
    rows: Rows<'_>,
    w: Widths,
    threads: usize,
    work: &Work<'_, G>,
) {
    let n = slots.len();
    let chunk = n.div_ceil(threads.clamp(1, n.max(1)));
    if chunk >= n {
        return run_slots(0, slots, rows, w, work);
    }
    std::thread::scope(|scope| {
        let parts = slots
            .chunks_mut(chunk)
            .zip(rows.observations.chunks_mut(chunk * w.observation))
            .zip(rows.masks.chunks_mut(chunk * w.actions))
            .zip(rows.rewards.chunks_mut(chunk * w.players))
            .zip(rows.terminations.chunks_mut(chunk))
            .zip(rows.to_act.chunks_mut(chunk));
        for (i, (((((slots, observations), masks), rewards), terminations), to_act)) in
            parts.enumerate()
        {
            let rows = Rows {
                observations,
                masks,
                rewards,
                terminations,
                to_act,
            };
            scope.spawn(move || run_slots(i * chunk, slots, rows, w, work));
        }
    });
}

impl<G: Chance + Tensors> Batch for Games<G> {
    fn reset(&mut self, seed: u64, rows: Rows<'_>, threads: usize) {
        self.seed = seed;
        let players = self.players;
        let work = move |i: usize, slot: &mut Slot<G>, row: Row<'_>| {
            slot.played = 0;
            slot.game = Self::new_game(players, seed.wrapping_add(i as u64));
            row.rewards.fill(0.0);
            *row.terminated = false;
            slot.write(players, row.observation, row.mask, row.to_act);
        };
        let widths = self.widths();
        par_slots(&mut self.slots, rows, widths, threads, &work);
    }

    fn check(&mut self, actions: &[i64]) -> Result<(), String> {
        if actions.len() != self.slots.len() {
            return Err(format!(
                "{} actions for {} games: give one per game",
                actions.len(),
                self.slots.len()
            ));
        }
        for (i, (slot, &a)) in self.slots.iter().zip(actions).enumerate() {
            if a < 0 || !slot.indices.contains(&(a as usize)) {
                return Err(format!("action {a} is not legal in game {i}"));
            }
        }
        Ok(())
    }

    fn step(&mut self, actions: &[i64], rows: Rows<'_>, threads: usize) {
        let (players, seed, n) = (self.players, self.seed, self.slots.len() as u64);
        let work = move |i: usize, slot: &mut Slot<G>, row: Row<'_>| {
            let index = actions[i] as usize;
            let k = slot
                .indices
                .iter()
                .position(|&x| x == index)
                .expect("checked");
            let seat: Seat = slot.game.to_act().expect("a live game");
            let action = slot.legal[k].clone();
            slot.events.clear();
            slot.game
                .apply(seat, &action, &mut slot.events)
                .expect("a listed action applies");
            row.rewards.fill(0.0);
            *row.terminated = false;
            if let Some(outcome) = slot.game.outcome() {
                let share = 1.0 / outcome.winners.len() as f32;
                for w in &outcome.winners {
                    row.rewards[w.index()] = share;
                }
                *row.terminated = true;
                slot.played += 1;
                let next = seed.wrapping_add(i as u64).wrapping_add(slot.played * n);
                slot.game = Self::new_game(players, next);
            }
            slot.write(players, row.observation, row.mask, row.to_act);
        };
        let widths = self.widths();
        par_slots(&mut self.slots, rows, widths, threads, &work);
    }
}

/// N games of one kind stepped by one call. `observations`, `masks`,
/// `rewards`, `terminations` and `to_act` are read-only views of arrays
/// the env writes in place at every `step` and `reset` (no copy): copy
/// what you keep. A game that ends is reported (reward, termination) and
/// replaced at once by the next game of its slot, slot i's k-th game
/// played from seed `seed + i + k * num_envs`.
#[pyclass(module = "druids_engine._core", name = "VectorEnv")]
pub struct PyVectorEnv {
    batch: Box<dyn Batch>,
    threads: usize,
    players: usize,
    num_envs: usize,
    /// The seed given when the env was made: `reset()`'s default.
    seed: u64,
    observations: Py<PyArray2<f32>>,
    masks: Py<PyArray2<bool>>,
    rewards: Py<PyArray2<f32>>,
    terminations: Py<PyArray1<bool>>,
    to_act: Py<PyArray1<i32>>,
}

fn batch<G: Chance + Tensors>(
    players: usize,
    num_envs: usize,
    seed: u64,
) -> (Box<dyn Batch>, usize, usize) {
    let games = Games::<G> {
        slots: (0..num_envs)
            .map(|i| Slot {
                game: Games::<G>::new_game(players, seed.wrapping_add(i as u64)),
                legal: Vec::new(),
                indices: Vec::new(),
                events: Vec::new(),
                played: 0,
            })
            .collect(),
        players,
        seed,
        obs_len: G::observation_len(players),
        actions: G::action_count(players),
    };
    let (o, a) = (games.obs_len, games.actions);
    (Box::new(games), o, a)
}

/// `actions` as whole numbers: any integer array-like (a float is refused,
/// never rounded).
fn integers(py: Python<'_>, actions: &Bound<'_, PyAny>) -> PyResult<Vec<i64>> {
    let array = py.import("numpy")?.call_method1("asarray", (actions,))?;
    if array.getattr("size")?.extract::<usize>()? == 0 {
        return Err(PyValueError::new_err(
            "actions are one integer per slot: got none",
        ));
    }
    let kind: String = array.getattr("dtype")?.getattr("kind")?.extract()?;
    if kind != "i" && kind != "u" {
        let dtype = array.getattr("dtype")?.str()?.to_string();
        return Err(PyTypeError::new_err(format!(
            "actions are integer indices of the action space, not {dtype}"
        )));
    }
    if kind == "u"
        && array
            .call_method1("__gt__", (i64::MAX as u64,))?
            .call_method0("any")?
            .is_truthy()?
    {
        return Err(PyValueError::new_err(
            "an action beyond the action space (above 2**63 - 1)",
        ));
    }
    let array = array.call_method1("astype", ("int64",))?;
    let array: PyReadonlyArray1<'_, i64> = array.extract().map_err(|_| {
        PyValueError::new_err("actions are one integer per slot (a one-dimensional sequence)")
    })?;
    Ok(array.as_array().iter().copied().collect())
}

/// A read-only view of one of the env's arrays (same memory).
fn read_only<'py, A: pyo3::PyTypeCheck>(array: &Bound<'py, A>) -> PyResult<Bound<'py, A>> {
    let view = array.as_any().call_method0("view")?;
    view.getattr("flags")?.setattr("writeable", false)?;
    Ok(view.cast_into::<A>()?)
}

impl PyVectorEnv {
    fn with_rows<'py, R>(
        &mut self,
        py: Python<'py>,
        work: impl FnOnce(&mut dyn Batch, Rows<'_>, usize) -> R + Send,
    ) -> R
    where
        R: Send,
    {
        let arrays = [
            self.observations.bind(py).as_any().clone(),
            self.masks.bind(py).as_any().clone(),
            self.rewards.bind(py).as_any().clone(),
            self.terminations.bind(py).as_any().clone(),
            self.to_act.bind(py).as_any().clone(),
        ];
        let writeable = |on: bool| {
            for array in &arrays {
                // The env owns these arrays' memory: numpy lets it flip them.
                array
                    .getattr("flags")
                    .and_then(|f| f.setattr("writeable", on))
                    .expect("the env's own arrays can be made writable");
            }
        };
        writeable(true);
        let done = {
            let mut o = self.observations.bind(py).readwrite();
            let mut m = self.masks.bind(py).readwrite();
            let mut r = self.rewards.bind(py).readwrite();
            let mut t = self.terminations.bind(py).readwrite();
            let mut a = self.to_act.bind(py).readwrite();
            let rows = Rows {
                observations: o.as_slice_mut().expect("contiguous"),
                masks: m.as_slice_mut().expect("contiguous"),
                rewards: r.as_slice_mut().expect("contiguous"),
                terminations: t.as_slice_mut().expect("contiguous"),
                to_act: a.as_slice_mut().expect("contiguous"),
            };
            let (batch, threads) = (&mut self.batch, self.threads);
            py.detach(move || work(batch.as_mut(), rows, threads))
        };
        writeable(false);
        done
    }
}

#[pymethods]
impl PyVectorEnv {
    #[new]
    #[pyo3(
        signature = (game, players, num_envs, seed=Unsigned(0), threads=Unsigned(1)),
        text_signature = "(game, players, num_envs, seed=0, threads=1)"
    )]
    fn new(
        py: Python<'_>,
        game: &str,
        players: Unsigned<usize>,
        num_envs: Unsigned<usize>,
        seed: Unsigned<u64>,
        threads: Unsigned<usize>,
    ) -> PyResult<Self> {
        let players = players.0;
        let num_envs = num_envs.0;
        let seed = seed.0;
        let threads = threads.0;
        let kind = kind_named(game).map_err(PyValueError::new_err)?;
        let (min, max) = with_game!(kind, |G| (G::MIN_PLAYERS, G::MAX_PLAYERS));
        if !(min..=max).contains(&players) {
            return Err(PyValueError::new_err(format!(
                "{game} is played by {min} to {max} players, not {players}"
            )));
        }
        if !(1..=1 << 20).contains(&num_envs) {
            return Err(PyValueError::new_err(format!(
                "num_envs must be 1 to 1048576, not {num_envs}"
            )));
        }
        if !(1..=256).contains(&threads) {
            return Err(PyValueError::new_err(format!(
                "threads must be 1 to 256, not {threads}"
            )));
        }
        let (batch, obs_len, actions) = with_game!(kind, |G| batch::<G>(players, num_envs, seed));
        let mut env = PyVectorEnv {
            batch,
            threads,
            players,
            num_envs,
            seed,
            observations: PyArray2::zeros(py, [num_envs, obs_len], false).unbind(),
            masks: PyArray2::zeros(py, [num_envs, actions], false).unbind(),
            rewards: PyArray2::zeros(py, [num_envs, players], false).unbind(),
            terminations: PyArray1::zeros(py, num_envs, false).unbind(),
            to_act: PyArray1::zeros(py, num_envs, false).unbind(),
        };
        env.with_rows(py, |b, rows, threads| b.reset(seed, rows, threads));
        Ok(env)
    }

    /// Starts every slot's game again, slot i from `seed + i` (`seed`: the
    /// env's own, given when it was made, if None).
    #[pyo3(signature = (seed=None), text_signature = "($self, seed=None)")]
    fn reset(&mut self, py: Python<'_>, seed: Option<Unsigned<u64>>) {
        let seed = seed.map_or(self.seed, |s| s.0);
        self.with_rows(py, |b, rows, threads| b.reset(seed, rows, threads));
    }

    /// Applies `actions[i]` (an index of the fixed action space, legal in
    /// slot i) in every slot; the arrays then show the result. `actions` is
    /// any one-dimensional sequence of integers (a list, a numpy array of
    /// any integer type); floats are refused, not rounded. An illegal action
    /// is refused before any is applied.
    fn step(&mut self, py: Python<'_>, actions: &Bound<'_, PyAny>) -> PyResult<()> {
        let actions = integers(py, actions)?;
        self.batch.check(&actions).map_err(PyValueError::new_err)?;
        self.with_rows(py, |b, rows, threads| b.step(&actions, rows, threads));
        Ok(())
    }

    /// (num_envs, observation size) float32: the observation of each slot's
    /// seat to act.
    #[getter]
    fn observations<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray2<f32>>> {
        read_only(self.observations.bind(py))
    }

    /// (num_envs, actions) bool: each slot's legal-action mask.
    #[getter]
    fn masks<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray2<bool>>> {
        read_only(self.masks.bind(py))
    }

    /// (num_envs, players) float32: what each seat got from the last step
    /// (the winners share 1 when a game ended, else 0).
    #[getter]
    fn rewards<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray2<f32>>> {
        read_only(self.rewards.bind(py))
    }

    /// (num_envs,) bool: whether the last step ended the slot's game.
    #[getter]
    fn terminations<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray1<bool>>> {
        read_only(self.terminations.bind(py))
    }

    /// (num_envs,) int32: each slot's seat to act.
    #[getter]
    fn to_act<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray1<i32>>> {
        read_only(self.to_act.bind(py))
    }

    #[getter]
    fn num_envs(&self) -> usize {
        self.num_envs
    }

    #[getter]
    fn players(&self) -> usize {
        self.players
    }
}
