//! Periodic indices and stencil windows: what the fd3d kernels share.

use super::HALO;
use crate::device::DeviceReal;

/// `(g − 4) mod m` for `g` in `[0, m + 8)` (with `m ≥ 4`): the periodic index of tile slot
/// `g` when slot 0 holds the point 4 before the tile's first.
#[inline(always)]
pub(super) fn wrap_m4(g: u32, m: u32) -> u32 {
    let h = if g < HALO { g + m - HALO } else { g - HALO };
    if h >= m { h - m } else { h }
}

/// The 9 values `p[0], p[s], …, p[8s]`.
///
/// # Safety
/// All nine are readable.
#[inline(always)]
pub(super) unsafe fn window<T: DeviceReal>(p: *const T, s: usize) -> [T; 9] {
    core::array::from_fn(|o| unsafe { *p.add(o * s) })
}

/// The 9 values `w[u..u + 9]` of a register window (`u` is a constant after unrolling).
#[inline(always)]
pub(super) fn slide<T: DeviceReal, const N: usize>(w: &[T; N], u: usize) -> [T; 9] {
    core::array::from_fn(|o| w[u + o])
}
