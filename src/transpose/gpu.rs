//! GPU driver of the transpose kernels.

use super::Variant;
use crate::runtime::{DeviceBuffer, Gpu, LaunchShape};
use crate::{GpuReal, Result};
use kernels::transpose::{BLOCK_ROWS, TILE, TILE_ELEMS};

/// The launch of `variant` for precision `T`: one `TILE × BLOCK_ROWS` block per `TILE × TILE`
/// tile, with a padded tile of shared memory for the tiled variants.
pub fn shape<T>(rows: usize, cols: usize, variant: Variant) -> Result<LaunchShape> {
    let grid = LaunchShape::cover_2d(cols as u64, rows as u64, (TILE, TILE), (1, 1))?;
    let s = LaunchShape::fixed(grid.grid, (TILE, BLOCK_ROWS, 1));
    Ok(if variant == Variant::Naive { s } else { s.with_shared_of::<T>(TILE_ELEMS) })
}

/// `out = inputᵀ` (`input` row-major rows × cols, `out` row-major cols × rows).
pub fn transpose<T: GpuReal>(
    gpu: &Gpu,
    variant: Variant,
    rows: usize,
    cols: usize,
    input: &DeviceBuffer<T>,
    out: &mut DeviceBuffer<T>,
) -> Result<()> {
    super::check(rows, cols, input.len(), out.len())?;
    let launch = shape::<T>(rows, cols, variant)?;
    let kernel = gpu.kernel::<T>(variant.stem())?;
    let (r, c) = (rows as u32, cols as u32);
    let mut l = kernel.launch(launch)?;
    l.arg(input).arg(&*out).arg(&r).arg(&c);
    // SAFETY: transpose_*(input, out, rows, cols): both hold rows·cols values (checked), do not
    // overlap (distinct buffers); block (TILE, BLOCK_ROWS), grid ⌈cols/TILE⌉ × ⌈rows/TILE⌉,
    // TILE·(TILE+1) T of shared memory for the tiled variants, as the kernels require.
    unsafe { l.run() }
}
