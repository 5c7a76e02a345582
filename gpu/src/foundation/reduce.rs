//! The device-wide reductions, one pass: per-block partials (the host runs a second pass over
//! them with the combining operator).

use crate::device::reduce::{block_max, block_min, block_sum};
use crate::device::{DeviceReal, shared, thread};

/// Grid-stride reduction of `x[0..n]` to one partial per block in `out[blockIdx.x]`.
/// Four independent accumulators keep four loads in flight per thread.
///
/// # Safety
/// `x` holds `n` elements, `out` holds `gridDim.x`; the block is a multiple of 32 threads and
/// the launch gives 32 `T`s of dynamic shared memory.
#[inline(always)]
unsafe fn reduce<T: DeviceReal>(
    x: *const T,
    n: u64,
    out: *mut T,
    identity: T,
    map: impl Fn(T) -> T,
    op: impl Fn(T, T) -> T + Copy,
    block: fn(T, *mut T) -> T,
) {
    let stride = thread::grid_size_1d();
    let mut i = thread::index_1d();
    let mut acc = [identity; 4];
    unsafe {
        while i + 3 * stride < n {
            let mut k = 0;
            while k < 4 {
                acc[k] = op(acc[k], map(T::ldg(x.add((i + k as u64 * stride) as usize))));
                k += 1;
            }
            i += 4 * stride;
        }
        while i < n {
            acc[0] = op(acc[0], map(T::ldg(x.add(i as usize))));
            i += stride;
        }
        let v = op(op(acc[0], acc[1]), op(acc[2], acc[3]));
        let r = block(v, shared::dynamic::<T>());
        if thread::thread_idx_x() == 0 {
            *out.add(thread::block_idx_x() as usize) = r;
        }
    }
}

/// Per-block max |x| (as [`reduce`]).
///
/// # Safety
/// As [`reduce`].
pub(super) unsafe fn reduce_max_abs<T: DeviceReal>(x: *const T, n: u64, out: *mut T) {
    unsafe { reduce(x, n, out, T::ZERO, |v: T| v.abs(), |a: T, b: T| a.max(b), block_max::<T>) }
}
/// Per-block max x (as [`reduce`]).
///
/// # Safety
/// As [`reduce`].
pub(super) unsafe fn reduce_max<T: DeviceReal>(x: *const T, n: u64, out: *mut T) {
    unsafe { reduce(x, n, out, -T::INFINITY, |v| v, |a: T, b: T| a.max(b), block_max::<T>) }
}
/// Per-block min x (as [`reduce`]).
///
/// # Safety
/// As [`reduce`].
pub(super) unsafe fn reduce_min<T: DeviceReal>(x: *const T, n: u64, out: *mut T) {
    unsafe { reduce(x, n, out, T::INFINITY, |v| v, |a: T, b: T| a.min(b), block_min::<T>) }
}
/// Per-block Σ x (as [`reduce`]).
///
/// # Safety
/// As [`reduce`].
pub(super) unsafe fn reduce_sum<T: DeviceReal>(x: *const T, n: u64, out: *mut T) {
    unsafe { reduce(x, n, out, T::ZERO, |v| v, |a: T, b: T| a + b, block_sum::<T>) }
}
