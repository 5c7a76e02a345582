//! The work of a sweep along one line of cells, over an index function so that any line of
//! any padded layout can use it (the 2D sweeps, `sweep.rs`, and the 3D ones, `sweep3.rs`):
//! [`x_row`], a warp across 32
//! consecutive interfaces of a row, its neighbours' waves and fluctuations by shuffles, and
//! [`march`], one thread along a segment of a line with what the next cell needs of the last
//! interfaces in registers.

use super::{Limiter, Riemann, Solution, X_CELLS_PER_WARP, correction_by, step_by, update, update_west, wave_dots};
use crate::device::DeviceReal;

/// The N values of a cell's planes at padded index `at` (planes `len` apart).
#[inline(always)]
unsafe fn cell<T: DeviceReal, const N: usize>(p: *const T, len: usize, at: usize) -> [T; N] {
    let mut v = [T::ZERO; N];
    for (n, x) in v.iter_mut().enumerate() {
        *x = unsafe { T::ldg(p.add(n * len + at)) };
    }
    v
}

#[inline(always)]
fn shuffled<T: DeviceReal, const N: usize>(v: &[T; N], up: bool) -> [T; N] {
    let mut out = [T::ZERO; N];
    for (o, x) in out.iter_mut().zip(v) {
        *o = if up { x.shfl_up(1) } else { x.shfl_down(1) };
    }
    out
}

/// A warp's share of an x-sweep of one row: lane `lane` solves the interface between cells
/// i − 1 and i, i = c0 − 1 + lane (solvable for −1 ≤ i ≤ nx + 1), takes its neighbours' waves
/// and fluctuations by shuffles, and lanes 1..=29 update cell i (< nx) of `q` into `out`; cell
/// i lies at `at(i)`. Every lane of the warp must call it, for a row that exists.
/// Returns this lane's speed for the rate: its interface's, for interfaces 0..=nx of the
/// cells updated, else 0.
///
/// # Safety
/// `q`, `aux` (A planes) and `out` hold planes of `len` values; `at(i)` is in bounds for
/// −2 ≤ i ≤ nx + 1; the ghosts of `q` and `aux` along the row are filled.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub unsafe fn x_row<T: DeviceReal, R: Riemann<T, M, W, A>, const M: usize, const W: usize, const A: usize>(
    solver: &R,
    limiter: Limiter,
    dtdx: T,
    (q, aux, out, len): (*const T, *const T, *mut T, usize),
    nx: u32,
    (c0, lane): (u32, u32),
    at: impl Fn(i32) -> usize,
) -> T {
    let (i, nx) = (c0 as i32 - 1 + lane as i32, nx as i32);
    let solves = i <= nx + 1;
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
    // Every lane shuffles (lanes without an interface hold zeros): the waves up, to form θ's
    // numerators against the left interface, and those down, as the left lane's against its
    // right (`wave_dots`: one product for the pair).
    let mut left = [[T::ZERO; M]; W];
    for p in 0..W {
        left[p] = shuffled(&here.waves[p], true);
    }
    let dots_left = wave_dots(&here.waves, &left);
    let f = correction_by(limiter, dtdx, &here, &dots_left, &shuffled(&dots_left, false));
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
/// cell r at `at(r)`, segments recomputing two interfaces where they meet. Returns the largest
/// speed at interfaces r0..=r1. Each turn of the loop solves one interface j (between cells
/// j − 1 and j), forms F̃ of interface j − 1 from it and the two below, finishes cell j − 2 and
/// starts cell j − 1. Every interface is solved, and every F̃ formed, by the one call of the
/// loop, however far from the segment's start: the compiler's contraction and sharing of that
/// arithmetic is then the same for each, so a cell's new value does not depend on where a
/// segment starts (the launch shape's rows a thread), nor on where a slab of a run decomposed
/// over ranks begins. Kept from one turn to the next is only what the next needs, since the
/// registers bound the occupancy: the last cell, the last interface's solution and its waves'
/// θ numerators against those below (`wave_dots`), and the update of the cell below but for
/// the F̃ of its upper interface (`update_west` and A⁻ΔQ of the upper one: M numbers instead of
/// Q, A⁺ΔQ, F̃ and A⁻ΔQ).
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
        let load = |r: i32| (cell::<T, M>(q, len, at(r)), cell::<T, A>(aux, len, at(r)));
        // Cell j − 1, interface j − 1 and its θ numerators against interface j − 2, and cell
        // j − 2's update but for F̃ of interface j − 1.
        let (mut lo, mut xlo) = load(r0 - 2);
        let mut below = Solution::ZERO;
        let mut dots_below = [T::ZERO; W];
        let mut part = [T::ZERO; M];
        let mut speed = T::ZERO;
        let mut j = r0 - 1;
        while j <= r1 + 1 {
            let (hi, xhi) = load(j);
            let here = solver.solve(dir, &lo, &hi, &xlo, &xhi);
            let dots = wave_dots(&here.waves, &below.waves);
            if j > r0 {
                let f = correction_by(limiter, dtdx, &below, &dots_below, &dots);
                if j - 2 >= r0 {
                    let new = step_by(dtdx, &part, &f);
                    let at = at(j - 2);
                    for (m, v) in new.iter().enumerate() {
                        *out.add(m * len + at) = *v;
                    }
                }
                if j - 1 < r1 {
                    part = step_by(dtdx, &update_west(dtdx, &lo, &below.apdq, &f), &here.amdq);
                }
            }
            if j >= r0 && j <= r1 {
                speed = speed.max(here.max_speed());
            }
            (below, dots_below) = (here, dots);
            (lo, xlo) = (hi, xhi);
            j += 1;
        }
        speed
    }
}
