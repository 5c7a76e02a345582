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
//! One test binary in four files: the CPU reference (`cpu.rs`), bad input and the automatic
//! choice (`input.rs`), the emulated kernel algebra (`emulation.rs`), the GPU kernels (`gpu.rs`).

#[path = "../common/mod.rs"]
mod common;
mod cpu;
mod emulation;
mod gpu;
mod input;

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
