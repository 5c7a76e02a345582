//! What the 2D and 3D CPU references share (`cpu.rs`, `d3/cpu.rs`): a padded grid seen as lines
//! of cells along each axis ([`Lines`]), the sweep of those lines along one axis, the fastest
//! wave along an axis (the first Δt), the ghost fill from a ghost enumeration of
//! `kernels::halo`, PyClaw's accepted step with the blow-up check, and the set-up checks. Written once so that
//! the references' sweeps are the same code in every dimension.

use super::clock::{Cfl, Clock, Step};
use crate::field::stencil_rows;
use crate::{Error, Real, Result};
use kernels::claw::{Limiter, Riemann, Solution, correction_by, update, wave_dots};
use kernels::grid::{Layout2, Layout3};
use kernels::halo::{EXTRAPOLATE, Ghost, PERIODIC, WALL};
use rayon::prelude::*;

/// A padded grid as the split sweeps see it: along axis `dir`, `lines` lines of `n` cells.
pub trait Lines: Sync {
    /// Cells along axis `dir` and the number of lines along it.
    fn line_counts(&self, dir: usize) -> (usize, usize);
    /// Padded index of cell `c` (−2..n+2) of line `k` along axis `dir`.
    fn line_at(&self, dir: usize, k: usize, c: i32) -> usize;
    /// Interior cells.
    fn cells(&self) -> usize {
        let (n, lines) = self.line_counts(0);
        n * lines
    }
    /// Padded index of interior cell `c`, numbered x fastest (lines along x are numbered in
    /// the order of the cells across them).
    fn interior_at(&self, c: usize) -> usize {
        let n = self.line_counts(0).0;
        self.line_at(0, c / n, (c % n) as i32)
    }
    /// Interior cell `c` as messages name it: its coordinates, "(i, j)" or "(i, j, k)".
    fn name(&self, c: usize) -> String;
}

impl Lines for Layout2 {
    fn line_counts(&self, dir: usize) -> (usize, usize) {
        let (nx, ny) = (self.nx as usize, self.ny as usize);
        if dir == 0 { (nx, ny) } else { (ny, nx) }
    }
    #[inline(always)]
    fn line_at(&self, dir: usize, k: usize, c: i32) -> usize {
        if dir == 0 { self.at(c, k as i32) } else { self.at(k as i32, c) }
    }
    fn name(&self, c: usize) -> String {
        let nx = self.nx as usize;
        format!("({}, {})", c % nx, c / nx)
    }
}

/// Lines along x are numbered j + ny·k, along y i + nx·k, along z i + nx·j.
impl Lines for Layout3 {
    fn line_counts(&self, dir: usize) -> (usize, usize) {
        let (nx, ny, nz) = (self.nx as usize, self.ny as usize, self.nz as usize);
        match dir {
            0 => (nx, ny * nz),
            1 => (ny, nx * nz),
            _ => (nz, nx * ny),
        }
    }
    #[inline(always)]
    fn line_at(&self, dir: usize, k: usize, c: i32) -> usize {
        let (nx, ny) = (self.nx as usize, self.ny as usize);
        match dir {
            0 => self.at(c, (k % ny) as i32, (k / ny) as i32),
            1 => self.at((k % nx) as i32, c, (k / nx) as i32),
            _ => self.at((k % nx) as i32, (k / nx) as i32, c),
        }
    }
    fn name(&self, c: usize) -> String {
        let (nx, ny) = (self.nx as usize, self.ny as usize);
        format!("({}, {}, {})", c % nx, (c / nx) % ny, c / nx / ny)
    }
}

/// Checks a run's interior states `q` and auxiliary values `aux` (x fastest): one of each a
/// cell, each admissible to the solver (an error names the cell and says why).
pub fn check_data<T: Real, R: Riemann<T, M, W, A>, G: Lines, const M: usize, const W: usize, const A: usize>(
    grid: &G,
    solver: &R,
    q: &[[T; M]],
    aux: &[[T; A]],
) -> Result<()> {
    let cells = grid.cells();
    if q.len() != cells || aux.len() != cells {
        return Err(Error::invalid(format!("claw: {} states and {} aux values for {cells} cells", q.len(), aux.len())));
    }
    check_cells(grid, solver, |c| q[c], |c| aux[c])
}

/// Checks every interior cell's state `q(c)` and auxiliary values `aux(c)` (x fastest)
/// admissible to the solver (an error names the first cell that is not and says why).
pub fn check_cells<T: Real, R: Riemann<T, M, W, A>, G: Lines, const M: usize, const W: usize, const A: usize>(
    grid: &G,
    solver: &R,
    q: impl Fn(usize) -> [T; M],
    aux: impl Fn(usize) -> [T; A],
) -> Result<()> {
    for c in 0..grid.cells() {
        if let Some(why) = solver.inadmissible(&q(c), &aux(c)) {
            return Err(Error::invalid(format!("claw {}: cell {}: {why}", R::NAME, grid.name(c))));
        }
    }
    Ok(())
}

/// The interior values of the padded array `q`, x fastest.
pub fn interior<T: Real, G: Lines, const N: usize>(grid: &G, q: &[[T; N]]) -> Vec<[T; N]> {
    (0..grid.cells()).map(|c| q[grid.interior_at(c)]).collect()
}

/// The first interior cell of `q` (x fastest) that is not finite, by name.
pub fn first_bad<T: Real, G: Lines, const N: usize>(grid: &G, q: &[[T; N]]) -> Option<String> {
    first_bad_cell(grid, q).map(|c| grid.name(c))
}

/// The number of the first interior cell of `q` (x fastest) that is not finite.
pub fn first_bad_cell<T: Real, G: Lines, const N: usize>(grid: &G, q: &[[T; N]]) -> Option<usize> {
    (0..grid.cells()).find(|&c| !q[grid.interior_at(c)].iter().all(|v| v.is_finite()))
}

/// One sweep along `dir` of every line of the padded state `q` (ghosts across `dir` filled),
/// in place, with Δt/Δx = `dtdx`. Lines are independent: each task gathers its line's cells,
/// sweeps them and writes the line's interior back, on every thread. Returns the largest wave
/// speed at the interfaces of the cells updated.
#[allow(clippy::too_many_arguments)]
pub fn sweep<T: Real, R: Riemann<T, M, W, A>, G: Lines, const M: usize, const W: usize, const A: usize>(
    grid: &G,
    solver: &R,
    limiter: Limiter,
    q: &mut [[T; M]],
    aux: &[[T; A]],
    dir: usize,
    dtdx: T,
) -> T {
    let (n, lines) = grid.line_counts(dir);
    let len = q.len();
    let cells = Shared(q.as_mut_ptr());
    (0..lines)
        .into_par_iter()
        .with_min_len(stencil_rows(n))
        .map(|k| {
            // The line's cells (−2..n+2) and their padded indices, gathered as Clawpack's q1d.
            let idx: Vec<usize> = (-2..n as i32 + 2).map(|c| grid.line_at(dir, k, c)).collect();
            debug_assert!(idx.iter().all(|&g| g < len));
            // SAFETY (both blocks): `cells` holds `len` values that outlive the iteration, and
            // every index of a line is below `len`. Line k reads only its own cells (ghosts are
            // no line's interior) and writes its interior after reading them all, and no two
            // lines share a cell: no value is written by one task while another reads or writes
            // it. Nothing borrows the array while the tasks run.
            let cells_k: Vec<[T; M]> = idx.iter().map(|&g| unsafe { cells.get().add(g).read() }).collect();
            let (line, speed) = sweep_line(solver, limiter, &cells_k, aux, &idx, dir, n, dtdx);
            for (v, &g) in line.into_iter().zip(&idx[2..]) {
                unsafe { cells.get().add(g).write(v) };
            }
            speed
        })
        .reduce(|| T::ZERO, |a, b| a.max(b))
}

/// A pointer handed to the tasks of a sweep, each of which touches only its own line's cells.
#[derive(Clone, Copy)]
struct Shared<V>(*mut V);
// SAFETY: the tasks that share it access disjoint cells (see `sweep`).
unsafe impl<V> Send for Shared<V> {}
unsafe impl<V> Sync for Shared<V> {}

impl<V> Shared<V> {
    fn get(self) -> *mut V {
        self.0
    }
}

crate::fused! {
    /// One line of n cells along `dir` after a sweep, and the largest wave speed at the
    /// interfaces of its cells: cell c (−2..n+2) is `q[c + 2]`, at padded index `idx[c + 2]`
    /// (where its auxiliary values lie).
    #[allow(clippy::too_many_arguments)]
    fn sweep_line[T: Real, R: Riemann<T, M, W, A>, const M: usize, const W: usize, const A: usize]
        [T, R, M, W, A](
        solver: &R,
        limiter: Limiter,
        q: &[[T; M]],
        aux: &[[T; A]],
        idx: &[usize],
        dir: usize,
        n: usize,
        dtdx: T,
    ) -> (Vec<[T; M]>, T) {
        // Interface i (between cells i−1 and i) for i in −1..=n+1, stored at i + 1.
        let sol: Vec<Solution<T, M, W>> = (-1..=n as i32 + 1)
            .map(|i| {
                let (l, r) = ((i + 1) as usize, (i + 2) as usize);
                solver.solve(dir, &q[l], &q[r], &aux[idx[l]], &aux[idx[r]])
            })
            .collect();
        // Each family's θ numerator, once for a pair of neighbouring interfaces (as the kernels
        // form it): dots[i] pairs sol[i] and sol[i + 1].
        let dots: Vec<[T; W]> = sol.windows(2).map(|p| wave_dots(&p[0].waves, &p[1].waves)).collect();
        let fix: Vec<[T; M]> =
            (0..=n).map(|i| correction_by(limiter, dtdx, &sol[i + 1], &dots[i], &dots[i + 1])).collect();
        let speed = (0..=n).fold(T::ZERO, |s, i| s.max(sol[i + 1].max_speed()));
        let line = (0..n)
            .map(|i| update(dtdx, &q[i + 2], &sol[i + 1].apdq, &fix[i], &sol[i + 2].amdq, &fix[i + 1]))
            .collect();
        (line, speed)
    }
}

/// Fills the `ghosts` of `q`, each from its source; at a wall the mirrored ghosts' component
/// `normal` changes sign.
pub fn fill<T: Real, const N: usize>(q: &mut [[T; N]], normal: Option<usize>, ghosts: impl Iterator<Item = Ghost>) {
    for g in ghosts {
        let mut v = q[g.source];
        if let Some(m) = normal.filter(|_| g.mirrored && g.bc == WALL) {
            v[m] = -v[m];
        }
        q[g.ghost] = v;
    }
}

/// One accepted step of a run at `clock` towards `t_end`, by [`Clock::step`]: `trial(q, Δt)`
/// writes into `q` the state after a step of Δt and returns the step's rate (the largest
/// max|s|/Δ of its sweeps, so its CFL number is Δt·rate); an accepted state in which `bad`
/// finds a cell that is not finite (it names the cell) ends the run with an error naming the
/// step and time. Returns the step and whether `q` holds an accepted state (not on an error:
/// the run's state stays the last good one). `q` is the caller's to keep between steps, so a
/// step allocates no state of its own.
pub fn step<S>(
    clock: &mut Clock,
    cfl: Cfl,
    t_end: f64,
    name: &str,
    q: &mut S,
    trial: impl Fn(&mut S, f64) -> f64,
    bad: impl Fn(&S) -> Option<String>,
) -> (Result<Step>, bool) {
    let (steps, time) = (clock.steps(), clock.time());
    let mut accepted = false;
    let step = clock.step(cfl, t_end, name, |dt| {
        let rate = trial(q, dt);
        accepted = false;
        if dt * rate <= cfl.max {
            if let Some(cell) = bad(q) {
                return Err(Error::invalid(format!(
                    "claw {name}: blew up in step {} at t = {:.6e} s: cell {cell} is not finite",
                    steps + 1,
                    time + dt
                )));
            }
            accepted = true;
        }
        Ok(rate)
    });
    let ok = accepted && step.is_ok();
    (step, ok)
}

/// What every dimension's set-up checks alike: each side's condition (`bc` lists the sides in
/// pairs, x's then y's then z's) is wall, extrapolate or periodic, periodic in pairs, and
/// 0 < `cfl.desired` ≤ `cfl.max` ≤ 1.
pub fn check_sides_and_cfl(bc: &[u32], cfl: Cfl) -> Result<()> {
    if let Some(b) = bc.iter().find(|b| ![WALL, EXTRAPOLATE, PERIODIC].contains(b)) {
        return Err(Error::invalid(format!("claw: boundary condition code {b} is not wall, extrapolate or periodic")));
    }
    for (axis, pair) in ["x", "y", "z"].iter().zip(bc.chunks(2)) {
        if (pair[0] == PERIODIC) != (pair[1] == PERIODIC) {
            return Err(Error::invalid(format!("claw: a periodic {axis} axis needs both of its sides periodic")));
        }
    }
    let Cfl { desired, max } = cfl;
    if !(desired > 0.0 && desired <= max && max <= 1.0) {
        return Err(Error::invalid(format!(
            "claw: CFL numbers desired {desired} and max {max} must satisfy 0 < desired ≤ max ≤ 1"
        )));
    }
    Ok(())
}
