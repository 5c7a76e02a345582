//! A wave-propagation run behind [`Model`]: the CPU reference or the GPU driver over any
//! Riemann solver with core kernels. On the GPU the device decides every step (Δt, reject and
//! redo); the host reads the clock between batches.

use super::cpu::{Claw2, Clock as ClawClock, HALO, Step};
use super::d3::cpu::Claw3;
use super::d3::gpu::{GpuClaw3, Shapes3};
use super::gpu::{GpuClaw2, Shapes};
use super::shapes::{SweepShapes, label};
use super::slab::{Across, DeviceCut};
use super::stepper::Planes;
use crate::model::Later;
use crate::model::{Checkpoint, Clock, DeviceView, Halt, Model, Output, State, Until};
use crate::products::{CpuProducts, DEPTH_FIELDS, Fields, GpuProducts, LEVEL_DEPTH_FLAT, Products, Spec, View};
use crate::runtime::{Backend, Gpu};
use crate::view::{GpuSampler, sample_views};
use crate::{GpuReal, Real, Result};
use kernels::claw::{Kernels, Kernels3};
use kernels::grid::Layout2;
use std::sync::Arc;
use std::time::Instant;

/// What a model needs of a CPU reference run, in 2D ([`Claw2`]) or 3D ([`Claw3`]).
pub trait Reference<T: Real, const M: usize> {
    /// One accepted step towards `t_end`, on a slab of a run decomposed over ranks
    /// (`across`) or not.
    fn step(&mut self, t_end: f64, across: Option<&Across>) -> Result<Step>;
    fn clock(&self) -> &ClawClock;
    /// The interior states, x fastest.
    fn state(&self) -> Vec<[T; M]>;
    /// The padded states (ghosts as last filled).
    fn padded_state(&self) -> &[[T; M]];
    /// Continue from padded states and a clock that [`padded_state`](Self::padded_state) and
    /// [`clock`](Self::clock) gave of a run of the same set-up.
    fn resume(&mut self, q: Vec<[T; M]>, clock: ClawClock) -> Result<()>;
}

/// What a model needs of a run on the GPU, in 2D ([`GpuClaw2`]) or 3D ([`GpuClaw3`]).
pub trait DeviceRun<T: GpuReal, const M: usize> {
    /// Steps towards `t_stop` (see `GpuRun::advance`).
    fn advance(&mut self, gpu: &Gpu, t_stop: f64, max_steps: u64, deadline: Option<Instant>) -> Result<ClawClock>;
    fn clock(&self) -> ClawClock;
    /// The interior states, x fastest (synchronises).
    fn state(&self, gpu: &Gpu) -> Result<Vec<[T; M]>>;
    /// The state buffer's M padded planes (synchronises).
    fn current(&self, gpu: &Gpu) -> Result<Vec<T>>;
    /// Continue from planes and a clock that [`current`](Self::current) and
    /// [`clock`](Self::clock) gave of a run of the same set-up.
    fn resume(&mut self, gpu: &Gpu, q: &[T], clock: ClawClock) -> Result<()>;
    /// Keep `products` of the state buffer's planes starting at `planes` (h, hu, hv), updated
    /// after every step on the device.
    fn keep_products(&mut self, products: GpuProducts<T>, planes: [usize; 3]) -> Result<()>;
    /// The products kept so far, the maps only with `maps` (synchronises).
    fn products(&mut self, gpu: &Gpu, maps: bool) -> Result<Option<Products<T>>>;
    /// Add the products' maps and gauge records so far, if kept, to the checkpoint `c`.
    fn checkpoint_products(&mut self, gpu: &Gpu, c: Checkpoint<T>) -> Result<Checkpoint<T>>;
    /// Go on from the products' maps and gauge records of checkpoint `c`, if kept.
    fn restore_products(&mut self, gpu: &Gpu, c: &Checkpoint<T>) -> Result<()>;
    /// The sweeps' launch shapes, as the tuning cache writes them.
    fn shapes_label(&self) -> String;
    /// Step as the slab `cut` of a run decomposed over ranks.
    fn cut_across(&mut self, cut: DeviceCut);
    /// Where the current state's planes lie on the device (synchronises).
    fn planes(&self, gpu: &Gpu) -> Result<Planes>;
}

macro_rules! runs {
    ($($cpu:ident, $gpu:ident, $kernels:ident;)*) => {$(
        impl<T: Real, R: kernels::claw::Riemann<T, M, W, A>, const M: usize, const W: usize, const A: usize>
            Reference<T, M> for $cpu<T, R, M, W, A>
        {
            fn step(&mut self, t_end: f64, across: Option<&Across>) -> Result<Step> {
                <$cpu<T, R, M, W, A>>::step_across(self, t_end, across)
            }
            fn clock(&self) -> &ClawClock {
                <$cpu<T, R, M, W, A>>::clock(self)
            }
            fn state(&self) -> Vec<[T; M]> {
                <$cpu<T, R, M, W, A>>::state(self)
            }
            fn padded_state(&self) -> &[[T; M]] {
                <$cpu<T, R, M, W, A>>::padded(self).0
            }
            fn resume(&mut self, q: Vec<[T; M]>, clock: ClawClock) -> Result<()> {
                let n = self.padded_state().len();
                if q.len() != n {
                    return Err(crate::Error::invalid(format!(
                        "claw: a state of {} cells to resume from where this run stores {n}",
                        q.len()
                    )));
                }
                self.set_padded(q);
                self.set_clock(clock);
                Ok(())
            }
        }

        impl<T: GpuReal, R: $kernels<T, M, W, A>, const M: usize, const W: usize, const A: usize> DeviceRun<T, M>
            for $gpu<T, R, M, W, A>
        {
            fn advance(&mut self, gpu: &Gpu, t_stop: f64, max_steps: u64, deadline: Option<Instant>) -> Result<ClawClock> {
                <$gpu<T, R, M, W, A>>::advance(self, gpu, t_stop, max_steps, deadline)
            }
            fn clock(&self) -> ClawClock {
                <$gpu<T, R, M, W, A>>::clock(self)
            }
            fn state(&self, gpu: &Gpu) -> Result<Vec<[T; M]>> {
                <$gpu<T, R, M, W, A>>::state(self, gpu)
            }
            fn current(&self, gpu: &Gpu) -> Result<Vec<T>> {
                <$gpu<T, R, M, W, A>>::current(self, gpu)
            }
            fn resume(&mut self, gpu: &Gpu, q: &[T], clock: ClawClock) -> Result<()> {
                <$gpu<T, R, M, W, A>>::resume(self, gpu, q, clock)
            }
            fn keep_products(&mut self, products: GpuProducts<T>, planes: [usize; 3]) -> Result<()> {
                <$gpu<T, R, M, W, A>>::keep_products(self, products, planes)
            }
            fn products(&mut self, gpu: &Gpu, maps: bool) -> Result<Option<Products<T>>> {
                <$gpu<T, R, M, W, A>>::products(self, gpu, maps)
            }
            fn checkpoint_products(&mut self, gpu: &Gpu, c: Checkpoint<T>) -> Result<Checkpoint<T>> {
                <$gpu<T, R, M, W, A>>::checkpoint_products(self, gpu, c)
            }
            fn restore_products(&mut self, gpu: &Gpu, c: &Checkpoint<T>) -> Result<()> {
                <$gpu<T, R, M, W, A>>::restore_products(self, gpu, c)
            }
            fn shapes_label(&self) -> String {
                label(<$gpu<T, R, M, W, A>>::shapes(self))
            }
            fn cut_across(&mut self, cut: DeviceCut) {
                <$gpu<T, R, M, W, A>>::cut_across(self, cut)
            }
            fn planes(&self, gpu: &Gpu) -> Result<Planes> {
                <$gpu<T, R, M, W, A>>::planes(self, gpu)
            }
        }
    )*};
}

runs! {
    Claw2, GpuClaw2, Kernels;
    Claw3, GpuClaw3, Kernels3;
}

/// A run of a solver with M state fields on either backend, in 2D or 3D: the CPU reference `C`
/// or the GPU run `G`.
pub struct ClawModel<T: GpuReal, C: Reference<T, M>, G: DeviceRun<T, M>, const M: usize> {
    on: On<T, C, G>,
    fields: [&'static str; M],
    /// The fields' NumPy shape.
    dims: Vec<usize>,
    /// What a slab of a run decomposed over ranks needs of the other ranks (on the GPU its run
    /// holds it); its rank 0 keeps the gauges' records and puts the products into the
    /// checkpoints (`ranks::Decomposed`).
    across: Option<Across>,
    halt: Option<Halt>,
    /// The live view's gather on the GPU, set up with its first frame.
    sampler: Option<GpuSampler<T>>,
    _real: std::marker::PhantomData<T>,
}

enum On<T, C, G> {
    Cpu(Box<C>, Option<CpuProducts<T>>),
    Gpu(Arc<Gpu>, Box<G>),
}

/// A 2D run of solver `R`.
pub type ClawModel2<T, R, const M: usize, const W: usize, const A: usize> =
    ClawModel<T, Claw2<T, R, M, W, A>, GpuClaw2<T, R, M, W, A>, M>;
/// A 3D run of solver `R`.
pub type ClawModel3<T, R, const M: usize, const W: usize, const A: usize> =
    ClawModel<T, Claw3<T, R, M, W, A>, GpuClaw3<T, R, M, W, A>, M>;

/// The sweeps' shapes of a GPU run of solver `name` in precision T: the tuning cache's when
/// tuning is on and it has a record (a case has no key for them) fitted to the run's grid by
/// `fit` (a record is tuned on a large grid), else `built_in` (the run's grid's,
/// `Shapes::default_for`).
fn tuned_shapes<T: GpuReal, S: SweepShapes>(backend: &Backend, name: &str, built_in: S, fit: impl Fn(S) -> S) -> S {
    let lookup = |g: &Gpu| super::shapes::tuned_shapes::<S>(g, crate::Precision::of::<T>(), name).map(&fit);
    crate::tune::case_launch(backend, true, built_in, lookup, label::<S>, &format!("claw {name}"))
}

impl<T: GpuReal, R: Kernels<T, M, W, A>, const M: usize, const W: usize, const A: usize> ClawModel2<T, R, M, W, A> {
    /// The run of `cpu` (the CPU reference, set up and at its start) on `backend`.
    pub fn new(backend: &Backend, solver: R, cpu: Claw2<T, R, M, W, A>) -> Result<Self> {
        let s = *cpu.setup();
        let on = match backend {
            Backend::Gpu(gpu) => {
                let mut run = GpuClaw2::new(gpu, solver, &cpu)?;
                let fit = |t: Shapes| t.for_grid(s.nx, s.ny);
                let shapes = tuned_shapes::<T, _>(backend, R::NAME, run.shapes(), fit);
                run.set_shapes(gpu, shapes)?;
                On::Gpu(gpu.clone(), Box::new(run))
            }
            Backend::Cpu { .. } => On::Cpu(Box::new(cpu), None),
        };
        Ok(ClawModel::with(on, R::FIELDS, vec![s.ny, s.nx]))
    }

    /// The run of a slab of a run decomposed over ranks (`Claw2::slab_of_cells`) on `backend`.
    pub fn slab(backend: &Backend, solver: R, (cpu, across): (Claw2<T, R, M, W, A>, Across)) -> Result<Self> {
        Self::new(backend, solver, cpu).map(|m| m.cut(across))
    }
}

impl<T: GpuReal, R: Kernels3<T, M, W, A>, const M: usize, const W: usize, const A: usize> ClawModel3<T, R, M, W, A> {
    /// The run of `cpu` (the 3D CPU reference, set up and at its start) on `backend`.
    pub fn new(backend: &Backend, solver: R, cpu: Claw3<T, R, M, W, A>) -> Result<Self> {
        let s = *cpu.setup();
        let on = match backend {
            Backend::Gpu(gpu) => {
                let mut run = GpuClaw3::new(gpu, solver, &cpu)?;
                let fit = |t: Shapes3| t.for_grid(s.nx, s.ny, s.nz);
                let shapes = tuned_shapes::<T, _>(backend, R::NAME, run.shapes(), fit);
                run.set_shapes(gpu, shapes)?;
                On::Gpu(gpu.clone(), Box::new(run))
            }
            Backend::Cpu { .. } => On::Cpu(Box::new(cpu), None),
        };
        Ok(ClawModel::with(on, R::FIELDS, vec![s.nz, s.ny, s.nx]))
    }

    /// The run of a slab of a run decomposed over ranks (`Claw3::slab_of_cells`) on `backend`.
    pub fn slab(backend: &Backend, solver: R, (cpu, across): (Claw3<T, R, M, W, A>, Across)) -> Result<Self> {
        Self::new(backend, solver, cpu).map(|m| m.cut(across))
    }
}

impl<T: GpuReal, C: Reference<T, M>, G: DeviceRun<T, M>, const M: usize> ClawModel<T, C, G, M> {
    fn with(on: On<T, C, G>, fields: [&'static str; M], dims: Vec<usize>) -> Self {
        ClawModel { on, fields, dims, across: None, halt: None, sampler: None, _real: std::marker::PhantomData }
    }

    /// Keep the gauges and maps of `spec` (at the interior cells `cells`, from [`Spec::cells`])
    /// from the current state on: for equations in a plane whose state is a depth and its
    /// momenta ([`DEPTH_FIELDS`]), over a flat bed; depths at or below 0 count as dry.
    pub fn with_products(mut self, spec: &Spec, cells: Vec<u32>) -> Result<Self> {
        if spec.is_empty() {
            return Ok(self);
        }
        let &[ny, nx] = self.dims.as_slice() else {
            return Err(crate::Error::invalid("claw: gauges and maximum maps are kept for equations in a plane only"));
        };
        if !self.fields.starts_with(&DEPTH_FIELDS) {
            return Err(crate::Error::invalid(format!(
                "claw: gauges and maximum maps need a water depth, and fields {:?} have none",
                self.fields
            )));
        }
        let layout = Layout2::new(nx as u32, ny as u32, HALO);
        let arrival = T::from_f64(spec.arrival_depth);
        match &mut self.on {
            On::Cpu(m, products) => {
                // Cells of M values: field k of padded cell g is element M·g + k.
                let v = View::padded(layout);
                let too_large = || crate::Error::invalid(format!("claw: {nx} × {ny} cells are too many for gauges"));
                let wide = |k: usize| -> Result<View> {
                    let origin = u32::try_from(v.origin as usize * M + k).map_err(|_| too_large())?;
                    let row = u32::try_from(v.row as usize * M).map_err(|_| too_large())?;
                    Ok(View { origin, row, col: M as u32, pair: 0 })
                };
                let views = [wide(0)?, wide(0)?, wide(1)?, wide(2)?];
                let f = Fields::of(nx as u32, ny as u32, views, LEVEL_DEPTH_FLAT, T::ZERO, arrival);
                let mut k = CpuProducts::new(spec, f, cells);
                let c = *m.clock();
                let q = m.padded_state().as_flattened();
                k.update(q, q, q, q, c.time(), c.steps());
                *products = Some(k);
            }
            On::Gpu(gpu, m) => {
                let f = Fields::of(nx as u32, ny as u32, [View::padded(layout); 4], LEVEL_DEPTH_FLAT, T::ZERO, arrival);
                let len = layout.len();
                m.keep_products(GpuProducts::new(gpu, spec, f, cells)?, [0, len, 2 * len])?;
            }
        }
        Ok(self)
    }

    /// This run as the slab `across` of a run decomposed over ranks.
    fn cut(mut self, across: Across) -> Self {
        if let On::Gpu(gpu, m) = &mut self.on {
            m.cut_across(across.on_device(gpu.clone()));
        }
        ClawModel { across: Some(across), ..self }
    }

    fn claw_clock(&self) -> ClawClock {
        match &self.on {
            On::Cpu(m, _) => *m.clock(),
            On::Gpu(_, m) => m.clock(),
        }
    }
}

/// A wave-propagation model that also shows every slot of its run's clock: what a program
/// stepping it in PyClaw's manner reads after an advance (the last step's CFL number, the Δt the
/// next step tries, the rejections).
pub trait ClawRun<T>: Model<T> {
    fn claw_clock(&self) -> ClawClock;
}

impl<T: GpuReal, C: Reference<T, M>, G: DeviceRun<T, M>, const M: usize> ClawRun<T> for ClawModel<T, C, G, M> {
    fn claw_clock(&self) -> ClawClock {
        ClawModel::claw_clock(self)
    }
}

/// The padded `plane` of a grid of interior `dims` (slowest first) with its ghosts zero.
fn interior_only<T: Real>(mut plane: Vec<T>, dims: &[usize]) -> Vec<T> {
    let g = HALO as usize;
    for (i, v) in plane.iter_mut().enumerate() {
        let mut rest = i;
        let ghost = dims.iter().rev().any(|&n| {
            let k = rest % (n + 2 * g);
            rest /= n + 2 * g;
            k < g || k >= n + g
        });
        if ghost {
            *v = T::ZERO;
        }
    }
    plane
}

/// The model's clock of a run's.
fn clock(c: &ClawClock, halt: Option<Halt>) -> Clock {
    Clock { t: c.time(), steps: c.steps(), dt: c.last().dt, halt: halt.or(c.halt()) }
}

/// What a state field is, for pictures and metadata: (long name, units).
pub fn describe_field(name: &str) -> (&'static str, &'static str) {
    match name {
        "h" => ("water depth", "m"),
        "hu" => ("x-momentum (discharge per unit width)", "m²/s"),
        "hv" => ("y-momentum (discharge per unit width)", "m²/s"),
        "p" => ("pressure perturbation", "Pa"),
        "u" => ("x-velocity", "m/s"),
        "v" => ("y-velocity", "m/s"),
        "w" => ("z-velocity", "m/s"),
        _ => ("advected quantity", "1"),
    }
}

impl<T: GpuReal, C: Reference<T, M>, G: DeviceRun<T, M>, const M: usize> Model<T> for ClawModel<T, C, G, M> {
    fn describe(&self) -> String {
        match &self.on {
            On::Cpu(..) => format!("CPU reference ({} threads)", rayon::current_num_threads()),
            On::Gpu(_, m) => format!("GPU (sweeps {}), Δt and reject-and-redo decided on the device", m.shapes_label()),
        }
    }

    fn clock(&self) -> Clock {
        clock(&self.claw_clock(), self.halt)
    }

    fn advance(&mut self, until: Until) -> Result<Clock> {
        if self.halt.is_some() {
            return Ok(self.clock());
        }
        match &mut self.on {
            On::Cpu(m, products) => {
                while m.clock().time() < until.t && m.clock().steps() < until.steps {
                    if until.deadline.is_some_and(|d| Instant::now() >= d) {
                        break;
                    }
                    if m.step(until.t, self.across.as_ref()).is_err() {
                        // The clock says why when it halted; otherwise the step's new state was
                        // not finite, and the run keeps the one before it.
                        self.halt = Some(m.clock().halt().unwrap_or(Halt::NonFinite));
                        break;
                    }
                    if let Some(k) = products {
                        let c = *m.clock();
                        let q = m.padded_state().as_flattened();
                        k.update(q, q, q, q, c.time(), c.steps());
                    }
                }
            }
            On::Gpu(gpu, m) => {
                m.advance(gpu, until.t, until.steps, until.deadline)?;
            }
        }
        Ok(self.clock())
    }

    /// On the GPU: the state fields gathered at `cells` on the device (its device views are
    /// the state's fields); on the CPU the state, indexed.
    fn sample(&mut self, cells: &[usize]) -> Result<State<T>> {
        self.sample_later(cells)?.wait()
    }

    /// On the GPU, the gather's download comes on a second stream while the model steps on.
    fn sample_later(&mut self, cells: &[usize]) -> Result<Later<T>> {
        let (views, clock) = (self.device_views()?, self.clock());
        match &self.on {
            On::Gpu(gpu, _) => sample_views(&mut self.sampler, gpu, views, cells, clock),
            On::Cpu(..) => Ok(Later::now(self.state()?.at(cells)?)),
        }
    }

    /// On the GPU: each state field as a plane of the current state buffer.
    fn device_views(&mut self) -> Result<Vec<DeviceView>> {
        let On::Gpu(gpu, m) = &self.on else { return Ok(Vec::new()) };
        let p = m.planes(gpu)?;
        let size = std::mem::size_of::<T>();
        Ok(self
            .fields
            .iter()
            .enumerate()
            .map(|(k, &name)| {
                let (long_name, units) = describe_field(name);
                DeviceView {
                    name,
                    long_name,
                    units,
                    address: p.address,
                    offset: ((k * p.plane + p.first) * size) as u64,
                    dims: p.dims.clone(),
                    strides: p.strides.clone(),
                    bits: (8 * size) as u8,
                    device: gpu.ordinal(),
                }
            })
            .collect())
    }

    fn state(&mut self) -> Result<State<T>> {
        let cells = match &self.on {
            On::Cpu(m, _) => m.state(),
            On::Gpu(gpu, m) => m.state(gpu)?,
        };
        let fields = self
            .fields
            .iter()
            .enumerate()
            .map(|(k, &name)| {
                let (long_name, units) = describe_field(name);
                Output { name, long_name, units, dims: self.dims.clone(), data: cells.iter().map(|c| c[k]).collect() }
            })
            .collect();
        Ok(State { clock: self.clock(), fields, boundary: Vec::new() })
    }

    fn products(&mut self, maps: bool) -> Result<Option<Products<T>>> {
        match &mut self.on {
            On::Cpu(_, k) => Ok(k.as_ref().map(|k| k.products(maps))),
            On::Gpu(gpu, m) => m.products(gpu, maps),
        }
    }

    /// Each state field's padded plane, named as the field, its ghosts zero (a sweep fills what
    /// it reads of them first; on a slab they would hold what the exchanges last left), and
    /// every slot of the clock: time, steps, the Δt the next step tries, rejections; and the
    /// products' maps and gauge records so far (on a slab, rank 0 adds the whole grid's).
    fn checkpoint(&mut self) -> Result<Checkpoint<T>> {
        let (planes, slots) = match &self.on {
            On::Cpu(m, _) => {
                let q = m.padded_state();
                ((0..M).map(|k| q.iter().map(|c| c[k]).collect()).collect::<Vec<Vec<T>>>(), m.clock().slots)
            }
            On::Gpu(gpu, m) => {
                let q = m.current(gpu)?;
                (q.chunks_exact(q.len() / M).map(<[T]>::to_vec).collect(), m.clock().slots)
            }
        };
        let planes = planes.into_iter().map(|p| interior_only(p, &self.dims));
        let c = self.fields.iter().zip(planes).fold(Checkpoint::at(self.clock()), |c, (f, p)| c.field(f, p));
        let c = slots.iter().enumerate().fold(c, |c, (k, &v)| c.value(&format!("clock.{k}"), v));
        if self.across.is_some() {
            return Ok(c);
        }
        match &mut self.on {
            On::Cpu(_, Some(k)) => Ok(k.checkpoint(c)),
            On::Cpu(_, None) => Ok(c),
            On::Gpu(gpu, m) => m.checkpoint_products(gpu, c),
        }
    }

    fn restore(&mut self, c: &Checkpoint<T>) -> Result<()> {
        let mut clock = ClawClock::start(0.0, 0.0);
        for (k, slot) in clock.slots.iter_mut().enumerate() {
            *slot = c.get_value(&format!("clock.{k}"))?;
        }
        match &mut self.on {
            On::Cpu(m, products) => {
                let n = m.padded_state().len();
                let planes = self.fields.iter().map(|f| c.get_field(f, n)).collect::<Result<Vec<_>>>()?;
                m.resume((0..n).map(|i| std::array::from_fn(|k| planes[k][i])).collect(), clock)?;
                match products {
                    // A slab samples on from the checkpoint: rank 0 keeps the records before.
                    Some(k) if self.across.is_some() => k.resume_after(c)?,
                    Some(k) => k.restore(c)?,
                    None => {}
                }
            }
            On::Gpu(gpu, m) => {
                let n = m.planes(gpu)?.plane;
                let mut q = Vec::with_capacity(n * M);
                for f in &self.fields {
                    q.extend_from_slice(c.get_field(f, n)?);
                }
                m.resume(gpu, &q, clock)?;
                m.restore_products(gpu, c)?;
            }
        }
        self.halt = None;
        Ok(())
    }
}
