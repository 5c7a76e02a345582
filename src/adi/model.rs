//! An ADI run behind [`Model`]: fixed Δt, landing exactly on the runner's stop times (the case
//! refuses a Δt that does not divide them), the state handed out as ζ, h = d + ζ, the fluxes
//! averaged to the cell centres, and the staggered fluxes as they are.
//!
//! A failing step (a solver breakdown or a non-finite value, both Errs of the sweep) halts the
//! run with [`Halt::NonFinite`] and keeps the state before it; the sweep's message (step, sweep,
//! line and position) goes to the case, which adds it to the runner's report (`Simulation::halted`).

use super::cpu::Adi;
use super::gpu::{GpuAdi, Strategy, YSweep};
use crate::model::{Checkpoint, Clock, Halt, Model, Output, State, Until};
use crate::runtime::{Backend, Gpu};
use crate::{GpuReal, Real, Result};
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// Steps the GPU is given between two looks at its breakdown flag and the deadline: enough to
/// keep it busy, few enough that a progress line or a blow-up is not far behind.
const GPU_BATCH: u64 = 32;

/// Where the model runs.
enum On<T: GpuReal> {
    Cpu(Box<Adi<T>>),
    /// The run on the device, and a host copy of the model (its parameters; the state is
    /// downloaded into it when asked for).
    Gpu(Arc<Gpu>, Box<GpuAdi<T>>, Box<Adi<T>>),
}

/// An ADI run on either backend.
pub struct AdiModel<'a, T: GpuReal> {
    on: On<T>,
    /// The reported time: `steps·Δt`, or exactly the stop time once a run lands on it.
    t: f64,
    halt: Option<Halt>,
    /// Where a failing step's message goes, for the runner's report.
    failure: &'a Mutex<Option<String>>,
    /// The GPU's strategy and y-sweep as asked for (a restore builds the GPU run again).
    strategy: Strategy,
    y_sweep: YSweep,
}

impl<'a, T: GpuReal> AdiModel<'a, T> {
    /// The run of `cpu` (at its start) on `backend`, the GPU's sweeps solving by `strategy`, its
    /// y-sweep in design `y_sweep`; a failing step's message lands in `failure`.
    pub fn new(
        backend: &Backend,
        cpu: Adi<T>,
        strategy: Strategy,
        y_sweep: YSweep,
        failure: &'a Mutex<Option<String>>,
    ) -> Result<Self> {
        let on = match backend {
            Backend::Cpu { .. } => On::Cpu(Box::new(cpu)),
            Backend::Gpu(gpu) => {
                On::Gpu(gpu.clone(), Box::new(GpuAdi::with_y_sweep(gpu, &cpu, strategy, y_sweep)?), Box::new(cpu))
            }
        };
        Ok(AdiModel { on, t: 0.0, halt: None, failure, strategy, y_sweep })
    }

    /// Steps taken and Δt.
    fn steps_dt(&self) -> (u64, f64) {
        match &self.on {
            On::Cpu(m) => (m.steps, m.params.dt.to_f64()),
            On::Gpu(_, g, host) => (g.steps(), host.params.dt.to_f64()),
        }
    }

    fn fail(&mut self, e: crate::Error) {
        self.halt = Some(Halt::NonFinite);
        if let Ok(mut f) = self.failure.lock() {
            *f = Some(e.to_string());
        }
    }
}

/// Host memory of the state of an `nx × ny` run in words: d, ζ, p, q and q^{n−½}.
pub fn state_words(nx: u64, ny: u64) -> u64 {
    let cells = nx.saturating_mul(ny);
    let faces = (nx + 1).saturating_mul(ny).max(nx.saturating_mul(ny + 1));
    cells.saturating_mul(2).saturating_add(faces.saturating_mul(3))
}

/// The mean of the two faces of each cell along x (`p`, (nx+1)·ny) or y (`q`, nx·(ny+1)).
fn centred<T: Real>(f: &[T], nx: usize, ny: usize, along_x: bool) -> Vec<T> {
    (0..nx * ny)
        .map(|c| {
            let (j, k) = (c % nx, c / nx);
            let (a, b) = if along_x { (k * (nx + 1) + j, k * (nx + 1) + j + 1) } else { (c, (k + 1) * nx + j) };
            T::HALF * (f[a] + f[b])
        })
        .collect()
}

/// The output fields of a state.
pub fn outputs<T: Real>(m: &Adi<T>) -> Vec<Output<T>> {
    let (nx, ny) = (m.nx, m.ny);
    let h: Vec<T> = m.d.iter().zip(&m.zeta).map(|(&d, &z)| d + z).collect();
    let field = |name, long_name, units, dims: Vec<usize>, data| Output { name, long_name, units, dims, data };
    // In name order, as the regression norms list them.
    vec![
        field("h", "total depth h = d + ζ", "m", vec![ny, nx], h),
        field("p", "x flux density p on the x-faces", "m²/s", vec![ny, nx + 1], m.p.clone()),
        field("p_centre", "x flux density p at cell centres (mean of two faces)", "m²/s", vec![ny, nx], centred(&m.p, nx, ny, true)),
        field("q", "y flux density q on the y-faces (half a step later)", "m²/s", vec![ny + 1, nx], m.q.clone()),
        field(
            "q_centre",
            "y flux density q at cell centres (mean of two faces, half a step later)",
            "m²/s",
            vec![ny, nx],
            centred(&m.q, nx, ny, false),
        ),
        field("zeta", "surface elevation ζ", "m", vec![ny, nx], m.zeta.clone()),
    ]
}

impl<T: GpuReal> Model<T> for AdiModel<'_, T> {
    fn describe(&self) -> String {
        match &self.on {
            On::Cpu(_) => format!("CPU reference (Thomas per line, {} threads)", rayon::current_num_threads()),
            On::Gpu(_, g, _) => format!("GPU, {}", g.describe()),
        }
    }

    fn clock(&self) -> Clock {
        let (steps, dt) = self.steps_dt();
        Clock { t: self.t, steps, dt: if steps > 0 { dt } else { 0.0 }, halt: self.halt }
    }

    fn advance(&mut self, until: Until) -> Result<Clock> {
        if self.halt.is_some() {
            return Ok(self.clock());
        }
        let (_, dt) = self.steps_dt();
        // The step count that lands on the stop time (a multiple of Δt: the case checked it).
        let target = if until.t.is_finite() { (until.t / dt).round() as u64 } else { u64::MAX };
        let last = target.min(until.steps);
        let mut failed = None;
        match &mut self.on {
            On::Cpu(m) => {
                while m.steps < last {
                    if until.deadline.is_some_and(|d| Instant::now() >= d) {
                        break;
                    }
                    // A failing step leaves the model at its start.
                    if let Err(e) = m.step() {
                        failed = Some(e);
                        break;
                    }
                }
            }
            On::Gpu(gpu, g, _) => {
                while g.steps() < last {
                    if until.deadline.is_some_and(|d| Instant::now() >= d) {
                        break;
                    }
                    g.advance(GPU_BATCH.min(last - g.steps()))?;
                    // A breakdown takes the run back to the state before the failing step.
                    if let Err(e) = g.check(gpu) {
                        failed = Some(e);
                        break;
                    }
                }
            }
        }
        if let Some(e) = failed {
            self.fail(e);
        }
        let (steps, _) = self.steps_dt();
        self.t = if steps == target { until.t } else { steps as f64 * dt };
        Ok(self.clock())
    }

    fn state(&mut self) -> Result<State<T>> {
        let clock = self.clock();
        let fields = match &mut self.on {
            On::Cpu(m) => outputs(m),
            On::Gpu(gpu, g, host) => {
                g.download(gpu, host)?;
                outputs(host)
            }
        };
        Ok(State { clock, fields })
    }

    /// ζⁿ, pⁿ, q^{n+½}, q^{n−½} and the wet flags, with the model's time and the reported one.
    fn checkpoint(&mut self) -> Result<Checkpoint<T>> {
        let clock = self.clock();
        let m = match &mut self.on {
            On::Cpu(m) => m,
            On::Gpu(gpu, g, host) => {
                g.download(gpu, host)?;
                host
            }
        };
        Ok(Checkpoint::at(clock)
            .field("zeta", m.zeta.clone())
            .field("p", m.p.clone())
            .field("q", m.q.clone())
            .field("q_old", m.q_old.clone())
            .flag("wet", m.wet.iter().map(|&w| w as u8).collect())
            .value("time", m.time))
    }

    /// On the GPU, the run is built again from the restored host copy, as it was built at the
    /// start from the initial one.
    fn restore(&mut self, c: &Checkpoint<T>) -> Result<()> {
        let m = match &mut self.on {
            On::Cpu(m) => &mut **m,
            On::Gpu(_, _, host) => &mut **host,
        };
        let (cells, p, q) = (m.zeta.len(), m.p.len(), m.q.len());
        m.zeta = c.get_field("zeta", cells)?.to_vec();
        m.p = c.get_field("p", p)?.to_vec();
        m.q = c.get_field("q", q)?.to_vec();
        m.q_old = c.get_field("q_old", q)?.to_vec();
        m.wet = c.get_flags("wet", cells)?.iter().map(|&w| w != 0).collect();
        m.time = c.get_value("time")?;
        m.steps = c.clock.steps;
        if let On::Gpu(gpu, g, host) = &mut self.on {
            **g = GpuAdi::with_y_sweep(gpu, host, self.strategy, self.y_sweep)?;
        }
        self.t = c.clock.t;
        self.halt = None;
        Ok(())
    }
}
