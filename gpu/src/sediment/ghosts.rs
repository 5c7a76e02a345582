//! The ghost-layer kernel.

use super::{Coeffs, set_ghost};
use crate::Level;
use crate::device::{DeviceReal, thread};
use crate::halo::perimeter_ghost;

/// One thread per ghost point (`halo::perimeter_len(&k.layout())` threads): set the ghost layer
/// (h of type `H`: `T`, or f64 in mixed precision).
// Inlined into each entry: the plain f64 entry and the mixed one's (unused) f64 entry are
// the same instance, which the compiler would otherwise call with its parameters in local memory.
#[inline(always)]
pub(super) unsafe fn ghosts<T: DeviceReal, H: Level<T>>(k: Coeffs<T>, h: *mut H, s: *mut T, al: *mut T, be: *mut T) {
    let t = thread::index_1d();
    if t >= u32::MAX as u64 {
        return;
    }
    if let Some(gh) = perimeter_ghost(&k.layout(), Coeffs::<T>::GHOSTS, t as u32) {
        unsafe { set_ghost(&k, h, s, al, be, gh) }
    }
}
