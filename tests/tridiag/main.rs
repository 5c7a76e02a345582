//! Batched tridiagonal solvers: the CPU reference against a dense LU solve, CPU emulations of
//! the partition and twisted-Thomas kernels' algebra (the `gpu::tridiag` functions the kernels
//! call, with the kernels' index mapping) against it, every GPU algorithm × layout ×
//! precision against the CPU reference, the automatic choice, and bad input (lengths, empty
//! batches, breakdowns, sizes over an algorithm's limit).
//!
//! Tolerances (the constants below). Systems are diagonally dominant with
//! |b| ≥ 2(|a| + |c|) + 0.1, so the condition numbers are small (≲ 5) and every algorithm is
//! backward stable.
//!
//! One test binary in seven files: the CPU reference (`cpu.rs`), its LU with partial pivoting on
//! hard systems (`pivoting.rs`), bad input and the automatic choice (`input.rs`), the emulated
//! kernel algebra (`emulation.rs`), the GPU kernels (`gpu.rs`), the GPU's pivoting solver and
//! dominance check (`gpu_pivoting.rs`), the padded layouts on the CPU (`strided.rs`).

#[path = "../common/mod.rs"]
mod common;
mod cpu;
mod emulation;
mod gpu;
mod gpu_pivoting;
mod input;
mod pivoting;
mod report;
mod strided;

use common::Tolerance;

/// CPU Thomas against dense LU with partial pivoting (in f64), relative to max(1, ‖x_LU‖∞):
/// Thomas without pivoting is backward stable on these systems, a few ε per row of
/// elimination and substitution, times the small condition number: 64 ε.
pub const THOMAS_VS_LU: Tolerance = Tolerance::eps(64.0);
/// ‖Ax − d‖/‖d‖ of CPU Thomas: backward stability alone, 32 ε.
pub const RESIDUAL: f64 = 32.0;
/// GPU against CPU Thomas (and the CPU emulations of the partition and twisted algorithms),
/// relative to max(1, ‖x_CPU‖∞), per level of log2(2n): CR and PCR round in another order than
/// Thomas, log2 n levels deep, and the GPU contracts multiply-adds: 256 ε a level.
pub const GPU_PER_LEVEL: Tolerance = Tolerance::eps(256.0);
/// LU with partial pivoting against the dense solve, relative to ‖x‖∞, in units of κ∞·ε: a
/// backward-stable solve (growth ≤ 2 on a tridiagonal matrix) errs by κ times its backward
/// error, a few ε; 32 leaves room for n ≤ 40 rows of rounding. Without pivoting the small-pivot
/// cases miss it by 10⁸ (f64) and 10⁵ (f32).
pub const LU_FORWARD: f64 = 32.0;
/// LU's normwise backward error ‖Ax − d‖∞/(‖A‖∞‖x‖∞ + ‖d‖∞), in ε: growth ≤ 2 and three
/// terms a row, so a few ε; 16.
pub const LU_BACKWARD: f64 = 16.0;

/// The bands a, b and c of `host` on the GPU: what a solve reads and never writes.
pub fn upload_bands<T: hydrokern::GpuReal>(
    gpu: &hydrokern::Gpu,
    host: &hydrokern::tridiag::Batch<T>,
) -> [hydrokern::runtime::DeviceBuffer<T>; 3] {
    [&host.a, &host.b, &host.c].map(|band| gpu.upload(band).unwrap())
}
