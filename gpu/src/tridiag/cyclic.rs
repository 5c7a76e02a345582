//! The cyclic-reduction family, one block per system in shared memory: CR, PCR, CR-PCR and
//! PCR-Thomas.

use super::io::report;
use super::lines::{Arrays, Lines, staging_order};
use super::{Dims, Eq, PCR_MAX_PER_THREAD, back_substitute, eliminate, fail_code, thomas_row};
use crate::device::{DeviceReal, shared, thread};

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

/// One block per system (see the comment of `entries.rs`) of a row provider (`Arrays` for the
/// batched API: its arrays hold every position `p.at(k, i)`, `x` may equal `d`); `MODE` picks
/// the algorithm. p.n, p.batch, p.chunk and p.switch are read.
///
/// # Safety
/// `lines` answers for every k < batch, i < n, n ≥ 1; `status` is one `u64`.
/// The grid is `batch` blocks; the launch gives 4n `T`s of dynamic shared memory. PCR phases
/// need `rpt·blockDim ≥` the equations they solve (n for PCR and PCR-Thomas, with
/// `rpt = p.chunk ≤ PCR_MAX_PER_THREAD`); CR-PCR needs `switch ≤ blockDim`; PCR-Thomas needs
/// `2^switch ≤ blockDim`.
#[inline(always)]
unsafe fn shared_solve<T: DeviceReal, L: Lines<T>, const MODE: u32>(p: Dims, lines: &L, status: *mut u64) {
    let k = thread::block_idx_x();
    let tid = thread::thread_idx_x();
    let bd = thread::block_dim_x();
    let n = p.n;
    unsafe {
        let sm = Smem::<T>::new(n);
        let mut r = tid;
        while r < n {
            let i = staging_order::<T, L>(n, r);
            sm.put(i, lines.row(k, i));
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

        let mut bad = u32::MAX;
        let mut i = tid;
        while i < n {
            let xi = *sm.d.add(i as usize);
            if !xi.is_finite() && bad == u32::MAX {
                bad = i;
            }
            lines.put(k, i, xi);
            i += bd;
        }
        if bad != u32::MAX {
            report(status, fail_code(n, k, bad));
        }
    }
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
    unsafe { shared_solve::<T, _, MODE_CR>(p, &Arrays { p, a, b, c, d, x }, status) }
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
    unsafe { shared_solve::<T, _, MODE_PCR>(p, &Arrays { p, a, b, c, d, x }, status) }
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
    unsafe { shared_solve::<T, _, MODE_CR_PCR>(p, &Arrays { p, a, b, c, d, x }, status) }
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
    unsafe { shared_solve::<T, _, MODE_PCR_THOMAS>(p, &Arrays { p, a, b, c, d, x }, status) }
}

/// PCR (`lines` as `partition_lines` takes them; launch as `pcr`'s).
pub(crate) unsafe fn pcr_lines<T: DeviceReal, L: Lines<T>>(p: Dims, lines: &L, status: *mut u64) {
    unsafe { shared_solve::<T, L, MODE_PCR>(p, lines, status) }
}
/// CR-PCR (`lines` as `partition_lines` takes them; launch as `cr_pcr`'s).
pub(crate) unsafe fn cr_pcr_lines<T: DeviceReal, L: Lines<T>>(p: Dims, lines: &L, status: *mut u64) {
    unsafe { shared_solve::<T, L, MODE_CR_PCR>(p, lines, status) }
}
