//! The ghost-layer kernel.

use super::{Coeffs, set_ghost};
use crate::device::{DeviceReal, thread};
use crate::halo::perimeter_ghost;

/// One thread per ghost point (`halo::perimeter_len(&k.layout())` threads): set the ghost layer.
pub(super) unsafe fn ghosts<T: DeviceReal>(k: Coeffs<T>, h: *mut T, s: *mut T, al: *mut T, be: *mut T) {
    let t = thread::index_1d();
    if t >= u32::MAX as u64 {
        return;
    }
    if let Some(gh) = perimeter_ghost(&k.layout(), Coeffs::<T>::GHOSTS, t as u32) {
        unsafe { set_ghost(&k, h, s, al, be, gh) }
    }
}
