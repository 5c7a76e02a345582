//! The core kernels on the GPU: one sweep at a time, from a padded state whose ghosts across the
//! sweep's axis are filled, into another. The stepping (ghost fills, Δt and reject-and-redo on
//! the device) is still to come; the sweeps are checked against the CPU reference's.

use super::Splitting;
use super::cpu::{Claw2, Clock, HALO, Setup, Step};
use crate::runtime::{DeviceBuffer, DevicePointers, Kernel, LaunchShape};
use crate::{Error, Gpu, GpuReal, Result};
use kernels::claw::{FillGhosts, GhostFill, Kernels, Sweep, X_CELLS_PER_WARP};
use kernels::grid::Layout2;
use kernels::halo::{ghosts_x, ghosts_y};
use kernels::launch::Family;

/// Warps along x in an x-sweep block, and rows of a block.
const X_BLOCK: (u32, u32) = (2, 2);
/// Columns and segments of a y-sweep block, and the rows a thread marches.
const Y_BLOCK: (u32, u32) = (64, 2);
const Y_ROWS: u32 = 32;

/// The planes (structure of arrays) the kernels read of an array of cells, one plane after
/// another; one zero for cells without components (no aux fields), as a launch still passes a
/// buffer.
pub fn planes<T: crate::Real, const N: usize>(cells: &[[T; N]]) -> Vec<T> {
    if N == 0 {
        return vec![T::ZERO];
    }
    (0..N).flat_map(|m| cells.iter().map(move |c| c[m])).collect()
}

type Params<T, R, const M: usize, const W: usize, const A: usize> =
    <<R as Kernels<T, M, W, A>>::Family as Family>::At<T>;

/// The x- and y-sweeps of solver `R`, with their rate buffer and Δt word.
pub struct GpuSweeps<T: GpuReal, R: Kernels<T, M, W, A>, const M: usize, const W: usize, const A: usize> {
    setup: Setup,
    layout: Layout2,
    x: Kernel<Params<T, R, M, W, A>>,
    y: Kernel<Params<T, R, M, W, A>>,
    /// One rate a block: the x-sweep's blocks, then the y-sweep's (one download reads both).
    rate: DeviceBuffer<T>,
    dt: DeviceBuffer<T>,
}

impl<T: GpuReal, R: Kernels<T, M, W, A>, const M: usize, const W: usize, const A: usize> GpuSweeps<T, R, M, W, A> {
    pub fn new(gpu: &Gpu, setup: Setup) -> Result<Self> {
        let layout = Layout2::new(setup.nx as u32, setup.ny as u32, HALO);
        let blocks = Self::blocks(&layout, 0) + Self::blocks(&layout, 1);
        Ok(GpuSweeps {
            setup,
            layout,
            x: gpu.kernel::<T, _>(R::X)?,
            y: gpu.kernel::<T, _>(R::Y)?,
            rate: gpu.alloc::<T>(blocks)?,
            dt: gpu.alloc::<T>(1)?,
        })
    }

    /// Blocks of the sweep along `dir`.
    fn blocks(l: &Layout2, dir: usize) -> usize {
        let s = if dir == 0 { Self::x_shape(l) } else { Self::y_shape(l) };
        (s.grid.0 * s.grid.1) as usize
    }

    fn x_shape(l: &Layout2) -> LaunchShape {
        let cells = X_CELLS_PER_WARP * X_BLOCK.0;
        LaunchShape::fixed((l.nx.div_ceil(cells), l.ny.div_ceil(X_BLOCK.1), 1), (32 * X_BLOCK.0, X_BLOCK.1, 1))
            .with_shared_of::<T>(32)
    }

    fn y_shape(l: &Layout2) -> LaunchShape {
        let segments = l.ny.div_ceil(Y_ROWS);
        LaunchShape::fixed((l.nx.div_ceil(Y_BLOCK.0), segments.div_ceil(Y_BLOCK.1), 1), (Y_BLOCK.0, Y_BLOCK.1, 1))
            .with_shared_of::<T>(32)
    }

    /// The padded length of one plane.
    pub fn plane(&self) -> usize {
        self.layout.len()
    }

    /// Sets the Δt the sweeps read (on the device).
    pub fn set_dt(&mut self, gpu: &Gpu, dt: f64) -> Result<()> {
        gpu.write(&[T::from_f64(dt)], &mut self.dt)
    }

    /// One sweep along `dir` (0 = x, 1 = y) over the Δt last set, from `q` into `out`, queued on
    /// the stream. `q` (M planes) and `aux` (A planes, any buffer when A = 0) must have the
    /// ghosts across `dir` filled.
    pub fn enqueue(
        &mut self,
        solver: R,
        dir: usize,
        q: &DeviceBuffer<T>,
        aux: &DeviceBuffer<T>,
        out: &mut DeviceBuffer<T>,
    ) -> Result<()> {
        let len = self.layout.len();
        if q.len() != M * len || out.len() != M * len || aux.len() < A * len || dir > 1 {
            return Err(Error::invalid(format!(
                "claw sweep: buffers of {}, {} and {} values for {M} state and {A} aux planes of {len}, axis {dir}",
                q.len(),
                out.len(),
                aux.len()
            )));
        }
        let spacing = if dir == 0 { self.setup.dx } else { self.setup.dy };
        let k = Sweep {
            layout: self.layout,
            inv_dx: T::from_f64(1.0 / spacing),
            limiter: self.setup.limiter as u32,
            rows: Y_ROWS,
        };
        let (kernel, shape) =
            if dir == 0 { (&self.x, Self::x_shape(&self.layout)) } else { (&self.y, Self::y_shape(&self.layout)) };
        let rate = self.rate.ptr_mut().wrapping_add(if dir == 0 { 0 } else { Self::blocks(&self.layout, 0) });
        let p = solver.params(k, q.ptr(), aux.ptr(), out.ptr_mut(), self.dt.ptr(), rate);
        // SAFETY: q and out hold M planes of the layout's length and aux A (checked above); out
        // is a buffer of its own (a `&mut` borrow); dt is one value, and `rate` points at this
        // sweep's part of the rate buffer, one value for each of its blocks (`new`); the shapes are the kernels' (32·wx, by) and
        // (bx, by) blocks with 32 T's of shared memory over grids covering the cells.
        unsafe { kernel.launch(shape, p) }
    }

    /// The largest rate (max |s|/Δ) of the last sweep along x and along y, in one download
    /// (synchronises).
    pub fn rates(&self, gpu: &Gpu) -> Result<[f64; 2]> {
        let all = gpu.download(&self.rate)?;
        let (x, y) = all.split_at(Self::blocks(&self.layout, 0));
        // NaN-propagating: a non-finite speed must not hide behind a finite maximum.
        let max = |r: &[T]| {
            r.iter().fold(0.0f64, |a, r| if a.is_nan() || r.to_f64().is_nan() { f64::NAN } else { a.max(r.to_f64()) })
        };
        Ok([max(x), max(y)])
    }

    /// One sweep along `dir` over Δt `dt` from `q` into `out` (see [`enqueue`](Self::enqueue));
    /// returns its CFL number, Δt·max|s|/Δ over the interfaces of the cells it updates.
    #[allow(clippy::too_many_arguments)]
    pub fn sweep(
        &mut self,
        gpu: &Gpu,
        solver: R,
        dir: usize,
        q: &DeviceBuffer<T>,
        aux: &DeviceBuffer<T>,
        out: &mut DeviceBuffer<T>,
        dt: f64,
    ) -> Result<f64> {
        self.set_dt(gpu, dt)?;
        self.enqueue(solver, dir, q, aux, out)?;
        Ok(dt * self.rates(gpu)?[dir])
    }
}

/// A 2D run on the GPU: the state, the x-sweep's output and the next state (three M-plane
/// buffers; the state before a step is kept until the step is accepted), the auxiliary fields,
/// and the clock. Each step fills the ghosts across x, sweeps x, fills the ghosts across y,
/// sweeps y, and reads the two sweeps' rates to take PyClaw's decision ([`Clock::step`]) on the
/// host. Godunov splitting.
pub struct GpuClaw2<T: GpuReal, R: Kernels<T, M, W, A>, const M: usize, const W: usize, const A: usize> {
    solver: R,
    setup: Setup,
    sweeps: GpuSweeps<T, R, M, W, A>,
    ghosts: Kernel<FillGhosts<T>>,
    q: DeviceBuffer<T>,
    mid: DeviceBuffer<T>,
    next: DeviceBuffer<T>,
    aux: DeviceBuffer<T>,
    clock: Clock,
}

impl<T: GpuReal, R: Kernels<T, M, W, A>, const M: usize, const W: usize, const A: usize> GpuClaw2<T, R, M, W, A> {
    /// The GPU run of a CPU run's set-up, state and auxiliary fields (validated there), from its
    /// clock.
    pub fn new(gpu: &Gpu, solver: R, cpu: &Claw2<T, R, M, W, A>) -> Result<Self> {
        let setup = *cpu.setup();
        if setup.splitting != Splitting::Godunov {
            return Err(Error::invalid("claw on the GPU: only Godunov splitting so far (use the CPU for Strang)"));
        }
        let (q, aux) = cpu.padded();
        let (host, aux_planes) = (planes(q), planes(aux));
        gpu.check_fits("claw state", (3 * host.len() + aux_planes.len()) * std::mem::size_of::<T>())?;
        Ok(GpuClaw2 {
            solver,
            setup,
            sweeps: GpuSweeps::new(gpu, setup)?,
            ghosts: gpu.kernel::<T, _>(R::GHOSTS)?,
            q: gpu.upload(&host)?,
            mid: gpu.upload(&host)?,
            next: gpu.upload(&host)?,
            aux: gpu.upload(&aux_planes)?,
            clock: Clock { time: cpu.time(), dt: cpu.next_dt(), steps: cpu.steps() },
        })
    }

    /// Fills the ghosts across `dir` of `buf` (M planes).
    fn fill(ghosts: &Kernel<FillGhosts<T>>, setup: &Setup, dir: usize, buf: &mut DeviceBuffer<T>) -> Result<()> {
        let layout = Layout2::new(setup.nx as u32, setup.ny as u32, HALO);
        let normal = R::normal(dir).map_or(u32::MAX, |m| m as u32);
        let g = GhostFill { layout, bc: setup.bc, normal, dir: dir as u32 };
        let count = if dir == 0 { ghosts_x(&layout) } else { ghosts_y(&layout) };
        let shape = LaunchShape::cover_1d(count as u64, 128)?;
        // SAFETY: buf holds M planes of the layout's length (allocated so in `new`); the grid
        // covers the pass's ghosts.
        unsafe { ghosts.launch(shape, FillGhosts { g, q: buf.ptr_mut() }) }
    }

    /// One step of Δt from the state into `next`; its CFL number.
    fn trial(&mut self, gpu: &Gpu, dt: f64) -> Result<f64> {
        Self::fill(&self.ghosts, &self.setup, 0, &mut self.q)?;
        self.sweeps.set_dt(gpu, dt)?;
        self.sweeps.enqueue(self.solver, 0, &self.q, &self.aux, &mut self.mid)?;
        Self::fill(&self.ghosts, &self.setup, 1, &mut self.mid)?;
        self.sweeps.enqueue(self.solver, 1, &self.mid, &self.aux, &mut self.next)?;
        let [rx, ry] = self.sweeps.rates(gpu)?;
        Ok(if rx.is_nan() || ry.is_nan() { f64::NAN } else { dt * rx.max(ry) })
    }

    /// One accepted step towards `t_end`, as [`Claw2::step`]; a step whose speeds are not
    /// finite is rejected until the run gives up, naming the step and time.
    pub fn step(&mut self, gpu: &Gpu, t_end: f64) -> Result<Step> {
        let mut clock = self.clock;
        let max = self.setup.cfl.max;
        let mut accepted = false;
        let step = clock.step(self.setup.cfl, t_end, R::NAME, |dt| {
            let cfl = self.trial(gpu, dt)?;
            accepted = cfl <= max;
            Ok(cfl)
        });
        self.clock = clock;
        if step.is_ok() && accepted {
            std::mem::swap(&mut self.q, &mut self.next);
        }
        step
    }

    /// The interior states, row-major.
    pub fn state(&self, gpu: &Gpu) -> Result<Vec<[T; M]>> {
        let host = gpu.download(&self.q)?;
        let layout = Layout2::new(self.setup.nx as u32, self.setup.ny as u32, HALO);
        let len = layout.len();
        Ok((0..self.setup.nx * self.setup.ny)
            .map(|c| {
                let at = layout.at((c % self.setup.nx) as i32, (c / self.setup.nx) as i32);
                let mut v = [T::ZERO; M];
                for (m, x) in v.iter_mut().enumerate() {
                    *x = host[m * len + at];
                }
                v
            })
            .collect())
    }

    pub fn clock(&self) -> Clock {
        self.clock
    }
}
