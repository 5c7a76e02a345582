//! The core kernels: one sweep of the wave-propagation update along x or along y, generic over
//! the Riemann solver, each cell read from memory once and written once (the seed's
//! single-stage update), waves kept in registers.
//!
//! x-sweep: a warp takes 32 consecutive interfaces of a row and updates the 29 cells between
//! its second and thirty-first interface; the neighbouring interfaces' waves (for limiting)
//! and fluctuations (for the update) come by shuffles, so warps are independent and recompute
//! three interfaces where they meet (the seed's independent blocks with their overlap).
//! y-sweep: lanes take consecutive columns (coalesced) and each thread marches `k.rows` cells up
//! its column with the last three interfaces in registers; segments recompute two interfaces
//! where they meet. Both write one rate (max |s|/Δ over the interfaces of the cells they
//! update) a block. Both read state buffer `order[k.stage]` and write `order[k.stage + 1]`
//! (`clock`), and return at once when the step's Δt is 0 (no step armed).

use super::{Limiter, Riemann, Solution, Sweep, X_CELLS_PER_WARP, correction, update};
use crate::device::reduce::block_max;
use crate::device::warp::Shuffle;
use crate::device::{DeviceReal, shared, thread};

/// The N values of a cell's planes at padded index `at` (planes `len` apart).
#[inline(always)]
pub(super) unsafe fn cell<T: DeviceReal, const N: usize>(p: *const T, len: usize, at: usize) -> [T; N] {
    let mut v = [T::ZERO; N];
    for (n, x) in v.iter_mut().enumerate() {
        *x = unsafe { T::ldg(p.add(n * len + at)) };
    }
    v
}

#[inline(always)]
pub(super) fn shuffled<T: DeviceReal, const N: usize>(v: &[T; N], up: bool) -> [T; N] {
    let mut out = [T::ZERO; N];
    for (o, x) in out.iter_mut().zip(v) {
        *o = if up { x.shfl_up(1) } else { x.shfl_down(1) };
    }
    out
}

/// Waves only: what a neighbouring interface contributes to the limiting.
#[inline(always)]
pub(super) fn waves_of<T: DeviceReal, const M: usize, const W: usize>(waves: [[T; M]; W]) -> Solution<T, M, W> {
    Solution { waves, ..Solution::ZERO }
}

/// The buffers sweep `stage` reads and writes: `order[stage]` and `order[stage + 1]` of the
/// state buffers (each M planes of `len`) that start at `states`.
#[inline(always)]
pub(super) unsafe fn buffers<T>(
    states: *mut T,
    order: *const u32,
    stage: u32,
    m: usize,
    len: usize,
) -> (*const T, *mut T) {
    unsafe {
        let (src, dst) = (*order.add(stage as usize) as usize, *order.add(stage as usize + 1) as usize);
        (states.add(src * m * len) as *const T, states.add(dst * m * len))
    }
}

/// The block's largest rate into `rate[block]`; every thread of the block calls it.
#[inline(always)]
unsafe fn block_rate<T: DeviceReal>(speed: T, inv_dx: T, rate: *mut T) {
    let m = block_max(speed, shared::dynamic::<T>());
    if thread::thread_rank_in_block() == 0 {
        let b = thread::block_idx_y() * thread::grid_dim_x() + thread::block_idx_x();
        unsafe { *rate.add(b as usize) = m * inv_dx };
    }
}

/// One x-sweep of state buffer `order[k.stage]` into `order[k.stage + 1]`.
///
/// # Safety
/// `states` holds at least max(`order[k.stage]`, `order[k.stage + 1]`) + 1 buffers of M planes
/// of `k.layout.len()` values (two ghost layers), and the two differ; `aux` holds A planes (any
/// pointer when A = 0); the ghosts of the input and `aux` across x are filled; `dt` holds one
/// value, `rate` one per block. Block: (32·wx, by) threads with 32 `T`s of dynamic shared
/// memory; grid (⌈nx / (29·wx)⌉, ⌈ny / by⌉).
pub unsafe fn sweep_x<T: DeviceReal, R: Riemann<T, M, W, A>, const M: usize, const W: usize, const A: usize>(
    k: Sweep<T>,
    solver: R,
    states: *mut T,
    order: *const u32,
    aux: *const T,
    dt: *const T,
    rate: *mut T,
) {
    let l = k.layout;
    let len = l.len();
    let dt = unsafe { *dt } * k.dt_frac;
    if dt == T::ZERO {
        return;
    }
    let (q, out) = unsafe { buffers(states, order, k.stage, M, len) };
    let (lane, warp) = (thread::thread_idx_x() % 32, thread::thread_idx_x() / 32);
    let c0 = (thread::block_idx_x() * (thread::block_dim_x() / 32) + warp) * X_CELLS_PER_WARP;
    let j = thread::block_idx_y() * thread::block_dim_y() + thread::thread_idx_y();
    // This lane's interface, between cells i − 1 and i (−1 ≤ i ≤ nx + 1 are solvable).
    let (i, nx) = (c0 as i32 - 1 + lane as i32, l.nx as i32);
    let solves = j < l.ny && i <= nx + 1;
    let dtdx = dt * k.inv_dx;
    let mut here = Solution::<T, M, W>::ZERO;
    let mut qr = [T::ZERO; M];
    if solves {
        let (al, ar) = (l.at(i - 1, j as i32), l.at(i, j as i32));
        unsafe {
            qr = cell::<T, M>(q, len, ar);
            let ql = cell::<T, M>(q, len, al);
            here = solver.solve(0, &ql, &qr, &cell::<T, A>(aux, len, al), &cell::<T, A>(aux, len, ar));
        }
    }
    // Every lane shuffles (lanes without an interface hold zeros).
    let (mut left, mut right) = ([[T::ZERO; M]; W], [[T::ZERO; M]; W]);
    for p in 0..W {
        left[p] = shuffled(&here.waves[p], true);
        right[p] = shuffled(&here.waves[p], false);
    }
    let f = correction(Limiter::from_code(k.limiter), dtdx, &waves_of(left), &here, &waves_of(right));
    let (amdq_e, fe) = (shuffled(&here.amdq, false), shuffled(&f, false));
    // Cell i is updated by lanes 1..=29 (its east interface is the next lane's).
    if solves && (1..=X_CELLS_PER_WARP).contains(&lane) && i < nx {
        let new = update(dtdx, &qr, &here.apdq, &f, &amdq_e, &fe);
        let at = l.at(i, j as i32);
        for (m, v) in new.iter().enumerate() {
            unsafe { *out.add(m * len + at) = *v };
        }
    }
    // The rate over the interfaces of the cells updated: lanes 1..=30, interfaces 0..=nx.
    let counts = solves && (1..=X_CELLS_PER_WARP + 1).contains(&lane) && i <= nx;
    unsafe { block_rate(if counts { here.max_speed() } else { T::ZERO }, k.inv_dx, rate) };
}

/// One y-sweep of state buffer `order[k.stage]` into `order[k.stage + 1]`.
///
/// # Safety
/// As [`sweep_x`], with the ghosts across y filled; `k.rows` ≥ 1. Block: (bx, by) threads, a
/// multiple of 32, with 32 `T`s of dynamic shared memory; grid (⌈nx / bx⌉, ⌈⌈ny / rows⌉ / by⌉).
pub unsafe fn sweep_y<T: DeviceReal, R: Riemann<T, M, W, A>, const M: usize, const W: usize, const A: usize>(
    k: Sweep<T>,
    solver: R,
    states: *mut T,
    order: *const u32,
    aux: *const T,
    dt: *const T,
    rate: *mut T,
) {
    let l = k.layout;
    let len = l.len();
    let dt = unsafe { *dt } * k.dt_frac;
    if dt == T::ZERO {
        return;
    }
    let (q, out) = unsafe { buffers(states, order, k.stage, M, len) };
    let i = thread::block_idx_x() * thread::block_dim_x() + thread::thread_idx_x();
    let seg = thread::block_idx_y() * thread::block_dim_y() + thread::thread_idx_y();
    let r0 = seg * k.rows;
    let dtdx = dt * k.inv_dx;
    let mut speed = T::ZERO;
    if i < l.nx && r0 < l.ny {
        let r1 = if l.ny - r0 < k.rows { l.ny } else { r0 + k.rows };
        let at = |r: i32| l.at(i as i32, r);
        let r0 = r0 as i32;
        unsafe {
            let load = |r: i32| (cell::<T, M>(q, len, at(r)), cell::<T, A>(aux, len, at(r)));
            // Interfaces r0 − 1, r0, r0 + 1 (interface r lies between cells r − 1 and r).
            let (qa, xa) = load(r0 - 2);
            let (qb, xb) = load(r0 - 1);
            let (mut cur, mut xcur) = load(r0);
            let (mut next, mut xnext) = load(r0 + 1);
            let below = solver.solve(1, &qa, &qb, &xa, &xb);
            let mut s0 = solver.solve(1, &qb, &cur, &xb, &xcur);
            let mut s1 = solver.solve(1, &cur, &next, &xcur, &xnext);
            let limiter = Limiter::from_code(k.limiter);
            let mut f0 = correction(limiter, dtdx, &below, &s0, &s1);
            let mut r = r0;
            while r < r1 as i32 {
                // Cell r from interfaces r (s0, f0) and r + 1 (s1, f1).
                let (qn, xn) = load(r + 2);
                let s2 = solver.solve(1, &next, &qn, &xnext, &xn);
                let f1 = correction(limiter, dtdx, &s0, &s1, &s2);
                let new = update(dtdx, &cur, &s0.apdq, &f0, &s1.amdq, &f1);
                for (m, v) in new.iter().enumerate() {
                    *out.add(m * len + at(r)) = *v;
                }
                speed = speed.max(s0.max_speed());
                (s0, s1, f0) = (s1, s2, f1);
                (cur, xcur, next, xnext) = (next, xnext, qn, xn);
                r += 1;
            }
            let _ = xcur;
            // Interface r1, the last cell's east face.
            speed = speed.max(s0.max_speed());
        }
    }
    unsafe { block_rate(speed, k.inv_dx, rate) };
}
