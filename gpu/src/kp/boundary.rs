//! The boundary kernel: ghost cells, one thread each (launch contract: `entries.rs`).

use super::{Coeffs, set_forced_ghost};
use crate::Level;
use crate::device::{DeviceReal, thread};
use crate::halo::edge_ghost;

/// Ghost cells of pass `axis` (0: west/east columns of the interior rows; 1: south/north rows
/// of all columns, after pass 0), one thread each. The surface `w` is of the level type `W` (`T`,
/// or f64 in mixed precision).
///
/// # Safety
/// The launch contract of `entries.rs`; 1D grid of at least `halo::ghosts_x` / `ghosts_y` of
/// `k.layout()` threads; `level_map` null, or 2(nx + ny) entries as
/// [`set_forced_ghost`] reads them.
// Inlined into each entry point: the plain and the mixed `_f64` entries share this
// instance, and a call between them would pass `k` through local memory.
#[inline(always)]
pub(super) unsafe fn kp_boundary<T: DeviceReal, W: DeviceReal + Level<T>>(
    k: Coeffs<T>,
    axis: u32,
    w: *mut W,
    hu: *mut T,
    hv: *mut T,
    bc: *const T,
    levels: *const f64,
    level_map: *const u32,
) {
    let t = thread::index_1d();
    if t > u32::MAX as u64 {
        return;
    }
    if let Some(gh) = edge_ghost(&k.layout(), k.bc, axis, t as u32) {
        unsafe { set_forced_ghost::<T, W>(&k, axis, w, hu, hv, bc, gh, levels, level_map) };
    }
}
