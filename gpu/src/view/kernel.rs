//! The gather kernel (launch contract: `entries.rs`).

use crate::device::{DeviceReal, thread};

/// # Safety
/// The launch contract of `entries.rs`.
pub(super) unsafe fn gather<T: DeviceReal>(src: *const T, at: *const u64, n: u64, out: *mut T) {
    let k = thread::index_1d();
    if k < n {
        unsafe {
            *out.add(k as usize) = T::ldg(src.add(*at.add(k as usize) as usize));
        }
    }
}
