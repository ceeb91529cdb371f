//! The native part of the `druids-engine` Python package: the rules engines
//! the server runs, with their fixed action spaces, observation tensors,
//! chance mode and resampling ([`game`]), a vectorised environment
//! ([`vector`]), and the wire functions that turn what the server sends into
//! the same observations and masks ([`wire`]), and the games' descriptors
//! ([`games`]), so that the Python layer lists no game of its own.

mod core;
mod game;
mod saved;
mod stats;
mod unsigned;
mod vector;
mod wire;

use pyo3::prelude::*;
use pyo3::types::PyDict;

/// The games of this build as the server's registry describes them, one
/// dict each: `name`, `display_name`, `number` (its `GameKind`),
/// `min_players`, `max_players`, `dice_driven`.
#[pyfunction]
fn games(py: Python<'_>) -> PyResult<Vec<Bound<'_, PyDict>>> {
    druids_contract::registry::descriptors()
        .map(|d| {
            let game = PyDict::new(py);
            game.set_item("name", d.name())?;
            game.set_item("display_name", d.display_name())?;
            game.set_item("number", d.number())?;
            game.set_item("min_players", d.min_players())?;
            game.set_item("max_players", d.max_players())?;
            game.set_item("dice_driven", d.dice_driven())?;
            Ok(game)
        })
        .collect()
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<game::PyGame>()?;
    m.add_class::<vector::PyVectorEnv>()?;
    m.add_function(wrap_pyfunction!(wire::observation_from_state_view, m)?)?;
    m.add_function(wrap_pyfunction!(stats::evaluation_summary, m)?)?;
    m.add_function(wrap_pyfunction!(wire::mask_from_legal_actions, m)?)?;
    m.add_function(wrap_pyfunction!(games, m)?)?;
    Ok(())
}
