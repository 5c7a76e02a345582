//! One level of the multi-block SPIKE (`mod.rs`: `spike_ends`, `spike_interior`): many blocks
//! per system, one thread per chunk of about `SPIKE_ROWS` rows, each block's rows staged
//! through shared memory so that the loads and stores of global memory are coalesced in the
//! contiguous layout (and for one system in the interleaved one).

use super::io::{load, report};
use super::{Dims, Eq, URow, fail_code, spike_ends, spike_interior, spike_slot, spike_span, spike_start};
use crate::device::{DeviceReal, shared, thread};

/// This block's system, its chunks `j0..j1`, its first row and rows, the distance between
/// its staged arrays.
struct Part {
    k: u32,
    j0: u32,
    j1: u32,
    r0: u32,
    rows: u32,
    span: usize,
}

/// A thread's chunk: its index, first row, rows, and first row's offset in the block.
struct Chunk {
    j: u32,
    f: u32,
    len: u32,
    l0: u32,
}

#[inline(always)]
fn part(p: &Dims) -> Part {
    let (n, chunks) = (p.n, p.chunk);
    let j0 = thread::block_idx_x() * thread::block_dim_x();
    let j1 = if chunks - j0 < thread::block_dim_x() { chunks } else { j0 + thread::block_dim_x() };
    let r0 = spike_start(n, chunks, j0);
    let span = spike_span(n, chunks, thread::block_dim_x()) as usize;
    Part { k: thread::block_idx_y(), j0, j1, r0, rows: spike_start(n, chunks, j1) - r0, span }
}

/// This thread's chunk, or None for a thread past the block's (last) chunks.
#[inline(always)]
fn chunk(p: &Dims, q: &Part) -> Option<Chunk> {
    let j = q.j0 + thread::thread_idx_x();
    if j >= q.j1 {
        return None;
    }
    let f = spike_start(p.n, p.chunk, j);
    Some(Chunk { j, f, len: spike_start(p.n, p.chunk, j + 1) - f, l0: f - q.r0 })
}

/// Rows a thread loads at once when staging (loads in flight before the first store).
const GROUP: u32 = 4;

const _: () = assert!(GROUP == 4);

/// Stage the block's rows (a, b, c, d at `spike_slot`, arrays `span` apart): consecutive
/// threads read consecutive rows, `GROUP` rows a thread in flight. Ends with a barrier.
#[inline(always)]
unsafe fn stage<T: DeviceReal>(p: &Dims, q: &Part, a: *const T, b: *const T, c: *const T, d: *const T, sh: *mut T) {
    let (span, nt) = (q.span, thread::block_dim_x());
    let mut i0 = thread::thread_idx_x();
    while i0 < q.rows {
        let mut eq = [Eq::<T>::IDENTITY; GROUP as usize];
        unroll!(u: u32 in [0, 1, 2, 3] => {
            let i = i0 + u * nt;
            if i < q.rows {
                let r = q.r0 + i;
                eq[u as usize] = unsafe { load(a, b, c, d, p.at(q.k, r), r, p.n) };
            }
        });
        unroll!(u: u32 in [0, 1, 2, 3] => {
            let i = i0 + u * nt;
            if i < q.rows {
                let (e, s) = (eq[u as usize], spike_slot(i) as usize);
                unsafe {
                    *sh.add(s) = e.a;
                    *sh.add(span + s) = e.b;
                    *sh.add(2 * span + s) = e.c;
                    *sh.add(3 * span + s) = e.d;
                }
            }
        });
        i0 += GROUP * nt;
    }
    thread::sync_threads();
}

/// Reduce every chunk of a level into the next level's system: `w` holds its a, b, c, d (each
/// 2·chunks·batch values, contiguous: system k at k·2·chunks), reduced equation 2j the first
/// and 2j+1 the last row of chunk j. `x` is not used.
///
/// # Safety
/// `a`, `b`, `c`, `d` hold every position `p.at(k, i)` for k < batch, i < n; `w` holds
/// 8·p.chunk·batch values and overlaps none of them; `status` is one `u64`. `p.chunk` ≥ 1 and
/// every chunk (`spike_start`) has at least two rows; the grid is
/// (⌈p.chunk / blockDim.x⌉, batch), and the launch gives 4·`spike_span(n, p.chunk,
/// blockDim.x)` `T`s of dynamic shared memory.
pub(super) unsafe fn spike_level_reduce<T: DeviceReal>(
    p: Dims,
    a: *const T,
    b: *const T,
    c: *const T,
    d: *const T,
    _x: *mut T,
    w: *mut T,
    status: *mut u64,
) {
    let q = part(&p);
    let span = q.span;
    unsafe {
        let sh = shared::dynamic::<T>();
        stage(&p, &q, a, b, c, d, sh);
        if let Some(Chunk { j, f, len, l0 }) = chunk(&p, &q) {
            let eq = |r: u32| {
                let s = spike_slot(l0 + r) as usize;
                Eq { a: *sh.add(s), b: *sh.add(span + s), c: *sh.add(2 * span + s), d: *sh.add(3 * span + s) }
            };
            let (first, last, bad) = spike_ends(len, eq);
            if bad != u32::MAX {
                report(status, fail_code(p.n, q.k, f + bad));
            }
            let m = 2 * p.chunk as usize;
            let mb = m * p.batch as usize;
            let o = q.k as usize * m + 2 * j as usize;
            let put = |r: usize, e: Eq<T>| {
                *w.add(r) = e.a;
                *w.add(mb + r) = e.b;
                *w.add(2 * mb + r) = e.c;
                *w.add(3 * mb + r) = e.d;
            };
            put(o, first);
            put(o + 1, last);
        }
    }
}

/// Fill in every chunk of a level from its solved ends: the next level's solution, in the
/// d array of `w` (as `spike_level_reduce` wrote it, then solved in place). x may be d.
///
/// # Safety
/// As `spike_level_reduce`'s, and `x` holds every position `p.at(k, i)`; it may equal `d`
/// (the block reads its rows of d before the barrier that precedes its first write of x, and
/// writes only its own rows) but overlaps nothing else.
pub(super) unsafe fn spike_level_fill<T: DeviceReal>(
    p: Dims,
    a: *const T,
    b: *const T,
    c: *const T,
    d: *const T,
    x: *mut T,
    w: *mut T,
    status: *mut u64,
) {
    let q = part(&p);
    let span = q.span;
    unsafe {
        let sh = shared::dynamic::<T>();
        stage(&p, &q, a, b, c, d, sh);
        if let Some(Chunk { j, f, len, l0 }) = chunk(&p, &q) {
            let at = |r: u32, arr: usize| sh.add(arr * span + spike_slot(l0 + r) as usize);
            let m = 2 * p.chunk as usize;
            let o = 3 * m * p.batch as usize + q.k as usize * m + 2 * j as usize;
            let (xf, xl) = (*w.add(o), *w.add(o + 1));
            if len > 2 {
                // U's rows go where a, b, c of their row were (read by then), x where d was.
                let bad = spike_interior(
                    len,
                    |r| Eq { a: *at(r, 0), b: *at(r, 1), c: *at(r, 2), d: *at(r, 3) },
                    xf,
                    xl,
                    |r, u: URow<T>| (*at(r, 0), *at(r, 1), *at(r, 2)) = (u.u1, u.u2, u.y),
                    |r| URow { u1: *at(r, 0), u2: *at(r, 1), y: *at(r, 2) },
                    |r, v| *at(r, 3) = v,
                );
                if bad != u32::MAX {
                    report(status, fail_code(p.n, q.k, f + bad));
                }
            }
            *at(0, 3) = xf;
            *at(len - 1, 3) = xl;
        }
        thread::sync_threads();
        // x leaves as d came in; the first non-finite row of each thread is reported (the
        // status word keeps the first of the system).
        let mut i = thread::thread_idx_x();
        let mut reported = false;
        while i < q.rows {
            let v = *sh.add(3 * span + spike_slot(i) as usize);
            *x.add(p.at(q.k, q.r0 + i)) = v;
            if !v.is_finite() && !reported {
                report(status, fail_code(p.n, q.k, q.r0 + i));
                reported = true;
            }
            i += thread::block_dim_x();
        }
    }
}
