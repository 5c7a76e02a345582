//! The wave-propagation algorithm on the GPU in 2D: the core kernels of a solver
//! ([`GpuSweeps`]: ghost fills and sweeps, stage by stage) and the run over them
//! ([`GpuClaw2`], whole steps decided on the device: `stepper.rs`).

use super::cpu::{Claw2, Clock, HALO, Setup};
use super::shapes::{Reshape, SweepShapes, room_for, x_blocks, x_rows};
use super::slab::DeviceCut;
use super::stepper::{BUFFERS, GpuRun, Planes, StepKernels, run_bytes, sweep_across};
use super::{Cfl, Splitting};
use crate::runtime::BlockLimits;
use crate::runtime::{DeviceBuffer, DevicePointers, Kernel, LaunchShape};
use crate::{Error, Gpu, GpuReal, Result};
use cudarc::driver::CudaStream;
use kernels::Bands;
use kernels::claw::clock::{FIRST_ORDER, ORDER_LEN};
use kernels::claw::{FillGhosts, GhostFill, Kernels, Sweep, X_CELLS_PER_WARP};
use kernels::grid::Layout2;
use kernels::halo::{ghosts_x, ghosts_y};
use kernels::launch::Family;

/// Launch shapes of the 2D sweeps, run-time parameters (`hydrokern tune` searches them:
/// `shapes.rs`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shapes {
    /// x-sweep block: warps along x (each updates 29 cells of a row), warps along y; the rows
    /// a warp takes one after another.
    pub x: (u32, u32, u32),
    /// y-sweep block: threads along x (one column each), segments along y; the cells a thread
    /// marches up its column.
    pub y: (u32, u32, u32),
}

impl Default for Shapes {
    /// 2 × 2 warps taking 8 rows each for x; 64 × 2 threads marching 32 cells for y (the
    /// fastest measured on an H200; `hydrokern tune` finds each GPU's own).
    fn default() -> Self {
        Shapes { x: (2, 2, 8), y: (64, 2, 32) }
    }
}

impl Shapes {
    /// The built-in shapes of an `nx × ny` grid: the defaults, fitted to it ([`Shapes::for_grid`]).
    pub fn default_for(nx: usize, ny: usize) -> Self {
        Shapes::default().for_grid(nx, ny)
    }

    /// `self` on an `nx × ny` grid: fewer rows an x-sweep warp on a small grid ([`x_rows`]).
    pub fn for_grid(mut self, nx: usize, ny: usize) -> Self {
        self.x.2 = x_rows(self.x.2, x_blocks(self.x, nx, ny));
        self
    }

    /// Every size at least 1, blocks of whole warps (the block reduction of the rates needs
    /// them) and at most 1024 threads.
    pub fn check(&self) -> Result<()> {
        let Shapes { x, y } = *self;
        let threads = [32 * x.0 * x.1, y.0 * y.1];
        let ok = [x, y].iter().all(|s| s.0 >= 1 && s.1 >= 1 && s.2 >= 1);
        if !ok || threads.iter().any(|&t| !t.is_multiple_of(32) || t > 1024) {
            return Err(Error::invalid(format!(
                "claw shapes {self:?}: every size ≥ 1, blocks of whole warps and at most 1024 threads"
            )));
        }
        Ok(())
    }

    /// The launch along `dir` over `l` (with 32 T's of shared memory for the block reduction),
    /// and the rows an x-sweep warp takes or the cells a y-sweep thread marches.
    fn launch<T>(&self, l: &Layout2, dir: usize) -> (LaunchShape, u32) {
        let (shape, rows) = if dir == 0 {
            let (wx, wy, rows) = self.x;
            let grid = (l.nx.div_ceil(X_CELLS_PER_WARP * wx), l.ny.div_ceil(rows).div_ceil(wy), 1);
            (LaunchShape::fixed(grid, (32 * wx, wy, 1)), rows)
        } else {
            let (bx, by, rows) = self.y;
            (LaunchShape::fixed((l.nx.div_ceil(bx), l.ny.div_ceil(rows).div_ceil(by), 1), (bx, by, 1)), rows)
        };
        (shape.with_shared_of::<T>(32), rows)
    }
}

impl SweepShapes for Shapes {
    const AXES: usize = 2;
    fn axis(&self, dir: usize) -> [u32; 3] {
        if dir == 0 { [self.x.0, self.x.1, self.x.2] } else { [self.y.0, self.y.1, self.y.2] }
    }
    fn with_axis(mut self, dir: usize, b: [u32; 3]) -> Self {
        if dir == 0 {
            self.x = (b[0], b[1], b[2]);
        } else {
            self.y = (b[0], b[1], b[2]);
        }
        self
    }
    fn check(&self) -> Result<()> {
        Shapes::check(self)
    }
}

/// The planes (structure of arrays) the kernels read of an array of cells, one plane after
/// another; one zero for cells without components (no aux fields), as a launch still passes a
/// buffer.
pub fn planes<T: crate::Real, const N: usize>(cells: &[[T; N]]) -> Vec<T> {
    if N == 0 {
        return vec![T::ZERO];
    }
    (0..N).flat_map(|m| cells.iter().map(move |c| c[m])).collect()
}

/// The sweeps of a step: (axis, fraction of Δt) in order.
fn stages(splitting: Splitting) -> &'static [(usize, f64)] {
    match splitting {
        Splitting::Godunov => &[(0, 1.0), (1, 1.0)],
        Splitting::Strang => &[(0, 0.5), (1, 1.0), (0, 0.5)],
    }
}

type Params<T, R, const M: usize, const W: usize, const A: usize> =
    <<R as Kernels<T, M, W, A>>::Family as Family>::At<T>;

/// The core kernels of solver `R` and what they share: the Δt word, the buffers' order, and
/// one rate a block for each sweep of a step (one buffer, so one reduction reads them all).
pub struct GpuSweeps<T: GpuReal, R: Kernels<T, M, W, A>, const M: usize, const W: usize, const A: usize> {
    setup: Setup,
    layout: Layout2,
    shapes: Shapes,
    x: Kernel<Params<T, R, M, W, A>>,
    y: Kernel<Params<T, R, M, W, A>>,
    ghosts: Kernel<FillGhosts<T>>,
    rate: DeviceBuffer<T>,
    dt: DeviceBuffer<T>,
    order: DeviceBuffer<u32>,
}

impl<T: GpuReal, R: Kernels<T, M, W, A>, const M: usize, const W: usize, const A: usize> GpuSweeps<T, R, M, W, A> {
    /// The sweeps of `setup` with the built-in shapes of its grid.
    pub fn new(gpu: &Gpu, setup: Setup) -> Result<Self> {
        Self::with_shapes(gpu, setup, Shapes::default_for(setup.nx, setup.ny))
    }

    pub fn with_shapes(gpu: &Gpu, setup: Setup, shapes: Shapes) -> Result<Self> {
        shapes.check()?;
        let layout = Layout2::new(setup.nx as u32, setup.ny as u32, HALO);
        let blocks = Self::rate_slots(&layout, &shapes, Splitting::Strang);
        Ok(GpuSweeps {
            setup,
            layout,
            shapes,
            x: gpu.kernel::<T, _>(R::X)?,
            y: gpu.kernel::<T, _>(R::Y)?,
            ghosts: gpu.kernel::<T, _>(R::GHOSTS)?,
            rate: gpu.zeros::<T>(blocks)?,
            dt: gpu.zeros::<T>(1)?,
            order: gpu.upload(&FIRST_ORDER)?,
        })
    }

    /// Blocks of the sweep along `dir`.
    fn blocks(l: &Layout2, shapes: &Shapes, dir: usize) -> usize {
        let g = shapes.launch::<T>(l, dir).0.grid;
        (g.0 * g.1) as usize
    }

    /// Where stage `stage`'s rates start in the rate buffer, for a step split by `splitting`.
    fn rate_offset(l: &Layout2, shapes: &Shapes, splitting: Splitting, stage: usize) -> usize {
        stages(splitting)[..stage].iter().map(|&(dir, _)| Self::blocks(l, shapes, dir)).sum()
    }

    /// Rates written by a step split by `splitting`.
    fn rate_slots(l: &Layout2, shapes: &Shapes, splitting: Splitting) -> usize {
        Self::rate_offset(l, shapes, splitting, stages(splitting).len())
    }

    /// The padded length of one plane.
    pub fn plane(&self) -> usize {
        self.layout.len()
    }

    /// Fills the ghosts across `dir` of state buffer `order[stage]` (queued).
    pub fn fill(&mut self, dir: usize, stage: usize, states: &mut DeviceBuffer<T>) -> Result<()> {
        let layout = self.layout;
        if states.len() < BUFFERS * M * layout.len() || dir > 1 {
            return Err(Error::invalid(format!("claw ghosts: {} values, axis {dir}", states.len())));
        }
        let normal = R::normal(dir).map_or(u32::MAX, |m| m as u32);
        let g = GhostFill { layout, bc: self.setup.bc, normal, dir: dir as u32, stage: stage as u32 };
        let count = if dir == 0 { ghosts_x(&layout) } else { ghosts_y(&layout) };
        let shape = LaunchShape::cover_1d(count as u64, 128)?;
        let p = FillGhosts { g, states: states.ptr_mut(), order: self.order.ptr() };
        // SAFETY: `states` holds BUFFERS buffers of M planes of the layout's length (checked
        // above) and `order` names one of them; the grid covers the pass's ghosts.
        unsafe { self.ghosts.launch(shape, p) }
    }

    /// Sweep `stage` of a step split by `splitting` (its axis and fraction of Δt), queued on
    /// the stream: from state buffer `order[stage]` of `states` into `order[stage + 1]`, over
    /// the Δt in the device word. `states` holds whole buffers of M planes, `aux` A planes (any
    /// buffer when A = 0); the input's ghosts across the axis must be filled.
    pub fn enqueue(
        &mut self,
        solver: R,
        splitting: Splitting,
        stage: usize,
        states: &mut DeviceBuffer<T>,
        aux: &DeviceBuffer<T>,
    ) -> Result<()> {
        self.enqueue_across(solver, (splitting, stage), states, aux, None)
    }

    /// [`enqueue`](Self::enqueue) on the slab `cut` of a decomposed run, whose ghost rows at
    /// the cuts are still to come from its neighbours: they come first, before or beside the
    /// y-sweep's bands that do not read them (`stepper::sweep_across`).
    pub fn enqueue_across(
        &mut self,
        solver: R,
        (splitting, stage): (Splitting, usize),
        states: &mut DeviceBuffer<T>,
        aux: &DeviceBuffer<T>,
        cut: Option<&DeviceCut>,
    ) -> Result<()> {
        let len = self.layout.len();
        let Some(&(dir, frac)) = stages(splitting).get(stage) else {
            return Err(Error::invalid(format!("claw sweep: no stage {stage} in a {splitting:?} step")));
        };
        if states.len() < BUFFERS * M * len || aux.len() < A * len {
            return Err(Error::invalid(format!(
                "claw sweep: buffers of {} and {} values for {BUFFERS}×{M} state and {A} aux planes of {len}",
                states.len(),
                aux.len()
            )));
        }
        let spacing = if dir == 0 { self.setup.dx } else { self.setup.dy };
        let (shape, rows) = self.shapes.launch::<T>(&self.layout, dir);
        // The y-sweep's rows of blocks are its bands: `by · rows` rows each.
        let across = (self.layout.ny, if dir == 0 { self.shapes.x.1 } else { self.shapes.y.1 } * rows);
        let k = Sweep {
            layout: self.layout,
            inv_dx: T::from_f64(1.0 / spacing),
            dt_frac: T::from_f64(frac),
            limiter: self.setup.limiter as u32,
            rows,
            stage: stage as u32,
            bands: Bands::all(across.0, across.1),
        };
        let kernel = if dir == 0 { &self.x } else { &self.y };
        let rate = self.rate.ptr_mut().wrapping_add(Self::rate_offset(&self.layout, &self.shapes, splitting, stage));
        let (q, order, aux, dt) = (states.ptr_mut(), self.order.ptr(), aux.ptr(), self.dt.ptr());
        let launch = |bands: Bands, stream: &CudaStream| {
            let shape = if dir == 0 { shape } else { LaunchShape { grid: (shape.grid.0, bands.count, 1), ..shape } };
            let p = solver.params(Sweep { bands, ..k }, q, order, aux, dt, rate);
            // SAFETY: `order` holds a permutation prefix of 0..BUFFERS (FIRST_ORDER, or what
            // the control kernel made of it), so the sweep reads and writes two different
            // buffers of `states`, which holds BUFFERS of M planes of the layout's length
            // (checked above); aux holds A planes; dt is one value, and `rate` points at this
            // stage's part of the rate buffer, one value for each block of the whole sweep
            // (sized in `new` for the longest step), which a band's blocks write as the whole
            // sweep's do; the shapes are the kernels' (32·wx, by) and (bx, by) blocks with 32
            // T's of shared memory over grids covering the cells, or the bands of the y-sweep's
            // (`sweep_across` launches each band once and orders the bands on two streams
            // after the ghost rows they read).
            unsafe { kernel.launch_on(stream, shape, p) }
        };
        sweep_across(cut.filter(|c| c.axis == dir), states, kernel.stream(), (across.0, across.1), launch)
    }

    /// One sweep along `dir` over Δt `dt` of state buffer 0 of `states` into buffer 1 (as
    /// stage `dir` of a Godunov step), for tests and benchmarks; returns the sweep's rate,
    /// max|s|/Δ over the interfaces of the cells it updates (synchronises). The Δt word and
    /// the order stay set, so [`enqueue`](Self::enqueue) repeats the sweep.
    pub fn sweep(
        &mut self,
        gpu: &Gpu,
        solver: R,
        dir: usize,
        states: &mut DeviceBuffer<T>,
        aux: &DeviceBuffer<T>,
        dt: f64,
    ) -> Result<f64> {
        gpu.write(&[T::from_f64(dt)], &mut self.dt)?;
        self.set_order(gpu, if dir == 0 { FIRST_ORDER } else { [2, 0, 1, 0, 1, 0] })?;
        self.enqueue(solver, Splitting::Godunov, dir, states, aux)?;
        let rates = gpu.download(&self.rate)?;
        let from = Self::rate_offset(&self.layout, &self.shapes, Splitting::Godunov, dir);
        Ok(max_rate(&rates[from..from + Self::blocks(&self.layout, &self.shapes, dir)]))
    }

    /// Sets the buffers' order (each sweep `k` of a step reads buffer `order[k]` and writes
    /// `order[k + 1]`; they must differ, and name buffers below three).
    pub fn set_order(&mut self, gpu: &Gpu, order: [u32; ORDER_LEN]) -> Result<()> {
        if order.iter().any(|&b| b as usize >= BUFFERS) || (0..ORDER_LEN - 1).any(|k| order[k] == order[k + 1]) {
            return Err(Error::invalid(format!("claw: {order:?} is not an order of {BUFFERS} state buffers")));
        }
        gpu.write(&order, &mut self.order)
    }
}

/// The largest rate, NaN-propagating: a non-finite speed must not hide behind a finite maximum.
pub(super) fn max_rate<T: GpuReal>(r: &[T]) -> f64 {
    r.iter().fold(0.0f64, |a, r| if a.is_nan() || r.to_f64().is_nan() { f64::NAN } else { a.max(r.to_f64()) })
}

/// A 2D run on the GPU, Godunov or Strang split, whole steps decided on the device.
pub type GpuClaw2<T, R, const M: usize, const W: usize, const A: usize> = GpuRun<T, GpuSweeps<T, R, M, W, A>>;

impl<T: GpuReal, R: Kernels<T, M, W, A>, const M: usize, const W: usize, const A: usize> StepKernels<T>
    for GpuSweeps<T, R, M, W, A>
{
    type Solver = R;
    fn stages(&self) -> usize {
        stages(self.setup.splitting).len()
    }
    fn queue_fill(&mut self, stage: usize, states: &mut DeviceBuffer<T>) -> Result<()> {
        let splitting = self.setup.splitting;
        let Some(&(dir, _)) = stages(splitting).get(stage) else {
            return Err(Error::invalid(format!("claw sweep: no stage {stage} in a {splitting:?} step")));
        };
        self.fill(dir, stage, states)
    }
    fn queue_sweep(
        &mut self,
        solver: R,
        stage: usize,
        states: &mut DeviceBuffer<T>,
        aux: &DeviceBuffer<T>,
        cut: Option<&DeviceCut>,
    ) -> Result<()> {
        self.enqueue_across(solver, (self.setup.splitting, stage), states, aux, cut)
    }
    fn step_rates(&self) -> (&DeviceBuffer<T>, usize) {
        (&self.rate, Self::rate_slots(&self.layout, &self.shapes, self.setup.splitting))
    }
    fn words(&mut self) -> (&mut DeviceBuffer<T>, &mut DeviceBuffer<u32>) {
        (&mut self.dt, &mut self.order)
    }
    fn order(&self) -> &DeviceBuffer<u32> {
        &self.order
    }
    fn buffer_len(&self) -> usize {
        M * self.layout.len()
    }
    fn cfl(&self) -> Cfl {
        self.setup.cfl
    }
    fn name(&self) -> &'static str {
        R::NAME
    }
}

impl<T: GpuReal, R: Kernels<T, M, W, A>, const M: usize, const W: usize, const A: usize> Reshape<T>
    for GpuSweeps<T, R, M, W, A>
{
    type Shapes = Shapes;
    fn shapes(&self) -> Shapes {
        self.shapes
    }
    fn set_shapes(&mut self, gpu: &Gpu, shapes: Shapes) -> Result<()> {
        shapes.check()?;
        room_for(gpu, &mut self.rate, Self::rate_slots(&self.layout, &shapes, Splitting::Strang))?;
        self.shapes = shapes;
        Ok(())
    }
    fn limits(&self, gpu: &Gpu, dir: usize) -> Result<BlockLimits> {
        crate::runtime::block_limits(gpu, if dir == 0 { &self.x } else { &self.y })
    }
}

impl<T: GpuReal, R: Kernels<T, M, W, A>, const M: usize, const W: usize, const A: usize> GpuClaw2<T, R, M, W, A> {
    /// Device memory of a run on an `nx × ny` grid: the three state buffers, the auxiliary
    /// fields, and per block one rate (a Strang step's three sweeps).
    pub fn device_bytes(nx: usize, ny: usize) -> u64 {
        let l = Layout2::new(nx as u32, ny as u32, HALO);
        let rates = GpuSweeps::<T, R, M, W, A>::rate_slots(&l, &Shapes::default_for(nx, ny), Splitting::Strang);
        run_bytes::<T>(M, A, l.len(), rates)
    }

    /// The GPU run of a CPU run's set-up, state and auxiliary fields (validated there), from its
    /// clock.
    pub fn new(gpu: &Gpu, solver: R, cpu: &Claw2<T, R, M, W, A>) -> Result<Self> {
        let (q, aux) = cpu.padded();
        Self::from_planes(gpu, solver, *cpu.setup(), planes(q), &planes(aux), *cpu.clock())
    }

    /// A run of `setup` from the padded state's M planes `q` and the padded auxiliary fields'
    /// A planes (their ghosts filled), from `clock`.
    pub fn from_planes(gpu: &Gpu, solver: R, setup: Setup, q: Vec<T>, aux: &[T], clock: Clock) -> Result<Self> {
        gpu.check_fits("claw state", Self::device_bytes(setup.nx, setup.ny) as usize)?;
        GpuRun::start(gpu, solver, GpuSweeps::new(gpu, setup)?, q, aux, clock)
    }

    /// Where the current state's planes lie on the device (synchronises).
    pub fn planes(&self, gpu: &Gpu) -> Result<Planes> {
        let (l, s) = (self.kernels.layout, self.kernels.setup);
        let first = l.at(0, 0);
        let step = |i: i32, j: i32| l.at(i, j) - first;
        Ok(Planes {
            address: self.current_address(gpu)?,
            plane: l.len(),
            first,
            dims: vec![s.ny, s.nx],
            strides: vec![step(0, 1), step(1, 0)],
        })
    }

    /// The interior states, row-major (synchronises).
    pub fn state(&self, gpu: &Gpu) -> Result<Vec<[T; M]>> {
        let host = self.current(gpu)?;
        let (l, s) = (self.kernels.layout, self.kernels.setup);
        let len = l.len();
        Ok((0..s.nx * s.ny)
            .map(|c| {
                let at = l.at((c % s.nx) as i32, (c / s.nx) as i32);
                std::array::from_fn(|m| host[m * len + at])
            })
            .collect())
    }
}
