//! Tridiagonal kernels.
//!
//! - `tridiag_thomas`: one thread per system (the thesis's S1), any layout through `Dims`
//!   (coalesced in the interleaved layout, where consecutive threads read consecutive words);
//!   rows are loaded in groups of `SWEEP_GROUP` (8) so that a thread keeps several loads in
//!   flight (`sweep_forward`, `sweep_back`, shared with the twisted kernel).
//! - `tridiag_thomas_contiguous`: one thread per system for the contiguous layout, coalesced
//!   by staging: each warp loads a chunk of `2^chunk` rows of its 32 systems cooperatively
//!   (consecutive lanes read consecutive words of one system, whole 32-byte sectors) into a
//!   padded shared tile, and each lane then eliminates its own system's rows from the tile.
//!   c' and d' go to the workspace in the interleaved layout (coalesced by construction); the
//!   back substitution stages x through the tile again to write it contiguously.
//! - `tridiag_cr`, `tridiag_pcr`, `tridiag_cr_pcr`, `tridiag_pcr_thomas`: one block per system
//!   with the system in shared memory (4n words: a, b, c, d; x replaces d). CR as in
//!   Zhang–Cohen–Owens 2010 generalised to any n (reduce while 2s ≤ n; the equations left at
//!   stride s are the i with s | i+1); PCR with each thread holding up to `PCR_MAX_PER_THREAD`
//!   equations in registers between the read and write barriers of a step; CR-PCR reduces
//!   with CR down to `switch` equations and solves those with PCR; PCR-Thomas runs `switch`
//!   PCR steps, which split the system into 2^switch independent interleaved subsystems, then
//!   one thread per subsystem solves it by Thomas in place in shared memory.
//!
//! - `tridiag_thomas_twisted`: Thomas from both ends (a twisted factorisation), two threads
//!   per system: `threadIdx.y = 0` eliminates rows 0..n/2 downwards, `threadIdx.y = 1` rows
//!   n−1..n/2 upwards, they meet in the middle through shared memory (one barrier) and each
//!   back-substitutes its half. Twice the threads, so twice the loads in flight, of
//!   `tridiag_thomas` for the same traffic (9 words per unknown through the workspace).
//! - `tridiag_partition`: the partition method (see `mod.rs`), `blockDim.y` systems per
//!   block, `blockDim.x` threads per system, each owning a chunk of `2^chunk` rows. The
//!   systems are staged in shared memory with coalesced loads and normalised on the way in
//!   (3 values per row), each thread reduces its chunk, PCR solves the reduced system (two
//!   equations per thread), each thread fills in its chunk, and x leaves coalesced. Global
//!   traffic is the minimum 5 words per unknown; barriers: 3 + 2·⌈log2(2n/2^chunk)⌉.
//!
//! Every kernel reads `a`, `b`, `c` through the read-only cache and `d` with plain loads, so
//! `x` may be `d` itself (in-place solve): a kernel reads all of its `d` values before it
//! writes the same positions of `x`. Breakdown is reported through `status` (see `mod.rs`).

use super::{
    Dims, Eq, PCR_MAX_PER_THREAD, Row, back_substitute, chunk_interior, chunk_len, chunk_reduce, eliminate, fail_code,
    normalize, partition_pitch, partition_slot, partition_span, pcr_row, pivot_ok, reduced_len, reduced_row,
    thomas_row, twist,
};
use crate::device::{DeviceReal, shared, thread};
use core::arch::asm;
use core::intrinsics::{unchecked_div, unchecked_rem};

/// `__syncwarp()`: every lane of the warp must reach it.
#[inline(always)]
fn sync_warp() {
    unsafe { asm!("bar.warp.sync -1;", options(nostack)) }
}

/// Record a failure: `status = max(status, code)` (codes are `!(k·n + i)`).
#[inline(always)]
unsafe fn report(status: *mut u64, code: u64) {
    unsafe {
        asm!("{{ .reg .b64 %g; cvta.to.global.u64 %g, {p}; red.global.max.u64 [%g], {v}; }}",
            p = in(reg64) status, v = in(reg64) code, options(nostack));
    }
}

/// Whether the status word already names a row of system `k`. A kernel that found a failure
/// before its last barrier reports it then; after the barrier, the NaNs it spread through the
/// rest of the system are not reported over it (the first failure names the row).
#[inline(always)]
unsafe fn names(status: *mut u64, n: u32, k: u32) -> bool {
    let v: u64;
    unsafe {
        asm!("{{ .reg .b64 %g; cvta.to.global.u64 %g, {p}; ld.volatile.global.u64 {v}, [%g]; }}",
            p = in(reg64) status, v = out(reg64) v, options(nostack, readonly));
    }
    v != 0 && (!v).wrapping_sub(k as u64 * n as u64) < n as u64
}

/// Equation i of a system at global offset g; `a_0` and `c_{n−1}` read as zero.
#[inline(always)]
unsafe fn load<T: DeviceReal>(a: *const T, b: *const T, c: *const T, d: *const T, g: usize, i: u32, n: u32) -> Eq<T> {
    unsafe {
        Eq {
            a: if i == 0 { T::ZERO } else { T::ldg(a.add(g)) },
            b: T::ldg(b.add(g)),
            c: if i + 1 == n { T::ZERO } else { T::ldg(c.add(g)) },
            d: *d.add(g),
        }
    }
}

// ----------------------------------------------------------------- Thomas ----

/// Rows the contiguous Thomas kernel's back substitution loads at once.
const GROUP: u32 = 4;

// The group loops below list 0..GROUP explicitly.
const _: () = assert!(GROUP == 4);

/// Rows a one-thread-per-system sweep (Thomas, twisted Thomas) loads at once: a thread has no
/// other work to hide load latency behind, so it issues a group's loads together.
const SWEEP_GROUP: u32 = 8;

// The sweep loops below list 0..SWEEP_GROUP explicitly.
const _: () = assert!(SWEEP_GROUP == 8);

/// Thomas's forward elimination over local rows 0..cnt of one system: local row r is system
/// row `row(r)` at offset `at(r)`; with `flip` its a and c trade places (an upward sweep, whose
/// "c" couples the row above). c' goes to `w`, d' to `x`. Returns the last row's (c', d') and
/// the system row of the first failing pivot (`u32::MAX` if none).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn sweep_forward<T: DeviceReal>(
    (a, b, c, d): (*const T, *const T, *const T, *const T),
    x: *mut T,
    w: *mut T,
    n: u32,
    cnt: u32,
    row: impl Fn(u32) -> u32,
    at: impl Fn(u32) -> usize,
    flip: bool,
) -> (T, T, u32) {
    let (mut cp, mut dp) = (T::ZERO, T::ZERO);
    let mut bad = u32::MAX;
    let mut r = 0;
    while r < cnt {
        let m = if cnt - r < SWEEP_GROUP { cnt - r } else { SWEEP_GROUP };
        let mut e = [Eq::<T>::IDENTITY; SWEEP_GROUP as usize];
        unroll!(q in [0, 1, 2, 3, 4, 5, 6, 7] => {
            if q < m {
                let eq = unsafe { load(a, b, c, d, at(r + q), row(r + q), n) };
                e[q as usize] = if flip { Eq { a: eq.c, b: eq.b, c: eq.a, d: eq.d } } else { eq };
            }
        });
        unroll!(q in [0, 1, 2, 3, 4, 5, 6, 7] => {
            if q < m {
                let (c1, d1, pivot) = thomas_row(e[q as usize], cp, dp);
                if !pivot_ok(pivot) && bad == u32::MAX {
                    bad = row(r + q);
                }
                unsafe {
                    *w.add(at(r + q)) = c1;
                    *x.add(at(r + q)) = d1;
                }
                cp = c1;
                dp = d1;
            }
        });
        r += m;
    }
    (cp, dp, bad)
}

/// Back substitution `x_r = d'_r − c'_r·x_{r+1}` over local rows cnt−2 down to 0 (d' in `x`,
/// c' in `w`), from `xn` = x of local row cnt−1. Returns the system row of the last (nearest
/// local row 0) non-finite x, or `u32::MAX`.
#[inline(always)]
unsafe fn sweep_back<T: DeviceReal>(
    x: *mut T,
    w: *const T,
    cnt: u32,
    mut xn: T,
    row: impl Fn(u32) -> u32,
    at: impl Fn(u32) -> usize,
) -> u32 {
    let mut xbad = u32::MAX;
    let mut hi = cnt.saturating_sub(1);
    while hi > 0 {
        let m = if hi < SWEEP_GROUP { hi } else { SWEEP_GROUP };
        let mut xs = [T::ZERO; SWEEP_GROUP as usize];
        let mut ws = [T::ZERO; SWEEP_GROUP as usize];
        unroll!(q in [0, 1, 2, 3, 4, 5, 6, 7] => {
            if q < m {
                unsafe {
                    xs[q as usize] = *x.add(at(hi - 1 - q));
                    ws[q as usize] = *w.add(at(hi - 1 - q));
                }
            }
        });
        unroll!(q in [0, 1, 2, 3, 4, 5, 6, 7] => {
            if q < m {
                let xi = xs[q as usize] - ws[q as usize] * xn;
                unsafe { *x.add(at(hi - 1 - q)) = xi };
                if !xi.is_finite() {
                    xbad = row(hi - 1 - q);
                }
                xn = xi;
            }
        });
        hi -= m;
    }
    xbad
}

/// One thread per system, any layout. `w` holds n·batch values (c'), at the positions of x.
///
/// # Safety
/// `a`, `b`, `c`, `d`, `x`, `w` hold every position `p.at(k, i)` for k < batch, i < n, n ≥ 1;
/// `x` may equal `d` but overlaps nothing else; `status` is one `u64`; the grid covers
/// `batch` threads.
unsafe fn thomas<T: DeviceReal>(
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
    let row = |r: u32| r;
    let at = |r: u32| p.at(k, r);
    unsafe {
        // x_{n−1} = d'_{n−1} (c'_{n−1} = 0), already in x.
        let (_, xn, mut bad) = sweep_forward((a, b, c, d), x, w, n, n, row, at, false);
        let mut xbad = sweep_back(x, w, n, xn, row, at);
        if xbad == u32::MAX && !xn.is_finite() {
            xbad = n - 1;
        }
        // The first failing pivot names the row; else the first non-finite x.
        if bad == u32::MAX {
            bad = xbad;
        }
        if bad != u32::MAX {
            report(status, fail_code(n, k, bad));
        }
    }
}

/// One thread per system in the contiguous layout, loads and stores coalesced through a
/// per-warp shared tile (see the module comment). `w` holds 2·n·batch values: c' then d', each
/// interleaved (`i·batch + k`).
///
/// # Safety
/// Contiguous layout: `a`, `b`, `c`, `d`, `x` hold n·batch values, n ≥ 1; `x` may equal `d`;
/// `w` holds 2·n·batch; `status` one `u64`. The block is a multiple of 32 threads, the grid
/// covers `batch` threads, and the launch gives 4·32·(2^chunk + 1) `T`s of dynamic shared
/// memory per warp of the block.
unsafe fn thomas_contiguous<T: DeviceReal>(
    p: Dims,
    a: *const T,
    b: *const T,
    c: *const T,
    d: *const T,
    x: *mut T,
    w: *mut T,
    status: *mut u64,
) {
    let tid = thread::thread_idx_x();
    let lane = tid % 32;
    let warp = tid / 32;
    let sys0 = thread::block_idx_x() * thread::block_dim_x() + warp * 32;
    if sys0 >= p.batch {
        return; // the whole warp: no lane of it has a system
    }
    let k = sys0 + lane;
    let active = k < p.batch;
    let (n, batch) = (p.n, p.batch);
    let shift = p.chunk;
    let cw = 1u32 << shift;
    let pitch = cw + 1;
    let tile = 32 * pitch as usize;
    let nb = n as usize * batch as usize;
    unsafe {
        let ta = shared::dynamic::<T>().add(warp as usize * 4 * tile);
        let (tb, tc, td) = (ta.add(tile), ta.add(2 * tile), ta.add(3 * tile));
        let (wc, wd) = (w, w.add(nb));
        let (mut cp, mut dp) = (T::ZERO, T::ZERO);
        let mut bad = u32::MAX;
        let mut r0 = 0;
        while r0 < n {
            // Stage rows r0.. of the warp's 32 systems: element e of the chunk is row e % cw of
            // system e / cw, so a warp's 32 loads cover 32/cw whole runs of cw words.
            let mut e = lane;
            while e < 32 * cw {
                let (s, r) = (e >> shift, e & (cw - 1));
                let (ks, i) = (sys0 + s, r0 + r);
                if ks < batch && i < n {
                    let g = ks as usize * n as usize + i as usize;
                    let t = (s * pitch + r) as usize;
                    let eq = load(a, b, c, d, g, i, n);
                    *ta.add(t) = eq.a;
                    *tb.add(t) = eq.b;
                    *tc.add(t) = eq.c;
                    *td.add(t) = eq.d;
                }
                e += 32;
            }
            sync_warp();
            if active {
                let rows = if n - r0 < cw { n - r0 } else { cw };
                let mut r = 0;
                while r < rows {
                    let t = (lane * pitch + r) as usize;
                    let eq = Eq { a: *ta.add(t), b: *tb.add(t), c: *tc.add(t), d: *td.add(t) };
                    let (c1, d1, pivot) = thomas_row(eq, cp, dp);
                    if !pivot_ok(pivot) && bad == u32::MAX {
                        bad = r0 + r;
                    }
                    let o = (r0 + r) as usize * batch as usize + k as usize;
                    *wc.add(o) = c1;
                    *wd.add(o) = d1;
                    cp = c1;
                    dp = d1;
                    r += 1;
                }
            }
            sync_warp();
            r0 += cw;
        }
        // Back substitution, chunk by chunk from the end (c'_{n−1} = 0, so x_{n−1} = d'_{n−1}).
        let mut xn = T::ZERO;
        let mut xbad = u32::MAX;
        let mut chunk = (n + cw - 1) >> shift;
        while chunk > 0 {
            chunk -= 1;
            let r0 = chunk << shift;
            if active {
                let rows = if n - r0 < cw { n - r0 } else { cw };
                let o = |r: u32| (r0 + r) as usize * batch as usize + k as usize;
                // Rows hi−1, hi−2, … in groups whose loads are issued together.
                let mut hi = rows;
                while hi > 0 {
                    let cnt = if hi < GROUP { hi } else { GROUP };
                    let mut cs = [T::ZERO; GROUP as usize];
                    let mut ds = [T::ZERO; GROUP as usize];
                    unroll!(q in [0, 1, 2, 3] => {
                        if q < cnt {
                            cs[q as usize] = *wc.add(o(hi - 1 - q));
                            ds[q as usize] = *wd.add(o(hi - 1 - q));
                        }
                    });
                    unroll!(q in [0, 1, 2, 3] => {
                        if q < cnt {
                            let r = hi - 1 - q;
                            let xi = ds[q as usize] - cs[q as usize] * xn;
                            if !xi.is_finite() {
                                xbad = r0 + r;
                            }
                            *ta.add((lane * pitch + r) as usize) = xi;
                            xn = xi;
                        }
                    });
                    hi -= cnt;
                }
            }
            sync_warp();
            let mut e = lane;
            while e < 32 * cw {
                let (s, r) = (e >> shift, e & (cw - 1));
                let (ks, i) = (sys0 + s, r0 + r);
                if ks < batch && i < n {
                    *x.add(ks as usize * n as usize + i as usize) = *ta.add((s * pitch + r) as usize);
                }
                e += 32;
            }
            sync_warp();
        }
        if bad == u32::MAX {
            bad = xbad;
        }
        if active && bad != u32::MAX {
            report(status, fail_code(n, k, bad));
        }
    }
}

/// Thomas from both ends, two threads per system (see the module comment). `w` holds n·batch
/// values (c' of the upper half, a'' of the lower half), at the positions of x.
///
/// # Safety
/// `a`, `b`, `c`, `d`, `x`, `w` hold every position `p.at(k, i)` for k < batch, i < n, n ≥ 1;
/// `x` may equal `d` but overlaps nothing else; `status` is one `u64`. `blockDim.y = 2`, the
/// grid's x covers `batch` systems at `blockDim.x` per block, and the launch gives 4·blockDim.x
/// `T`s of dynamic shared memory.
unsafe fn thomas_twisted<T: DeviceReal>(
    p: Dims,
    a: *const T,
    b: *const T,
    c: *const T,
    d: *const T,
    x: *mut T,
    w: *mut T,
    status: *mut u64,
) {
    let lane = thread::thread_idx_x();
    let side = thread::thread_idx_y();
    let bdx = thread::block_dim_x();
    let k = thread::block_idx_x() * bdx + lane;
    let active = k < p.batch;
    let n = p.n;
    let half = n / 2;
    // Side 0 owns rows 0..half (local row r = row r), side 1 rows n−1 down to half (local row
    // r = row n−1−r): each side runs plain Thomas in its local order, with the coupling
    // towards the middle as "c".
    let cnt = if side == 0 { half } else { n - half };
    let row = |r: u32| if side == 0 { r } else { n - 1 - r };
    let at = |r: u32| p.at(k, row(r));
    unsafe {
        let (mut cp, mut dp, mut bad) = (T::ZERO, T::ZERO, u32::MAX);
        if active {
            (cp, dp, bad) = sweep_forward((a, b, c, d), x, w, n, cnt, row, at, side == 1);
            if bad != u32::MAX {
                report(status, fail_code(n, k, bad));
            }
        }
        // Each side's last row: x_me + cp·x_other = dp (0 = 0 for a side without rows).
        let sh = shared::dynamic::<T>();
        let slot = |s: u32, v: u32| ((2 * s + v) * bdx + lane) as usize;
        *sh.add(slot(side, 0)) = cp;
        *sh.add(slot(side, 1)) = dp;
        thread::sync_threads();
        let (co, dq) = (*sh.add(slot(1 - side, 0)), *sh.add(slot(1 - side, 1)));
        if !active || cnt == 0 {
            return;
        }
        let (xn, pivot) = twist(cp, dp, co, dq);
        if !pivot_ok(pivot) && bad == u32::MAX {
            bad = row(cnt - 1);
            report(status, fail_code(n, k, bad));
        }
        *x.add(at(cnt - 1)) = xn;
        let mut xbad = sweep_back(x, w, cnt, xn, row, at);
        if xbad == u32::MAX && !xn.is_finite() {
            xbad = row(cnt - 1);
        }
        // A pivot failure (this side's or, before the barrier, the other's) was reported
        // already; else the first non-finite x, if any.
        if bad == u32::MAX && xbad != u32::MAX && !names(status, n, k) {
            report(status, fail_code(n, k, xbad));
        }
    }
}

// ------------------------------------------------------ partition method ----

/// Elements a partition thread loads at once.
const PGROUP: u32 = 4;

const _: () = assert!(PGROUP == 4);

/// The partition method (see the module comment and `mod.rs`).
///
/// # Safety
/// `a`..`x` hold every position `p.at(k, i)`, n ≥ 1, `x` may equal `d`; `status` is one `u64`.
/// `p.chunk` = lg ≤ 10, `blockDim.x` = ⌈n / 2^lg⌉, `blockDim.y = p.switch` ≥ 1, the grid
/// covers `batch` systems at `p.switch` per block, and the launch gives
/// `p.switch · partition_span(n, lg)` `T`s of dynamic shared memory.
unsafe fn partition<T: DeviceReal>(
    p: Dims,
    a: *const T,
    b: *const T,
    c: *const T,
    d: *const T,
    x: *mut T,
    status: *mut u64,
) {
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
    let arr = (n.div_ceil(1 << lg) * partition_pitch(lg)) as usize;
    let total = n * gs;
    // Element e of the block's staged systems → (system, row): rows fastest in the
    // contiguous layout, systems fastest in the interleaved one, so that consecutive threads
    // touch consecutive words. (Divisors are ≥ 1: unchecked, no panic path; no division at
    // all for one system per block.)
    let interleaved = p.elem_stride != 1;
    let split = |e: u32| unsafe {
        if gs == 1 {
            (0, e)
        } else if interleaved {
            (unchecked_rem(e, gs), unchecked_div(e, gs))
        } else {
            (unchecked_div(e, n), unchecked_rem(e, n))
        }
    };
    unsafe {
        let base = shared::dynamic::<T>();
        let sys = |s: u32| base.add(s as usize * span);

        // 1. Stage and normalise, PGROUP elements per thread in flight.
        let mut e0 = lin;
        while e0 < total {
            let mut eq = [Eq::<T>::IDENTITY; PGROUP as usize];
            let mut si = [(0u32, 0u32); PGROUP as usize];
            unroll!(u in [0, 1, 2, 3] => {
                let e = e0 + u * nt;
                if e < total {
                    let (s, i) = split(e);
                    si[u as usize] = (s, i);
                    eq[u as usize] = load(a, b, c, d, p.at(k0 + s, i), i, n);
                }
            });
            unroll!(u in [0, 1, 2, 3] => {
                if e0 + u * nt < total {
                    let (s, i) = si[u as usize];
                    let q = eq[u as usize];
                    if !pivot_ok(q.b) {
                        report(status, fail_code(n, k0 + s, i));
                    }
                    let r = normalize(q);
                    let o = sys(s).add(partition_slot(i, lg) as usize);
                    *o = r.a;
                    *o.add(arr) = r.c;
                    *o.add(2 * arr) = r.d;
                }
            });
            e0 += PGROUP * nt;
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
        let rslot = |q: u32| partition_slot(reduced_row(n, lg, q), lg);
        let mut t = 1;
        while t < m {
            let mut new = [Row::<T>::ZERO; 2];
            unroll!(u in [0, 1] => {
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
            unroll!(u in [0, 1] => {
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
            let xi = *sys(s).add(2 * arr + partition_slot(i, lg) as usize);
            *x.add(p.at(k0 + s, i)) = xi;
            if !xi.is_finite() && !names(status, n, k0 + s) {
                report(status, fail_code(n, k0 + s, i));
            }
            e += nt;
        }
    }
}

// ------------------------------------------------- shared-memory family ----

/// The block's system in shared memory: four arrays of n.
#[derive(Clone, Copy)]
struct Smem<T> {
    a: *mut T,
    b: *mut T,
    c: *mut T,
    d: *mut T,
}

impl<T: DeviceReal> Smem<T> {
    #[inline(always)]
    unsafe fn new(n: u32) -> Smem<T> {
        let a = shared::dynamic::<T>();
        let n = n as usize;
        unsafe { Smem { a, b: a.add(n), c: a.add(2 * n), d: a.add(3 * n) } }
    }
    #[inline(always)]
    unsafe fn get(&self, i: u32) -> Eq<T> {
        let i = i as usize;
        unsafe { Eq { a: *self.a.add(i), b: *self.b.add(i), c: *self.c.add(i), d: *self.d.add(i) } }
    }
    #[inline(always)]
    unsafe fn put(&self, i: u32, e: Eq<T>) {
        let i = i as usize;
        unsafe {
            *self.a.add(i) = e.a;
            *self.b.add(i) = e.b;
            *self.c.add(i) = e.c;
            *self.d.add(i) = e.d;
        }
    }
}

// The per-thread loops below list 0..PCR_MAX_PER_THREAD explicitly.
const _: () = assert!(PCR_MAX_PER_THREAD == 8);

/// Up to `steps` PCR steps (fewer when the equations decouple first) on the `m` equations
/// `j` at shared index `(j+1)·s − 1`; equation j couples j ± t at the step of stride t. Each
/// thread holds equations `tid + r·blockDim` (r < rpt) in registers between the barriers.
/// Only the first `SLOTS` (≤ `PCR_MAX_PER_THREAD`) register slots are compiled in.
/// Returns the stride reached (≥ m when fully decoupled).
#[inline(always)]
unsafe fn pcr_steps<T: DeviceReal, const SLOTS: u32>(sm: Smem<T>, m: u32, s: u32, steps: u32, rpt: u32) -> u32 {
    let tid = thread::thread_idx_x();
    let bd = thread::block_dim_x();
    let at = |j: u32| (j + 1) * s - 1;
    let mut t = 1;
    let mut k = 0;
    while t < m && k < steps {
        let mut new = [Eq::<T>::IDENTITY; PCR_MAX_PER_THREAD as usize];
        unroll!(r in [0, 1, 2, 3, 4, 5, 6, 7] => {
            let j = tid + r * bd;
            if r < SLOTS && r < rpt && j < m {
                unsafe {
                    let l = if j >= t { sm.get(at(j - t)) } else { Eq::IDENTITY };
                    let rr = if j + t < m { sm.get(at(j + t)) } else { Eq::IDENTITY };
                    new[r as usize] = eliminate(l, sm.get(at(j)), rr);
                }
            }
        });
        thread::sync_threads();
        unroll!(r in [0, 1, 2, 3, 4, 5, 6, 7] => {
            let j = tid + r * bd;
            if r < SLOTS && r < rpt && j < m {
                unsafe { sm.put(at(j), new[r as usize]) };
            }
        });
        thread::sync_threads();
        t <<= 1;
        k += 1;
    }
    t
}

const CR: u32 = 0;
const PCR: u32 = 1;
const CR_PCR: u32 = 2;
const PCR_THOMAS: u32 = 3;

/// One block per system (see the module comment); `MODE` picks the algorithm.
///
/// # Safety
/// `a`..`x` hold every position `p.at(k, i)`, n ≥ 1, `x` may equal `d`; `status` is one `u64`.
/// The grid is `batch` blocks; the launch gives 4n `T`s of dynamic shared memory. PCR phases
/// need `rpt·blockDim ≥` the equations they solve (n for PCR and PCR-Thomas, with
/// `rpt = p.chunk ≤ PCR_MAX_PER_THREAD`); CR-PCR needs `switch ≤ blockDim`; PCR-Thomas needs
/// `2^switch ≤ blockDim`.
#[inline(always)]
unsafe fn shared_solve<T: DeviceReal, const MODE: u32>(
    p: Dims,
    a: *const T,
    b: *const T,
    c: *const T,
    d: *const T,
    x: *mut T,
    status: *mut u64,
) {
    let k = thread::block_idx_x();
    let tid = thread::thread_idx_x();
    let bd = thread::block_dim_x();
    let n = p.n;
    unsafe {
        let sm = Smem::<T>::new(n);
        let mut i = tid;
        while i < n {
            sm.put(i, load(a, b, c, d, p.at(k, i), i, n));
            i += bd;
        }
        thread::sync_threads();

        // CR forward reduction: at stride s, equations i ≡ 2s−1 (mod 2s) eliminate their
        // neighbours i ± s, which nobody writes at this level, so it runs in place.
        // Strides are powers of two: s = 2^ls (shifts, not divisions, which would bring
        // divide-by-zero panic paths).
        let mut ls = 0u32;
        let mut s = 1;
        if MODE == CR || MODE == CR_PCR {
            let limit = if MODE == CR { 1 } else { p.switch };
            while 2 * s <= n && (n >> ls) > limit {
                let s2 = 2 * s;
                let count = n >> (ls + 1);
                let mut j = tid;
                while j < count {
                    let i = (j + 1) * s2 - 1;
                    let r = if i + s < n { sm.get(i + s) } else { Eq::IDENTITY };
                    sm.put(i, eliminate(sm.get(i - s), sm.get(i), r));
                    j += bd;
                }
                thread::sync_threads();
                s = s2;
                ls += 1;
            }
        }

        // The reduced system: m equations at stride s.
        let m = n >> ls;
        if MODE == CR {
            if tid == 0 {
                let e = sm.get(s - 1);
                *sm.d.add((s - 1) as usize) = e.d / e.b;
            }
        } else if MODE == PCR_THOMAS {
            pcr_steps::<T, PCR_MAX_PER_THREAD>(sm, m, 1, p.switch, p.chunk);
            // Subsystem q = {q, q + P, q + 2P, ...}: Thomas in place (c', d' over c, d).
            let pp = 1u32 << p.switch;
            if tid < pp && tid < m {
                let (mut cp, mut dp) = (T::ZERO, T::ZERO);
                let mut j = tid;
                let mut last = tid;
                while j < m {
                    let (c1, d1, _) = thomas_row(sm.get(j), cp, dp);
                    *sm.c.add(j as usize) = c1;
                    *sm.d.add(j as usize) = d1;
                    cp = c1;
                    dp = d1;
                    last = j;
                    j += pp;
                }
                let mut xn = dp;
                let mut j = last;
                while j >= pp {
                    j -= pp;
                    let xj = *sm.d.add(j as usize) - *sm.c.add(j as usize) * xn;
                    *sm.d.add(j as usize) = xj;
                    xn = xj;
                }
            }
        } else {
            // CR-PCR's reduced system has at most `switch ≤ blockDim` equations: one slot.
            if MODE == PCR {
                pcr_steps::<T, PCR_MAX_PER_THREAD>(sm, m, s, u32::MAX, p.chunk);
            } else {
                pcr_steps::<T, 1>(sm, m, s, u32::MAX, 1);
            }
            let mut j = tid;
            while j < m {
                let at = ((j + 1) * s - 1) as usize;
                *sm.d.add(at) /= *sm.b.add(at);
                j += bd;
            }
        }
        thread::sync_threads();

        // CR back substitution: at stride s, x_i for i ≡ s−1 (mod 2s) from x_{i±s}.
        if MODE == CR || MODE == CR_PCR {
            while ls > 0 {
                let s2 = s;
                ls -= 1;
                s = 1 << ls;
                let count = (n + s) >> (ls + 1);
                let mut j = tid;
                while j < count {
                    let i = s - 1 + j * s2;
                    let xl = if i >= s { *sm.d.add((i - s) as usize) } else { T::ZERO };
                    let xr = if i + s < n { *sm.d.add((i + s) as usize) } else { T::ZERO };
                    *sm.d.add(i as usize) = back_substitute(sm.get(i), xl, xr);
                    j += bd;
                }
                thread::sync_threads();
            }
        }

        let mut bad = u32::MAX;
        let mut i = tid;
        while i < n {
            let xi = *sm.d.add(i as usize);
            if !xi.is_finite() && bad == u32::MAX {
                bad = i;
            }
            *x.add(p.at(k, i)) = xi;
            i += bd;
        }
        if bad != u32::MAX {
            report(status, fail_code(n, k, bad));
        }
    }
}

unsafe fn cr<T: DeviceReal>(p: Dims, a: *const T, b: *const T, c: *const T, d: *const T, x: *mut T, status: *mut u64) {
    unsafe { shared_solve::<T, CR>(p, a, b, c, d, x, status) }
}
unsafe fn pcr<T: DeviceReal>(p: Dims, a: *const T, b: *const T, c: *const T, d: *const T, x: *mut T, status: *mut u64) {
    unsafe { shared_solve::<T, PCR>(p, a, b, c, d, x, status) }
}
unsafe fn cr_pcr<T: DeviceReal>(
    p: Dims,
    a: *const T,
    b: *const T,
    c: *const T,
    d: *const T,
    x: *mut T,
    status: *mut u64,
) {
    unsafe { shared_solve::<T, CR_PCR>(p, a, b, c, d, x, status) }
}
unsafe fn pcr_thomas<T: DeviceReal>(
    p: Dims,
    a: *const T,
    b: *const T,
    c: *const T,
    d: *const T,
    x: *mut T,
    status: *mut u64,
) {
    unsafe { shared_solve::<T, PCR_THOMAS>(p, a, b, c, d, x, status) }
}

stamp! {
    thomas => tridiag_thomas_f32, tridiag_thomas_f64 (p: Dims, a: *const T, b: *const T, c: *const T, d: *const T, x: *mut T, w: *mut T, status: *mut u64);
    thomas_contiguous => tridiag_thomas_contiguous_f32, tridiag_thomas_contiguous_f64 (p: Dims, a: *const T, b: *const T, c: *const T, d: *const T, x: *mut T, w: *mut T, status: *mut u64);
    thomas_twisted => tridiag_thomas_twisted_f32, tridiag_thomas_twisted_f64 (p: Dims, a: *const T, b: *const T, c: *const T, d: *const T, x: *mut T, w: *mut T, status: *mut u64);
    partition => tridiag_partition_f32, tridiag_partition_f64 (p: Dims, a: *const T, b: *const T, c: *const T, d: *const T, x: *mut T, status: *mut u64);
    cr => tridiag_cr_f32, tridiag_cr_f64 (p: Dims, a: *const T, b: *const T, c: *const T, d: *const T, x: *mut T, status: *mut u64);
    pcr => tridiag_pcr_f32, tridiag_pcr_f64 (p: Dims, a: *const T, b: *const T, c: *const T, d: *const T, x: *mut T, status: *mut u64);
    cr_pcr => tridiag_cr_pcr_f32, tridiag_cr_pcr_f64 (p: Dims, a: *const T, b: *const T, c: *const T, d: *const T, x: *mut T, status: *mut u64);
    pcr_thomas => tridiag_pcr_thomas_f32, tridiag_pcr_thomas_f64 (p: Dims, a: *const T, b: *const T, c: *const T, d: *const T, x: *mut T, status: *mut u64);
}
