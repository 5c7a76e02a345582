//! What every tridiagonal kernel shares: loading an equation, warp barriers, and reporting a
//! breakdown through the status word (and reading it, for a model's kernels too).

use super::Eq;
use crate::device::DeviceReal;
use core::arch::asm;

/// `__syncwarp()`: every lane of the warp must reach it.
#[inline(always)]
pub(super) fn sync_warp() {
    unsafe { asm!("bar.warp.sync -1;", options(nostack)) }
}

/// Record a failure: `status = max(status, code)` (codes are `!(k·n + i)`).
#[inline(always)]
pub(super) unsafe fn report(status: *mut u64, code: u64) {
    unsafe {
        asm!("{{ .reg .b64 %g; cvta.to.global.u64 %g, {p}; red.global.max.u64 [%g], {v}; }}",
            p = in(reg64) status, v = in(reg64) code, options(nostack));
    }
}

/// `status = min(status, v)` (a model's kernels keep the first failing step so).
#[inline(always)]
pub(crate) unsafe fn report_min(status: *mut u64, v: u64) {
    unsafe {
        asm!("{{ .reg .b64 %g; cvta.to.global.u64 %g, {p}; red.global.min.u64 [%g], {v}; }}",
            p = in(reg64) status, v = in(reg64) v, options(nostack));
    }
}

/// A status word, read past the caches (another block of the launch may just have written it).
#[inline(always)]
pub(crate) unsafe fn read_status(status: *const u64) -> u64 {
    let v: u64;
    unsafe {
        asm!("{{ .reg .b64 %g; cvta.to.global.u64 %g, {p}; ld.volatile.global.u64 {v}, [%g]; }}",
            p = in(reg64) status, v = out(reg64) v, options(nostack, readonly));
    }
    v
}

/// Whether the status word already names a row of system `k`. A kernel that found a failure
/// before its last barrier reports it then; after the barrier, the NaNs it spread through the
/// rest of the system are not reported over it (the first failure names the row).
#[inline(always)]
pub(super) unsafe fn names(status: *mut u64, n: u32, k: u32) -> bool {
    let v = unsafe { read_status(status) };
    v != 0 && (!v).wrapping_sub(k as u64 * n as u64) < n as u64
}

/// Equation i of a system at global offset g; `a_0` and `c_{n−1}` read as zero.
#[inline(always)]
pub(super) unsafe fn load<T: DeviceReal>(
    a: *const T,
    b: *const T,
    c: *const T,
    d: *const T,
    g: usize,
    i: u32,
    n: u32,
) -> Eq<T> {
    unsafe {
        Eq {
            a: if i == 0 { T::ZERO } else { T::ldg(a.add(g)) },
            b: T::ldg(b.add(g)),
            c: if i + 1 == n { T::ZERO } else { T::ldg(c.add(g)) },
            d: *d.add(g),
        }
    }
}
