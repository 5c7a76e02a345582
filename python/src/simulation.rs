//! A simulation stepped from Python: the case loaded by its solver and its model opened on the
//! case's backend ([`hydrokern::run::Steppable::open`]), advanced with the interpreter's lock
//! released, in slices short enough that Ctrl-C raises `KeyboardInterrupt` at the next step
//! boundary and leaves the simulation usable.

use crate::case::NativeCase;
use crate::dlpack::DeviceArray;
use crate::errors::{IntoPy, interrupted, refuse, stepping};
use crate::unsent::Unsent;
use hydrokern::grid::Mesh;
use hydrokern::model::{Output, Until};
use hydrokern::run::{AnyCheckpoint, AnyState, Case, Session};
use hydrokern::view::{Command, ViewOptions};
use numpy::{PyArray1, PyArrayMethods};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::cell::Cell;
use std::rc::Rc;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// How long the model steps before the interpreter looks for Ctrl-C.
const SLICE: Duration = Duration::from_millis(100);

type Model<'a> = Box<dyn Session + 'a>;

/// A field as Python receives it: (name, long name, units, array).
type Field<'py> = (String, String, String, Bound<'py, PyAny>);

self_cell::self_cell!(
    /// The loaded case and the session that borrows it.
    struct Live {
        owner: Box<dyn Case>,
        #[covariant]
        dependent: Model,
    }
);

#[pyclass(module = "hydrokern._hydrokern", unsendable)]
pub struct NativeSimulation {
    live: Option<Live>,
    /// Advances and restores so far (device arrays taken before the last one are stale), and
    /// the device arrays exported and not yet released.
    generation: Rc<Cell<u64>>,
    exported: Arc<AtomicUsize>,
    mesh: Mesh,
    solver: &'static str,
    name: String,
    precision: String,
}

/// A checkpoint taken of a simulation, to restore it (or another simulation of the same case)
/// to that point.
#[pyclass(module = "hydrokern._hydrokern", unsendable)]
pub struct NativeCheckpoint {
    checkpoint: AnyCheckpoint,
    #[pyo3(get)]
    time: f64,
    #[pyo3(get)]
    step: u64,
}

impl NativeSimulation {
    fn live(&mut self) -> PyResult<&mut Live> {
        self.live.as_mut().ok_or_else(|| refuse("the simulation is closed: start a new one"))
    }
}

/// A field as a NumPy array of its shape.
fn array<'py, T: numpy::Element + Copy>(py: Python<'py>, f: Output<T>) -> PyResult<Bound<'py, PyAny>> {
    let dims = f.dims.clone();
    Ok(PyArray1::from_vec(py, f.data).reshape(dims)?.into_any())
}

#[pymethods]
impl NativeSimulation {
    #[new]
    fn new(case: &NativeCase) -> PyResult<NativeSimulation> {
        let loaded = case.load()?;
        let info = loaded.info();
        let (solver, name, precision) = (info.solver, info.name.clone(), info.run.precision.to_string());
        let once = || refuse(format!("{solver} computes once and does not step in time: run it with Case.run()"));
        let mesh = loaded.steppable().ok_or_else(once)?.mesh();
        let live = Live::try_new(loaded, |c| c.steppable().ok_or_else(once).and_then(|s| s.open().py()))?;
        Ok(NativeSimulation {
            live: Some(live),
            generation: Rc::default(),
            exported: Arc::default(),
            mesh,
            solver,
            name,
            precision,
        })
    }

    #[getter]
    fn solver(&self) -> &'static str {
        self.solver
    }

    #[getter]
    fn name(&self) -> &str {
        &self.name
    }

    #[getter]
    fn precision(&self) -> &str {
        &self.precision
    }

    /// Where it runs and with which variant, in one line.
    fn describe(&mut self) -> PyResult<String> {
        Ok(self.live()?.borrow_dependent().describe())
    }

    /// (time, steps, last Δt).
    fn clock(&mut self) -> PyResult<(f64, u64, f64)> {
        let c = self.live()?.borrow_dependent().clock();
        Ok((c.t, c.steps, c.dt))
    }

    /// (end time, number of steps or None, snapshot times, unit of time) of the case.
    fn times(&mut self) -> PyResult<(f64, Option<u64>, Vec<f64>, &'static str)> {
        let t = self.live()?.borrow_owner().steppable().map(|s| s.times().clone());
        let t = t.ok_or_else(|| refuse("not a simulation"))?;
        Ok((t.t_end, t.steps, t.snapshots, t.unit))
    }

    /// Step to time `until` (the last step shortened to land on it) or until `steps` steps in
    /// all, whichever comes first; returns the time reached.
    #[pyo3(signature = (until, steps = None))]
    fn advance(&mut self, py: Python<'_>, until: f64, steps: Option<u64>) -> PyResult<f64> {
        if until.is_nan() {
            return Err(refuse("until: NaN is not a time"));
        }
        self.generation.set(self.generation.get() + 1);
        let live = self.live()?;
        loop {
            // With a live view: its lines said, a frame where one is due, and the viewers'
            // pause held here, between steps (Ctrl-C still raises); a stop raises as Ctrl-C.
            let mut paused = true;
            while paused {
                paused = false;
                let ticked = live.with_dependent_mut(|_, s| s.view_tick(false)).map_err(stepping)?;
                if let Some((command, notes)) = ticked {
                    for line in notes {
                        py.import("sys")?.getattr("stderr")?.call_method1("write", (format!("{line}\n"),))?;
                    }
                    match command {
                        Command::Stop => return Err(interrupted("stopped from the live view")),
                        Command::Pause => {
                            let model = Unsent(&mut *live);
                            py.detach(move || model.take().with_dependent(|_, s| s.view_wait(SLICE)));
                            py.check_signals()?;
                            paused = true;
                        }
                        Command::Run => {}
                    }
                }
            }
            let model = Unsent(&mut *live);
            let clock = py.detach(move || {
                let live = model.take();
                live.with_dependent_mut(|_, s| {
                    let slice = Instant::now() + SLICE;
                    let deadline = Some(s.view_due().map_or(slice, |d| d.min(slice)));
                    s.advance(Until { t: until, steps: steps.unwrap_or(u64::MAX), deadline })
                })
            });
            let clock = clock.map_err(stepping)?;
            if clock.t >= until || steps.is_some_and(|n| clock.steps >= n) {
                // The view shows where each advance stops.
                live.with_dependent_mut(|_, s| s.view_tick(true)).map_err(stepping)?;
                return Ok(clock.t);
            }
            // Ctrl-C raises here, between steps: the model stays whole and can go on.
            py.check_signals()?;
        }
    }

    /// Serve the live view of this simulation on localhost (`port` 0: a free one), starting
    /// paused with `paused` (the next advance waits for a viewer to resume it); its address.
    fn view(&mut self, port: u16, paused: bool) -> PyResult<String> {
        let live = self.live()?;
        live.with_dependent_mut(|_, s| s.view(ViewOptions { port, paused })).py()
    }

    /// The state now: a list of (name, long name, units, array) in the precision of the run.
    fn state<'py>(&mut self, py: Python<'py>) -> PyResult<Vec<Field<'py>>> {
        let live = self.live()?;
        let state = live.with_dependent_mut(|_, s| s.state()).map_err(stepping)?;
        fn listed<'py, T: numpy::Element + Copy>(py: Python<'py>, fields: Vec<Output<T>>) -> PyResult<Vec<Field<'py>>> {
            fields
                .into_iter()
                .map(|f| Ok((f.name.to_string(), f.long_name.to_string(), f.units.to_string(), array(py, f)?)))
                .collect()
        }
        match state {
            AnyState::F32(s) => listed(py, s.fields),
            AnyState::F64(s) => listed(py, s.fields),
        }
    }

    /// Cell centres along each axis, slowest first as the arrays' axes: (y, x) or (z, y, x), metres.
    fn coords<'py>(&self, py: Python<'py>) -> Vec<Bound<'py, PyArray1<f64>>> {
        let axis = |o: f64, n: usize, d: f64| -> Vec<f64> { (0..n).map(|i| o + (i as f64 + 0.5) * d).collect() };
        let axes = match &self.mesh {
            Mesh::Plane(g) => {
                let (x0, y0) = g.origin;
                vec![axis(y0, g.ny, g.dy), axis(x0, g.nx, g.dx)]
            }
            Mesh::Volume(g) => {
                vec![axis(g.origin.2, g.nz, g.dz), axis(g.origin.1, g.ny, g.dy), axis(g.origin.0, g.nx, g.dx)]
            }
        };
        axes.into_iter().map(|a| PyArray1::from_vec(py, a)).collect()
    }

    /// The bed under the water (metres, the fields' shape), for solvers whose water has one.
    fn bed<'py>(&mut self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        let dims = self.mesh.dims();
        let bed = self.live()?.borrow_owner().steppable().and_then(|s| s.bed()).map(<[f64]>::to_vec);
        bed.map(|b| Ok(PyArray1::from_vec(py, b).reshape(dims)?.into_any())).transpose()
    }

    fn checkpoint(&mut self) -> PyResult<NativeCheckpoint> {
        let live = self.live()?;
        let checkpoint = live.with_dependent_mut(|_, s| s.checkpoint()).map_err(stepping)?;
        let c = live.borrow_dependent().clock();
        Ok(NativeCheckpoint { checkpoint, time: c.t, step: c.steps })
    }

    /// What the runner reports of the state now: (progress line, conservation line or None,
    /// the water account as a dict of m³ or None).
    fn diagnostics<'py>(&mut self, py: Python<'py>) -> PyResult<(String, Option<String>, Option<Bound<'py, PyDict>>)> {
        let d = self.live()?.with_dependent_mut(|_, s| s.diagnostics()).map_err(stepping)?;
        let account = match d.account {
            Some(a) => {
                let dict = PyDict::new(py);
                dict.set_item("volume", a.storage)?;
                dict.set_item("volume_start", a.start)?;
                dict.set_item("rain", a.rain)?;
                dict.set_item("inflow", a.inflow)?;
                dict.set_item("infiltration", a.infiltration)?;
                dict.set_item("boundary_in", a.boundary_in())?;
                dict.set_item("boundary_out", a.boundary_out())?;
                dict.set_item("residual", a.residual())?;
                Some(dict)
            }
            None => None,
        };
        Ok((d.progress, d.conservation, account))
    }

    /// Write a checkpoint file of now, as a run of this case writes one.
    fn write_checkpoint(&mut self, path: std::path::PathBuf) -> PyResult<()> {
        self.live()?.with_dependent_mut(|_, s| s.write_checkpoint(&path)).py()
    }

    /// Continue from a checkpoint file a run of this case wrote (`output.checkpoint_every`);
    /// returns the time reached.
    fn restore_file(&mut self, path: std::path::PathBuf) -> PyResult<f64> {
        self.generation.set(self.generation.get() + 1);
        let clock = self.live()?.with_dependent_mut(|_, s| s.restore_file(&path)).py()?;
        Ok(clock.t)
    }

    fn restore(&mut self, checkpoint: &NativeCheckpoint) -> PyResult<()> {
        self.generation.set(self.generation.get() + 1);
        self.live()?.with_dependent_mut(|_, s| s.restore(&checkpoint.checkpoint)).py()
    }

    /// The state arrays on the GPU where they lie, for DLPack consumers ([`DeviceArray`]).
    fn device_fields(slf: Bound<'_, Self>) -> PyResult<Vec<DeviceArray>> {
        let owner = slf.clone().into_any().unbind();
        let mut this = slf.borrow_mut();
        let solver = this.solver;
        let views = this.live()?.with_dependent_mut(|_, s| s.device_views()).map_err(stepping)?;
        if views.is_empty() {
            return Err(refuse(format!(
                "no device arrays: this {solver} simulation runs on the CPU, or its model offers none (kp in mixed precision); read state() instead"
            )));
        }
        let (generation, exported) = (this.generation.clone(), this.exported.clone());
        Ok(views
            .into_iter()
            .map(|v| DeviceArray::new(v, owner.clone_ref(slf.py()), generation.clone(), exported.clone()))
            .collect())
    }

    /// Free the model (its GPU memory); any later use is an error. Refused while arrays
    /// exported by DLPack still read its memory.
    fn close(&mut self) -> PyResult<()> {
        let n = self.exported.load(Ordering::SeqCst);
        if n > 0 {
            return Err(refuse(format!(
                "{n} array(s) exported from this simulation by DLPack still read its GPU memory: delete them before closing"
            )));
        }
        if let Some(live) = &mut self.live {
            live.with_dependent_mut(|_, s| s.view_end("closed"));
        }
        self.live = None;
        Ok(())
    }

    #[getter]
    fn closed(&self) -> bool {
        self.live.is_none()
    }
}
