//! Whole-number arguments: a negative or too large Python `int` given for an
//! index, a seat, a count or a seed is a `ValueError` saying the range, as
//! any other value the game cannot take is (PyO3's own unsigned conversions
//! raise `OverflowError`, which a caller checking `ValueError` misses); a
//! bool, which Python counts as an int, is a `TypeError`.

use pyo3::exceptions::{PyOverflowError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyBool;

/// A whole number from 0 to `T`'s largest, taken from any Python `int`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Unsigned<T>(pub(crate) T);

impl<'a, 'py, T> FromPyObject<'a, 'py> for Unsigned<T>
where
    T: TryFrom<i128> + num_bounds::Largest,
{
    type Error = PyErr;

    fn extract(obj: Borrowed<'a, 'py, PyAny>) -> PyResult<Self> {
        // A bool is an int to Python, but `True` players or seeds is a bug.
        if obj.is_instance_of::<PyBool>() {
            return Err(PyTypeError::new_err("expected a whole number, got a bool"));
        }
        // Not an int at all stays PyO3's TypeError, naming the argument.
        let wide: i128 = match obj.extract() {
            Ok(wide) => wide,
            Err(e) if e.is_instance_of::<PyOverflowError>(obj.py()) => {
                return Err(out_of_range::<T>(None));
            }
            Err(e) => return Err(e),
        };
        T::try_from(wide)
            .map(Unsigned)
            .map_err(|_| out_of_range::<T>(Some(wide)))
    }
}

fn out_of_range<T: num_bounds::Largest>(got: Option<i128>) -> PyErr {
    let got = got.map_or_else(
        || "one far out of that range".to_string(),
        |n| n.to_string(),
    );
    PyValueError::new_err(format!(
        "expected a whole number from 0 to {}, got {got}",
        T::LARGEST
    ))
}

/// The largest value of each unsigned type taken as an argument.
mod num_bounds {
    pub(crate) trait Largest {
        const LARGEST: u128;
    }
    macro_rules! largest {
        ($($t:ty),*) => {$(impl Largest for $t { const LARGEST: u128 = <$t>::MAX as u128; })*};
    }
    largest!(u8, u32, u64, usize);
}
