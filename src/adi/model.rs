//! An ADI run behind [`Model`]: fixed Δt, landing exactly on the runner's stop times (the case
//! refuses a Δt that does not divide them), the state handed out as ζ, h = d + ζ, the fluxes
//! averaged to the cell centres, and the staggered fluxes as they are.
//!
//! A failing step (a solver breakdown or a non-finite value, both Errs of the sweep) halts the
//! run with [`Halt::NonFinite`] and keeps the state before it; the sweep's message (step, sweep,
//! line and position) goes to the case, which adds it to the runner's report (`Simulation::halted`).

use super::cpu::Adi;
use crate::model::{Clock, Halt, Model, Output, State, Until};
use crate::runtime::Backend;
use crate::{Error, GpuReal, Real, Result};
use std::sync::Mutex;
use std::time::Instant;

/// Where the model runs.
enum On<T> {
    Cpu(Box<Adi<T>>),
    // LEAD: GPU arm: Gpu(Arc<Gpu>, Box<super::gpu::GpuAdi<T>>, Box<Adi<T>>) — the run on the
    // device and a host copy to download into.
}

/// An ADI run on either backend.
pub struct AdiModel<'a, T> {
    on: On<T>,
    /// The reported time: `steps·Δt`, or exactly the stop time once a run lands on it.
    t: f64,
    halt: Option<Halt>,
    /// Where a failing step's message goes, for the runner's report.
    failure: &'a Mutex<Option<String>>,
}

impl<'a, T: GpuReal> AdiModel<'a, T> {
    /// The run of `cpu` (at its start) on `backend`; a failing step's message lands in `failure`.
    pub fn new(backend: &Backend, cpu: Adi<T>, failure: &'a Mutex<Option<String>>) -> Result<Self> {
        let on = match backend {
            Backend::Cpu { .. } => On::Cpu(Box::new(cpu)),
            Backend::Gpu(_) => return Err(Error::invalid("adi: GPU sweeps not merged yet; run with --backend cpu")), // LEAD: GPU arm
        };
        Ok(AdiModel { on, t: 0.0, halt: None, failure })
    }

    fn adi(&self) -> &Adi<T> {
        match &self.on {
            On::Cpu(m) => m,
        }
    }
}

/// Host memory of the state of an `nx × ny` run in words: d, ζ, p, q and q^{n−½}.
pub fn state_words(nx: u64, ny: u64) -> u64 {
    let cells = nx.saturating_mul(ny);
    let faces = (nx + 1).saturating_mul(ny).max(nx.saturating_mul(ny + 1));
    cells.saturating_mul(2).saturating_add(faces.saturating_mul(3))
}

/// Device memory of an `nx × ny` run of `word` bytes a value: the state (d, ζ, p twice, q
/// twice), a wet byte a cell, and a workspace of 2·(2n + 1) words per line for the larger
/// sweep. An estimate the GPU driver replaces (`GpuAdi::device_bytes`) when it lands.
pub fn device_bytes_estimate(nx: u64, ny: u64, word: u64) -> u64 {
    let cells = nx.saturating_mul(ny);
    let faces = (nx + 1).saturating_mul(ny).max(nx.saturating_mul(ny + 1));
    let lines = (2 * nx + 1).saturating_mul(ny).max((2 * ny + 1).saturating_mul(nx));
    let words = cells.saturating_mul(2).saturating_add(faces.saturating_mul(4)).saturating_add(lines.saturating_mul(2));
    words.saturating_mul(word).saturating_add(cells)
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
            On::Cpu(_) => "CPU reference (Thomas per line, one thread)".into(),
        }
    }

    fn clock(&self) -> Clock {
        let m = self.adi();
        Clock { t: self.t, steps: m.steps, dt: if m.steps > 0 { m.params.dt.to_f64() } else { 0.0 }, halt: self.halt }
    }

    fn advance(&mut self, until: Until) -> Result<Clock> {
        if self.halt.is_some() {
            return Ok(self.clock());
        }
        let dt = self.adi().params.dt.to_f64();
        // The step count that lands on the stop time (a multiple of Δt: the case checked it).
        let target = if until.t.is_finite() { (until.t / dt).round() as u64 } else { u64::MAX };
        let last = target.min(until.steps);
        match &mut self.on {
            On::Cpu(m) => {
                while m.steps < last {
                    if until.deadline.is_some_and(|d| Instant::now() >= d) {
                        break;
                    }
                    let before = m.as_ref().clone();
                    if let Err(e) = m.step() {
                        **m = before;
                        self.halt = Some(Halt::NonFinite);
                        if let Ok(mut f) = self.failure.lock() {
                            *f = Some(e.to_string());
                        }
                        break;
                    }
                }
            }
        }
        let steps = self.adi().steps;
        self.t = if steps == target { until.t } else { steps as f64 * dt };
        Ok(self.clock())
    }

    fn state(&mut self) -> Result<State<T>> {
        Ok(State { clock: self.clock(), fields: outputs(self.adi()) })
    }
}
