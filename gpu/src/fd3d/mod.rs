//! 3D finite differences (seed 004): the periodic 8th-order centred first derivative.
//!
//! ```text
//! ∂f/∂x ≈ a (f[i+1] − f[i−1]) + b (f[i+2] − f[i−2]) + c (f[i+3] − f[i−3]) + d (f[i+4] − f[i−4])
//! (a, b, c, d) = (4/5, −1/5, 4/105, −1/280) / Δ
//! ```
//!
//! Layout: `f[i + mx·(j + my·k)]`, x fastest. Every index wraps periodically, so a dimension
//! needs at least [`WIDTH`] = 9 points (the stencil must not reach a point twice).
//!
//! The point-wise [`d8`] compiles for the host too (the CPU reference calls it). The kernels
//! (nvptx64 only) all take `(f, df, Fd3dParams)` and differ in how they move data:
//! - `fd3d_x_pencil`: the seed's x kernel. A shared tile of `blockDim.y` (4) x-pencils, each a
//!   chunk of `tile` (= blockDim.x) points plus a 4-point periodic halo on either side.
//! - `fd3d_x_tile`: x with a larger shared tile (16 pencils × 128-point chunks plus halo),
//!   8 points per thread with all their loads in flight together.
//! - `fd3d_x_vec`: x without shared memory. Each thread owns two 16-byte vectors of output
//!   (4 f32 or 2 f64 each), reads their windows with 16-byte read-only loads, all in flight
//!   together (neighbours' loads hit L1), patches the few window values past a row end with
//!   their periodic images, and writes 16-byte stores.
//! - `fd3d_yz_pencil`: the seed's y and z kernels. A shared tile of `blockDim.x` (4 or 32)
//!   pencils along x, each a chunk of `tile` points along y (or z) plus the periodic halo;
//!   `blockDim.y` threads per pencil, each computing `tile / blockDim.y` points.
//! - `fd3d_yz_stream`: y and z from registers. One thread per x column and segment of `tile`
//!   points, marching along y (or z) in steps of 16 (f32) or 8 (f64) points with a register
//!   window of step + 8 values: each value is loaded once per segment, coalesced along x, and
//!   no shared memory or barrier is needed.

use crate::Real;

/// Points the stencil reaches on each side of the centre.
pub const HALO: u32 = 4;
/// Points the stencil spans: the smallest periodic dimension it accepts.
pub const WIDTH: u32 = 2 * HALO + 1;

/// The unscaled coefficients (a, b, c, d) of f[±1], f[±2], f[±3], f[±4].
pub const COEFFICIENTS: [f64; 4] = [4.0 / 5.0, -1.0 / 5.0, 4.0 / 105.0, -1.0 / 280.0];

/// The stencil's coefficients divided by the grid spacing Δ.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Coef<T> {
    pub a: T,
    pub b: T,
    pub c: T,
    pub d: T,
}

impl<T: Real> Coef<T> {
    /// Coefficients for spacing `1 / inv_delta`, scaled in f64 and rounded once to `T`.
    pub fn new(inv_delta: f64) -> Coef<T> {
        let [a, b, c, d] = COEFFICIENTS.map(|v| T::from_f64(v * inv_delta));
        Coef { a, b, c, d }
    }
}

/// The derivative at the centre of the window `w = f[i−4..=i+4]`.
///
/// Evaluated in the seed's order, `((a Δ1 + b Δ2) + c Δ3) + d Δ4`. The CPU reference rounds
/// every multiply and add; the kernels are built with FMA contraction (`build.rs`), so there
/// the products fuse into the adds and the last bits can differ (the tests allow for it).
#[inline(always)]
pub fn d8<T: Real>(c: &Coef<T>, w: &[T; 9]) -> T {
    c.a * (w[5] - w[3]) + c.b * (w[6] - w[2]) + c.c * (w[7] - w[1]) + c.d * (w[8] - w[0])
}

/// What every fd3d kernel is told about the grid, by value.
///
/// "Along" is the derivative's direction; "across" is the dimension whose pencils share a
/// tile (y for the x kernels, x for the y and z kernels); "outer" is the third, looped over
/// by `blockIdx.z` with a grid stride.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Fd3dParams<T> {
    /// Stencil coefficients over Δ along the derivative.
    pub coef: Coef<T>,
    /// Points in the grid (mx·my·mz).
    pub n: u64,
    /// Elements between neighbours along the derivative (1, mx or mx·my).
    pub stride: u64,
    /// Elements between neighbours across.
    pub stride_across: u64,
    /// Elements between neighbours in the outer dimension.
    pub stride_outer: u64,
    /// Points along the derivative (≥ [`WIDTH`]).
    pub m: u32,
    /// Points across.
    pub n_across: u32,
    /// Points in the outer dimension.
    pub n_outer: u32,
    /// Points along per block: the tile of the pencil kernels, the segment of the streams.
    pub tile: u32,
}

/// 16-byte vectors each thread of `fd3d_x_vec` handles (a constant, so its loop unrolls; the
/// host sizes the grid by it).
pub const XVEC_PER_THREAD: u32 = 2;

/// Points along x (strided by blockDim.x) and rows each thread of `fd3d_x_tile` computes.
pub const XTILE_POINTS: u32 = 4;
/// See [`XTILE_POINTS`].
pub const XTILE_ROWS: u32 = 2;

/// Outputs per step of the streaming kernels: 64 bytes of loads in flight per thread
/// (16 f32, 8 f64). The register window holds `step + 8` values.
#[inline(always)]
pub const fn stream_step<T>() -> usize {
    64 / core::mem::size_of::<T>()
}

mod entries;
pub use entries::*;

#[cfg(target_arch = "nvptx64")]
mod pencil;
#[cfg(target_arch = "nvptx64")]
mod stream;
#[cfg(target_arch = "nvptx64")]
mod vec;
#[cfg(target_arch = "nvptx64")]
mod windows;
