//! The wave-propagation solver on arrays Python holds, for `hydrokern.pyclaw`: PyClaw's
//! `State` (the state and auxiliary fields), the equations by their registry name with their
//! constants, and the algorithm's choices, stepped with the interpreter's lock released in
//! slices short enough that Ctrl-C raises `KeyboardInterrupt` between steps.

use crate::blocks;
use crate::errors::{IntoPy, SimulationError, refuse, stepping};
use crate::unsent::Unsent;
use hydrokern::case::initial::Values;
use hydrokern::claw::d3::cpu::Setup3;
use hydrokern::claw::equations::{Data, Equations};
use hydrokern::claw::{Cfl, ClawRun, Clock, Limiter, Splitting, side_condition};
use hydrokern::model::{Model, Until};
use hydrokern::runtime::Backend;
use hydrokern::{GpuReal, Precision};
use numpy::{PyArrayDyn, PyArrayMethods, PyReadonlyArrayDyn, PyUntypedArrayMethods};
use pyo3::prelude::*;
use std::collections::HashMap;
use std::time::{Duration, Instant};

/// How long the run steps before the interpreter looks for Ctrl-C.
const SLICE: Duration = Duration::from_millis(100);

enum Run {
    F32(Box<dyn ClawRun<f32>>),
    F64(Box<dyn ClawRun<f64>>),
}

/// A wave-propagation run of arrays handed over from Python.
#[pyclass(module = "hydrokern._hydrokern", unsendable)]
pub struct NativeClawRun {
    run: Run,
    name: &'static str,
    /// The state's NumPy shape: (fields, [nz,] ny, nx).
    shape: Vec<usize>,
}

/// A side's condition by name.
fn side(name: &str) -> PyResult<u32> {
    side_condition(name).ok_or_else(|| refuse(format!("boundary '{name}': expected wall, extrapolate or periodic")))
}

/// The interior values of each of the `n` leading planes of `a`, x fastest.
fn planes(a: &PyReadonlyArrayDyn<'_, f64>, n: usize, what: &str) -> PyResult<Vec<Vec<f64>>> {
    let a = a.as_array();
    let cells: usize = a.shape()[1..].iter().product();
    let flat = a.as_standard_layout();
    let flat = flat.as_slice().ok_or_else(|| refuse(format!("{what}: the array could not be read as one block")))?;
    Ok((0..n).map(|k| flat[k * cells..(k + 1) * cells].to_vec()).collect())
}

#[pymethods]
impl NativeClawRun {
    /// A run of `equations` (a registry name) with `constants` (the rest take their defaults) on
    /// the state `q` of shape (fields, [nz,] ny, nx) and auxiliary fields `aux` of shape (aux
    /// fields, [nz,] ny, nx), cells of `spacing` (dx, dy[, dz]) metres, sides `bc` (west, east,
    /// south, north[, bottom, top]), from time `t` with a first step trying `dt` (PyClaw's
    /// `dt`; by default `cfl` over the fastest initial wave).
    #[new]
    #[pyo3(signature = (equations, constants, q, aux, spacing, bc, limiter, splitting, cfl, cfl_max, t, dt, backend, precision))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        equations: &str,
        constants: HashMap<String, f64>,
        q: PyReadonlyArrayDyn<'_, f64>,
        aux: PyReadonlyArrayDyn<'_, f64>,
        spacing: Vec<f64>,
        bc: Vec<String>,
        limiter: &str,
        splitting: &str,
        cfl: f64,
        cfl_max: f64,
        t: f64,
        dt: Option<f64>,
        backend: &str,
        precision: &str,
    ) -> PyResult<NativeClawRun> {
        let eq: Equations = equations.parse().py()?;
        let info = eq.info();
        let dims = info.dims;
        let mut values: Vec<f64> = info.constants.iter().map(|&(_, v)| v).collect();
        for (key, v) in &constants {
            let Some(k) = info.constants.iter().position(|(n, _)| n == key) else {
                let known: Vec<&str> = info.constants.iter().map(|(n, _)| *n).collect();
                return Err(refuse(format!(
                    "{} has no constant '{key}' (its constants: {})",
                    info.name,
                    known.join(", ")
                )));
            };
            if !v.is_finite() {
                return Err(refuse(format!("{} constant {key} = {v}: must be finite", info.name)));
            }
            values[k] = *v;
        }
        let shape = q.shape().to_vec();
        let aux_fields = info.fields.len() - info.state;
        if shape.len() != dims + 1 || shape[0] != info.state {
            return Err(refuse(format!(
                "q: shape {shape:?}, but {} takes {} fields on a grid of {dims} dimensions",
                info.name, info.state
            )));
        }
        if aux.shape()[0] != aux_fields || aux.shape()[1..] != shape[1..] {
            return Err(refuse(format!(
                "aux: shape {:?}, but {} takes {aux_fields} auxiliary fields on q's grid {:?}",
                aux.shape(),
                info.name,
                &shape[1..]
            )));
        }
        if spacing.len() != dims || bc.len() != 2 * dims {
            return Err(refuse(format!("{dims} cell sizes and {} sides for a grid of {dims} dimensions", 2 * dims)));
        }
        let limiter = Limiter::ALL.iter().copied().find(|l| l.name() == limiter).ok_or_else(|| {
            let known: Vec<&str> = Limiter::ALL.iter().map(|l| l.name()).collect();
            refuse(format!("unknown limiter '{limiter}' (known: {})", known.join(", ")))
        })?;
        let splitting = match splitting {
            "godunov" => Splitting::Godunov,
            "strang" => Splitting::Strang,
            other => return Err(refuse(format!("splitting '{other}': expected godunov or strang"))),
        };
        if !(dt.is_none_or(|dt| dt > 0.0) && t.is_finite()) {
            return Err(refuse(format!("dt = {dt:?} at t = {t}: the first step needs a positive Δt")));
        }
        // Unused sides (bottom and top in 2D) are walls, as a plane's set-up has them.
        let mut sides = [side("wall")?; 6];
        for (k, b) in bc.iter().enumerate() {
            sides[k] = side(b)?;
        }
        let n: Vec<usize> = shape[1..].iter().rev().copied().collect();
        let (nz, dz) = if dims == 3 { (n[2], spacing[2]) } else { (1, 1.0) };
        let setup = Setup3 {
            nx: n[0],
            ny: n[1],
            nz,
            dx: spacing[0],
            dy: spacing[1],
            dz,
            bc: sides,
            limiter,
            splitting,
            cfl: Cfl { desired: cfl, max: cfl_max },
        };
        let mut fields = planes(&q, info.state, "q")?;
        fields.extend(planes(&aux, aux_fields, "aux")?);
        let fields = fields.into_iter().map(Values::stored).collect();
        let data = Data { setup, constants: values, fields };
        let be = blocks::backend(backend)?;
        // Without a Δt, the first step's is the case's: `cfl` over the fastest initial wave, in
        // the run's precision.
        let clock = |first_dt: fn(Equations, &Data) -> hydrokern::Result<f64>| -> PyResult<Clock> {
            Ok(Clock::start(
                t,
                match dt {
                    Some(dt) => dt,
                    None => first_dt(eq, &data).py()?,
                },
            ))
        };
        let run = match precision {
            "f32" => Run::F32(open::<f32>(eq, &data, &be, clock(Equations::first_dt::<f32>)?)?),
            "f64" => Run::F64(open::<f64>(eq, &data, &be, clock(Equations::first_dt::<f64>)?)?),
            other => return Err(refuse(format!("precision '{other}': expected f32 or f64"))),
        };
        Ok(NativeClawRun { run, name: info.name, shape })
    }

    /// Where it runs, in one line.
    fn describe(&self) -> String {
        match &self.run {
            Run::F32(m) => m.describe(),
            Run::F64(m) => m.describe(),
        }
    }

    /// Step to `t_end` (the last step cut to land on it) or to `steps` steps in all; returns
    /// (time, steps, the last step's Δt and CFL number, the Δt the next step tries, steps
    /// rejected in all).
    #[pyo3(signature = (t_end, steps = None))]
    fn advance(&mut self, py: Python<'_>, t_end: f64, steps: Option<u64>) -> PyResult<(f64, u64, f64, f64, f64, u64)> {
        if t_end.is_nan() {
            return Err(refuse("t_end: NaN is not a time"));
        }
        let name = self.name;
        let steps = steps.unwrap_or(u64::MAX);
        loop {
            let c = match &mut self.run {
                Run::F32(m) => slice(py, m.as_mut(), t_end, steps),
                Run::F64(m) => slice(py, m.as_mut(), t_end, steps),
            }
            .map_err(stepping)?;
            if c.halt().is_some() {
                return Err(SimulationError::new_err(c.halt_message(name)));
            }
            let last = c.last();
            if c.time() >= t_end || c.steps() >= steps {
                return Ok((c.time(), c.steps(), last.dt, last.cfl, c.next_dt(), c.rejected()));
            }
            py.check_signals()?;
        }
    }

    /// The state now, as f64, of shape (fields, [nz,] ny, nx).
    fn state<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyArrayDyn<f64>>> {
        let fields: Vec<f64> = match &mut self.run {
            Run::F32(m) => {
                m.state().map_err(stepping)?.fields.iter().flat_map(|f| f.data.iter().map(|&v| v as f64)).collect()
            }
            Run::F64(m) => m.state().map_err(stepping)?.fields.into_iter().flat_map(|f| f.data).collect(),
        };
        numpy::PyArray1::from_vec(py, fields).reshape(self.shape.clone())
    }
}

/// A system of equations as Python receives it: (name, state fields, auxiliary fields,
/// constants with their defaults, dimensions).
type System = (&'static str, Vec<&'static str>, Vec<&'static str>, Vec<(&'static str, f64)>, usize);

/// Every system of equations the solver steps.
#[pyfunction]
pub fn claw_equations() -> Vec<System> {
    Equations::ALL
        .iter()
        .map(|e| {
            let i = e.info();
            let (state, aux) = i.fields.split_at(i.state);
            (i.name, state.to_vec(), aux.to_vec(), i.constants.to_vec(), i.dims)
        })
        .collect()
}

/// The run of `data` in precision T, after checking that it fits in the host's and the GPU's
/// memory.
fn open<T: GpuReal>(eq: Equations, data: &Data, be: &Backend, clock: Clock) -> PyResult<Box<dyn ClawRun<T>>> {
    let s = &data.setup;
    let what = format!("{} on {} × {} × {} cells in {}", eq.info().name, s.nx, s.ny, s.nz, Precision::of::<T>());
    let values = data.fields.len() * s.nx * s.ny * s.nz;
    // The reference the run starts from: its padded state, a trial's copy and the aux fields.
    hydrokern::files::check_host_memory(&what, (3 * values * std::mem::size_of::<T>()) as u64).py()?;
    if let Backend::Gpu(gpu) = be {
        gpu.check_fits(&what, eq.device_bytes::<T>(s) as usize).py()?;
    }
    eq.run::<T>(data, be, clock).py()
}

/// One slice of stepping with the interpreter's lock released; the run's clock after it.
fn slice<T>(py: Python<'_>, m: &mut dyn ClawRun<T>, t_end: f64, steps: u64) -> hydrokern::Result<Clock> {
    let run = Unsent(m);
    py.detach(move || {
        let m = run.take();
        let deadline = Some(Instant::now() + SLICE);
        let model: &mut dyn Model<T> = m;
        model.advance(Until { t: t_end, steps, deadline })?;
        Ok(m.claw_clock())
    })
}
