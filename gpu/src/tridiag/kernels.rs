//! Tridiagonal kernels.
//!
//! - `tridiag_thomas`: one thread per system (the thesis's S1), any layout through `Dims`
//!   (coalesced in the interleaved layout, where consecutive threads read consecutive words);
//!   rows are loaded in groups of `GROUP` so that a thread keeps several loads in flight.
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
//! Every kernel reads `a`, `b`, `c` through the read-only cache and `d` with plain loads, so
//! `x` may be `d` itself (in-place solve): a kernel reads all of its `d` values before it
//! writes the same positions of `x`. Breakdown is reported through `status` (see `mod.rs`).

use super::{Dims, Eq, PCR_MAX_PER_THREAD, back_substitute, eliminate, fail_code, pivot_ok, thomas_row};
use crate::device::{DeviceReal, shared, thread};
use core::arch::asm;

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

/// Rows a Thomas thread loads at once.
const GROUP: u32 = 4;

// The group loops below list 0..GROUP explicitly.
const _: () = assert!(GROUP == 4);

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
    let base = p.at(k, 0);
    let step = p.elem_stride as usize;
    let at = |i: u32| base + i as usize * step;
    let (mut cp, mut dp) = (T::ZERO, T::ZERO);
    let mut bad = u32::MAX;
    unsafe {
        // Rows in groups of GROUP: the group's loads are issued together (a thread has no
        // other work to hide their latency behind), then eliminated in order.
        let mut i = 0;
        while i < n {
            let cnt = if n - i < GROUP { n - i } else { GROUP };
            let mut e = [Eq::<T>::IDENTITY; GROUP as usize];
            unroll!(r in [0, 1, 2, 3] => {
                if r < cnt {
                    e[r as usize] = load(a, b, c, d, at(i + r), i + r, n);
                }
            });
            unroll!(r in [0, 1, 2, 3] => {
                if r < cnt {
                    let (c1, d1, pivot) = thomas_row(e[r as usize], cp, dp);
                    if !pivot_ok(pivot) && bad == u32::MAX {
                        bad = i + r;
                    }
                    *w.add(at(i + r)) = c1;
                    *x.add(at(i + r)) = d1;
                    cp = c1;
                    dp = d1;
                }
            });
            i += cnt;
        }
        // x_{n−1} = d'_{n−1}; then rows hi−1, hi−2, … in groups.
        let mut xn = dp;
        // The first failing pivot names the row; else the first non-finite x.
        let mut xbad = if xn.is_finite() { u32::MAX } else { n - 1 };
        let mut hi = n - 1;
        while hi > 0 {
            let cnt = if hi < GROUP { hi } else { GROUP };
            let mut xs = [T::ZERO; GROUP as usize];
            let mut ws = [T::ZERO; GROUP as usize];
            unroll!(r in [0, 1, 2, 3] => {
                if r < cnt {
                    xs[r as usize] = *x.add(at(hi - 1 - r));
                    ws[r as usize] = *w.add(at(hi - 1 - r));
                }
            });
            unroll!(r in [0, 1, 2, 3] => {
                if r < cnt {
                    let xi = xs[r as usize] - ws[r as usize] * xn;
                    *x.add(at(hi - 1 - r)) = xi;
                    if !xi.is_finite() {
                        xbad = hi - 1 - r;
                    }
                    xn = xi;
                }
            });
            hi -= cnt;
        }
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
    cr => tridiag_cr_f32, tridiag_cr_f64 (p: Dims, a: *const T, b: *const T, c: *const T, d: *const T, x: *mut T, status: *mut u64);
    pcr => tridiag_pcr_f32, tridiag_pcr_f64 (p: Dims, a: *const T, b: *const T, c: *const T, d: *const T, x: *mut T, status: *mut u64);
    cr_pcr => tridiag_cr_pcr_f32, tridiag_cr_pcr_f64 (p: Dims, a: *const T, b: *const T, c: *const T, d: *const T, x: *mut T, status: *mut u64);
    pcr_thomas => tridiag_pcr_thomas_f32, tridiag_pcr_thomas_f64 (p: Dims, a: *const T, b: *const T, c: *const T, d: *const T, x: *mut T, status: *mut u64);
}
