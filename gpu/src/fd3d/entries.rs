//! The fd3d entry points. Every kernel takes `(f, df, p)` and writes `df = ∂f/∂(direction)`.

use super::Fd3dParams;
#[cfg(target_arch = "nvptx64")]
use super::pencil::{fd3d_x_pencil, fd3d_x_tile, fd3d_yz_pencil};
#[cfg(target_arch = "nvptx64")]
use super::stream::fd3d_yz_stream;
#[cfg(target_arch = "nvptx64")]
use super::vec::fd3d_x_vec;

kernels! {
    /// A derivative of `f` into `df` (distinct allocations of `p.n` points).
    pub struct Derivative<T> { f: *const T, df: *mut T, p: Fd3dParams<T> }
    /// x-4pencil: Ruetsch's x kernel.
    pub const X_PENCIL: Derivative = fd3d_x_pencil(fd3d_x_pencil::<T>);
    /// x-tile: 8 points per thread on a larger shared tile.
    pub const X_TILE: Derivative = fd3d_x_tile(fd3d_x_tile::<T>);
    /// x-vec: 16-byte loads and stores, no shared memory.
    pub const X_VEC: Derivative = fd3d_x_vec(fd3d_x_vec::<T>);
    /// y/z-4pencil and y/z-32pencil: Ruetsch's y and z kernels.
    pub const YZ_PENCIL: Derivative = fd3d_yz_pencil(fd3d_yz_pencil::<T>);
    /// y-stream and z-stream: a register window per x column.
    pub const YZ_STREAM: Derivative = fd3d_yz_stream(fd3d_yz_stream::<T>);
}
