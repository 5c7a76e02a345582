//! The native part of the `hydrokern` Python package: cases (`case::NativeCase`) and
//! simulations stepped from Python (`simulation::NativeSimulation`) on the library's registry
//! and runner. The Python classes users see (`python/hydrokern/`) wrap these.

use pyo3::prelude::*;

mod blocks;
mod case;
mod claw;
mod dlpack;
mod errors;
mod simulation;
mod unsent;
mod value;

/// Every built-in scenario: (name, solver, description).
#[pyfunction]
fn scenarios() -> Vec<(String, String, String)> {
    hydrokern::scenarios::all()
        .into_iter()
        .map(|s| {
            let solver = s.solver().map(|v| v.name.to_string()).unwrap_or_default();
            (s.name.to_string(), solver, s.description())
        })
        .collect()
}

/// Every solver: (name, one line on what it solves, whether it steps in time).
#[pyfunction]
fn solvers() -> Vec<(String, String)> {
    hydrokern::registry::SOLVERS.iter().map(|s| (s.name.to_string(), s.about.to_string())).collect()
}

#[pymodule]
fn _hydrokern(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("revision", hydrokern::GIT_REVISION)?;
    m.add_function(wrap_pyfunction!(scenarios, m)?)?;
    m.add_function(wrap_pyfunction!(solvers, m)?)?;
    m.add_function(wrap_pyfunction!(blocks::tridiag_solve, m)?)?;
    m.add_function(wrap_pyfunction!(blocks::device::tridiag_solve_device, m)?)?;
    m.add_function(wrap_pyfunction!(blocks::fd3d_derivative, m)?)?;
    m.add_function(wrap_pyfunction!(claw::claw_equations, m)?)?;
    m.add_class::<case::NativeCase>()?;
    m.add_class::<claw::NativeClawRun>()?;
    m.add_class::<simulation::NativeSimulation>()?;
    m.add_class::<simulation::NativeCheckpoint>()?;
    m.add_class::<dlpack::DeviceArray>()?;
    errors::register(m)?;
    Ok(())
}
