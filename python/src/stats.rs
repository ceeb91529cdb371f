//! The intervals `druids_engine.evaluate` reports, computed by the same code
//! as the CLI's tournaments (`druids_bots::arena::Standing`).

use pyo3::prelude::*;
use pyo3::types::PyDict;

/// Win rate (Wilson) and mean score (normal) with their 95 % intervals, from
/// one entry's totals.
#[pyfunction]
pub fn interval_summary<'py>(
    py: Python<'py>,
    games: u32,
    wins: f64,
    score_sum: f64,
    score_sq_sum: f64,
) -> PyResult<Bound<'py, PyDict>> {
    let st = druids_bots::arena::Standing {
        games,
        wins,
        score_sum,
        score_sq_sum,
    };
    let (win_low, win_high) = st.win_rate_ci95();
    let (score_low, score_high) = st.mean_score_ci95();
    let d = PyDict::new(py);
    d.set_item("games", games)?;
    d.set_item("win_rate", st.win_rate())?;
    d.set_item("win_rate_low", win_low)?;
    d.set_item("win_rate_high", win_high)?;
    d.set_item("mean_score", st.mean_score())?;
    d.set_item("mean_score_low", score_low)?;
    d.set_item("mean_score_high", score_high)?;
    Ok(d)
}
