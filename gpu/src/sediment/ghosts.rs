//! The ghost-layer kernel.

use super::{Coeffs, perimeter, set_ghost};
use crate::device::{DeviceReal, thread};

/// One thread per perimeter point (`perimeter_len(nx, ny)` threads): set the ghost layer.
pub(super) unsafe fn ghosts<T: DeviceReal>(k: Coeffs<T>, h: *mut T, s: *mut T, al: *mut T, be: *mut T) {
    let t = thread::index_1d();
    if t >= u32::MAX as u64 {
        return;
    }
    if let Some(pt) = perimeter(k.nx, k.ny, t as u32) {
        unsafe { set_ghost(&k, h, s, al, be, pt) }
    }
}
