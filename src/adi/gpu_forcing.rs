//! Rain and infiltration of an ADI run on the GPU (`forcing.rs`): the rain grid's frames and
//! the soils uploaded once, after a check that they fit, and after each step's y-sweep one
//! launch over every cell, its span and uniform rain from the host (Δt is fixed, so the host
//! knows each step's time without a copy from the device).

use super::forcing::AdiForcing;
use crate::forcing::DeviceCellArrays;
use crate::runtime::{DeviceBuffer, DevicePointers, Gpu, Kernel, LaunchShape};
use crate::{GpuReal, Result};
use kernels::adi::{AdiForce, FORCE, Params};
use std::sync::Arc;

/// The forcing's device arrays and kernel.
pub struct GpuAdiForcing<T: GpuReal> {
    layout: Arc<AdiForcing>,
    per_cell: DeviceCellArrays<T>,
    /// The depth each cell's soil has taken (with a soil).
    infiltrated: Option<DeviceBuffer<T>>,
    kernel: Kernel<AdiForce<T>>,
}

impl<T: GpuReal> GpuAdiForcing<T> {
    /// Bytes of device memory it takes beyond the state, on `cells` cells.
    pub fn bytes(layout: &AdiForcing, cells: usize) -> usize {
        layout.per_cell.bytes::<T>() + if layout.has_soil() { cells * std::mem::size_of::<T>() } else { 0 }
    }

    /// The forcing `layout` on `gpu`, the soils' totals starting at `infiltrated` (empty
    /// without a soil).
    pub fn new(gpu: &Gpu, layout: Arc<AdiForcing>, infiltrated: &[T]) -> Result<GpuAdiForcing<T>> {
        Ok(GpuAdiForcing {
            per_cell: DeviceCellArrays::upload(gpu, &layout.per_cell)?,
            infiltrated: layout.has_soil().then(|| gpu.upload(infiltrated)).transpose()?,
            kernel: gpu.kernel::<T, _>(FORCE)?,
            layout,
        })
    }

    /// The rain and soil of the step from `t0` to `t1` applied to ζ and the wet map `wet`
    /// (enqueued; nothing after a breakdown that `status` holds).
    #[allow(clippy::too_many_arguments)]
    pub fn apply(
        &mut self,
        k: Params<T>,
        cells: usize,
        (t0, t1): (f64, f64),
        d: *const T,
        zeta: *mut T,
        wet: *mut u8,
        status: *const u64,
    ) -> Result<()> {
        let l = &self.layout;
        let params = AdiForce {
            k,
            cells: cells as u32,
            cf: l.cell_forcing::<T>(),
            span: l.span(t0, t1),
            dt: k.dt,
            frame_times: self.per_cell.frame_times.ptr(),
            frames: self.per_cell.frames.ptr(),
            rain_cells: self.per_cell.rain_cells.ptr(),
            soils: self.per_cell.soils.ptr(),
            soil_cells: self.per_cell.soil_cells(),
            d,
            zeta,
            f: self.infiltrated.as_mut().map_or(std::ptr::null_mut(), |f| f.ptr_mut()),
            wet,
            status,
        };
        // SAFETY: one thread a cell; d, zeta and wet hold `cells` values (the model's buffers)
        // and so does f with a soil; with frames, frame_times holds frames + 1, rain_cells
        // every cell and frames frames × stride (`RainGrid::new` checked each index);
        // soil_cells null or every cell's entry of soils (`Soils::per_cell`); status three words.
        unsafe { self.kernel.launch(LaunchShape::cover_1d(cells as u64, 256)?, params) }
    }

    /// The soils' totals where they lie (with a soil).
    pub fn infiltrated_buffer(&self) -> Option<&DeviceBuffer<T>> {
        self.infiltrated.as_ref()
    }

    /// The soils' totals on the host (synchronises); empty without a soil.
    pub fn infiltrated(&self, gpu: &Gpu) -> Result<Vec<T>> {
        self.infiltrated.as_ref().map_or(Ok(Vec::new()), |f| gpu.download(f))
    }
}
