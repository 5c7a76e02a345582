//! An ADI run behind [`Model`]: fixed Δt, landing exactly on the runner's stop times (the case
//! refuses a Δt that does not divide them), the state handed out as ζ, h = d + ζ, the fluxes
//! averaged to the cell centres, and the staggered fluxes as they are.
//!
//! A failing step (a solver breakdown or a non-finite value, both Errs of the sweep) halts the
//! run with [`Halt::NonFinite`] and keeps the state before it; the sweep's message (step, sweep,
//! line and position) goes to the case, which adds it to the runner's report (`Simulation::halted`).

use super::cpu::Adi;
use super::gpu::{GpuAdi, Strategy, YSweep};
use crate::field::{Names, buffer_view};
use crate::model::{Checkpoint, Clock, DeviceView, Halt, Model, Output, State, Until};
use crate::products::{ClockAt, CpuProducts, Fields, GpuProducts, LEVEL_ELEVATION, Products, Spec, View};
use crate::runtime::{Backend, Gpu};
use crate::{GpuReal, Real, Result};
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// Steps the GPU is given between two looks at its breakdown flag and the deadline: enough to
/// keep it busy, few enough that a progress line or a blow-up is not far behind.
const GPU_BATCH: u64 = 32;

/// Where the model runs.
enum On<T: GpuReal> {
    Cpu(Box<Adi<T>>, Option<CpuProducts<T>>),
    /// The run on the device, and a host copy of the model (its parameters; the state is
    /// downloaded into it when asked for).
    Gpu(Arc<Gpu>, Box<GpuAdi<T>>, Box<Adi<T>>, Option<Box<GpuProducts<T>>>),
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
            Backend::Cpu { .. } => On::Cpu(Box::new(cpu), None),
            Backend::Gpu(gpu) => {
                On::Gpu(gpu.clone(), Box::new(GpuAdi::with_y_sweep(gpu, &cpu, strategy, y_sweep)?), Box::new(cpu), None)
            }
        };
        Ok(AdiModel { on, t: 0.0, halt: None, failure, strategy, y_sweep })
    }

    /// Keep the gauges and maps of `spec` (at the interior cells `cells`, from
    /// [`Spec::cells`]) from the current state on.
    pub fn with_products(mut self, spec: &Spec, cells: Vec<u32>) -> Result<Self> {
        if spec.is_empty() {
            return Ok(self);
        }
        let steps = self.steps_dt().0;
        let clock = ClockAt::Host { t: self.t, steps };
        match &mut self.on {
            On::Cpu(m, products) => {
                let mut k = CpuProducts::new(spec, product_fields(m, spec.arrival_depth), cells);
                k.update(&m.zeta, &m.d, &m.p, &m.q, self.t, steps);
                *products = Some(k);
            }
            On::Gpu(gpu, g, host, products) => {
                let mut k = GpuProducts::new(gpu, spec, product_fields(host, spec.arrival_depth), cells)?;
                k.launch_at(g.product_inputs(), None, clock)?;
                *products = Some(Box::new(k));
            }
        }
        Ok(self)
    }

    /// Steps taken and Δt.
    fn steps_dt(&self) -> (u64, f64) {
        match &self.on {
            On::Cpu(m, _) => (m.steps, m.params.dt.to_f64()),
            On::Gpu(_, g, host, _) => (g.steps(), host.params.dt.to_f64()),
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

/// Where the products find a state of `m`'s grid: h = d + ζ and η = ζ at the cells, the
/// momenta as the mean of each cell's two faces (as `p_centre` and `q_centre`). Depths at or
/// below the drying depth count as dry (none without drying).
pub fn product_fields<T: Real>(m: &Adi<T>, arrival_depth: f64) -> Fields<T> {
    let (nx, ny) = (m.nx as u32, m.ny as u32);
    let cells = View { origin: 0, row: nx, col: 1, pair: 0 };
    let p = View { origin: 0, row: nx + 1, col: 1, pair: 1 };
    let q = View { origin: 0, row: nx, col: 1, pair: nx };
    // Without drying the parameters hold a drying depth below any depth: only an empty cell is dry.
    let dry = if m.params.h_dry > T::ZERO { m.params.h_dry } else { T::ZERO };
    Fields::of(nx, ny, [cells, cells, p, q], LEVEL_ELEVATION, dry, T::from_f64(arrival_depth))
}

/// The fields the state holds as they are, on the host and the GPU alike.
const ZETA: Names = ("zeta", "surface elevation ζ", "m");
const P: Names = ("p", "x flux density p on the x-faces", "m²/s");
const Q: Names = ("q", "y flux density q on the y-faces (half a step later)", "m²/s");
const INFILTRATION: Names = ("infiltration", "cumulative infiltration F", "m");

/// The output fields of a state.
pub fn outputs<T: Real>(m: &Adi<T>) -> Vec<Output<T>> {
    let (nx, ny) = (m.nx, m.ny);
    let h: Vec<T> = m.d.iter().zip(&m.zeta).map(|(&d, &z)| d + z).collect();
    let field = |(name, long_name, units): Names, dims: Vec<usize>, data| Output { name, long_name, units, dims, data };
    // In name order, as the regression norms list them.
    let mut out = vec![
        field(("h", "total depth h = d + ζ", "m"), vec![ny, nx], h),
        field(P, vec![ny, nx + 1], m.p.clone()),
        field(
            ("p_centre", "x flux density p at cell centres (mean of two faces)", "m²/s"),
            vec![ny, nx],
            centred(&m.p, nx, ny, true),
        ),
        field(Q, vec![ny + 1, nx], m.q.clone()),
        field(
            ("q_centre", "y flux density q at cell centres (mean of two faces, half a step later)", "m²/s"),
            vec![ny, nx],
            centred(&m.q, nx, ny, false),
        ),
        field(ZETA, vec![ny, nx], m.zeta.clone()),
    ];
    // With a soil, the depth it has taken from each cell since the start.
    if !m.infiltrated.is_empty() {
        out.insert(1, field(INFILTRATION, vec![ny, nx], m.infiltrated.clone()));
    }
    out
}

impl<T: GpuReal> Model<T> for AdiModel<'_, T> {
    fn describe(&self) -> String {
        match &self.on {
            On::Cpu(..) => format!("CPU reference (Thomas per line, {} threads)", rayon::current_num_threads()),
            On::Gpu(_, g, ..) => format!("GPU, {}", g.describe()),
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
        // The time the model reports after `steps` steps (the products' clock too).
        let time = |steps: u64| if steps == target { until.t } else { steps as f64 * dt };
        let mut failed = None;
        match &mut self.on {
            On::Cpu(m, products) => {
                while m.steps < last {
                    if until.deadline.is_some_and(|d| Instant::now() >= d) {
                        break;
                    }
                    // A failing step leaves the model at its start.
                    if let Err(e) = m.step() {
                        failed = Some(e);
                        break;
                    }
                    if let Some(k) = products {
                        k.update(&m.zeta, &m.d, &m.p, &m.q, time(m.steps), m.steps);
                    }
                }
            }
            On::Gpu(gpu, g, _, products) => {
                while g.steps() < last {
                    if until.deadline.is_some_and(|d| Instant::now() >= d) {
                        break;
                    }
                    let batch = GPU_BATCH.min(last - g.steps());
                    match products {
                        None => g.advance(batch)?,
                        // The products kernel after every step of the batch: the maps see each.
                        Some(k) => {
                            for _ in 0..batch {
                                g.advance(1)?;
                                let steps = g.steps();
                                k.launch_at(g.product_inputs(), None, ClockAt::Host { t: time(steps), steps })?;
                            }
                        }
                    }
                    // A breakdown takes the run back to the state before the failing step.
                    if let Err(e) = g.check(gpu) {
                        failed = Some(e);
                        break;
                    }
                    // The check synchronised: bring the gauge samples over (a batch fits the ring).
                    if let Some(k) = products {
                        k.drain(gpu, g.steps())?;
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
            On::Cpu(m, _) => outputs(m),
            On::Gpu(gpu, g, host, _) => {
                g.download(gpu, host)?;
                outputs(host)
            }
        };
        Ok(State { clock, fields, boundary: Vec::new() })
    }

    fn products(&mut self, maps: bool) -> Result<Option<Products<T>>> {
        match &mut self.on {
            On::Cpu(_, k) => Ok(k.as_ref().map(|k| k.products(maps))),
            On::Gpu(gpu, g, _, Some(k)) => {
                k.drain(gpu, g.steps())?;
                Ok(Some(k.products(gpu, maps)?))
            }
            On::Gpu(_, _, _, None) => Ok(None),
        }
    }

    /// On the GPU: ζ, p, q (and the soil's totals, with a soil) as they lie in its buffers,
    /// unpadded; h and the centred fluxes are the host's arithmetic.
    fn device_views(&mut self) -> Result<Vec<DeviceView>> {
        let On::Gpu(gpu, g, host, _) = &self.on else { return Ok(Vec::new()) };
        gpu.synchronize()?;
        let (nx, ny) = (host.nx, host.ny);
        let ([zeta, p, q], soil) = g.state_buffers();
        let mut views = vec![
            buffer_view(gpu, zeta, ZETA, [ny, nx]),
            buffer_view(gpu, p, P, [ny, nx + 1]),
            buffer_view(gpu, q, Q, [ny + 1, nx]),
        ];
        views.extend(soil.map(|f| buffer_view(gpu, f, INFILTRATION, [ny, nx])));
        Ok(views)
    }

    /// ζⁿ, pⁿ, q^{n+½}, q^{n−½}, the wet flags and the soil's totals, with the model's time and
    /// the reported one; and the products' maps and gauge records so far.
    fn checkpoint(&mut self) -> Result<Checkpoint<T>> {
        let clock = self.clock();
        let m = match &mut self.on {
            On::Cpu(m, _) => &**m,
            On::Gpu(gpu, g, host, _) => {
                g.download(gpu, host)?;
                &**host
            }
        };
        let c = Checkpoint::at(clock)
            .field("zeta", m.zeta.clone())
            .field("p", m.p.clone())
            .field("q", m.q.clone())
            .field("q_old", m.q_old.clone())
            .flag("wet", m.wet.iter().map(|&w| w as u8).collect())
            .value("time", m.time);
        let c = if m.infiltrated.is_empty() { c } else { c.field("infiltration", m.infiltrated.clone()) };
        match &mut self.on {
            On::Cpu(_, Some(k)) => Ok(k.checkpoint(c)),
            On::Gpu(gpu, _, _, Some(k)) => k.checkpoint(gpu, clock.steps, c),
            On::Cpu(_, None) | On::Gpu(_, _, _, None) => Ok(c),
        }
    }

    /// On the GPU, the run is built again from the restored host copy, as it was built at the
    /// start from the initial one; the products go on from the checkpoint's maps and records.
    fn restore(&mut self, c: &Checkpoint<T>) -> Result<()> {
        let m = match &mut self.on {
            On::Cpu(m, _) => &mut **m,
            On::Gpu(_, _, host, _) => &mut **host,
        };
        let (cells, p, q) = (m.zeta.len(), m.p.len(), m.q.len());
        m.zeta = c.get_field("zeta", cells)?.to_vec();
        m.p = c.get_field("p", p)?.to_vec();
        m.q = c.get_field("q", q)?.to_vec();
        m.q_old = c.get_field("q_old", q)?.to_vec();
        m.wet = c.get_flags("wet", cells)?.iter().map(|&w| w != 0).collect();
        if !m.infiltrated.is_empty() {
            m.infiltrated = c.get_field("infiltration", cells)?.to_vec();
        }
        m.time = c.get_value("time")?;
        m.steps = c.clock.steps;
        match &mut self.on {
            On::Cpu(_, Some(k)) => k.restore(c)?,
            On::Cpu(_, None) => {}
            On::Gpu(gpu, g, host, products) => {
                **g = GpuAdi::with_y_sweep(gpu, host, self.strategy, self.y_sweep)?;
                if let Some(k) = products {
                    k.restore(gpu, c)?;
                }
            }
        }
        self.t = c.clock.t;
        self.halt = None;
        Ok(())
    }
}
