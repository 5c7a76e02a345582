//! The partition method: chunked Thomas in shared memory, PCR on the reduced system.

use super::io::{names, report};
use super::lines::{Arrays, Lines, staging_order};
use super::{
    Dims, Eq, Row, chunk_interior, chunk_len, chunk_reduce, eq_finite, fail_code, normalize, partition_chunks,
    partition_pitch, partition_slot, partition_span, pcr_row, pivot_ok, reduced_len, reduced_row, reduced_slot,
};
use crate::device::{DeviceReal, shared, thread};
use core::intrinsics::{unchecked_div, unchecked_rem};

/// Elements a partition thread loads at once from a provider whose rows are a few loads each
/// ([`Lines::ROWS_AT_ONCE`]); one at a time from a provider that builds each row from many
/// loads of its own (an ADI sweep's rows: four at once take 102 registers a thread, and the
/// block no longer fits twice in a multiprocessor).
const PGROUP: u32 = 4;

const _: () = assert!(PGROUP == 4);

/// The partition method on coefficient arrays (the batched API).
///
/// # Safety
/// `a`..`x` hold every position `p.at(k, i)`, `x` may equal `d`; otherwise as
/// [`partition_lines`].
pub(super) unsafe fn partition<T: DeviceReal>(
    p: Dims,
    a: *const T,
    b: *const T,
    c: *const T,
    d: *const T,
    x: *mut T,
    status: *mut u64,
) {
    unsafe { partition_lines(p, &Arrays { p, a, b, c, d, x }, status) }
}

/// The partition method (see the comments of `entries.rs` and `mod.rs`) on the systems of a
/// row provider: p.n, p.batch, p.chunk and p.switch are read, its strides are not.
///
/// # Safety
/// `lines` answers for every k < batch, i < n, n ≥ 1; `status` is one `u64`.
/// `p.chunk` = lg ≤ 10, `blockDim.x` = `partition_chunks(n, lg)`, `blockDim.y = p.switch` ≥ 1, the grid
/// covers `batch` systems at `p.switch` per block, and the launch gives
/// `p.switch · partition_span(n, lg)` `T`s of dynamic shared memory.
pub(crate) unsafe fn partition_lines<T: DeviceReal, L: Lines<T>>(p: Dims, lines: &L, status: *mut u64) {
    let (n, lg, g) = (p.n, p.chunk, p.switch);
    let tx = thread::thread_idx_x();
    let ty = thread::thread_idx_y();
    let nx = thread::block_dim_x();
    let nt = nx * g;
    let lin = ty * nx + tx;
    let k0 = thread::block_idx_x() * g;
    // Systems of this block (≥ 1: the grid covers batch exactly in blocks of g).
    let gs = if p.batch - k0 < g { p.batch - k0 } else { g };
    let span = partition_span(n, lg) as usize;
    let arr = (partition_chunks(n, lg) * partition_pitch(lg)) as usize;
    let total = n * gs;
    // Element e of the block's staged systems → (system, row): rows fastest, or systems
    // fastest where the provider's systems are neighbours in memory (the interleaved layout),
    // so that consecutive threads touch consecutive words; a provider whose even and odd rows
    // differ has its even rows first. (Divisors are ≥ 1: unchecked, no panic path; no
    // division at all for one system per block.)
    let interleaved = lines.systems_fastest();
    // Element e of `per` a system → (system, index).
    let element = |e: u32, per: u32| unsafe {
        if gs == 1 {
            (0, e)
        } else if interleaved {
            (unchecked_rem(e, gs), unchecked_div(e, gs))
        } else {
            (unchecked_div(e, per), unchecked_rem(e, per))
        }
    };
    let split = |e: u32| {
        let (s, r) = element(e, n);
        (s, staging_order::<T, L>(n, r))
    };
    unsafe {
        let base = shared::dynamic::<T>();
        let sys = |s: u32| base.add(s as usize * span);

        // 1. Stage and normalise: `group` elements per thread in flight, or, from a provider
        // whose rows 2j and 2j + 1 share their loads, one such pair at a time.
        let stage = |s: u32, i: u32, q: Eq<T>| {
            // A bad coefficient is named at its row here, before the reduction spreads it
            // (the smallest failing row of a system wins).
            if !pivot_ok(q.b) || !eq_finite(q) {
                report(status, fail_code(n, k0 + s, i));
            }
            let r = normalize(q);
            let o = sys(s).add(partition_slot(n, i, lg) as usize);
            *o = r.a;
            *o.add(arr) = r.c;
            *o.add(2 * arr) = r.d;
        };
        if L::PAIRED {
            let pairs = n.div_ceil(2);
            let mut e = lin;
            while e < pairs * gs {
                let (s, j) = element(e, pairs);
                let (even, odd) = lines.pair(k0 + s, j, n);
                stage(s, 2 * j, even);
                if 2 * j + 1 < n {
                    stage(s, 2 * j + 1, odd);
                }
                e += nt;
            }
        } else {
            let group = if L::ROWS_AT_ONCE { PGROUP } else { 1 };
            let mut e0 = lin;
            while e0 < total {
                let mut eq = [Eq::<T>::IDENTITY; PGROUP as usize];
                let mut si = [(0u32, 0u32); PGROUP as usize];
                unroll!(u: u32 in [0, 1, 2, 3] => {
                    let e = e0 + u * nt;
                    if u < group && e < total {
                        let (s, i) = split(e);
                        si[u as usize] = (s, i);
                        eq[u as usize] = lines.row(k0 + s, i);
                    }
                });
                unroll!(u: u32 in [0, 1, 2, 3] => {
                    if u < group && e0 + u * nt < total {
                        let (s, i) = si[u as usize];
                        stage(s, i, eq[u as usize]);
                    }
                });
                e0 += group * nt;
            }
        }
        thread::sync_threads();

        // 2. Each thread reduces its chunk (tx) of its system (ty).
        let active = ty < gs;
        let sm = sys(ty);
        let get = |o: u32| {
            let o = o as usize;
            Row { a: *sm.add(o), c: *sm.add(o + arr), d: *sm.add(o + 2 * arr) }
        };
        let put = |o: u32, r: Row<T>| {
            let o = o as usize;
            *sm.add(o) = r.a;
            *sm.add(o + arr) = r.c;
            *sm.add(o + 2 * arr) = r.d;
        };
        let first = tx << lg;
        let o = tx * partition_pitch(lg);
        let len = chunk_len(n, lg, tx);
        // Failures after a staged b = 0 are its consequences (see `names`; the status word is
        // read only on a failure).
        if active {
            let bad = chunk_reduce(len, |r| get(o + r), |r, v| put(o + r, v));
            if bad != u32::MAX && !names(status, n, k0 + ty) {
                report(status, fail_code(n, k0 + ty, first + bad));
            }
        }
        thread::sync_threads();

        // 3. PCR on the reduced system (m ≤ 2·blockDim.x equations: two per thread), in place.
        let m = reduced_len(n, lg);
        let rslot = |q: u32| reduced_slot(n, lg, q);
        let mut t = 1;
        while t < m {
            let mut new = [Row::<T>::ZERO; 2];
            unroll!(u: u32 in [0, 1] => {
                let q = tx + u * nx;
                if active && q < m {
                    let l = if q >= t { get(rslot(q - t)) } else { Row::ZERO };
                    let r = if q + t < m { get(rslot(q + t)) } else { Row::ZERO };
                    let (v, pivot) = pcr_row(l, get(rslot(q)), r);
                    if !pivot_ok(pivot) && !names(status, n, k0 + ty) {
                        report(status, fail_code(n, k0 + ty, reduced_row(n, lg, q)));
                    }
                    new[u as usize] = v;
                }
            });
            thread::sync_threads();
            unroll!(u: u32 in [0, 1] => {
                let q = tx + u * nx;
                if active && q < m {
                    put(rslot(q), new[u as usize]);
                }
            });
            thread::sync_threads();
            t <<= 1;
        }

        // 4. Decoupled: x of each reduced equation is its d. Fill in the chunk's interior.
        if active && len > 2 {
            let xd = sm.add(2 * arr + o as usize);
            let (xf, xl) = (*xd, *xd.add(len as usize - 1));
            let mut r = 1;
            while r + 1 < len {
                *xd.add(r as usize) = chunk_interior(get(o + r), xf, xl);
                r += 1;
            }
        }
        thread::sync_threads();

        // 5. Write x with the staging's coalesced mapping.
        let mut e = lin;
        while e < total {
            let (s, i) = split(e);
            let xi = *sys(s).add(2 * arr + partition_slot(n, i, lg) as usize);
            lines.put(k0 + s, i, xi);
            if !xi.is_finite() && !names(status, n, k0 + s) {
                report(status, fail_code(n, k0 + s, i));
            }
            e += nt;
        }
    }
}
