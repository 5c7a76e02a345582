//! Copy and fill: one 16-byte vector per thread, then the scalar tail.

use crate::device::vec::{W4, ldg_v4, st_v4};
use crate::device::{DeviceReal, thread};

/// Elements of `T` per 16-byte vector.
#[inline(always)]
const fn per_vec<T>() -> u64 {
    (16 / core::mem::size_of::<T>()) as u64
}

/// `dst[i] = src[i]` for i < n. One 16-byte vector per thread, then the scalar tail.
///
/// # Safety
/// `src` and `dst` are 16-byte aligned (whole device allocations are), hold `n` elements, and
/// do not overlap; the grid covers `max(1, n / per_vec)` threads.
pub(super) unsafe fn copy<T: DeviceReal>(src: *const T, dst: *mut T, n: u64) {
    let i = thread::index_1d();
    let nvec = n / per_vec::<T>();
    unsafe {
        if i < nvec {
            st_v4((dst as *mut W4).add(i as usize), ldg_v4((src as *const W4).add(i as usize)));
        }
        let j = nvec * per_vec::<T>() + i;
        if i < per_vec::<T>() && j < n {
            *dst.add(j as usize) = T::ldg(src.add(j as usize));
        }
    }
}

/// `dst[i] = value` for i < n, with the same layout contract as [`copy`].
///
/// # Safety
/// `dst` is 16-byte aligned and holds `n` elements; the grid covers `max(1, n / per_vec)`.
pub(super) unsafe fn fill<T: DeviceReal>(dst: *mut T, n: u64, value: T) {
    let i = thread::index_1d();
    let nvec = n / per_vec::<T>();
    unsafe {
        if i < nvec {
            let mut v: W4 = [0; 4];
            let p = &mut v as *mut W4 as *mut T;
            let mut k = 0;
            while k < per_vec::<T>() {
                *p.add(k as usize) = value;
                k += 1;
            }
            st_v4((dst as *mut W4).add(i as usize), v);
        }
        let j = nvec * per_vec::<T>() + i;
        if i < per_vec::<T>() && j < n {
            *dst.add(j as usize) = value;
        }
    }
}
