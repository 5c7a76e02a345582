//! The mixed precision on the GPU (docs/f32-conservation.md, "Mixed precision for shallow
//! water"): `GpuKp<f32>` whose surfaces (Qⁿ's and Q¹'s) and R_w are f64 fields, stepped by the
//! mixed entry points (`M_…`: the streamed flux kernels, the RK stage, the ghost cells and
//! `clamp`'s passes with `W` = f64). Its CPU reference is `CpuKp<f32, f64>`, whose initial
//! state it uploads.
//!
//! This module holds those f64 fields; `GpuKp::new_mixed` (`mixed_run.rs`) builds a run on them.

use crate::Result;
use crate::field::DeviceField2;
use crate::foundation::gpu::BufferKernels;

/// Why the tile flux kernel is refused in mixed precision (it has no mixed entry point).
pub(super) const NO_TILE: &str = "precision mixed runs the streamed flux kernel only; --flux tile runs f32 or f64";

/// The f64 fields of a mixed run: the surfaces of Qⁿ and Q¹, and R_w.
pub struct MixedLevel {
    pub(super) w: [DeviceField2<f64>; 2],
    pub(super) rw: DeviceField2<f64>,
    pub(super) fill: BufferKernels<f64>,
}

impl MixedLevel {
    /// NaN into Q¹'s surface and R_w (see `GpuKp::poison`).
    pub(super) fn poison(&mut self) -> Result<()> {
        self.fill.fill(&mut self.w[1], f64::NAN)?;
        self.fill.fill(&mut self.rw, f64::NAN)
    }
}
