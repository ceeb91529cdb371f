//! The native part of the `druids-engine` Python package: the rules engines
//! the server runs, with their fixed action spaces, observation tensors,
//! chance mode and resampling ([`game`]), a vectorised environment
//! ([`vector`]), and the wire functions that turn what the server sends into
//! the same observations and masks ([`wire`]).

mod core;
mod game;
mod saved;
mod stats;
mod vector;
mod wire;

use pyo3::prelude::*;

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<game::PyGame>()?;
    m.add_class::<vector::PyVectorEnv>()?;
    m.add_function(wrap_pyfunction!(wire::observation_from_state_view, m)?)?;
    m.add_function(wrap_pyfunction!(stats::evaluation_summary, m)?)?;
    m.add_function(wrap_pyfunction!(wire::mask_from_legal_actions, m)?)?;
    Ok(())
}
