//! GPU driver of the transpose kernels.

use super::Variant;
use crate::runtime::{DeviceBuffer, DevicePointers, Gpu, Kernel, LaunchShape};
use crate::{GpuReal, Result};
use kernels::transpose::{BLOCK_ROWS, TILE, TILE_ELEMS, Transpose};

/// The launch of `variant` for precision `T`: one `TILE × BLOCK_ROWS` block per `TILE × TILE`
/// tile, with a padded tile of shared memory for the tiled variants.
pub fn shape<T>(rows: usize, cols: usize, variant: Variant) -> Result<LaunchShape> {
    let grid = LaunchShape::cover_2d(cols as u64, rows as u64, (TILE, TILE), (1, 1))?;
    let s = LaunchShape::fixed(grid.grid, (TILE, BLOCK_ROWS, 1));
    Ok(if variant == Variant::Naive { s } else { s.with_shared_of::<T>(TILE_ELEMS) })
}

/// Every transpose kernel of precision `T`, looked up once.
pub struct Transposer<T: GpuReal> {
    /// One kernel per variant, in the order of `Variant::ALL`.
    kernels: Vec<Kernel<Transpose<T>>>,
}

impl<T: GpuReal> Transposer<T> {
    pub fn new(gpu: &Gpu) -> Result<Transposer<T>> {
        let kernels = Variant::ALL.iter().map(|v| gpu.kernel::<T, _>(v.entry())).collect::<Result<_>>()?;
        Ok(Transposer { kernels })
    }

    /// `out = inputᵀ` (`input` row-major rows × cols, `out` row-major cols × rows).
    pub fn run(
        &self,
        variant: Variant,
        rows: usize,
        cols: usize,
        input: &DeviceBuffer<T>,
        out: &mut DeviceBuffer<T>,
    ) -> Result<()> {
        super::check(rows, cols, input.len(), out.len())?;
        // SAFETY: input and out hold rows·cols values (checked) and do not overlap (distinct
        // buffers).
        unsafe { self.launch(variant, rows, cols, (input.ptr(), cols), (out.ptr_mut(), rows)) }
    }

    /// [`run`](Self::run) on device addresses (a workspace's parts, say) with the rows of the
    /// input `in_pitch` apart and those of the output `out_pitch` apart; what lies between a
    /// row's end and the next row is neither read nor written.
    ///
    /// # Safety
    /// `input` holds (rows − 1)·in_pitch + cols values, `out` (cols − 1)·out_pitch + rows, and
    /// they do not overlap.
    pub unsafe fn launch(
        &self,
        variant: Variant,
        rows: usize,
        cols: usize,
        (input, in_pitch): (*const T, usize),
        (out, out_pitch): (*mut T, usize),
    ) -> Result<()> {
        // The sizes and pitches (the lengths are the caller's promise).
        super::check_pitched(rows, cols, (usize::MAX, in_pitch), (usize::MAX, out_pitch))?;
        let launch = shape::<T>(rows, cols, variant)?;
        let (rows, cols, in_pitch, out_pitch) = (rows as u32, cols as u32, in_pitch as u32, out_pitch as u32);
        let params = Transpose { input, out, rows, cols, in_pitch, out_pitch };
        // SAFETY: as the caller promises; block (TILE, BLOCK_ROWS), grid ⌈cols/TILE⌉ ×
        // ⌈rows/TILE⌉, TILE·(TILE+1) T of shared memory for the tiled variants, as the kernels
        // require.
        unsafe { self.kernels[variant as usize].launch(launch, params) }
    }
}
