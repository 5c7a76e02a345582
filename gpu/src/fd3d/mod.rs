//! 3D finite differences: the periodic 8th-order centred first derivative.
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
//! - `fd3d_x_pencil`: Ruetsch's x kernel. A shared tile of `blockDim.y` (4) x-pencils, each a
//!   chunk of `tile` (= blockDim.x) points plus a 4-point periodic halo on either side.
//! - `fd3d_x_tile`: x with a larger shared tile (16 pencils × 128-point chunks plus halo),
//!   8 points per thread with all their loads in flight together.
//! - `fd3d_x_vec`: x without shared memory. Each thread owns two 16-byte vectors of output
//!   (4 f32 or 2 f64 each), reads their windows with 16-byte read-only loads, all in flight
//!   together (neighbours' loads hit L1), patches the few window values past a row end with
//!   their periodic images, and writes 16-byte stores.
//! - `fd3d_yz_pencil`: Ruetsch's y and z kernels. A shared tile of `blockDim.x` (4 or 32)
//!   pencils along x, each a chunk of `tile` points along y (or z) plus the periodic halo;
//!   `blockDim.y` threads per pencil, each computing `tile / blockDim.y` points.
//! - `fd3d_yz_stream`: y and z from registers. One thread per x column and segment of `tile`
//!   points, marching along y (or z) in steps of 16 (f32) or 8 (f64) points with a register
//!   window of step + 8 values: each value is loaded once per segment, coalesced along x, and
//!   no shared memory or barrier is needed.

mod params;
mod stencil;
pub use params::{Fd3dParams, XTILE_POINTS, XTILE_ROWS, XVEC_PER_THREAD, stream_step};
pub use stencil::{COEFFICIENTS, Coef, HALO, WIDTH, d8};

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
