//! The 3D core kernels on the GPU, one sweep (or ghost fill) at a time, with the 2D kernels'
//! conventions (`gpu.rs`): the run's state buffers in one allocation, a device array `order`
//! naming the buffer each sweep of a step reads and writes, Δt read from a device word, one
//! rate (max|s|/Δ) a block into a buffer holding every sweep of a step. Launch shapes are
//! run-time parameters ([`Shapes3`]). [`GpuClaw3`] runs whole steps over them, decided on the
//! device (`stepper.rs`).

use super::cpu::{Claw3, STRANG, Setup3};
use crate::claw::gpu::planes;
use crate::claw::shapes::{Reshape, SweepShapes, room_for, x_blocks, x_rows};
use crate::claw::slab::DeviceCut;
use crate::claw::stepper::{BUFFERS, GpuRun, Planes, StepKernels, run_bytes, sweep_across};
use crate::claw::{Cfl, Splitting};
use crate::runtime::BlockLimits;
use crate::runtime::{DeviceBuffer, DevicePointers, Kernel, LaunchShape};
use crate::{Error, Gpu, GpuReal, Result};
use cudarc::driver::CudaStream;
use kernels::Bands;
use kernels::claw::clock::FIRST_ORDER;
use kernels::claw::{FillGhosts3, GhostFill3, Kernels3, Sweep3, X_CELLS_PER_WARP};
use kernels::grid::Layout3;
use kernels::halo::ghosts3;
use kernels::launch::Family;

/// The sweeps of a 3D step: (axis, fraction of Δt) in order.
pub fn stages3(splitting: Splitting) -> &'static [(usize, f64)] {
    match splitting {
        Splitting::Godunov => &[(0, 1.0), (1, 1.0), (2, 1.0)],
        Splitting::Strang => &STRANG,
    }
}

/// Launch shapes of the 3D sweeps, run-time parameters (`hydrokern tune` searches them:
/// `claw/shapes.rs`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shapes3 {
    /// x-sweep block: warps along x (each updates 29 cells of a row), warps along y; the rows
    /// a warp takes one after another.
    pub x: (u32, u32, u32),
    /// y-sweep block: threads along x, segments along y; cells a thread marches.
    pub y: (u32, u32, u32),
    /// z-sweep block: threads along x, along y; cells a thread marches along z.
    pub z: (u32, u32, u32),
}

impl Default for Shapes3 {
    /// As the 2D sweeps: 2 × 2 warps taking 8 rows each for x, 64 × 2 threads marching 32
    /// cells for y and z.
    fn default() -> Self {
        Shapes3 { x: (2, 2, 8), y: (64, 2, 32), z: (64, 2, 32) }
    }
}

impl Shapes3 {
    /// The built-in shapes of an `nx × ny × nz` grid: the defaults, fitted to it
    /// ([`Shapes3::for_grid`]).
    pub fn default_for(nx: usize, ny: usize, nz: usize) -> Self {
        Shapes3::default().for_grid(nx, ny, nz)
    }

    /// `self` on an `nx × ny × nz` grid: fewer rows an x-sweep warp on a small grid ([`x_rows`]).
    pub fn for_grid(mut self, nx: usize, ny: usize, nz: usize) -> Self {
        self.x.2 = x_rows(self.x.2, x_blocks(self.x, nx, ny) * nz as u64);
        self
    }

    /// Every size at least 1, blocks of whole warps (the block reduction of the rates needs
    /// them) and at most 1024 threads.
    pub fn check(&self) -> Result<()> {
        let Shapes3 { x, y, z } = *self;
        let ok = [x, y, z].iter().all(|s| s.0 >= 1 && s.1 >= 1 && s.2 >= 1);
        let threads = [32 * x.0 * x.1, y.0 * y.1, z.0 * z.1];
        if !ok || threads.iter().any(|&t| !t.is_multiple_of(32) || t > 1024) {
            return Err(Error::invalid(format!(
                "claw 3D shapes {self:?}: every size ≥ 1, blocks of whole warps and at most 1024 threads"
            )));
        }
        Ok(())
    }

    /// The launch along `dir` over `l`, and the rows an x-sweep warp takes or the cells a
    /// thread marches (y, z).
    fn launch<T>(&self, l: &Layout3, dir: usize) -> (LaunchShape, u32) {
        let (shape, rows) = match dir {
            0 => {
                let (wx, wy, rows) = self.x;
                let grid = (l.nx.div_ceil(X_CELLS_PER_WARP * wx), l.ny.div_ceil(rows).div_ceil(wy), l.nz);
                (LaunchShape::fixed(grid, (32 * wx, wy, 1)), rows)
            }
            1 => {
                let (bx, by, rows) = self.y;
                let grid = (l.nx.div_ceil(bx), l.ny.div_ceil(rows).div_ceil(by), l.nz);
                (LaunchShape::fixed(grid, (bx, by, 1)), rows)
            }
            _ => {
                let (bx, by, rows) = self.z;
                let grid = (l.nx.div_ceil(bx), l.ny.div_ceil(by), l.nz.div_ceil(rows));
                (LaunchShape::fixed(grid, (bx, by, 1)), rows)
            }
        };
        (shape.with_shared_of::<T>(32), rows)
    }
}

impl SweepShapes for Shapes3 {
    const AXES: usize = 3;
    fn axis(&self, dir: usize) -> [u32; 3] {
        match dir {
            0 => [self.x.0, self.x.1, self.x.2],
            1 => [self.y.0, self.y.1, self.y.2],
            _ => [self.z.0, self.z.1, self.z.2],
        }
    }
    fn with_axis(mut self, dir: usize, b: [u32; 3]) -> Self {
        match dir {
            0 => self.x = (b[0], b[1], b[2]),
            1 => self.y = (b[0], b[1], b[2]),
            _ => self.z = (b[0], b[1], b[2]),
        }
        self
    }
    fn check(&self) -> Result<()> {
        Shapes3::check(self)
    }
}

type Params3<T, R, const M: usize, const W: usize, const A: usize> =
    <<R as Kernels3<T, M, W, A>>::Family as Family>::At<T>;

/// The 3D core kernels of solver `R` and what they share: the Δt word, the buffers' order, and
/// one rate a block for each sweep of a step (one buffer, so one reduction reads them all).
pub struct GpuSweeps3<T: GpuReal, R: Kernels3<T, M, W, A>, const M: usize, const W: usize, const A: usize> {
    setup: Setup3,
    layout: Layout3,
    shapes: Shapes3,
    sweeps: [Kernel<Params3<T, R, M, W, A>>; 3],
    ghosts: Kernel<FillGhosts3<T>>,
    rate: DeviceBuffer<T>,
    dt: DeviceBuffer<T>,
    order: DeviceBuffer<u32>,
}

impl<T: GpuReal, R: Kernels3<T, M, W, A>, const M: usize, const W: usize, const A: usize> GpuSweeps3<T, R, M, W, A> {
    /// The sweeps of `setup` with the built-in shapes of its grid.
    pub fn new(gpu: &Gpu, setup: Setup3) -> Result<Self> {
        Self::with_shapes(gpu, setup, Shapes3::default_for(setup.nx, setup.ny, setup.nz))
    }

    pub fn with_shapes(gpu: &Gpu, setup: Setup3, shapes: Shapes3) -> Result<Self> {
        shapes.check()?;
        let layout = setup.layout();
        let slots = Self::rate_offset(&layout, &shapes, Splitting::Strang, STRANG.len());
        let [x, y, z] = R::SWEEPS;
        Ok(GpuSweeps3 {
            setup,
            layout,
            shapes,
            sweeps: [gpu.kernel::<T, _>(x)?, gpu.kernel::<T, _>(y)?, gpu.kernel::<T, _>(z)?],
            ghosts: gpu.kernel::<T, _>(R::GHOSTS)?,
            rate: gpu.zeros::<T>(slots)?,
            dt: gpu.zeros::<T>(1)?,
            order: gpu.upload(&FIRST_ORDER)?,
        })
    }

    /// Blocks of the sweep along `dir`.
    fn blocks(l: &Layout3, shapes: &Shapes3, dir: usize) -> usize {
        let g = shapes.launch::<T>(l, dir).0.grid;
        g.0 as usize * g.1 as usize * g.2 as usize
    }

    /// Where stage `stage`'s rates start in the rate buffer, for a step split by `splitting`.
    fn rate_offset(l: &Layout3, shapes: &Shapes3, splitting: Splitting, stage: usize) -> usize {
        stages3(splitting)[..stage].iter().map(|&(dir, _)| Self::blocks(l, shapes, dir)).sum()
    }

    /// The padded length of one plane.
    pub fn plane(&self) -> usize {
        self.layout.len()
    }

    /// Checks that `states` holds [`BUFFERS`] buffers of M planes and `aux` A planes.
    fn check_buffers(&self, states: &DeviceBuffer<T>, aux: &DeviceBuffer<T>) -> Result<()> {
        let len = self.layout.len();
        if states.len() < BUFFERS * M * len || aux.len() < A * len {
            return Err(Error::invalid(format!(
                "claw 3D sweep: buffers of {} and {} values for {BUFFERS}×{M} state and {A} aux planes of {len}",
                states.len(),
                aux.len()
            )));
        }
        Ok(())
    }

    /// Sweep `stage` of a step split by `splitting` (its axis and fraction of Δt), queued on
    /// the stream: from state buffer `order[stage]` of `states` into `order[stage + 1]`, over
    /// the Δt in the device word, its rates at the stage's place in the rate buffer. The
    /// input's ghosts across the axis must be filled.
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

    /// [`enqueue`](Self::enqueue) on the slab `cut` of a decomposed run, whose ghost planes
    /// at the cuts are still to come from its neighbours: they come first, before or beside the
    /// z-sweep's bands that do not read them (`stepper::sweep_across`).
    pub fn enqueue_across(
        &mut self,
        solver: R,
        (splitting, stage): (Splitting, usize),
        states: &mut DeviceBuffer<T>,
        aux: &DeviceBuffer<T>,
        cut: Option<&DeviceCut>,
    ) -> Result<()> {
        let Some(&(dir, frac)) = stages3(splitting).get(stage) else {
            return Err(Error::invalid(format!("claw 3D sweep: no stage {stage} in a {splitting:?} step")));
        };
        let offset = Self::rate_offset(&self.layout, &self.shapes, splitting, stage);
        self.launch(solver, (dir, frac, stage), offset, states, aux, cut)
    }

    /// Sweep along `dir` over `frac`·Δt as stage `stage`, its rates from `offset` on, across
    /// the cut of `cut` when `dir` is its axis.
    fn launch(
        &mut self,
        solver: R,
        (dir, frac, stage): (usize, f64, usize),
        offset: usize,
        states: &mut DeviceBuffer<T>,
        aux: &DeviceBuffer<T>,
        cut: Option<&DeviceCut>,
    ) -> Result<()> {
        self.check_buffers(states, aux)?;
        if dir > 2 {
            return Err(Error::invalid(format!("claw 3D sweep: axis {dir}")));
        }
        let (shape, rows) = self.shapes.launch::<T>(&self.layout, dir);
        // The z-sweep's layers of blocks are its bands: `rows` planes each (the other sweeps
        // take the whole grid).
        let across = if dir == 2 { (self.layout.nz, rows) } else { (shape.grid.2, 1) };
        let k = Sweep3 {
            layout: self.layout,
            inv_dx: T::from_f64(1.0 / self.setup.spacing(dir)),
            dt_frac: T::from_f64(frac),
            limiter: self.setup.limiter as u32,
            rows,
            stage: stage as u32,
            bands: Bands::all(across.0, across.1),
        };
        let rate = self.rate.ptr_mut().wrapping_add(offset);
        let kernel = &self.sweeps[dir];
        let (q, order, aux, dt) = (states.ptr_mut(), self.order.ptr(), aux.ptr(), self.dt.ptr());
        let launch = |bands: Bands, stream: &CudaStream| {
            let shape =
                if dir == 2 { LaunchShape { grid: (shape.grid.0, shape.grid.1, bands.count), ..shape } } else { shape };
            let p = solver.params(Sweep3 { bands, ..k }, q, order, aux, dt, rate);
            // SAFETY: `order` holds FIRST_ORDER (or what a control kernel made of it: a buffer
            // index below BUFFERS each, neighbours different), so the sweep reads and writes
            // two different buffers of `states`, which holds BUFFERS of M planes of the
            // layout's length, and aux A planes (checked above); dt is one value, and `rate`
            // points at this sweep's part of the rate buffer, one value for each block of the
            // whole sweep (sized in `new` for the longest step, Strang's), which a band's
            // blocks write as the whole sweep's do; the shape is the kernel's block with 32 T's
            // of shared memory over a grid covering the cells (`Shapes3::launch`, y and z
            // blocks whole warps), or the bands of the z-sweep's (`sweep_across` launches each
            // band once and orders the bands on two streams after the ghost planes they read).
            unsafe { kernel.launch_on(stream, shape, p) }
        };
        sweep_across(cut.filter(|c| c.axis == dir), states, kernel.stream(), across, launch)
    }

    /// Fills the ghosts across `dir` of state buffer `order[stage]` (queued).
    pub fn fill(&mut self, dir: usize, stage: usize, states: &mut DeviceBuffer<T>) -> Result<()> {
        let len = self.layout.len();
        if states.len() < BUFFERS * M * len || dir > 2 {
            return Err(Error::invalid(format!("claw 3D ghosts: {} values, axis {dir}", states.len())));
        }
        let normal = R::normal(dir).map_or(u32::MAX, |m| m as u32);
        let g = GhostFill3 { layout: self.layout, bc: self.setup.bc, normal, dir: dir as u32, stage: stage as u32 };
        let shape = LaunchShape::cover_1d(ghosts3(&self.layout, dir as u32) as u64, 128)?;
        let p = FillGhosts3 { g, states: states.ptr_mut(), order: self.order.ptr() };
        // SAFETY: `states` holds BUFFERS buffers of M planes of the layout's length (checked
        // above) and `order` names one of them; the grid covers the pass's ghosts.
        unsafe { self.ghosts.launch(shape, p) }
    }

    /// Sets the Δt the sweeps read and the buffers' first order (synchronous writes).
    pub fn set_dt(&mut self, gpu: &Gpu, dt: f64) -> Result<()> {
        gpu.write(&[T::from_f64(dt)], &mut self.dt)?;
        gpu.write(&FIRST_ORDER, &mut self.order)
    }

    /// One sweep along `dir` over Δt `dt` of state buffer 0 of `states` into buffer 1, for
    /// tests and benchmarks; returns the sweep's rate, max|s|/Δ over the interfaces of the cells
    /// it updates (synchronises).
    pub fn sweep(
        &mut self,
        gpu: &Gpu,
        solver: R,
        dir: usize,
        states: &mut DeviceBuffer<T>,
        aux: &DeviceBuffer<T>,
        dt: f64,
    ) -> Result<f64> {
        self.set_dt(gpu, dt)?;
        self.launch(solver, (dir, 1.0, 0), 0, states, aux, None)?;
        self.rate_of(gpu, dir)
    }

    /// The largest rate of the last sweep along `dir` launched by [`sweep`](Self::sweep) or
    /// [`enqueue_alone`](Self::enqueue_alone) (synchronises).
    pub fn rate_of(&self, gpu: &Gpu, dir: usize) -> Result<f64> {
        self.max_rate(gpu, Self::blocks(&self.layout, &self.shapes, dir))
    }

    /// The largest rate of the sweeps of the last step queued by [`enqueue`](Self::enqueue)
    /// split by `splitting` (synchronises).
    pub fn step_rate(&self, gpu: &Gpu, splitting: Splitting) -> Result<f64> {
        let n = stages3(splitting).len();
        self.max_rate(gpu, Self::rate_offset(&self.layout, &self.shapes, splitting, n))
    }

    /// The largest of the first `n` rates (NaN-propagating, as the 2D driver's).
    fn max_rate(&self, gpu: &Gpu, n: usize) -> Result<f64> {
        Ok(crate::claw::gpu::max_rate(&gpu.download_range(&self.rate, 0..n)?))
    }

    /// One sweep along `dir` over the whole Δt last set, buffer 0 into buffer 1 (the first
    /// order), queued without synchronising: what a benchmark times.
    pub fn enqueue_alone(
        &mut self,
        solver: R,
        dir: usize,
        states: &mut DeviceBuffer<T>,
        aux: &DeviceBuffer<T>,
    ) -> Result<()> {
        self.launch(solver, (dir, 1.0, 0), 0, states, aux, None)
    }
}

/// The padded state of a 3D run (`Claw3::padded`) as the kernels' planes in buffer 0 of
/// [`BUFFERS`], the other buffers filled with `fill`.
pub fn state_buffers<T: GpuReal, const M: usize>(padded: &[[T; M]], fill: T) -> Vec<T> {
    let mut host = planes(padded);
    host.resize(BUFFERS * host.len(), fill);
    host
}

/// A 3D run on the GPU, Godunov or Strang split, whole steps decided on the device.
pub type GpuClaw3<T, R, const M: usize, const W: usize, const A: usize> = GpuRun<T, GpuSweeps3<T, R, M, W, A>>;

impl<T: GpuReal, R: Kernels3<T, M, W, A>, const M: usize, const W: usize, const A: usize> StepKernels<T>
    for GpuSweeps3<T, R, M, W, A>
{
    type Solver = R;
    fn stages(&self) -> usize {
        stages3(self.setup.splitting).len()
    }
    fn queue_fill(&mut self, stage: usize, states: &mut DeviceBuffer<T>) -> Result<()> {
        let splitting = self.setup.splitting;
        let Some(&(dir, _)) = stages3(splitting).get(stage) else {
            return Err(Error::invalid(format!("claw 3D sweep: no stage {stage} in a {splitting:?} step")));
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
        let n = stages3(self.setup.splitting).len();
        (&self.rate, Self::rate_offset(&self.layout, &self.shapes, self.setup.splitting, n))
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

impl<T: GpuReal, R: Kernels3<T, M, W, A>, const M: usize, const W: usize, const A: usize> Reshape<T>
    for GpuSweeps3<T, R, M, W, A>
{
    type Shapes = Shapes3;
    fn shapes(&self) -> Shapes3 {
        self.shapes
    }
    fn set_shapes(&mut self, gpu: &Gpu, shapes: Shapes3) -> Result<()> {
        shapes.check()?;
        room_for(gpu, &mut self.rate, Self::rate_offset(&self.layout, &shapes, Splitting::Strang, STRANG.len()))?;
        self.shapes = shapes;
        Ok(())
    }
    fn limits(&self, gpu: &Gpu, dir: usize) -> Result<BlockLimits> {
        let kernel = self.sweeps.get(dir).ok_or_else(|| Error::invalid(format!("claw 3D sweep: axis {dir}")))?;
        crate::runtime::block_limits(gpu, kernel)
    }
}

impl<T: GpuReal, R: Kernels3<T, M, W, A>, const M: usize, const W: usize, const A: usize> GpuClaw3<T, R, M, W, A> {
    /// Device memory of a run of `setup`: the three state buffers, the auxiliary fields, and
    /// per block one rate (a Strang step's five sweeps), with the built-in shapes.
    pub fn device_bytes(setup: &Setup3) -> u64 {
        let l = setup.layout();
        let shapes = Shapes3::default_for(setup.nx, setup.ny, setup.nz);
        let rates = GpuSweeps3::<T, R, M, W, A>::rate_offset(&l, &shapes, Splitting::Strang, STRANG.len());
        run_bytes::<T>(M, A, l.len(), rates)
    }

    /// The GPU run of a 3D CPU run's set-up, state and auxiliary fields (validated there), from
    /// its clock.
    pub fn new(gpu: &Gpu, solver: R, cpu: &Claw3<T, R, M, W, A>) -> Result<Self> {
        let setup = *cpu.setup();
        gpu.check_fits("claw 3D state", Self::device_bytes(&setup) as usize)?;
        let (q, aux) = cpu.padded();
        GpuRun::start(gpu, solver, GpuSweeps3::new(gpu, setup)?, planes(q), &planes(aux), *cpu.clock())
    }

    /// Where the current state's planes lie on the device (synchronises).
    pub fn planes(&self, gpu: &Gpu) -> Result<Planes> {
        let (l, s) = (self.kernels.layout, self.kernels.setup);
        let first = l.at(0, 0, 0);
        let step = |i: i32, j: i32, k: i32| l.at(i, j, k) - first;
        Ok(Planes {
            address: self.current_address(gpu)?,
            plane: l.len(),
            first,
            dims: vec![s.nz, s.ny, s.nx],
            strides: vec![step(0, 0, 1), step(0, 1, 0), step(1, 0, 0)],
        })
    }

    /// The interior states, x fastest, then y, then z (synchronises).
    pub fn state(&self, gpu: &Gpu) -> Result<Vec<[T; M]>> {
        let host = self.current(gpu)?;
        let (l, s) = (self.kernels.layout, self.kernels.setup);
        let len = l.len();
        Ok((0..s.nx * s.ny * s.nz)
            .map(|c| {
                let (i, j, k) = (c % s.nx, (c / s.nx) % s.ny, c / (s.nx * s.ny));
                let at = l.at(i as i32, j as i32, k as i32);
                std::array::from_fn(|m| host[m * len + at])
            })
            .collect())
    }
}
