//! What the host tells every fd3d kernel ([`Fd3dParams`]) and the work per thread it sizes the
//! launches by (the x-vec and x-tile kernels' constants, the streams' step).

use super::stencil::Coef;

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
    /// Points along the derivative (≥ [`WIDTH`](super::WIDTH)).
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
