//! The faces that let water only out, on the GPU (`gpu/src/kp/out_only.rs`; docs/kp-forcing.md,
//! "Outflow on a slope"): the faces' indices live on the device for the whole run, and one
//! thread a face, launched before each flux launch, writes the activity of their ghosts into
//! the map every kernel of the stage reads. A run without such faces launches nothing.

use crate::kp::WetDry;
use crate::runtime::{DeviceBuffer, DevicePointers, Gpu, Kernel, LaunchShape};
use crate::{GpuReal, Result};
use kernels::kp::{
    Coeffs, M_OUT_ONLY_BOLLERMANN, M_OUT_ONLY_CLAMP, M_OUT_ONLY_KP07, OUT_ONLY_BOLLERMANN, OUT_ONLY_CLAMP,
    OUT_ONLY_KP07, OutOnlyFaces,
};

/// The faces and the kernel of the problem's wet–dry scheme.
pub struct GpuOutOnly<T: GpuReal> {
    faces: DeviceBuffer<u32>,
    count: u32,
    kernel: Kernel<OutOnlyFaces<T>>,
}

impl<T: GpuReal> GpuOutOnly<T> {
    /// The pass over `faces` (`Start::out_only`) in wet–dry scheme `wet_dry`, with `mixed` of
    /// an f64 surface; None without faces.
    pub fn new(gpu: &Gpu, wet_dry: WetDry, mixed: bool, faces: &[u32]) -> Result<Option<GpuOutOnly<T>>> {
        if faces.is_empty() {
            return Ok(None);
        }
        let entry = match (wet_dry, mixed) {
            (WetDry::Bollermann, false) => OUT_ONLY_BOLLERMANN,
            (WetDry::Kp07, false) => OUT_ONLY_KP07,
            (WetDry::Clamp, false) => OUT_ONLY_CLAMP,
            (WetDry::Bollermann, true) => M_OUT_ONLY_BOLLERMANN,
            (WetDry::Kp07, true) => M_OUT_ONLY_KP07,
            (WetDry::Clamp, true) => M_OUT_ONLY_CLAMP,
        };
        Ok(Some(GpuOutOnly {
            faces: gpu.upload(faces)?,
            count: faces.len() as u32,
            kernel: gpu.kernel::<T, _>(entry)?,
        }))
    }

    /// The ghosts' activity for a flux launch on the state `q` (w, hu, hv; w an f64 array in
    /// mixed precision) over the corner bed `bed`, into the map `active`, on the GPU's stream.
    pub fn launch(&self, k: Coeffs<T>, [w, hu, hv]: [*const T; 3], bed: *const T, active: *mut u8) -> Result<()> {
        let shape = LaunchShape::cover_1d(u64::from(self.count), 128)?;
        let params = OutOnlyFaces { k, w, hu, hv, bed, faces: self.faces.ptr(), count: self.count, active };
        // SAFETY: one thread a face (cover_1d of their count); the state and bed are padded
        // arrays of k, active the padded map k.active points to (the caller's), the faces
        // `count` distinct faces of k's perimeter (`Problem::out_only_faces`, a slab's of its
        // own); on the GPU's stream, after the state's ghosts and before the flux launch.
        unsafe { self.kernel.launch(shape, params) }
    }
}
