//! The shallow-water model behind [`Model`]: the CPU reference or the GPU driver, advanced to a
//! time. On the GPU, steps go in batches between reads of the device clock (Δt never comes to
//! the host for a step), and the early-exit choice is made by timing (Amundsen §4.4.2):
//! `gpu_run.rs`.

use super::Problem;
use super::cpu::{CpuKp, Halt as CpuHalt, Surface};
use super::gpu::{ClockState, GpuKp, Launch};
use super::gpu_run::{EarlyExit, GpuRun};
use super::part::SlabPart;
use super::segments::Segments;
use super::state::wet_cells;
use crate::field::{interior_into, interior_into_as, interior_of};
use crate::model::{
    BOUNDARY_FACES, BoundaryFlow, Checkpoint, Clock, DeviceView, Halt, Later, Model, Output, State, Until,
};
use crate::products::{CpuProducts, Fields, GpuProducts, Products, Sites, Spec};
use crate::ranks::Halo;
use crate::runtime::{Backend, DeviceBuffer, Gpu, Pending, Snapshots};
use crate::view::GpuSampler;
use crate::{Error, GpuReal, Real, Result};
use cudarc::driver::{DeviceRepr, ValidAsZeroBits};
use kernels::Level;
use rayon::prelude::*;
use std::borrow::Cow;
use std::sync::Arc;
use std::time::Instant;

/// The early exit a GPU run of `problem` takes where the case says `early_exit`: none in the
/// split schemes, whose kernels have none (docs/kp-schemes.md), nor with levels held on the
/// sides or outlets (`CpuKp::new`).
fn early_exit_of(problem: &Problem, early_exit: EarlyExit) -> EarlyExit {
    let levels = !problem.forcing.boundary_is_plain();
    if problem.scheme.is_split() || levels { EarlyExit::Off } else { early_exit }
}

/// A shallow-water run on either backend.
pub struct KpModel<'p, T: GpuReal> {
    /// The problem, or on a slab of a grid decomposed over ranks the slab's (`Problem::slab`).
    problem: Cow<'p, Problem>,
    /// Whether it is a slab's: its checkpoints hold the wet map per cell, which rank 0 makes the
    /// whole grid's map per block of ([`Model::joined`]), and its products are joined on rank 0.
    slab: bool,
    on: On<T>,
    /// The water account's boundary segments (none without forcing); on a slab, the whole
    /// grid's.
    segments: Segments,
    /// The interior cell-centre bed, taken from the backend with the first state.
    bed: Option<Arc<Vec<T>>>,
    /// The live view's gather on the GPU, set up with its first frame, and the bed at its
    /// cells (the cells, and their beds: a frame's cells stay the same for a run).
    sampler: Option<GpuSampler<T>>,
    sampled_bed: Option<(Vec<usize>, Arc<Vec<T>>)>,
}

enum On<T: GpuReal> {
    Cpu(Box<CpuKp<T>>, Option<CpuProducts<T>>),
    Gpu(Box<GpuRun<T>>),
    /// The mixed precision's CPU reference (w in f64, the rest in f32), handed to the runner as
    /// `T` (f64: w as it is, the rest widened exactly).
    Mixed(Box<CpuKp<f32, f64>>, Option<CpuProducts<T>>),
    /// The mixed precision on the GPU (`GpuKp::new_mixed`): the run's bookkeeping in f32, its
    /// products in the runner's `T` (read from the f64 surface and the f32 momenta and bed),
    /// snapshot copies and pool unused (states come over through `download_mixed`).
    GpuMixed(Box<GpuRun<f32, T>>),
}

/// A mixed run's padded (w, hu, hv) as the runner's `T`.
fn mixed_state<T: GpuReal>(m: &CpuKp<f32, f64>) -> [Vec<T>; 3] {
    let (w, hu, hv) = m.fields();
    [w.iter().map(|&v| T::from_f64(v)).collect(), widen(hu), widen(hv)]
}

/// A mixed GPU run's padded (w, hu, hv) as the runner's `T` (synchronises).
fn gpu_mixed_state<T: GpuReal>(run: &GpuRun<f32, T>) -> Result<[Vec<T>; 3]> {
    let (w, hu, hv) = run.model.download_mixed(&run.gpu)?;
    Ok([w.iter().map(|&v| T::from_f64(v)).collect(), widen(&hu), widen(&hv)])
}

/// f32 values as the runner's `T`.
fn widen<T: GpuReal>(v: &[f32]) -> Vec<T> {
    v.iter().map(|&v| T::from_f64(v as f64)).collect()
}

impl<'p, T: GpuReal> KpModel<'p, T> {
    /// The GPU driver on a GPU backend, else the CPU reference (which has no early exit).
    pub fn new(backend: &Backend, problem: &'p Problem, launch: Launch, early_exit: EarlyExit) -> Result<Self> {
        let on = match backend {
            Backend::Gpu(gpu) => {
                let model = GpuKp::new(gpu, problem, launch)?;
                On::Gpu(GpuRun::start(gpu, model, early_exit_of(problem, early_exit)))
            }
            Backend::Cpu { .. } => On::Cpu(Box::new(CpuKp::new(problem, launch.block, false)?), None),
        };
        Ok(Self::whole(problem, on))
    }

    /// The model of the whole grid of `problem` on `on`.
    fn whole(problem: &'p Problem, on: On<T>) -> Self {
        let segments = Segments::of(problem);
        KpModel {
            problem: Cow::Borrowed(problem),
            slab: false,
            on,
            segments,
            bed: None,
            sampler: None,
            sampled_bed: None,
        }
    }

    /// The model of a slab's `problem` running `on`, the water account's segments the whole
    /// grid's `segments`.
    fn slab_of_segments(problem: Problem, on: On<T>, segments: Segments) -> Self {
        let problem = Cow::Owned(problem);
        KpModel { problem, slab: true, on, segments, bed: None, sampler: None, sampled_bed: None }
    }

    /// The mixed precision (docs/f32-conservation.md, "Mixed precision for shallow water") on the
    /// GPU of `backend` (RK2 or Euler on the streamed flux kernel) or the CPU reference. The
    /// runner runs it with `T` = f64: states and checkpoints hold w as it is and the momenta
    /// widened (exact).
    pub fn mixed(backend: &Backend, problem: &'p Problem, launch: Launch, early_exit: EarlyExit) -> Result<Self> {
        let on = match backend {
            Backend::Gpu(gpu) => On::GpuMixed(GpuRun::start(gpu, GpuKp::new_mixed(gpu, problem, launch)?, early_exit)),
            Backend::Cpu { .. } => On::Mixed(Box::new(CpuKp::new(problem, launch.block, false)?), None),
        };
        Ok(Self::whole(problem, on))
    }

    /// The model of one rank's slab of `whole` decomposed over ranks (docs/ranks.md), on the
    /// GPU of `backend` (early exit as `early_exit` says; in `auto` the ranks choose the kernel together) or
    /// the CPU reference; `halo` is the slab's. Refused where `whole` does not run on several
    /// ranks (`Problem::refuses_ranks`).
    pub fn slab(
        backend: &Backend,
        whole: &'p Problem,
        halo: Halo,
        launch: Launch,
        early_exit: EarlyExit,
    ) -> Result<Self> {
        let slab = slab_of(whole, &halo)?;
        Self::of_part(backend, SlabPart::of(whole, &whole.whole_grid(), launch.block, &slab)?, halo, launch, early_exit)
    }

    /// [`slab`](Self::slab) from the slab's part of the whole problem (`SlabPart::of`), as a
    /// rank other than 0 builds it from what rank 0 sent.
    pub fn of_part(
        backend: &Backend,
        part: SlabPart<T>,
        halo: Halo,
        launch: Launch,
        early_exit: EarlyExit,
    ) -> Result<Self> {
        let SlabPart { problem, start, mixed: _, segments } = part.for_block(launch.block);
        if let Some(why) = problem.refuses_ranks() {
            return Err(Error::invalid(why));
        }
        let on = match backend {
            Backend::Gpu(gpu) => {
                let model = GpuKp::slab(gpu, &problem, start, halo, launch)?;
                On::Gpu(GpuRun::start(gpu, model, early_exit_of(&problem, early_exit)))
            }
            Backend::Cpu { .. } => On::Cpu(Box::new(CpuKp::slab(&problem, start, None, halo)?), None),
        };
        Ok(Self::slab_of_segments(problem, on, segments))
    }

    /// [`slab`](Self::slab) in the mixed precision ([`mixed`](Self::mixed)), on the GPU of
    /// `backend` (early exit as `early_exit` says) or the CPU reference: its start the slab's
    /// rows of the whole grid's mixed start (`mixed::slab_start`), its w rows (f64) and momenta rows (f32)
    /// exchanged apart.
    pub fn mixed_slab(
        backend: &Backend,
        whole: &'p Problem,
        halo: Halo,
        launch: Launch,
        early_exit: EarlyExit,
    ) -> Result<Self> {
        let slab = slab_of(whole, &halo)?;
        let part = SlabPart::mixed_of(whole, &whole.whole_grid(), launch.block, &slab)?;
        Self::mixed_of_part(backend, part, halo, launch, early_exit)
    }

    /// [`mixed_slab`](Self::mixed_slab) from the slab's part of the whole problem
    /// (`SlabPart::mixed_of`), as a rank other than 0 builds it from what rank 0 sent.
    pub fn mixed_of_part(
        backend: &Backend,
        part: SlabPart<f32>,
        halo: Halo,
        launch: Launch,
        early_exit: EarlyExit,
    ) -> Result<Self> {
        let SlabPart { problem, start, mixed, segments } = part.for_block(launch.block);
        let state = mixed.ok_or_else(|| Error::invalid("kp: a mixed slab's part without its f64 surface"))?;
        if let Some(why) = problem.refuses_ranks() {
            return Err(Error::invalid(why));
        }
        let on = match backend {
            Backend::Gpu(gpu) => {
                let model = GpuKp::slab_mixed(gpu, &problem, (start, state), halo, launch)?;
                On::GpuMixed(GpuRun::start(gpu, model, early_exit_of(&problem, early_exit)))
            }
            Backend::Cpu { .. } => On::Mixed(Box::new(CpuKp::slab(&problem, start, Some(state), halo)?), None),
        };
        Ok(Self::slab_of_segments(problem, on, segments))
    }

    /// Keep the gauges, lines and maps of `spec` (sampled at `sites`, from [`Sites::of`],
    /// or at the gauges' cells from [`Spec::cells`] for a spec without lines) from the current
    /// state on.
    pub fn with_products(mut self, spec: &Spec, sites: impl Into<Sites>) -> Result<Self> {
        if spec.is_empty() {
            return Ok(self);
        }
        let sites = sites.into();
        let p = &*self.problem;
        let arrival = T::from_f64(spec.arrival_depth);
        match &mut self.on {
            On::Cpu(m, products) => {
                let f = Fields::on(p.layout(), true, m.coeffs().dry, arrival);
                let mut k = CpuProducts::new(spec, f, sites);
                let [w, hu, hv] = m.state();
                k.update(w, m.cell_bed(), hu, hv, m.time(), m.steps());
                *products = Some(k);
            }
            On::Mixed(m, products) => {
                let f = Fields::on(p.layout(), true, T::from_f64(m.coeffs().dry as f64), arrival);
                let mut k = CpuProducts::new(spec, f, sites);
                let [w, hu, hv] = mixed_state::<T>(m);
                k.update(&w, &widen::<T>(m.cell_bed()), &hu, &hv, m.time(), m.steps());
                *products = Some(k);
            }
            On::Gpu(run) => {
                let f = Fields::on(p.layout(), true, run.model.coeffs().dry, arrival);
                run.start_products(GpuProducts::new(&run.gpu, spec, f, sites)?)?;
            }
            On::GpuMixed(run) => {
                let f = Fields::on(p.layout(), true, T::from_f64(run.model.coeffs().dry as f64), arrival);
                run.start_products(GpuProducts::new(&run.gpu, spec, f, sites)?.reading_mixed(&run.gpu)?)?;
            }
        }
        Ok(self)
    }

    /// Steps so far that used the early-exit flux kernel (GPU).
    pub fn early_steps(&self) -> u64 {
        match &self.on {
            On::Gpu(run) => run.early_steps,
            On::GpuMixed(run) => run.early_steps,
            On::Cpu(..) | On::Mixed(..) => 0,
        }
    }

    /// Steps so far launched in graphs of steps (GPU).
    pub fn graph_steps(&self) -> u64 {
        match &self.on {
            On::Gpu(run) => run.graph_steps,
            On::GpuMixed(run) => run.graph_steps,
            On::Cpu(..) | On::Mixed(..) => 0,
        }
    }
}

/// Steps of a CPU reference towards `until`, `record` after each (the products); the clock it
/// stopped at.
fn advance_cpu<S: Real, W: Surface<S>>(
    m: &mut CpuKp<S, W>,
    until: Until,
    problem: &Problem,
    mut record: impl FnMut(&CpuKp<S, W>),
) -> Clock {
    let mut stopped = None;
    while m.time() < until.t && m.steps() < until.steps {
        if until.deadline.is_some_and(|d| Instant::now() >= d) {
            break;
        }
        if let Err(h) = m.step(until.t) {
            stopped = Some(halt(h, problem));
            break;
        }
        record(m);
    }
    Clock { t: m.time(), steps: m.steps(), dt: m.last_dt(), halt: stopped }
}

fn halt(h: CpuHalt, problem: &Problem) -> Halt {
    match h {
        CpuHalt::NonFinite => Halt::NonFinite,
        CpuHalt::Collapsed => Halt::Collapsed { floor: problem.dt_floor },
    }
}

impl<T: GpuReal> Model<T> for KpModel<'_, T> {
    fn describe(&self) -> String {
        match &self.on {
            On::Cpu(..) => format!("CPU reference ({} threads)", rayon::current_num_threads()),
            On::Mixed(..) => format!(
                "CPU reference ({} threads), mixed precision (w in f64, the rest in f32)",
                rayon::current_num_threads()
            ),
            On::GpuMixed(run) => {
                let k = run.model.coeffs();
                format!(
                    "GPU, flux {}, block {}×{}, early exit {:?}, mixed precision (w in f64, the rest in f32)",
                    run.model.flux_variant().describe(),
                    k.bx,
                    k.by,
                    run.mode
                )
            }
            On::Gpu(run) => {
                let k = run.model.coeffs();
                let flux = match (run.model.split_line(), self.problem.scheme.is_split()) {
                    (Some(l), false) => format!("srk2 x-line {l} + y-block"),
                    (Some(l), true) => format!("x-line {l} in both orientations, transposing RK stages"),
                    (None, _) => run.model.flux_variant().describe(),
                };
                format!("GPU, flux {flux}, block {}×{}, early exit {:?}", k.bx, k.by, run.mode)
            }
        }
    }

    fn clock(&self) -> Clock {
        match &self.on {
            On::Cpu(m, _) => Clock { t: m.time(), steps: m.steps(), dt: m.last_dt(), halt: None },
            On::Mixed(m, _) => Clock { t: m.time(), steps: m.steps(), dt: m.last_dt(), halt: None },
            On::Gpu(run) => run.clock,
            On::GpuMixed(run) => run.clock,
        }
    }

    fn advance(&mut self, until: Until) -> Result<Clock> {
        match &mut self.on {
            On::Cpu(m, products) => Ok(advance_cpu(m, until, &self.problem, |m| {
                if let Some(k) = products {
                    let [w, hu, hv] = m.state();
                    k.update(w, m.cell_bed(), hu, hv, m.time(), m.steps());
                }
            })),
            On::Mixed(m, products) => {
                // The products read the runner's `T`: the cell bed widened once.
                let cell_bed = products.as_ref().map(|_| widen::<T>(m.cell_bed()));
                Ok(advance_cpu(m, until, &self.problem, |m| {
                    if let (Some(k), Some(cb)) = (products.as_mut(), &cell_bed) {
                        let [w, hu, hv] = mixed_state::<T>(m);
                        k.update(&w, cb, &hu, &hv, m.time(), m.steps());
                    }
                }))
            }
            On::Gpu(run) => run.advance(until, &self.problem),
            On::GpuMixed(run) => run.advance(until, &self.problem),
        }
    }

    fn state(&mut self) -> Result<State<T>> {
        let clock = self.clock();
        let bed = self.bed()?;
        let layout = self.problem.layout();
        let interior = |f: &[T]| interior_of(&layout, f);
        let ([w, hu, hv], low) = match &self.on {
            On::Cpu(m, _) => (m.state().map(interior), m.low().map(interior)),
            On::Mixed(m, _) => (mixed_state::<T>(m).map(|f| interior(&f)), None),
            On::GpuMixed(run) => (gpu_mixed_state::<T>(run)?.map(|f| interior(&f)), None),
            On::Gpu(run) => (run.model.interiors(&run.gpu)?, run.model.download_low(&run.gpu)?.map(|l| interior(&l))),
        };
        let soil = self.forcing_state()?.and_then(|(_, f)| f).map(|f| interior(&f));
        let boundary = self.flows_now()?;
        let dims = (self.problem.ny, self.problem.nx);
        let mut state = state_of(dims, clock, &bed, [w, hu, hv], low.as_deref(), boundary);
        if let Some(f) = soil {
            add_infiltration(&mut state, dims, f);
        }
        Ok(state)
    }

    /// On the GPU: copies of (w, hu, hv) (and w's low part and a soil's totals, where the run
    /// has them) on the device now, downloaded on a second stream and turned into depths by
    /// whoever waits for them.
    fn state_later(&mut self) -> Result<Later<T>> {
        if matches!(self.on, On::GpuMixed(_)) {
            return self.mixed_state_later();
        }
        let On::Gpu(run) = &mut self.on else { return Ok(Later::now(self.state()?)) };
        let clock = run.clock;
        // A few words, read now (the stream is idle after the clock's read): before the copies
        // are enqueued, so the read does not wait behind their download.
        let boundary = self.flows_now()?;
        let bed = self.bed()?;
        let On::Gpu(run) = &mut self.on else { unreachable!("matched above") };
        let mut buffers = run.model.state_buffers();
        // w's low part follows the momenta where the run has one, the soil's totals last.
        let low_at = (buffers.len() > 3).then_some(3);
        let soil_at = run.model.soil_buffer().map(|soil| {
            buffers.push(soil);
            buffers.len() - 1
        });
        let pending = snapshot_of(&mut run.snapshots, &run.gpu, &buffers)?;
        let (layout, dims) = (self.problem.layout(), (self.problem.ny, self.problem.nx));
        let pool = run.pool.clone();
        Ok(Later::new(run.pool.clone(), move || {
            let n = dims.0 * dims.1;
            let [mut w, mut hu, mut hv] = [pool.take(n), pool.take(n), pool.take(n)];
            let interior = |k: Option<usize>, q: &[&[T]]| {
                k.map(|k| {
                    let mut v = pool.take(n);
                    interior_into(&layout, q[k], &mut v);
                    v
                })
            };
            let (low, soil) = pending.read(|q| {
                interior_into(&layout, q[0], &mut w);
                interior_into(&layout, q[1], &mut hu);
                interior_into(&layout, q[2], &mut hv);
                (interior(low_at, q), interior(soil_at, q))
            })?;
            let mut state = state_of(dims, clock, &bed, [w, hu, hv], low.as_deref(), boundary);
            if let Some(low) = low {
                pool.give_vec(low);
            }
            if let Some(f) = soil {
                add_infiltration(&mut state, dims, f);
            }
            Ok(state)
        }))
    }

    fn products(&mut self, maps: bool) -> Result<Option<Products<T>>> {
        match &mut self.on {
            On::Cpu(_, k) | On::Mixed(_, k) => Ok(k.as_ref().map(|k| k.products(maps))),
            On::Gpu(run) => run.products(maps),
            On::GpuMixed(run) => run.products(maps),
        }
    }

    /// The state a checkpoint holds: Qⁿ with its ghosts (and w's low part, "w_low", on the
    /// compensated path) and the wet map of its blocks (the early-exit flux reads it); on the GPU also the early-exit cycle's position and choice;
    /// and the products' maps and gauge records so far.
    fn checkpoint(&mut self) -> Result<Checkpoint<T>> {
        let forcing = self.forcing_state()?;
        let boundary = self.boundary_volumes()?;
        let mut c = self.checkpoint_flow()?;
        if self.slab {
            c = self.with_wet_cells(c)?;
        }
        // The boundary faces' volumes so far (f64, whatever the precision), with segments.
        if let Some(v) = boundary {
            c = c.record(BOUNDARY_FACES, v);
        }
        // The forcing clock and the soil's totals (padded), with forcing.
        let c = match forcing {
            None => c,
            Some((forced, None)) => c.value("forced_t", forced),
            Some((forced, Some(f))) => c.value("forced_t", forced).field("infiltrated", f),
        };
        self.with_products_of(c)
    }

    fn restore(&mut self, c: &Checkpoint<T>) -> Result<()> {
        self.restore_flow(c)?;
        if self.problem.forcing.is_empty() {
            return Ok(());
        }
        let forced = c.get_value("forced_t")?;
        if !self.segments.is_empty() {
            let faces = crate::ranks::perimeter::faces(self.problem.nx, self.problem.ny);
            let v = c.get_record(BOUNDARY_FACES, 4 * faces)?;
            match &mut self.on {
                On::Cpu(m, _) => m.resume_boundary(v)?,
                On::Gpu(run) => run.model.resume_boundary(&run.gpu, v)?,
                // Mixed runs refuse forcing, so have no segments.
                On::Mixed(..) | On::GpuMixed(_) => {}
            }
        }
        let n = self.problem.padded_cells();
        let f = if self.problem.forcing.soil.is_some() { Some(c.get_field("infiltrated", n)?) } else { None };
        match &mut self.on {
            On::Cpu(m, _) => m.resume_forcing(forced, f),
            On::Gpu(run) => run.model.resume_forcing(&run.gpu, forced, f),
            // Mixed runs refuse forcing (`CpuKp::new`, `GpuKp::new_mixed`).
            On::Mixed(..) | On::GpuMixed(_) => Ok(()),
        }
    }

    fn boundary_faces(&mut self) -> Result<Option<Vec<f64>>> {
        self.boundary_volumes()
    }

    fn boundary_flows(&self, faces: &[f64]) -> Result<Vec<BoundaryFlow>> {
        Ok(self.segments.flows(faces))
    }

    /// A slab's checkpoint holds its wet map per cell (`wet_cells`): the whole grid's map per
    /// block is made from the slabs' cells joined (by rank 0, or by a run on one rank joining
    /// a set of parts).
    fn joined(&self, mut c: Checkpoint<T>) -> Result<Checkpoint<T>> {
        let (nx, block) = (self.problem.nx as u32, self.block());
        let Some(flags) = c.flags.iter_mut().find(|(n, _)| n == WET_CELLS) else {
            return match self.slab {
                true => Err(Error::invalid("kp: a checkpoint joined over ranks without its wet cells")),
                false => Ok(c),
            };
        };
        let ny = (flags.1.len() / (nx as usize + 4)).saturating_sub(4) as u32;
        let map = super::state::wet_blocks(nx, ny, block, |c| flags.1[c] != 0);
        *flags = ("wet".to_string(), map);
        Ok(c)
    }

    fn sample(&mut self, cells: &[usize]) -> Result<State<T>> {
        self.sample_later(cells)?.wait()
    }

    /// On the GPU (f32 or f64, not mixed): w and the momenta gathered at `cells` on the device
    /// behind the queued steps and brought over on a second stream, the depth formed on the
    /// host from them and the bed, as `state` does (on the compensated f32 path without w's low
    /// part: within half an ulp of the surface, which a view's half floats do not resolve).
    /// Elsewhere the state, indexed.
    fn sample_later(&mut self, cells: &[usize]) -> Result<Later<T>> {
        if !matches!(self.on, On::Gpu(_)) {
            return Ok(Later::now(self.state()?.at(cells)?));
        }
        let clock = self.clock();
        if self.sampled_bed.as_ref().is_none_or(|(at, _)| at[..] != cells[..]) {
            let bed = self.bed()?;
            let beds = cells.iter().map(|&c| bed.get(c).copied()).collect::<Option<Vec<T>>>();
            let beds = beds.ok_or_else(|| Error::invalid("kp: the view asked for a cell outside the grid"))?;
            self.sampled_bed = Some((cells.to_vec(), Arc::new(beds)));
        }
        let beds = self.sampled_bed.as_ref().map(|(_, b)| b.clone()).unwrap_or_default();
        let On::Gpu(run) = &self.on else { return Err(Error::invalid("kp: the GPU's model is gone")) };
        // The state's buffers stay where they are from step to step: their views need no wait.
        let pending = GpuSampler::of(&mut self.sampler, &run.gpu)?.sample_later(&run.gpu, &state_views(run), cells)?;
        let n = cells.len();
        Ok(Later::of(move || {
            let [w, hu, hv] = pending.read(|q| [0, 1, 2].map(|k| q[0][k * n..(k + 1) * n].to_vec()))?;
            Ok(state_of((1, n), clock, &beds, [w, hu, hv], None, Vec::new()))
        }))
    }

    /// On the GPU (f32 or f64, not mixed): the surface w and the momenta as they lie in its
    /// padded fields (w, not the depth: h = w − B is the host's arithmetic). On the compensated
    /// f32 path w's low part stays apart: w is within half an ulp of the surface.
    fn device_views(&mut self) -> Result<Vec<DeviceView>> {
        let On::Gpu(run) = &self.on else { return Ok(Vec::new()) };
        run.gpu.synchronize()?;
        Ok(state_views(run))
    }
}

impl<T: GpuReal> KpModel<'_, T> {
    /// The blocks of its wet map (the GPU's flux block, or the CPU reference's copy of it).
    fn block(&self) -> (u32, u32) {
        match &self.on {
            On::Cpu(m, _) => (m.coeffs().bx, m.coeffs().by),
            On::Mixed(m, _) => (m.coeffs().bx, m.coeffs().by),
            On::Gpu(run) => (run.model.coeffs().bx, run.model.coeffs().by),
            On::GpuMixed(run) => (run.model.coeffs().bx, run.model.coeffs().by),
        }
    }

    /// A slab's checkpoint `c` with its wet map per cell, as its last RK stage left the cells
    /// (`wet_cells`), in place of its map per block: slabs do not cut the grid at the edges of
    /// the whole grid's blocks.
    fn with_wet_cells(&self, mut c: Checkpoint<T>) -> Result<Checkpoint<T>> {
        let n = self.problem.padded_cells();
        let cells = {
            let (w, low) = (c.get_field("w", n)?, c.get_optional_field("w_low", n)?);
            match &self.on {
                On::Cpu(m, _) => wet_cells(m.coeffs(), w, low, m.cell_bed()),
                On::Gpu(run) => wet_cells(run.model.coeffs(), w, low, &run.model.cell_bed(&run.gpu)?),
                On::Mixed(m, _) => wet_cells(m.coeffs(), m.fields().0, None, m.cell_bed()),
                On::GpuMixed(run) => {
                    let (w, ..) = run.model.download_mixed(&run.gpu)?;
                    wet_cells(run.model.coeffs(), &w, None, &run.model.cell_bed(&run.gpu)?)
                }
            }
        };
        match c.flags.iter_mut().find(|(n, _)| n == "wet") {
            Some(f) => *f = (WET_CELLS.to_string(), cells),
            None => return Err(Error::invalid("kp: a slab's checkpoint without its wet map")),
        }
        Ok(c)
    }

    /// With forcing, the time it has been applied up to and the soil's totals (padded; `None`
    /// without a soil); a download on the GPU.
    fn forcing_state(&self) -> Result<Option<(f64, Option<Vec<T>>)>> {
        Ok(match &self.on {
            On::Cpu(m, _) => m.forcing_state().map(|(t, f)| (t, f.map(|f| f.to_vec()))),
            On::Gpu(run) => run.model.forcing_state(&run.gpu)?,
            On::Mixed(..) | On::GpuMixed(_) => None,
        })
    }

    /// With boundary segments, every face's volumes so far (`CpuKp::boundary_volumes`); a
    /// download on the GPU.
    fn boundary_volumes(&self) -> Result<Option<Vec<f64>>> {
        Ok(match &self.on {
            On::Cpu(m, _) => m.boundary_volumes().map(<[f64]>::to_vec),
            On::Gpu(run) => run.model.boundary_volumes(&run.gpu)?,
            On::Mixed(..) | On::GpuMixed(_) => None,
        })
    }

    /// What crossed each boundary segment so far (none without segments, and none on a slab,
    /// whose faces rank 0 joins: [`Model::boundary_flows`]).
    fn flows_now(&self) -> Result<Vec<BoundaryFlow>> {
        if self.slab {
            return Ok(Vec::new());
        }
        Ok(self.boundary_volumes()?.map_or_else(Vec::new, |v| self.segments.flows(&v)))
    }

    /// The checkpoint of the flow: everything but the forcing.
    fn checkpoint_flow(&mut self) -> Result<Checkpoint<T>> {
        let clock = self.clock();
        let with = |[w, hu, hv]: [Vec<T>; 3], low: Option<Vec<T>>, wet: Vec<u8>| {
            let c = Checkpoint::at(clock).field("w", w).field("hu", hu).field("hv", hv).flag("wet", wet);
            match low {
                Some(low) => c.field("w_low", low),
                None => c,
            }
        };
        Ok(match &mut self.on {
            On::Cpu(m, _) => {
                let mut c = with(m.state().map(|f| f.to_vec()), m.low().map(|l| l.to_vec()), m.wet().to_vec());
                // DS1 and DS2: the Δt estimates the next step starts from (NaN before the first).
                if let Some((estimates, retries)) = m.split_state() {
                    c = split_values(c, estimates, retries);
                }
                c
            }
            On::GpuMixed(run) => {
                let wet = run.model.wet_map(&run.gpu)?.into_iter().map(|f| (f != 0) as u8).collect();
                run.with_run_values(with(gpu_mixed_state::<T>(run)?, None, wet))
            }
            On::Mixed(m, _) => with(mixed_state::<T>(m), None, m.wet().to_vec()),
            On::Gpu(run) => {
                let wet = run.model.wet_map(&run.gpu)?.into_iter().map(|f| (f != 0) as u8).collect();
                let mut c =
                    run.with_run_values(with(run.model.download(&run.gpu)?, run.model.download_low(&run.gpu)?, wet));
                if let Some((estimates, retries)) = run.model.split_state(&run.gpu)? {
                    c = split_values(c, estimates, retries);
                }
                c
            }
        })
    }

    /// `c` with the products' maps and records so far, last: a slab's are joined on rank 0
    /// (`products::Joined`), which adds them after the rest of the joined checkpoint.
    fn with_products_of(&mut self, c: Checkpoint<T>) -> Result<Checkpoint<T>> {
        if self.slab {
            return Ok(c);
        }
        Ok(match &mut self.on {
            On::Cpu(_, Some(k)) | On::Mixed(_, Some(k)) => k.checkpoint(c),
            On::Gpu(run) => run.products_checkpoint(c)?,
            On::GpuMixed(run) => run.products_checkpoint(c)?,
            On::Cpu(_, None) | On::Mixed(_, None) => c,
        })
    }

    /// [`Model::restore`] of the flow: everything but the forcing.
    fn restore_flow(&mut self, c: &Checkpoint<T>) -> Result<()> {
        let n = self.problem.padded_cells();
        let q = [c.get_field("w", n)?, c.get_field("hu", n)?, c.get_field("hv", n)?];
        // A plain run's checkpoint has no low part: a compensated run starts it at zero.
        let low = c.get_optional_field("w_low", n)?;
        let Clock { t, dt, steps, .. } = c.clock;
        match &mut self.on {
            On::Cpu(m, products) => {
                let cells = self.slab.then(|| wet_blocks_of(m.coeffs(), q[0], low, m.cell_bed()));
                let wet = resumed_map(c, cells, m.wet().len(), products)?;
                m.resume(q, low, &wet, t, dt, steps)?;
                if m.split_state().is_some() {
                    let (estimates, retries) = split_values_of(c)?;
                    m.resume_split(estimates, retries);
                }
                Ok(())
            }
            On::Mixed(m, products) => {
                // hu and hv were f32 values widened: narrowing them back is exact.
                let w: Vec<f64> = q[0].iter().map(|v| v.to_f64()).collect();
                let [hu, hv] = [q[1], q[2]].map(|f| f.iter().map(|v| v.to_f64() as f32).collect::<Vec<f32>>());
                let cells = self.slab.then(|| wet_blocks_of(m.coeffs(), &w, None, m.cell_bed()));
                let wet = resumed_map(c, cells, m.wet().len(), products)?;
                m.resume_fields((&w, &hu, &hv), None, &wet, t, dt, steps)
            }
            On::GpuMixed(run) => {
                let k = run.model.coeffs();
                let w: Vec<f64> = q[0].iter().map(|v| v.to_f64()).collect();
                let wet: Vec<u32> = match self.slab {
                    true => wet_blocks_of(k, &w, None, &run.model.cell_bed(&run.gpu)?),
                    false => c.get_flags("wet", (k.nbx * k.nby) as usize)?.to_vec(),
                }
                .into_iter()
                .map(u32::from)
                .collect();
                let [hu, hv] = [q[1], q[2]].map(|f| f.iter().map(|v| v.to_f64() as f32).collect::<Vec<f32>>());
                let clock = ClockState { t, dt, status: kernels::kp::STEP_OK, steps };
                run.model.resume_mixed(&run.gpu, (&w, &hu, &hv), &wet, clock)?;
                run.resume_run(c, self.slab)
            }
            On::Gpu(run) => {
                let k = run.model.coeffs();
                let wet: Vec<u32> = match self.slab {
                    true => wet_blocks_of(k, q[0], low, &run.model.cell_bed(&run.gpu)?),
                    false => c.get_flags("wet", (k.nbx * k.nby) as usize)?.to_vec(),
                }
                .into_iter()
                .map(u32::from)
                .collect();
                let status = kernels::kp::STEP_OK;
                run.model.resume(&run.gpu, q, low, &wet, ClockState { t, dt, status, steps })?;
                if self.problem.scheme.is_split() {
                    let (estimates, retries) = split_values_of(c)?;
                    run.model.resume_split(&run.gpu, estimates, retries)?;
                }
                run.resume_run(c, self.slab)
            }
        }
    }
}

/// The name of a slab's wet map per cell in its checkpoints ([`KpModel::joined`]).
const WET_CELLS: &str = "wet_cells";

/// The wet map of a padded surface `w` (of its level's precision `W`) with its low part `low`,
/// as its last RK stage left it.
fn wet_blocks_of<T: GpuReal, W: Level<T>>(
    k: &kernels::kp::Coeffs<T>,
    w: &[W],
    low: Option<&[W]>,
    cell_bed: &[T],
) -> Vec<u8> {
    let cells = wet_cells(k, w, low, cell_bed);
    super::state::wet_blocks(k.nx, k.ny, (k.bx, k.by), |c| cells[c] != 0)
}

/// The wet map a CPU reference resumes from checkpoint `c` with, its products (if any)
/// restored: a slab's map made of its cells (`cells`: its rows are not the whole grid's
/// blocks), and its products sampling on from the checkpoint (rank 0 keeps the records before);
/// else the checkpoint's map of `len` blocks and records.
fn resumed_map<T: GpuReal>(
    c: &Checkpoint<T>,
    cells: Option<Vec<u8>>,
    len: usize,
    products: &mut Option<CpuProducts<T>>,
) -> Result<Vec<u8>> {
    match (products, cells.is_some()) {
        (Some(k), true) => k.resume_after(c)?,
        (Some(k), false) => k.restore(c)?,
        (None, _) => {}
    }
    match cells {
        Some(w) => Ok(w),
        None => Ok(c.get_flags("wet", len)?.to_vec()),
    }
}

/// DS1 and DS2: the Δt estimates the next step starts from (NaN before the first) and the
/// retries so far, into a checkpoint.
fn split_values<T: GpuReal>(c: Checkpoint<T>, estimates: Option<(f64, f64)>, retries: u64) -> Checkpoint<T> {
    let (x, y) = estimates.unwrap_or((f64::NAN, f64::NAN));
    c.value("ds_dt_x", x).value("ds_dt_y", y).value("ds_retries", retries as f64)
}

/// `halo`'s slab of `whole`, where `whole` runs on several ranks.
fn slab_of(whole: &Problem, halo: &Halo) -> Result<crate::ranks::Slab> {
    if let Some(why) = whole.refuses_ranks() {
        return Err(Error::invalid(why));
    }
    whole.validate()?;
    Ok(halo.slab().clone())
}

/// What [`split_values`] wrote.
fn split_values_of<T: GpuReal>(c: &Checkpoint<T>) -> Result<(Option<(f64, f64)>, u64)> {
    let (x, y) = (c.get_value("ds_dt_x")?, c.get_value("ds_dt_y")?);
    Ok(((!x.is_nan() && !y.is_nan()).then_some((x, y)), c.get_count("ds_retries")?))
}

impl<T: GpuReal> KpModel<'_, T> {
    /// [`Model::state_later`] of the mixed precision on the GPU: copies of its f64 surface and
    /// f32 momenta on the device now, downloaded on the copy streams and widened into the
    /// runner's precision (pooled vectors) by whoever waits for them, as the other precisions'
    /// snapshots are; read at once, each snapshot and progress line held the model for the
    /// download and for first touches of fresh vectors (0.37 s at 2048² on an H200).
    fn mixed_state_later(&mut self) -> Result<Later<T>> {
        let boundary = self.flows_now()?;
        let bed = self.bed()?;
        let (layout, dims) = (self.problem.layout(), (self.problem.ny, self.problem.nx));
        let On::GpuMixed(run) = &mut self.on else {
            return Err(Error::invalid("kp: the mixed precision's snapshot of a model that is not one"));
        };
        let clock = run.clock;
        let (w, [hu, hv]) = run.model.mixed_state_buffers()?;
        let surface = snapshot_of(&mut run.wide, &run.gpu, &[w])?;
        let momenta = snapshot_of(&mut run.snapshots, &run.gpu, &[hu, hv])?;
        let pool = run.pool.clone();
        Ok(Later::new(run.pool.clone(), move || {
            let n = dims.0 * dims.1;
            let [mut w, mut hu, mut hv] = [pool.take(n), pool.take(n), pool.take(n)];
            surface.read(|q| interior_into_as(&layout, q[0], &mut w, T::from_f64))?;
            momenta.read(|q| {
                interior_into_as(&layout, q[0], &mut hu, |v| T::from_f64(v as f64));
                interior_into_as(&layout, q[1], &mut hv, |v| T::from_f64(v as f64));
            })?;
            Ok(state_of(dims, clock, &bed, [w, hu, hv], None, boundary))
        }))
    }

    /// The interior cell-centre bed: it never changes, so it comes from the backend once.
    fn bed(&mut self) -> Result<Arc<Vec<T>>> {
        if self.bed.is_none() {
            let layout = self.problem.layout();
            self.bed = Some(Arc::new(match &self.on {
                On::Cpu(m, _) => interior_of(&layout, m.cell_bed()),
                On::Mixed(m, _) => interior_of(&layout, &widen::<T>(m.cell_bed())),
                On::GpuMixed(run) => interior_of(&layout, &widen::<T>(&run.model.cell_bed(&run.gpu)?)),
                On::Gpu(run) => interior_of(&layout, &run.model.cell_bed(&run.gpu)?),
            }));
        }
        Ok(self.bed.clone().unwrap_or_default())
    }
}

/// Where a GPU run's w, hu and hv lie (valid once the work queued on them is done).
fn state_views<T: GpuReal>(run: &GpuRun<T>) -> Vec<DeviceView> {
    let names = [
        ("w", "water surface elevation", "m"),
        ("hu", "x-momentum (discharge per unit width)", "m²/s"),
        ("hv", "y-momentum (discharge per unit width)", "m²/s"),
    ];
    run.model.state_fields().iter().zip(names).map(|(f, names)| f.view(&run.gpu, names)).collect()
}

/// The snapshot of `buffers` through `store`, made for their lengths by the first snapshot.
fn snapshot_of<U: DeviceRepr + ValidAsZeroBits>(
    store: &mut Option<Snapshots<U>>,
    gpu: &Gpu,
    buffers: &[&DeviceBuffer<U>],
) -> Result<Pending<U>> {
    let snapshots = match store {
        Some(s) => s,
        None => store.insert(Snapshots::new(gpu, &buffers.iter().map(|b| b.len()).collect::<Vec<_>>())?),
    };
    snapshots.take(gpu, buffers)
}

/// `state` with the soil's totals `data` (the interior, `dims` as (ny, nx)) as its field
/// "infiltration".
fn add_infiltration<T: GpuReal>(state: &mut State<T>, (ny, nx): (usize, usize), data: Vec<T>) {
    state.fields.push(Output {
        name: "infiltration",
        long_name: "water the soil has taken (cumulative depth)",
        units: "m",
        dims: vec![ny, nx],
        data,
    });
}

/// The state of the interiors of (w, hu, hv) and w's low part (compensated): depth h = w − bed,
/// or (w + low) − bed rounded once, and the momenta; with what crossed the boundary's segments.
fn state_of<T: GpuReal>(
    (ny, nx): (usize, usize),
    clock: Clock,
    bed: &[T],
    [w, hu, hv]: [Vec<T>; 3],
    low: Option<&[T]>,
    boundary: Vec<BoundaryFlow>,
) -> State<T> {
    // In place: w's vector becomes h's (in parallel, as the writer assembles a snapshot).
    let mut h = w;
    let grain = crate::field::PARALLEL_GRAIN;
    match low {
        // Summed in f64 (only f32 has a low part), rounded to T once.
        Some(low) => h.par_iter_mut().zip(bed).zip(low).with_min_len(grain).for_each(|((w, b), lo)| {
            *w = T::from_f64((w.to_f64() - b.to_f64()) + lo.to_f64());
        }),
        None => h.par_iter_mut().zip(bed).with_min_len(grain).for_each(|(w, b)| *w -= *b),
    }
    let dims = vec![ny, nx];
    let out = |name, long_name, units, data| Output { name, long_name, units, dims: dims.clone(), data };
    State {
        clock,
        fields: vec![
            out("h", "water depth", "m", h),
            out("hu", "x-momentum (discharge per unit width)", "m²/s", hu),
            out("hv", "y-momentum (discharge per unit width)", "m²/s", hv),
        ],
        boundary,
    }
}
