//! What a wave-propagation run starts from, made straight from its cells' values: the padded
//! state (its ghosts zero: every sweep fills the ghosts it reads first), the padded auxiliary
//! fields (their ghosts by each side's rule, once), and the first Δt from the interfaces of the
//! whole grid. A slab's padded fields are made for its rows (2D) or planes (3D) alone, so no
//! rank builds the whole grid's; the first Δt reads the whole grid's cells where they are
//! given, holding nothing more.
//!
//! Each ghost takes the value of its source cell along every axis where it is a ghost
//! (`cell_source`): the fills along x, then y, then z (`lines::fill`) each copy whole padded
//! lines of interior sources, so a corner ghost ends up with the cell its sources along both
//! axes name.

use crate::Real;
use kernels::claw::Riemann;
use kernels::halo::{WALL, cell_source};
use std::ops::Range;

/// A grid as a start sees it: its cells along x, y and z (one along z in 2D), its ghost layers
/// along each (none along z in 2D), each side's condition (west, east, south, north, bottom,
/// top) and the axis a run decomposed over ranks is cut across (y in 2D, z in 3D).
#[derive(Clone, Copy, Debug)]
pub struct Shape {
    n: [usize; 3],
    halo: [usize; 3],
    bc: [u32; 6],
    cut: usize,
}

impl Shape {
    /// `n` cells along x, y and z with `halo` ghost layers along each, sides `bc`, slabs cut
    /// across axis `cut`.
    pub(super) fn new(n: [usize; 3], halo: [usize; 3], bc: [u32; 6], cut: usize) -> Shape {
        Shape { n, halo, bc, cut }
    }

    fn dims(&self) -> usize {
        if self.halo[2] == 0 { 2 } else { 3 }
    }

    /// Where coordinate `g` along `axis` takes its value from: the interior coordinate, whether
    /// `g` is a ghost, and whether a wall mirrors it (its normal component then changes sign).
    fn source(&self, axis: usize, g: i64) -> (usize, bool, bool) {
        let n = self.n[axis];
        if (0..n as i64).contains(&g) {
            return (g as usize, false, false);
        }
        let bc = self.bc[2 * axis + (g >= 0) as usize];
        let (s, mirrored) = cell_source(n as u32, g as i32, bc);
        (s as usize, true, mirrored && bc == WALL)
    }

    /// Cells of one row (2D) or plane (3D) across the cut axis.
    pub(super) fn row(&self) -> usize {
        self.n[..self.cut].iter().product()
    }

    /// Rows (planes) along the cut axis.
    pub(super) fn across(&self) -> usize {
        self.n[self.cut]
    }

    /// The rows (planes) of the whole grid, ascending, that the padded fields of `rows` along
    /// the cut axis ([`padded`](Self::padded)) take values from: `rows` and the ghost layers'
    /// sources beyond them (the neighbours' rows at a cut, the side's sources at a side).
    pub(super) fn cut_sources(&self, rows: Range<usize>) -> Vec<usize> {
        let h = self.halo[self.cut] as i64;
        let mut sources: Vec<usize> =
            (rows.start as i64 - h..rows.end as i64 + h).map(|g| self.source(self.cut, g).0).collect();
        sources.sort_unstable();
        sources.dedup();
        sources
    }

    /// The interior cell (i, j, k), numbered x fastest.
    fn cell(&self, [i, j, k]: [usize; 3]) -> usize {
        i + self.n[0] * (j + self.n[1] * k)
    }

    /// The padded values of `rows` along the cut axis (`0..n` of it: the whole grid), in the
    /// padded layout's order (x fastest): every cell takes `value` of its source cell with
    /// `ghosts` (the auxiliary fields, whose ghosts are filled without a sign change), or
    /// only the interior cells, the ghosts `zero` (the state). The rows beyond a cut inside the
    /// grid are its cells.
    pub(super) fn padded<T: Copy, const N: usize>(
        &self,
        rows: Range<usize>,
        value: impl Fn(usize) -> [T; N],
        ghosts: bool,
        zero: [T; N],
    ) -> Vec<[T; N]> {
        let sources = |axis: usize| -> Vec<(usize, bool)> {
            let (len, first) = if axis == self.cut { (rows.len(), rows.start) } else { (self.n[axis], 0) };
            let h = self.halo[axis] as i64;
            (0..len as i64 + 2 * h).map(|l| self.source(axis, l - h + first as i64)).map(|(s, g, _)| (s, g)).collect()
        };
        let [sx, sy, sz] = [sources(0), sources(1), sources(2)];
        let mut out = Vec::with_capacity(sx.len() * sy.len() * sz.len());
        for &(k, gk) in &sz {
            for &(j, gj) in &sy {
                for &(i, gi) in &sx {
                    let ghost = gi || gj || gk;
                    out.push(if ghost && !ghosts { zero } else { value(self.cell([i, j, k])) });
                }
            }
        }
        out
    }

    /// The first Δt: `cfl` over the fastest wave at the interfaces of every cell along each
    /// axis, its ghosts as each side's rule fills them for a sweep (unbounded for a state
    /// without waves). The interfaces are visited line by line in the sweeps' order (`Lines`).
    pub(super) fn first_dt<T: Real, R: Riemann<T, M, W, A>, const M: usize, const W: usize, const A: usize>(
        &self,
        solver: &R,
        spacing: [f64; 3],
        cfl: f64,
        q: impl Fn(usize) -> [T; M],
        aux: impl Fn(usize) -> [T; A],
    ) -> f64 {
        let mut rate = 0.0f64;
        for dir in 0..self.dims() {
            // The other axes, the faster first: lines along x are numbered j + ny·k, along y
            // i + nx·k, along z i + nx·j (`Lines`).
            let (a, b) = match dir {
                0 => (1, 2),
                1 => (0, 2),
                _ => (0, 1),
            };
            let normal = R::normal(dir);
            let at = |mut ijk: [usize; 3], c: i64| {
                let (s, _, flip) = self.source(dir, c);
                ijk[dir] = s;
                let cell = self.cell(ijk);
                let mut v = q(cell);
                if let Some(m) = normal.filter(|_| flip) {
                    v[m] = -v[m];
                }
                (v, aux(cell))
            };
            let mut speed = T::ZERO;
            for line in 0..self.n[a] * self.n[b] {
                let mut ijk = [0; 3];
                (ijk[a], ijk[b]) = (line % self.n[a], line / self.n[a]);
                for c in 0..=self.n[dir] as i64 {
                    let ((ql, al), (qr, ar)) = (at(ijk, c - 1), at(ijk, c));
                    speed = speed.max(solver.solve(dir, &ql, &qr, &al, &ar).max_speed());
                }
            }
            rate = rate.max(speed.to_f64() / spacing[dir]);
        }
        if rate > 0.0 { cfl / rate } else { f64::INFINITY }
    }
}
