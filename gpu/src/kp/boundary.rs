//! The boundary kernel: ghost cells, one thread each (launch contract: `entries.rs`).

use super::{Coeffs, set_ghost};
use crate::device::{DeviceReal, thread};
use crate::halo::edge_ghost;

/// Ghost cells of pass `axis` (0: west/east columns of the interior rows; 1: south/north rows
/// of all columns, after pass 0), one thread each.
///
/// # Safety
/// The launch contract of `entries.rs`; 1D grid of at least `halo::ghosts_x` / `ghosts_y` of
/// `k.layout()` threads.
pub(super) unsafe fn kp_boundary<T: DeviceReal>(
    k: Coeffs<T>,
    axis: u32,
    w: *mut T,
    hu: *mut T,
    hv: *mut T,
    bc: *const T,
) {
    let t = thread::index_1d();
    if t > u32::MAX as u64 {
        return;
    }
    if let Some(gh) = edge_ghost(&k.layout(), k.bc, axis, t as u32) {
        unsafe { set_ghost(axis, w, hu, hv, bc, gh) }
    }
}
