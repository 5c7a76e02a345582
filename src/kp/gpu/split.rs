//! DS1 and DS2 on the device (Amundsen §3.1.2–3.1.3; docs/kp-schemes.md, "DS1 and DS2 on the
//! GPU"). A substep is X of its orientation: SRK2's x-line flux kernel (the x faces), in
//! `clamp` the drain passes on the x faces, and one or two RK stages of `kp_rk_split`, the last
//! of which writes its output transposed when the next substep works in the other orientation.
//! The Y substeps are X of the transposed problem (its beds uploaded transposed once, the sides
//! and hu, hv swapped), as the CPU reference's `split.rs` does them.
//!
//! Δt, the substeps' limits and the discarded steps stay on the device (`split_step.rs`):
//! nothing is read back by a step. Buffers: Qⁿ (the model's `q`, written only by the last stage
//! of a step, so a discarded step leaves it as it was) and three working states A, B, C:
//!
//! - DS1: X q → A (transposed), Y A → q (transposed back).
//! - DS2: X q → A → B (transposed), Y B → C → A, Y A → C → B (transposed back), X B → C → q.
//!
//! This module holds that state (the transposed orientation, the working states, the RK and
//! clock kernels); the steps themselves are `GpuKp`'s (`split_steps.rs`), since they launch the model's
//! flux, drain, clamp and ghost kernels on it.

use crate::runtime::{DeviceBuffer, Gpu, Kernel};
use crate::{GpuReal, Result};
use kernels::kp::{
    Coeffs, RK_SPLIT, RK_SPLIT_FRICTION_FIELD, RK_SPLIT_T, RK_SPLIT_T_FRICTION_FIELD, RkSplit, SPLIT_BEGIN,
    SPLIT_CHECK, SPLIT_END, SplitBegin, SplitCheck, SplitClock, SplitEnd, line_slots,
};

use super::super::Scheme;
use super::super::split::transposed;

/// A split run's Δt estimates (None before they are measured) and its discarded steps.
pub type SplitState = (Option<(f64, f64)>, u64);

/// The split schemes' RK stages (to the same orientation, and transposing) and clock kernels.
pub(super) struct SplitKernels<T: GpuReal> {
    /// X's stages, with the problem's friction.
    pub(super) x: Kernel<RkSplit<T>>,
    pub(super) x_t: Kernel<RkSplit<T>>,
    /// Y's, without friction (X carries it).
    pub(super) y: Kernel<RkSplit<T>>,
    pub(super) y_t: Kernel<RkSplit<T>>,
    pub(super) begin: Kernel<SplitBegin<T>>,
    pub(super) check: Kernel<SplitCheck<T>>,
    pub(super) end: Kernel<SplitEnd<T>>,
}

/// The split schemes' state on the device besides the model's.
pub(super) struct GpuSplit<T: GpuReal> {
    pub(super) clock: SplitClock,
    /// The transposed orientation: its constants, corner bed, cell bed and (in `clamp`) B_hi.
    pub(super) ky: Coeffs<T>,
    pub(super) y_bed: DeviceBuffer<T>,
    pub(super) y_cell_bed: DeviceBuffer<T>,
    pub(super) y_hi: Option<DeviceBuffer<T>>,
    /// The working states A, B, C (three padded fields each, in either orientation).
    pub(super) work: [[DeviceBuffer<T>; 3]; 3],
    pub(super) kernels: SplitKernels<T>,
}

impl<T: GpuReal> GpuSplit<T> {
    /// For the model of constants `k` in `scheme` (DS1 or DS2) over the padded corner bed `bed`,
    /// cell bed `cell_bed` and (in `clamp`) highest corners `hi`; a friction field makes X's
    /// stages the per-cell ones.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn new(
        gpu: &Gpu,
        scheme: Scheme,
        cfl: f64,
        safety: f64,
        (dt_floor, dt_max): (f64, f64),
        k: &Coeffs<T>,
        [bed, cell_bed]: [&[T]; 2],
        hi: Option<&[T]>,
        friction_field: bool,
    ) -> Result<GpuSplit<T>> {
        let (px, py) = (k.pitch as usize, k.ny as usize + 4);
        let n = k.cells();
        let work = || Ok::<_, crate::Error>([gpu.zeros(n)?, gpu.zeros(n)?, gpu.zeros(n)?]);
        let (x, x_t) =
            if friction_field { (RK_SPLIT_FRICTION_FIELD, RK_SPLIT_T_FRICTION_FIELD) } else { (RK_SPLIT, RK_SPLIT_T) };
        Ok(GpuSplit {
            clock: SplitClock {
                cfl,
                safety,
                substeps: if scheme == Scheme::Ds2 { 2.0 } else { 1.0 },
                t_stop: f64::INFINITY,
                dt_floor,
                dt_max,
            },
            ky: k.transposed(),
            y_bed: gpu.upload(&transposed(bed, px + 1, py + 1))?,
            y_cell_bed: gpu.upload(&transposed(cell_bed, px, py))?,
            y_hi: hi.map(|hi| gpu.upload(&transposed(hi, px, py))).transpose()?,
            work: [work()?, work()?, work()?],
            kernels: SplitKernels {
                x: gpu.kernel::<T, _>(x)?,
                x_t: gpu.kernel::<T, _>(x_t)?,
                y: gpu.kernel::<T, _>(RK_SPLIT)?,
                y_t: gpu.kernel::<T, _>(RK_SPLIT_T)?,
                begin: gpu.kernel::<T, _>(SPLIT_BEGIN)?,
                check: gpu.kernel::<T, _>(SPLIT_CHECK)?,
                end: gpu.kernel::<T, _>(SPLIT_END)?,
            },
        })
    }

    /// The RK kernels' names and thread limits (their registers may allow fewer than a block).
    pub(super) fn limits(&self) -> Vec<(&str, u32)> {
        let ks = &self.kernels;
        [&ks.x, &ks.x_t, &ks.y, &ks.y_t].into_iter().map(|k| (k.name(), k.max_threads_per_block())).collect()
    }

    /// Rate slots of the x-line kernel with lines of `line` in either orientation.
    pub(super) fn slots(k: &Coeffs<T>, line: u32) -> usize {
        line_slots(k.nx, k.ny, line).max(line_slots(k.ny, k.nx, line))
    }
}
