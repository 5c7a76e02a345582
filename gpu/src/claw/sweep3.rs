//! The 3D core kernels: one sweep of the wave-propagation update along x, y or z of a padded
//! 3D state (`Layout3`, x fastest), generic over the Riemann solver, each cell read from memory
//! once and written once, waves kept in registers. The work along one line of cells is the 2D
//! sweeps' (`sweep.rs`), written here over an index function so that any line of any layout
//! can use it: [`x_row`] (a warp across 32 interfaces, shuffles) and [`march`] (a thread up a
//! segment of a line, the last interfaces in registers).
//!
//! - x-sweep: as the 2D one; block (32·wx, by), grid (⌈nx / (29·wx)⌉, ⌈ny / by⌉, nz), so a
//!   block's rows share their z-plane.
//! - y-sweep: lanes take consecutive x (coalesced), each thread marches `k.rows` cells along y;
//!   block (bx, by) over x and segments, grid (⌈nx / bx⌉, ⌈⌈ny / rows⌉ / by⌉, nz).
//! - z-sweep: lanes take consecutive x, threads of a block consecutive y, each thread marches
//!   `k.rows` cells along z; block (bx, by), grid (⌈nx / bx⌉, ⌈ny / by⌉, ⌈nz / rows⌉).
//!
//! Each writes one rate (max |s|/Δ over the interfaces of the cells it updates) a block, reads
//! state buffer `order[k.stage]` and writes `order[k.stage + 1]`, and returns at once when the
//! step's Δt is 0 (no step armed).

use super::sweep::{buffers, cell, shuffled, waves_of};
use super::{Limiter, Riemann, Solution, Sweep3, X_CELLS_PER_WARP, correction, update};
use crate::device::reduce::block_max;
use crate::device::{DeviceReal, shared, thread};

/// The block's largest rate into `rate[block]` (blocks numbered x fastest over a 3D grid);
/// every thread of the block calls it.
#[inline(always)]
unsafe fn block_rate3<T: DeviceReal>(speed: T, inv_dx: T, rate: *mut T) {
    let m = block_max(speed, shared::dynamic::<T>());
    if thread::thread_rank_in_block() == 0 {
        let b = (thread::block_idx_z() as usize * thread::grid_dim_y() as usize + thread::block_idx_y() as usize)
            * thread::grid_dim_x() as usize
            + thread::block_idx_x() as usize;
        unsafe { *rate.add(b) = m * inv_dx };
    }
}

/// A warp's share of an x-sweep of one row: lane `lane` solves the interface between cells
/// i − 1 and i, i = c0 − 1 + lane (solvable for −1 ≤ i ≤ nx + 1), takes its neighbours' waves
/// and fluctuations by shuffles, and lanes 1..=29 update cell i (< nx) of `q` into `out`; cell
/// i lies at `at(i)`. Every lane of the warp must call it (`row`: whether the row exists).
/// Returns this lane's speed for the rate: its interface's, for interfaces 0..=nx of the
/// cells updated, else 0.
///
/// # Safety
/// `q`, `aux` (A planes) and `out` hold planes of `len` values; `at(i)` is in bounds for
/// −2 ≤ i ≤ nx + 1 when `row`; the ghosts of `q` and `aux` along the row are filled.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub unsafe fn x_row<T: DeviceReal, R: Riemann<T, M, W, A>, const M: usize, const W: usize, const A: usize>(
    solver: &R,
    limiter: Limiter,
    dtdx: T,
    (q, aux, out, len): (*const T, *const T, *mut T, usize),
    nx: u32,
    (c0, lane, row): (u32, u32, bool),
    at: impl Fn(i32) -> usize,
) -> T {
    let (i, nx) = (c0 as i32 - 1 + lane as i32, nx as i32);
    let solves = row && i <= nx + 1;
    let mut here = Solution::<T, M, W>::ZERO;
    let mut qr = [T::ZERO; M];
    if solves {
        let (al, ar) = (at(i - 1), at(i));
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
    let f = correction(limiter, dtdx, &waves_of(left), &here, &waves_of(right));
    let (amdq_e, fe) = (shuffled(&here.amdq, false), shuffled(&f, false));
    // Cell i is updated by lanes 1..=29 (its east interface is the next lane's).
    if solves && (1..=X_CELLS_PER_WARP).contains(&lane) && i < nx {
        let new = update(dtdx, &qr, &here.apdq, &f, &amdq_e, &fe);
        let at = at(i);
        for (m, v) in new.iter().enumerate() {
            unsafe { *out.add(m * len + at) = *v };
        }
    }
    // The rate over the interfaces of the cells updated: lanes 1..=30, interfaces 0..=nx.
    let counts = solves && (1..=X_CELLS_PER_WARP + 1).contains(&lane) && i <= nx;
    if counts { here.max_speed() } else { T::ZERO }
}

/// One thread's march along a line across axis `dir`: cells r0..r1 of `q` updated into `out`,
/// cell r at `at(r)`, the last three interfaces kept in registers (so segments recompute two
/// interfaces where they meet). Returns the largest speed at interfaces r0..=r1.
///
/// # Safety
/// `q`, `aux` (A planes) and `out` hold planes of `len` values; `at(r)` is in bounds for
/// r0 − 2 ≤ r ≤ r1 + 1; the ghosts of `q` and `aux` along the line are filled; r0 < r1.
#[inline(always)]
pub unsafe fn march<T: DeviceReal, R: Riemann<T, M, W, A>, const M: usize, const W: usize, const A: usize>(
    solver: &R,
    dir: usize,
    limiter: Limiter,
    dtdx: T,
    (q, aux, out, len): (*const T, *const T, *mut T, usize),
    (r0, r1): (i32, i32),
    at: impl Fn(i32) -> usize,
) -> T {
    unsafe {
        let mut speed = T::ZERO;
        let load = |r: i32| (cell::<T, M>(q, len, at(r)), cell::<T, A>(aux, len, at(r)));
        // Interfaces r0 − 1, r0, r0 + 1 (interface r lies between cells r − 1 and r).
        let (qa, xa) = load(r0 - 2);
        let (qb, xb) = load(r0 - 1);
        let (mut cur, mut xcur) = load(r0);
        let (mut next, mut xnext) = load(r0 + 1);
        let below = solver.solve(dir, &qa, &qb, &xa, &xb);
        let mut s0 = solver.solve(dir, &qb, &cur, &xb, &xcur);
        let mut s1 = solver.solve(dir, &cur, &next, &xcur, &xnext);
        let mut f0 = correction(limiter, dtdx, &below, &s0, &s1);
        let mut r = r0;
        while r < r1 {
            // Cell r from interfaces r (s0, f0) and r + 1 (s1, f1).
            let (qn, xn) = load(r + 2);
            let s2 = solver.solve(dir, &next, &qn, &xnext, &xn);
            let f1 = correction(limiter, dtdx, &s0, &s1, &s2);
            let new = update(dtdx, &cur, &s0.apdq, &f0, &s1.amdq, &f1);
            let at = at(r);
            for (m, v) in new.iter().enumerate() {
                *out.add(m * len + at) = *v;
            }
            speed = speed.max(s0.max_speed());
            (s0, s1, f0) = (s1, s2, f1);
            (cur, xcur, next, xnext) = (next, xnext, qn, xn);
            r += 1;
        }
        let _ = xcur;
        // Interface r1, the last cell's far face.
        speed.max(s0.max_speed())
    }
}

/// One x-sweep of state buffer `order[k.stage]` into `order[k.stage + 1]`.
///
/// # Safety
/// `states` holds at least max(`order[k.stage]`, `order[k.stage + 1]`) + 1 buffers of M planes
/// of `k.layout.len()` values (two ghost layers), and the two differ; `aux` holds A planes (any
/// pointer when A = 0); the ghosts of the input and `aux` across x are filled; `dt` holds one
/// value, `rate` one per block. Block: (32·wx, by) threads with 32 `T`s of dynamic shared
/// memory; grid (⌈nx / (29·wx)⌉, ⌈ny / by⌉, nz).
pub unsafe fn sweep3_x<T: DeviceReal, R: Riemann<T, M, W, A>, const M: usize, const W: usize, const A: usize>(
    k: Sweep3<T>,
    solver: R,
    states: *mut T,
    order: *const u32,
    aux: *const T,
    dt: *const T,
    rate: *mut T,
) {
    let l = k.layout;
    let dt = unsafe { *dt } * k.dt_frac;
    if dt == T::ZERO {
        return;
    }
    let (q, out) = unsafe { buffers(states, order, k.stage, M, l.len()) };
    let (lane, warp) = (thread::thread_idx_x() % 32, thread::thread_idx_x() / 32);
    let c0 = (thread::block_idx_x() * (thread::block_dim_x() / 32) + warp) * X_CELLS_PER_WARP;
    let j = (thread::block_idx_y() * thread::block_dim_y() + thread::thread_idx_y()) as i32;
    let z = thread::block_idx_z() as i32;
    let row = (j as u32) < l.ny && (z as u32) < l.nz;
    let lim = Limiter::from_code(k.limiter);
    let bufs = (q, aux, out, l.len());
    let speed = unsafe { x_row(&solver, lim, dt * k.inv_dx, bufs, l.nx, (c0, lane, row), |i| l.at(i, j, z)) };
    unsafe { block_rate3(speed, k.inv_dx, rate) };
}

/// One y-sweep of state buffer `order[k.stage]` into `order[k.stage + 1]`.
///
/// # Safety
/// As [`sweep3_x`], with the ghosts across y filled; `k.rows` ≥ 1. Block: (bx, by) threads, a
/// multiple of 32, with 32 `T`s of dynamic shared memory; grid (⌈nx / bx⌉, ⌈⌈ny / rows⌉ / by⌉,
/// nz).
pub unsafe fn sweep3_y<T: DeviceReal, R: Riemann<T, M, W, A>, const M: usize, const W: usize, const A: usize>(
    k: Sweep3<T>,
    solver: R,
    states: *mut T,
    order: *const u32,
    aux: *const T,
    dt: *const T,
    rate: *mut T,
) {
    let l = k.layout;
    let dt = unsafe { *dt } * k.dt_frac;
    if dt == T::ZERO {
        return;
    }
    let (q, out) = unsafe { buffers(states, order, k.stage, M, l.len()) };
    let i = thread::block_idx_x() * thread::block_dim_x() + thread::thread_idx_x();
    let r0 = (thread::block_idx_y() * thread::block_dim_y() + thread::thread_idx_y()) * k.rows;
    let z = thread::block_idx_z();
    let mut speed = T::ZERO;
    if i < l.nx && r0 < l.ny && z < l.nz {
        let r1 = if l.ny - r0 < k.rows { l.ny } else { r0 + k.rows };
        let lim = Limiter::from_code(k.limiter);
        let bufs = (q, aux, out, l.len());
        let at = |r: i32| l.at(i as i32, r, z as i32);
        speed = unsafe { march(&solver, 1, lim, dt * k.inv_dx, bufs, (r0 as i32, r1 as i32), at) };
    }
    unsafe { block_rate3(speed, k.inv_dx, rate) };
}

/// One z-sweep of state buffer `order[k.stage]` into `order[k.stage + 1]`.
///
/// # Safety
/// As [`sweep3_x`], with the ghosts across z filled; `k.rows` ≥ 1. Block: (bx, by) threads, a
/// multiple of 32, with 32 `T`s of dynamic shared memory; grid (⌈nx / bx⌉, ⌈ny / by⌉,
/// ⌈nz / rows⌉).
pub unsafe fn sweep3_z<T: DeviceReal, R: Riemann<T, M, W, A>, const M: usize, const W: usize, const A: usize>(
    k: Sweep3<T>,
    solver: R,
    states: *mut T,
    order: *const u32,
    aux: *const T,
    dt: *const T,
    rate: *mut T,
) {
    let l = k.layout;
    let dt = unsafe { *dt } * k.dt_frac;
    if dt == T::ZERO {
        return;
    }
    let (q, out) = unsafe { buffers(states, order, k.stage, M, l.len()) };
    let i = thread::block_idx_x() * thread::block_dim_x() + thread::thread_idx_x();
    let j = thread::block_idx_y() * thread::block_dim_y() + thread::thread_idx_y();
    let r0 = thread::block_idx_z() * k.rows;
    let mut speed = T::ZERO;
    if i < l.nx && j < l.ny && r0 < l.nz {
        let r1 = if l.nz - r0 < k.rows { l.nz } else { r0 + k.rows };
        let lim = Limiter::from_code(k.limiter);
        let bufs = (q, aux, out, l.len());
        let at = |r: i32| l.at(i as i32, j as i32, r);
        speed = unsafe { march(&solver, 2, lim, dt * k.inv_dx, bufs, (r0 as i32, r1 as i32), at) };
    }
    unsafe { block_rate3(speed, k.inv_dx, rate) };
}
