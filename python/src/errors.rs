//! The library's errors as Python exceptions: bad input is a `CaseError` (a `ValueError`), a
//! file that cannot be read or written an `OSError`, a run that blows up a `SimulationError`,
//! a stop on request a `KeyboardInterrupt`, a failure of the GPU a `RuntimeError`.

use hydrokern::Error;
use pyo3::exceptions::{PyKeyboardInterrupt, PyOSError, PyRuntimeError, PyValueError};
use pyo3::prelude::*;

pyo3::create_exception!(hydrokern, CaseError, PyValueError, "A case or an argument that hydrokern refuses.");
pyo3::create_exception!(
    hydrokern,
    SimulationError,
    PyRuntimeError,
    "A simulation that blew up: the message names the step, the time and the cell."
);

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("CaseError", m.py().get_type::<CaseError>())?;
    m.add("SimulationError", m.py().get_type::<SimulationError>())?;
    Ok(())
}

/// `e` as the Python exception of its kind.
pub fn to_py(e: Error) -> PyErr {
    let text = e.to_string();
    match e {
        Error::Invalid(_) | Error::NoGpu(_) | Error::OutOfMemory { .. } => CaseError::new_err(text),
        Error::Io { .. } => PyOSError::new_err(text),
        Error::Interrupted { .. } => PyKeyboardInterrupt::new_err(text),
        Error::Driver { .. } | Error::Launch { .. } => PyRuntimeError::new_err(text),
    }
}

/// `e` from a model that was stepped or read: bad input refused before the run is a
/// `CaseError`; a model that halted or a state that is not valid a `SimulationError`.
pub fn stepping(e: Error) -> PyErr {
    match e {
        Error::Invalid(text) => SimulationError::new_err(text),
        other => to_py(other),
    }
}

/// A `KeyboardInterrupt` of `text`: a stop on request between steps, the simulation whole.
pub fn interrupted(text: impl Into<String>) -> PyErr {
    PyKeyboardInterrupt::new_err(text.into())
}

/// A `CaseError` of `text`.
pub fn refuse(text: impl Into<String>) -> PyErr {
    CaseError::new_err(text.into())
}

pub trait IntoPy<T> {
    /// The library's result as Python's.
    fn py(self) -> PyResult<T>;
}

impl<T> IntoPy<T> for hydrokern::Result<T> {
    fn py(self) -> PyResult<T> {
        self.map_err(to_py)
    }
}
