//! The foundation's kernels: copy, fill and the device-wide reductions.

use crate::device::reduce::{block_max, block_min, block_sum};
use crate::device::vec::{W4, ldg_v4, st_v4};
use crate::device::{DeviceReal, shared, thread};

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
unsafe fn copy<T: DeviceReal>(src: *const T, dst: *mut T, n: u64) {
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
unsafe fn fill<T: DeviceReal>(dst: *mut T, n: u64, value: T) {
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

unsafe fn reduce_max_abs<T: DeviceReal>(x: *const T, n: u64, out: *mut T) {
    unsafe { reduce(x, n, out, T::ZERO, |v: T| v.abs(), |a: T, b: T| a.max(b), block_max::<T>) }
}
unsafe fn reduce_max<T: DeviceReal>(x: *const T, n: u64, out: *mut T) {
    unsafe { reduce(x, n, out, -T::INFINITY, |v| v, |a: T, b: T| a.max(b), block_max::<T>) }
}
unsafe fn reduce_min<T: DeviceReal>(x: *const T, n: u64, out: *mut T) {
    unsafe { reduce(x, n, out, T::INFINITY, |v| v, |a: T, b: T| a.min(b), block_min::<T>) }
}
unsafe fn reduce_sum<T: DeviceReal>(x: *const T, n: u64, out: *mut T) {
    unsafe { reduce(x, n, out, T::ZERO, |v| v, |a: T, b: T| a + b, block_sum::<T>) }
}

stamp! {
    copy => copy_f32, copy_f64 (src: *const T, dst: *mut T, n: u64);
    fill => fill_f32, fill_f64 (dst: *mut T, n: u64, value: T);
    reduce_max_abs => reduce_max_abs_f32, reduce_max_abs_f64 (x: *const T, n: u64, out: *mut T);
    reduce_max => reduce_max_f32, reduce_max_f64 (x: *const T, n: u64, out: *mut T);
    reduce_min => reduce_min_f32, reduce_min_f64 (x: *const T, n: u64, out: *mut T);
    reduce_sum => reduce_sum_f32, reduce_sum_f64 (x: *const T, n: u64, out: *mut T);
}
