//! The cyclic-reduction family in shared memory: CR, PCR, CR-PCR and PCR-Thomas, each system
//! solved by one row of a block's threads, one system a block or, for systems adjacent in
//! memory, `blockDim.y` of them.

use super::io::report;
use super::lines::{Arrays, Lines, staging_order};
use super::{Dims, Eq, PCR_MAX_PER_THREAD, back_substitute, cyclic_span, eliminate, fail_code, thomas_row};
use crate::device::{DeviceReal, shared, thread};

/// A system in shared memory: four arrays of n.
#[derive(Clone, Copy)]
struct Smem<T> {
    a: *mut T,
    b: *mut T,
    c: *mut T,
    d: *mut T,
}

impl<T: DeviceReal> Smem<T> {
    /// System `j` of the block's `2^group`.
    #[inline(always)]
    unsafe fn new(n: u32, group: u32, j: u32) -> Smem<T> {
        let a = unsafe { shared::dynamic::<T>().add(j as usize * cyclic_span(n, group) as usize) };
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
        unroll!(r: u32 in [0, 1, 2, 3, 4, 5, 6, 7] => {
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
        unroll!(r: u32 in [0, 1, 2, 3, 4, 5, 6, 7] => {
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

const MODE_CR: u32 = 0;
const MODE_PCR: u32 = 1;
const MODE_CR_PCR: u32 = 2;
const MODE_PCR_THOMAS: u32 = 3;

/// `2^group` systems a block (see the comment of `entries.rs`) of a row provider (`Arrays` for
/// the batched API: its arrays hold every position `p.at(k, i)`, `x` may equal `d`); `MODE`
/// picks the algorithm. p.n, p.batch, p.chunk and p.switch are read. System
/// `2^group·blockIdx.x + threadIdx.y` is solved by the threads of its `threadIdx.y`, each
/// system's arithmetic the same whatever the group. With several systems a block (group > 0,
/// for systems adjacent in memory) the block stages them and writes their solutions with
/// consecutive threads on consecutive systems of one row, so that a warp touches a few whole
/// sectors instead of a sector a thread.
///
/// # Safety
/// `lines` answers for every k < batch, i < n, n ≥ 1; `status` is one `u64`.
/// The grid is `⌈batch / 2^group⌉` blocks of `(blockDim.x, 2^group)` threads; the launch gives
/// `2^group · cyclic_span(n, group)` `T`s of dynamic shared memory. PCR phases need
/// `rpt·blockDim.x ≥` the equations they solve (n for PCR and PCR-Thomas, with
/// `rpt = p.chunk ≤ PCR_MAX_PER_THREAD`); CR-PCR needs `switch ≤ blockDim.x`; PCR-Thomas needs
/// `2^switch ≤ blockDim.x`.
#[inline(always)]
unsafe fn shared_solve<T: DeviceReal, L: Lines<T>, const MODE: u32>(p: Dims, lines: &L, status: *mut u64, group: u32) {
    let tid = thread::thread_idx_x();
    let bd = thread::block_dim_x();
    let mine = if group == 0 { 0 } else { thread::thread_idx_y() };
    let first = thread::block_idx_x() << group;
    let n = p.n;
    // The block's threads in the order the staging and the writes walk them: system fastest,
    // each system's rows r, r + blockDim.x, ... (for one system a block, this thread's own).
    let linear = tid + mine.wrapping_mul(bd);
    let (io_sys, io_row) = (linear & ((1 << group) - 1), linear >> group);
    let io_k = first + io_sys;
    unsafe {
        let sm = Smem::<T>::new(n, group, mine);
        let io_sm = Smem::<T>::new(n, group, io_sys);
        let mut r = io_row;
        while r < n {
            let i = staging_order::<T, L>(n, r);
            // A block's systems past the batch (its last block's) solve the identity.
            io_sm.put(i, if io_k < p.batch { lines.row(io_k, i) } else { Eq::IDENTITY });
            r += bd;
        }
        thread::sync_threads();

        // CR forward reduction: at stride s, equations i ≡ 2s−1 (mod 2s) eliminate their
        // neighbours i ± s, which nobody writes at this level, so it runs in place.
        // Strides are powers of two: s = 2^ls (shifts, not divisions, which would bring
        // divide-by-zero panic paths).
        let mut ls = 0u32;
        let mut s = 1;
        if MODE == MODE_CR || MODE == MODE_CR_PCR {
            let limit = if MODE == MODE_CR { 1 } else { p.switch };
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
        if MODE == MODE_CR {
            if tid == 0 {
                let e = sm.get(s - 1);
                *sm.d.add((s - 1) as usize) = e.d / e.b;
            }
        } else if MODE == MODE_PCR_THOMAS {
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
            if MODE == MODE_PCR {
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
        if MODE == MODE_CR || MODE == MODE_CR_PCR {
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

        if io_k < p.batch {
            let mut bad = u32::MAX;
            let mut i = io_row;
            while i < n {
                let xi = *io_sm.d.add(i as usize);
                if !xi.is_finite() && bad == u32::MAX {
                    bad = i;
                }
                lines.put(io_k, i, xi);
                i += bd;
            }
            if bad != u32::MAX {
                report(status, fail_code(n, io_k, bad));
            }
        }
    }
}

/// log2 of the systems a block: `blockDim.y`, a power of two (the plan's).
#[inline(always)]
fn group() -> u32 {
    thread::block_dim_y().trailing_zeros()
}

pub(super) unsafe fn cr<T: DeviceReal>(
    p: Dims,
    a: *const T,
    b: *const T,
    c: *const T,
    d: *const T,
    x: *mut T,
    status: *mut u64,
) {
    unsafe { shared_solve::<T, _, MODE_CR>(p, &Arrays { p, a, b, c, d, x }, status, group()) }
}
pub(super) unsafe fn pcr<T: DeviceReal>(
    p: Dims,
    a: *const T,
    b: *const T,
    c: *const T,
    d: *const T,
    x: *mut T,
    status: *mut u64,
) {
    unsafe { shared_solve::<T, _, MODE_PCR>(p, &Arrays { p, a, b, c, d, x }, status, group()) }
}
pub(super) unsafe fn cr_pcr<T: DeviceReal>(
    p: Dims,
    a: *const T,
    b: *const T,
    c: *const T,
    d: *const T,
    x: *mut T,
    status: *mut u64,
) {
    unsafe { shared_solve::<T, _, MODE_CR_PCR>(p, &Arrays { p, a, b, c, d, x }, status, group()) }
}
pub(super) unsafe fn pcr_thomas<T: DeviceReal>(
    p: Dims,
    a: *const T,
    b: *const T,
    c: *const T,
    d: *const T,
    x: *mut T,
    status: *mut u64,
) {
    unsafe { shared_solve::<T, _, MODE_PCR_THOMAS>(p, &Arrays { p, a, b, c, d, x }, status, group()) }
}

/// PCR (`lines` as `partition_lines` takes them; launch as `pcr`'s).
pub(crate) unsafe fn pcr_lines<T: DeviceReal, L: Lines<T>>(p: Dims, lines: &L, status: *mut u64) {
    unsafe { shared_solve::<T, L, MODE_PCR>(p, lines, status, group()) }
}
/// CR-PCR (`lines` as `partition_lines` takes them; launch as `cr_pcr`'s).
pub(crate) unsafe fn cr_pcr_lines<T: DeviceReal, L: Lines<T>>(p: Dims, lines: &L, status: *mut u64) {
    unsafe { shared_solve::<T, L, MODE_CR_PCR>(p, lines, status, group()) }
}
