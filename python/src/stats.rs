//! The numbers `druids_engine.evaluate` reports, computed by the one module
//! every evaluation in druids uses (`druids_arena::evaluation`: Wilson win
//! rates, normal mean-score intervals, a Plackett-Luce fit of more than two
//! programs), so `druids match` and Python agree.

use druids_arena::evaluation::{self, Interval, SeatResult};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use crate::unsigned::Unsigned;
use pyo3::types::PyDict;

fn put(d: &Bound<'_, PyDict>, name: &str, i: Interval) -> PyResult<()> {
    d.set_item(name, i.value)?;
    d.set_item(format!("{name}_low"), i.low)?;
    d.set_item(format!("{name}_high"), i.high)
}

/// One seat of a game as Python gives it: (program, score, place).
type Seated = (Unsigned<usize>, f64, Unsigned<u32>);

/// One summary per program: games, wins, win rate and mean score with their
/// 95 % intervals (`win_rate`, `win_rate_low`, `win_rate_high`, the same for
/// `mean_score`), and with more than two programs the fitted strength
/// (`strength`, `strength_low`, `strength_high`). `games` lists each game's
/// seats as (program, score, place), place 1 for the winners.
#[pyfunction]
pub fn evaluation_summary<'py>(
    py: Python<'py>,
    programs: Unsigned<usize>,
    games: Vec<Vec<Seated>>,
) -> PyResult<Vec<Bound<'py, PyDict>>> {
    let programs = programs.0;
    if let Some(bad) = games.iter().flatten().find(|s| s.0.0 >= programs) {
        return Err(PyValueError::new_err(format!(
            "program {} is not one of the {programs} programs",
            bad.0.0
        )));
    }
    let games: Vec<Vec<SeatResult>> = games
        .into_iter()
        .map(|g| {
            g.into_iter()
                .map(|(Unsigned(program), score, Unsigned(place))| SeatResult {
                    program,
                    score,
                    place,
                })
                .collect()
        })
        .collect();
    let report = py
        .detach(|| evaluation::evaluate(programs, &games))
        .map_err(|e| PyValueError::new_err(e.to_string()))?;
    report
        .programs
        .iter()
        .enumerate()
        .map(|(p, summary)| {
            let d = PyDict::new(py);
            d.set_item("games", summary.games)?;
            d.set_item("wins", summary.wins)?;
            put(&d, "win_rate", summary.win_rate)?;
            put(&d, "mean_score", summary.mean_score)?;
            if let Some(fit) = &report.fit {
                let theta = fit[p].display();
                put(
                    &d,
                    "strength",
                    Interval {
                        value: theta.value,
                        low: theta.low,
                        high: theta.high,
                    },
                )?;
            }
            Ok(d)
        })
        .collect()
}
