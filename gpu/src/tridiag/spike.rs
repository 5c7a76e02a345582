//! SPIKE with partial pivoting (`mod.rs`: `spike_reduce`, `spike_fill`, `lu_solve`): one
//! block per system, one thread per chunk, the reduced system in shared memory.

use super::io::{load, names, report};
use super::{Dims, Eq, URow, fail_code, lu_solve, spike_fill, spike_reduce, spike_start};
use crate::device::{DeviceReal, shared, thread};

/// One block per system, `blockDim.x = p.chunk` threads, each reducing and filling one chunk
/// of at least two rows (one chunk of one row when n = 1); thread 0 solves the reduced system
/// of 2·chunks equations (1 when n = 1) by LU with partial pivoting in shared memory. `w` holds
/// 5·`p.span()` values: the interior rows' u1, u2 and y (three right-hand sides, then D, A, C),
/// each at the positions of x.
///
/// # Safety
/// `a`, `b`, `c`, `d`, `x` hold every position `p.at(k, i)` for k < batch, i < n, n ≥ 1; `x`
/// may equal `d` but overlaps nothing else (every d is read before the barrier that precedes
/// the first write of x); `w` holds 5·`p.span()` values; `status` is one `u64`. The grid has
/// `batch` blocks of `p.chunk` threads, 1 ≤ p.chunk ≤ max(1, n/2), and the launch gives
/// 14·p.chunk `T`s of dynamic shared memory.
pub(super) unsafe fn spike<T: DeviceReal>(
    p: Dims,
    a: *const T,
    b: *const T,
    c: *const T,
    d: *const T,
    x: *mut T,
    w: *mut T,
    status: *mut u64,
) {
    let k = thread::block_idx_x();
    let j = thread::thread_idx_x();
    let (n, chunks) = (p.n, p.chunk);
    let f = spike_start(n, chunks, j);
    let len = spike_start(n, chunks, j + 1) - f;
    let m = if n == 1 { 1 } else { 2 * chunks };
    let nb = p.span();
    let at = |r: u32| p.at(k, f + r);
    unsafe {
        let sh = shared::dynamic::<T>();
        // The reduced system: a, b, c, d, then U's u1, u2, and y (x after the solve).
        let slot = |arr: usize, q: u32| sh.add(arr * m as usize + q as usize);
        let put_eq = |q: u32, e: Eq<T>| {
            *slot(0, q) = e.a;
            *slot(1, q) = e.b;
            *slot(2, q) = e.c;
            *slot(3, q) = e.d;
        };
        let ws = |s: usize, r: u32| w.add(s * nb + at(r));
        let eq = |r: u32| load(a, b, c, d, at(r), f + r, n);
        if len == 1 {
            // n = 1: the reduced system is the equation itself.
            put_eq(0, eq(0));
        } else {
            let (first, last, bad) = spike_reduce(
                len,
                eq,
                |r, u: URow<T, [T; 3]>| {
                    *ws(0, r) = u.u1;
                    *ws(1, r) = u.u2;
                    (*ws(2, r), *ws(3, r), *ws(4, r)) = (u.y[0], u.y[1], u.y[2]);
                },
                |r| URow { u1: *ws(0, r), u2: *ws(1, r), y: [*ws(2, r), *ws(3, r), *ws(4, r)] },
                |r, v: [T; 3]| (*ws(2, r), *ws(3, r), *ws(4, r)) = (v[0], v[1], v[2]),
            );
            if bad != u32::MAX {
                report(status, fail_code(n, k, f + bad));
            }
            put_eq(2 * j, first);
            put_eq(2 * j + 1, last);
        }
        thread::sync_threads();
        if j == 0 {
            // Reduced equation q is the first (even q) or last row of chunk q/2.
            let row = |q: u32| {
                let (s, e) = (spike_start(n, chunks, q / 2), spike_start(n, chunks, q / 2 + 1));
                if q % 2 == 0 { s } else { e - 1 }
            };
            let bad = lu_solve(
                m,
                |q| Eq { a: *slot(0, q), b: *slot(1, q), c: *slot(2, q), d: *slot(3, q) },
                |q, u: URow<T>| {
                    *slot(4, q) = u.u1;
                    *slot(5, q) = u.u2;
                    *slot(6, q) = u.y;
                },
                |q| URow { u1: *slot(4, q), u2: *slot(5, q), y: *slot(6, q) },
                |q, v| *slot(6, q) = v,
                T::ZERO,
            );
            if bad != u32::MAX && !names(status, n, k) {
                report(status, fail_code(n, k, row(bad)));
            }
        }
        thread::sync_threads();
        let (xf, xl) = if len == 1 { (*slot(6, 0), *slot(6, 0)) } else { (*slot(6, 2 * j), *slot(6, 2 * j + 1)) };
        let mut xbad = u32::MAX;
        let mut put_x = |r: u32, v: T| {
            *x.add(at(r)) = v;
            if !v.is_finite() && xbad == u32::MAX {
                xbad = r;
            }
        };
        put_x(len - 1, xl);
        let mut r = len - 1;
        while r > 1 {
            r -= 1;
            put_x(r, spike_fill([*ws(2, r), *ws(3, r), *ws(4, r)], xf, xl));
        }
        put_x(0, xf);
        if xbad != u32::MAX && !names(status, n, k) {
            report(status, fail_code(n, k, f + xbad));
        }
    }
}
