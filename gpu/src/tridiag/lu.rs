//! LU with partial pivoting (`mod.rs`, `lu_solve`), one thread per system, and the
//! diagonal-dominance check the automatic choice runs first.

use super::io::{load, report};
use super::{Dims, URow, dominant, fail_code, lu_solve_grouped};
use crate::device::{DeviceReal, thread, warp};
use core::intrinsics::{unchecked_div, unchecked_rem};

/// Equations (and rows of U on the way back) a thread loads at once, a group ahead of its
/// steps (`lu_solve_grouped`): one thread per system has nothing else to hide its loads'
/// latency behind. Two groups of f64 equations take the registers of two of f32 at half the
/// rows.
const LU_GROUP_F32: usize = 16;
const LU_GROUP_F64: usize = 8;

/// One thread per system, any layout. `w` holds 2·`p.span()` values: u1 then u2 of U's rows,
/// each at the positions of x; U's y goes to x, which the back substitution overwrites.
///
/// # Safety
/// `a`, `b`, `c`, `d`, `x` hold every position `p.at(k, i)` for k < batch, i < n, n ≥ 1; `x`
/// may equal `d` but overlaps nothing else (equation i+1 is loaded before x_i's slot is
/// written); `w` holds 2·`p.span()` values; `status` is one `u64`. The grid
/// covers `batch` threads.
pub(super) unsafe fn lu<T: DeviceReal>(
    p: Dims,
    a: *const T,
    b: *const T,
    c: *const T,
    d: *const T,
    x: *mut T,
    w: *mut T,
    status: *mut u64,
) {
    let k = thread::index_1d();
    if k >= p.batch as u64 {
        return;
    }
    let k = k as u32;
    let n = p.n;
    let at = |i: u32| p.at(k, i);
    unsafe {
        let (w1, w2) = (w, w.add(p.span()));
        let eq = |i| load(a, b, c, d, at(i), i, n);
        let put = |i, u: URow<T>| {
            *w1.add(at(i)) = u.u1;
            *w2.add(at(i)) = u.u2;
            *x.add(at(i)) = u.y;
        };
        let get = |i| URow { u1: *w1.add(at(i)), u2: *w2.add(at(i)), y: *x.add(at(i)) };
        let set_x = |i, v| *x.add(at(i)) = v;
        let bad = if size_of::<T>() == 4 {
            lu_solve_grouped::<T, T, LU_GROUP_F32>(n, eq, put, get, set_x, T::ZERO)
        } else {
            lu_solve_grouped::<T, T, LU_GROUP_F64>(n, eq, put, get, set_x, T::ZERO)
        };
        if bad != u32::MAX {
            report(status, fail_code(n, k, bad));
        }
    }
}

/// The diagonal-dominance check: `status` gets the code (`fail_code`) of the first
/// (system, row) in index order that is not dominant (`dominant`), or stays 0. A grid-stride
/// loop over the n·batch (system, row) pairs — never over memory, where a padded layout's
/// padding lies between the lines — in the order that keeps a warp's loads together: row
/// fastest where a system's unknowns are consecutive (`elem_stride = 1`: contiguous, rows),
/// system fastest otherwise (interleaved, columns). Each thread keeps the largest code it
/// saw, the warp takes the largest of its lanes', and lane 0 reports it: a non-dominant batch
/// costs one atomic per warp, not per row or per thread (one per thread, all to the same
/// word, costs 0.1–0.4 ms on an H100, more than the check's reads).
///
/// # Safety
/// `a`, `b`, `c` hold every position `p.at(k, i)` for k < batch, i < n; `status` is one
/// `u64`. A 1-D launch of whole warps (the block a multiple of 32 threads): every lane takes
/// part in the warp's shuffles.
pub(super) unsafe fn dominance<T: DeviceReal>(p: Dims, a: *const T, b: *const T, c: *const T, status: *mut u64) {
    let (n, batch) = (p.n, p.batch);
    let len = n as u64 * batch as u64;
    let systems_fastest = p.elem_stride != 1;
    let mut worst = 0u64;
    let mut g = thread::index_1d();
    let stride = thread::grid_size_1d();
    while g < len {
        // Index g → (system, row); n, batch ≥ 1 when len > 0 (unchecked: no panic path).
        let (k, i) = unsafe {
            if systems_fastest {
                (unchecked_rem(g, batch as u64), unchecked_div(g, batch as u64))
            } else {
                (unchecked_div(g, n as u64), unchecked_rem(g, n as u64))
            }
        };
        let (k, i) = (k as u32, i as u32);
        let o = p.at(k, i);
        unsafe {
            let av = if i == 0 { T::ZERO } else { T::ldg(a.add(o)) };
            let cv = if i + 1 == n { T::ZERO } else { T::ldg(c.add(o)) };
            if !dominant(av, T::ldg(b.add(o)), cv) {
                let code = fail_code(n, k, i);
                if code > worst {
                    worst = code;
                }
            }
        }
        g += stride;
    }
    // Every lane of the warp is here (the loop has no early exit), as the shuffles need.
    let mut delta = warp::WARP_SIZE / 2;
    while delta > 0 {
        let hi = warp::shfl_down_u32((worst >> 32) as u32, delta);
        let lo = warp::shfl_down_u32(worst as u32, delta);
        worst = worst.max(((hi as u64) << 32) | lo as u64);
        delta /= 2;
    }
    if worst != 0 && thread::thread_idx_x() % warp::WARP_SIZE == 0 {
        unsafe { report(status, worst) };
    }
}
