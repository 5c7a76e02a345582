//! The sweeps' launch shapes axis by axis ([`SweepShapes`], which the 2D `gpu::Shapes` and the
//! 3D `d3::gpu::Shapes3` implement), as the tuner searches them (`tune.rs`) and the tuning
//! cache writes them ([`label`]) and gives them back to a run ([`tuned_shapes`]): one block a
//! sweep, changed between steps of a running simulation ([`Reshape`]).

use super::stepper::{GpuRun, StepKernels};
use crate::runtime::{BlockLimits, DeviceBuffer};
use crate::{Error, Gpu, GpuReal, Precision, Result};

/// A run's sweep shapes, one block per axis. Along x a block is `[warps along x, warps along
/// y, rows a warp takes]` (a warp updates 29 cells of a row, then of its next); across (y, z)
/// `[threads along x, threads across, cells a thread marches]`.
pub trait SweepShapes: Copy + PartialEq + std::fmt::Debug + Default {
    /// The axes swept (2 or 3).
    const AXES: usize;
    /// The block of the sweep along `dir`.
    fn axis(&self, dir: usize) -> [u32; 3];
    /// `self` with the block along `dir` replaced.
    fn with_axis(self, dir: usize, block: [u32; 3]) -> Self;
    /// The drivers' check (sizes ≥ 1, blocks of whole warps, at most 1024 threads).
    fn check(&self) -> Result<()>;
}

/// Threads of block `b` of the sweep along `dir`.
pub fn threads(dir: usize, b: [u32; 3]) -> u32 {
    if dir == 0 { 32 * b[0] * b[1] } else { b[0] * b[1] }
}

const AXIS_NAMES: [&str; 3] = ["x", "y", "z"];

/// The blocks an x-sweep keeps, at least, before its warps take several rows each: about one
/// wave of blocks of 4 warps at full occupancy on the largest GPUs (132 multiprocessors × 16).
const X_MIN_BLOCKS: u64 = 2048;

/// The rows an x-sweep warp takes: the shape's `rows`, fewer on a grid that would otherwise
/// launch fewer than `X_MIN_BLOCKS` blocks (`blocks`: those of one row a warp), where idle
/// multiprocessors would cost more than the set-up the rows share. Any number gives the same
/// results bit for bit: every interface is solved by the same code whichever warp takes it.
pub fn x_rows(rows: u32, blocks: u64) -> u32 {
    let most = (blocks / X_MIN_BLOCKS).max(1);
    rows.min(u32::try_from(most).unwrap_or(u32::MAX))
}

/// The blocks of an x-sweep of block `(wx, wy, _)` over an `nx × ny` plane with one row a warp:
/// what [`x_rows`] weighs.
pub fn x_blocks((wx, wy, _): (u32, u32, u32), nx: usize, ny: usize) -> u64 {
    (nx as u64).div_ceil(u64::from(kernels::claw::X_CELLS_PER_WARP * wx)) * (ny as u64).div_ceil(u64::from(wy))
}

/// The shapes as the cache holds them: `x:2x2x8 y:64x2x32` (3D: and `z:…`).
pub fn label<S: SweepShapes>(s: S) -> String {
    let axis = |dir: usize| {
        let b = s.axis(dir);
        format!("{}:{}x{}x{}", AXIS_NAMES[dir], b[0], b[1], b[2])
    };
    (0..S::AXES).map(axis).collect::<Vec<_>>().join(" ")
}

/// [`label`] read back (and checked as the drivers check shapes).
pub fn parse<S: SweepShapes>(text: &str) -> Result<S> {
    let bad = || {
        let want = ["x:WXxWYxR", "y:BXxBYxC", "z:BXxBYxC"][..S::AXES].join(" ");
        Error::invalid(format!("'{text}' is not a claw sweep shape ({want})"))
    };
    let parts: Vec<&str> = text.split(' ').collect();
    if parts.len() != S::AXES {
        return Err(bad());
    }
    let mut s = S::default();
    for (dir, part) in parts.iter().enumerate() {
        let dims = part.strip_prefix(AXIS_NAMES[dir]).and_then(|p| p.strip_prefix(':')).ok_or_else(bad)?;
        let v: Vec<u32> = dims.split('x').map(|d| d.parse::<u32>().map_err(|_| bad())).collect::<Result<_>>()?;
        let &[a, b, c] = v.as_slice() else { return Err(bad()) };
        let block = [a, b, c];
        s = s.with_axis(dir, block);
    }
    s.check().map_err(|_| bad())?;
    Ok(s)
}

/// `rate` with room for `slots` rates: a new buffer when it has fewer, after the queued sweeps
/// (which may still write the old one) are done.
pub(super) fn room_for<T: GpuReal>(gpu: &Gpu, rate: &mut DeviceBuffer<T>, slots: usize) -> Result<()> {
    if slots > rate.len() {
        gpu.synchronize()?;
        *rate = gpu.zeros::<T>(slots)?;
    }
    Ok(())
}

/// Core kernels whose shapes change between steps of a running simulation.
pub trait Reshape<T: GpuReal>: StepKernels<T> {
    type Shapes: SweepShapes;
    fn shapes(&self) -> Self::Shapes;
    /// Take `shapes` from the next step on (the rate buffer grows when they need more blocks).
    fn set_shapes(&mut self, gpu: &Gpu, shapes: Self::Shapes) -> Result<()>;
    /// What the device and the sweep kernel along `dir` allow a block.
    fn limits(&self, gpu: &Gpu, dir: usize) -> Result<BlockLimits>;
}

impl<T: GpuReal, K: Reshape<T>> GpuRun<T, K> {
    /// The sweeps' shapes.
    pub fn shapes(&self) -> K::Shapes {
        self.kernels.shapes()
    }
    /// Run the next steps with `shapes` (between steps; the state and clock go on).
    pub fn set_shapes(&mut self, gpu: &Gpu, shapes: K::Shapes) -> Result<()> {
        self.forget_graph();
        self.kernels.set_shapes(gpu, shapes)
    }
    /// What the device and the sweep kernel along `dir` allow a block.
    pub fn sweep_limits(&self, gpu: &Gpu, dir: usize) -> Result<BlockLimits> {
        self.kernels.limits(gpu, dir)
    }
}

/// The shapes a run of the equations `name` in `precision` should use, from the cache (None:
/// the defaults).
pub fn tuned_shapes<S: SweepShapes>(gpu: &Gpu, precision: Precision, name: &str) -> Option<S> {
    crate::tune::tuned_config(gpu, "claw", name, precision, parse::<S>)
}
