//! GPU driver of the fd3d kernels: launch shapes, parameters and the launch per [`Variant`].
//!
//! Every variant works for any dimensions ≥ 9: pencils are cut into tiles (or segments) with
//! a periodic 4-point halo either side, so the shared memory per block does not grow with the
//! grid (at most `(64 + 8) · 32` values, 18 KiB in f64), and the y/z grid dimensions loop
//! with a grid stride past 65535 blocks.

use super::{Direction, Grid3, HALO, PeriodicGrid, Variant};
use crate::runtime::{DeviceBuffer, DevicePointers, Gpu, Kernel, LaunchShape};
use crate::{Error, GpuReal, Precision, Result};
use kernels::fd3d::{Derivative, Fd3dParams, XTILE_POINTS, XTILE_ROWS, XVEC_PER_THREAD, stream_step};

/// Points per tile along the pencil of the shared-memory variants (Ruetsch's 64).
pub const PENCIL_TILE: u32 = 64;
/// Threads per block of x-vec.
const XVEC_BLOCK: u32 = 256;
/// Threads along each pencil of the 32-pencil variants (each computes `PENCIL_TILE / 8`).
const WALKERS_32: u32 = 8;
/// Shortest f64 segment of the streaming variants (each segment re-reads 8 halo values).
const MIN_SEGMENT: u32 = 32;
/// The largest y or z grid dimension; the kernels loop past it.
const MAX_GRID_YZ: u32 = 65535;

fn u32_of(v: usize) -> u32 {
    // Grid3::validate bounds every dimension by 2^30.
    v as u32
}

/// The kernel's parameters and launch shape for `variant` on `grid`. `sm_count` sizes the
/// streaming variants' segments (enough threads to fill the GPU).
pub fn plan_for<T: GpuReal>(grid: Grid3, variant: Variant, sm_count: u32) -> Result<(LaunchShape, Fd3dParams<T>)> {
    plan_with::<T>(grid, variant, sm_count, None)
}

/// The variants whose threads a block are a run-time choice (the tuner's): x-vec and the
/// streaming y and z kernels (one-dimensional blocks of whole warps, each thread its own
/// points, so any such block computes the same).
pub fn block_tunable(variant: Variant) -> bool {
    matches!(variant, Variant::XVec | Variant::YStream | Variant::ZStream)
}

/// The block a run of `variant` in `precision` should use, from the cache (None: built-in).
pub fn tuned_block(gpu: &Gpu, precision: Precision, variant: Variant) -> Option<u32> {
    crate::tune::tuned_config(gpu, "fd3d", variant.name(), precision, |s| {
        s.parse::<u32>()
            .ok()
            .filter(|b| (32..=1024).contains(b) && b.is_multiple_of(32))
            .ok_or_else(|| Error::invalid(format!("'{s}' is not a block of whole warps")))
    })
}

/// [`plan_for`] with `block` threads a block (a multiple of 32, at most 1024) for the
/// variants of [`block_tunable`] in place of the built-in ones (the others ignore it).
pub fn plan_with<T: GpuReal>(
    grid: Grid3,
    variant: Variant,
    sm_count: u32,
    block: Option<u32>,
) -> Result<(LaunchShape, Fd3dParams<T>)> {
    if let Some(b) = block
        && (b == 0 || !b.is_multiple_of(32) || b > 1024)
    {
        return Err(Error::invalid(format!("fd3d: {b} threads a block: needs a multiple of 32, at most 1024")));
    }
    grid.validate_periodic()?;
    let dir = variant.direction();
    let (mx, my, mz) = (u32_of(grid.nx), u32_of(grid.ny), u32_of(grid.nz));
    let plane = grid.nx as u64 * grid.ny as u64;
    // (n_across, stride_across, n_outer, stride_outer): across is y for x, x for y and z.
    let (n_across, stride_across, n_outer, stride_outer) = match dir {
        Direction::X => (my, grid.nx as u64, mz, plane),
        Direction::Y => (mx, 1, mz, plane),
        Direction::Z => (mx, 1, my, grid.nx as u64),
    };
    let m = u32_of(grid.m(dir));
    let mut p = Fd3dParams {
        coef: grid.coef::<T>(dir),
        n: grid.len() as u64,
        stride: grid.stride(dir) as u64,
        stride_across,
        stride_outer,
        m,
        n_across,
        n_outer,
        tile: PENCIL_TILE.min(m),
    };
    let outer = n_outer.min(MAX_GRID_YZ);
    let shape = match variant {
        Variant::X4Pencil => {
            let pencils = 4;
            p.tile = PENCIL_TILE;
            LaunchShape::fixed(
                (m.div_ceil(p.tile), n_across.div_ceil(pencils).min(MAX_GRID_YZ), outer),
                (p.tile, pencils, 1),
            )
            .with_shared_of::<T>((pencils * (p.tile + 2 * HALO)) as usize)
        }
        Variant::XTile => {
            // Chunks of 4 points per thread along x: 32 threads wide (128 points), narrower
            // for short rows; 256 threads per block, each also taking 2 rows.
            let bx = m.div_ceil(XTILE_POINTS).next_power_of_two().clamp(8, 32);
            let by = 256 / bx;
            let rows = by * XTILE_ROWS;
            p.tile = bx * XTILE_POINTS;
            LaunchShape::fixed((m.div_ceil(p.tile), n_across.div_ceil(rows).min(MAX_GRID_YZ), outer), (bx, by, 1))
                .with_shared_of::<T>((rows * (p.tile + 2 * HALO)) as usize)
        }
        Variant::XVec => {
            let vec = (16 / std::mem::size_of::<T>()) as u64;
            let threads = block.unwrap_or(XVEC_BLOCK);
            let per_block = (threads * XVEC_PER_THREAD) as u64;
            let blocks = p.n.div_ceil(vec).div_ceil(per_block);
            let blocks = u32::try_from(blocks)
                .ok()
                .filter(|&b| b < i32::MAX as u32)
                .ok_or_else(|| Error::invalid(format!("fd3d: a {grid} grid is too large for x-vec's 1D grid")))?;
            LaunchShape::fixed((blocks, 1, 1), (threads, 1, 1))
        }
        Variant::Y4Pencil | Variant::Z4Pencil | Variant::Y32Pencil | Variant::Z32Pencil => {
            let (pencils, walkers) = if matches!(variant, Variant::Y4Pencil | Variant::Z4Pencil) {
                (4, PENCIL_TILE)
            } else {
                (32, WALKERS_32)
            };
            LaunchShape::fixed(
                (mx.div_ceil(pencils), m.div_ceil(p.tile).min(MAX_GRID_YZ), outer),
                (pencils, walkers, 1),
            )
            .with_shared_of::<T>(((p.tile + 2 * HALO) * pencils) as usize)
        }
        Variant::YStream | Variant::ZStream => {
            let block = mx.next_multiple_of(32).min(block.unwrap_or(128));
            // Measured on an H100 (256³ and 512³): f32 runs best as many one-step segments
            // (16 points per thread, whose 8 halo reads hit L2: 92–97% of copy against 78–90%
            // for long streams); f64 runs best as long streams, one segment per pencil once
            // that gives about half a thread per SM slot, more segments only for small grids.
            if std::mem::size_of::<T>() == 4 {
                p.tile = stream_step::<T>() as u32;
            } else {
                let columns = mx as u64 * n_outer as u64;
                let want = ((sm_count.max(1) as u64 * 512) as f64 / columns as f64).round() as u64;
                let segments = want.clamp(1, m.div_ceil(MIN_SEGMENT) as u64) as u32;
                p.tile = m.div_ceil(segments).next_multiple_of(8);
            }
            LaunchShape::fixed((mx.div_ceil(block), m.div_ceil(p.tile).min(MAX_GRID_YZ), outer), (block, 1, 1))
        }
    };
    Ok((shape, p))
}

/// One variant on one grid, ready to launch repeatedly (kernel looked up once).
pub struct Plan<T: GpuReal> {
    kernel: Kernel<Derivative<T>>,
    shape: LaunchShape,
    params: Fd3dParams<T>,
    grid: Grid3,
}

impl<T: GpuReal> Plan<T> {
    pub fn new(gpu: &Gpu, grid: Grid3, variant: Variant) -> Result<Plan<T>> {
        let precision = Precision::of::<T>();
        let block = block_tunable(variant).then(|| tuned_block(gpu, precision, variant)).flatten();
        Self::with_block(gpu, grid, variant, block)
    }

    /// [`Plan::new`] with `block` threads a block for the variants of [`block_tunable`]
    /// (None: the built-in shape); the tuner's entry point.
    pub fn with_block(gpu: &Gpu, grid: Grid3, variant: Variant, block: Option<u32>) -> Result<Plan<T>> {
        let (shape, params) = plan_with::<T>(grid, variant, gpu.info().sm_count, block)?;
        Ok(Plan { kernel: gpu.kernel::<T, _>(variant.entry())?, shape, params, grid })
    }

    pub fn shape(&self) -> LaunchShape {
        self.shape
    }

    /// Enqueue `df = ∂f/∂dir` (asynchronous).
    pub fn run(&self, f: &DeviceBuffer<T>, df: &mut DeviceBuffer<T>) -> Result<()> {
        let n = self.grid.len();
        if f.len() != n || df.len() != n {
            return Err(Error::invalid(format!(
                "fd3d: input of {} and output of {} values for a {} grid of {n} points",
                f.len(),
                df.len(),
                self.grid
            )));
        }
        let params = Derivative { f: f.ptr(), df: df.ptr_mut(), p: self.params };
        // SAFETY: `f` and `df` are distinct whole allocations (16-byte aligned) of `p.n` =
        // mx·my·mz elements (checked above); plan_for derived `p` and the shape together
        // from a validated grid (every m ≥ 9), as each kernel's contract asks: block (tile, 4)
        // for x-pencil; (tile / 4 ≥ 8, ·) for x-tile; a grid covering ceil(n / VEC) vectors for
        // x-vec; (W, walkers) blocks covering mx for yz-pencil; blocks covering mx for
        // yz-stream; shared memory (tile + 8) · pencils T where the kernel uses it.
        unsafe { self.kernel.launch(self.shape, params) }
    }
}

/// `df = ∂f/∂dir` by `variant` (asynchronous), planned for this one call (keep a [`Plan`] to
/// launch repeatedly). Errors on an invalid grid (a dimension below 9) or buffers of the wrong
/// length.
pub fn derivative<T: GpuReal>(
    gpu: &Gpu,
    grid: Grid3,
    variant: Variant,
    f: &DeviceBuffer<T>,
    df: &mut DeviceBuffer<T>,
) -> Result<()> {
    Plan::new(gpu, grid, variant)?.run(f, df)
}
