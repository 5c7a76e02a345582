//! The CPU reference, written plainly: each sweep gathers every unknown's neighbourhood from the
//! state's slices, asks the kernels crate's row providers (`kernels::adi`) for its row, and
//! solves the batch of lines with the CPU Thomas solver (`hydrokern_core::tridiag::cpu`).
//!
//! One step, time-centred as MIKE 21 HD (docs/adi.md):
//! - x-sweep, along every row: ζⁿ → ζ^{n+½} and pⁿ → p^{n+1}, with q^{n+½} (and q^{n−½}) known;
//! - y-sweep, along every column: ζ^{n+½} → ζ^{n+1} and q^{n+½} → q^{n+3/2}, with pⁿ and p^{n+1}
//!   known.

use super::forcing::AdiForcing;
use super::{Boundary, Setup, Side};
use crate::{Error, Real, Result};
use hydrokern_core::tridiag::{Layout, Shape, cpu as thomas};
use kernels::adi::{self, Dir, MassAt, MomentumAt, Params, Stencil, force_cell_adi};
use kernels::forcing::cell_gain;
use kernels::tridiag::Eq;
use rayon::prelude::*;
use std::sync::Arc;

/// The state and the model. Layout as in the module's documentation (no ghost cells).
#[derive(Clone, Debug)]
pub struct Adi<T> {
    pub nx: usize,
    pub ny: usize,
    pub params: Params<T>,
    /// West, east, south, north.
    pub sides: [Boundary; 4],
    /// Still-water depth, nx·ny.
    pub d: Vec<T>,
    /// ζⁿ, nx·ny.
    pub zeta: Vec<T>,
    /// pⁿ, (nx+1)·ny.
    pub p: Vec<T>,
    /// q^{n+½}, nx·(ny+1).
    pub q: Vec<T>,
    /// q^{n−½}: the x-sweep's continuity centres q in time with it.
    pub q_old: Vec<T>,
    /// Whether each cell is wet (all true without drying).
    pub wet: Vec<bool>,
    /// t_n (s) and n.
    pub time: f64,
    pub steps: u64,
    /// Rain and soils, applied after each step (`forcing.rs`); the depth each cell's soil has
    /// taken (nx·ny with a soil, else empty).
    pub forcing: Option<Arc<AdiForcing>>,
    pub infiltrated: Vec<T>,
    /// The sweeps' buffers, kept between steps.
    work: Work<T>,
}

/// What a sweep writes besides the state, kept between steps so that a step allocates
/// nothing: its lines' coefficients and solution, spare ζ and along-flux arrays for the new
/// values a sweep returns (those the state leaves behind once a step has succeeded, two of
/// each), and the copy of the start's wet flags. A clone of the model starts without them.
#[derive(Debug)]
struct Work<T> {
    a: Vec<T>,
    b: Vec<T>,
    c: Vec<T>,
    d: Vec<T>,
    x: Vec<T>,
    zeta: Vec<Vec<T>>,
    flux: Vec<Vec<T>>,
    wet: Vec<bool>,
}

impl<T> Default for Work<T> {
    fn default() -> Self {
        Work {
            a: Vec::new(),
            b: Vec::new(),
            c: Vec::new(),
            d: Vec::new(),
            x: Vec::new(),
            zeta: Vec::new(),
            flux: Vec::new(),
            wet: Vec::new(),
        }
    }
}

impl<T> Clone for Work<T> {
    fn clone(&self) -> Self {
        Work::default()
    }
}

/// `v` as `len` values: its own values where it has them (a sweep writes every one).
fn sized<T: Real>(mut v: Vec<T>, len: usize) -> Vec<T> {
    v.resize(len, T::ZERO);
    v
}

/// The index maps of one sweep: line l (a row for the x-sweep, a column for the y-sweep) and
/// position i along it.
#[derive(Clone, Copy)]
struct Frame {
    dir: Dir,
    nx: usize,
    /// Lines and cells along each line.
    lines: usize,
    along: usize,
}

impl Frame {
    fn new(dir: Dir, nx: usize, ny: usize) -> Frame {
        match dir {
            Dir::X => Frame { dir, nx, lines: ny, along: nx },
            Dir::Y => Frame { dir, nx, lines: nx, along: ny },
        }
    }
    /// Cell i of line l (a line index beyond the grid is clamped: the mirror of the edge).
    fn cell(&self, l: isize, i: usize) -> usize {
        let l = l.clamp(0, self.lines as isize - 1) as usize;
        match self.dir {
            Dir::X => l * self.nx + i,
            Dir::Y => i * self.nx + l,
        }
    }
    /// Along-flux face i (0..=along) of line l (clamped as `cell`).
    fn face(&self, l: isize, i: usize) -> usize {
        let l = l.clamp(0, self.lines as isize - 1) as usize;
        match self.dir {
            Dir::X => l * (self.nx + 1) + i,
            Dir::Y => i * self.nx + l,
        }
    }
    /// Cross-flux face of cell i of line l on its low (s = 0) or high (s = 1) side across.
    fn cross(&self, l: usize, i: usize, s: usize) -> usize {
        match self.dir {
            Dir::X => (l + s) * self.nx + i,
            Dir::Y => i * (self.nx + 1) + l + s,
        }
    }
    /// The boundaries at the line's low and high ends.
    fn ends(&self) -> (Side, Side) {
        match self.dir {
            Dir::X => (Side::West, Side::East),
            Dir::Y => (Side::South, Side::North),
        }
    }
}

/// What a sweep reads besides the state it updates.
struct Known<'a, T> {
    /// The other flux component, time-centred (x-sweep q^{n+½}, y-sweep p^{n+1}).
    cross: &'a [T],
    /// Its other level (x-sweep q^{n−½}, y-sweep pⁿ): the continuity uses the sum.
    cross_other: &'a [T],
    /// Levels of a water-level boundary at the start and the end of the half step.
    t0: f64,
    t1: f64,
}

impl<T: Real> Adi<T> {
    /// The model at rest in the setup's initial state; every bad parameter is an Err.
    pub fn new(setup: &Setup) -> Result<Adi<T>> {
        setup.validate()?;
        let (nx, ny) = (setup.nx, setup.ny);
        let params = setup.params::<T>();
        let d: Vec<T> = setup.depth.iter().map(|&v| T::from_f64(v)).collect();
        let zeta: Vec<T> = setup.zeta.iter().map(|&v| T::from_f64(v)).collect();
        let wet = d.iter().zip(&zeta).map(|(&d, &z)| d + z > params.h_dry.max(T::ZERO)).collect();
        let forcing = AdiForcing::of(&setup.forcing).map(Arc::new);
        Ok(Adi {
            nx,
            ny,
            params,
            sides: setup.sides.clone(),
            d,
            zeta,
            p: vec![T::ZERO; (nx + 1) * ny],
            q: vec![T::ZERO; nx * (ny + 1)],
            q_old: vec![T::ZERO; nx * (ny + 1)],
            wet,
            time: 0.0,
            steps: 0,
            infiltrated: if forcing.as_ref().is_some_and(|f| f.has_soil()) {
                vec![T::ZERO; nx * ny]
            } else {
                Vec::new()
            },
            forcing,
            work: Work::default(),
        })
    }

    /// One time step: the x-sweep, then the y-sweep, then the rain and soil over the step. Fails
    /// on a solver breakdown or a non-finite result, naming step and cell, and then leaves the
    /// model as it was before the step (so a caller need not keep a copy to go back to).
    pub fn step(&mut self) -> Result<()> {
        let mut work = std::mem::take(&mut self.work);
        let step = self.step_with(&mut work);
        self.work = work;
        step
    }

    /// [`step`](Self::step) with the sweeps' buffers `work`.
    fn step_with(&mut self, work: &mut Work<T>) -> Result<()> {
        let dt = self.params.dt.to_f64();
        let frame = Frame::new(Dir::X, self.nx, self.ny);
        let known = Known { cross: &self.q, cross_other: &self.q_old, t0: self.time, t1: self.time + 0.5 * dt };
        let (zeta_half, p_new) = sweep(self, frame, &known, &self.p, work)?;
        // The y-sweep reads the x-sweep's ζ, p and wet map; the step's start state is set
        // aside (moved, only the wet flags copied) until the y-sweep has succeeded.
        let zeta_start = std::mem::replace(&mut self.zeta, zeta_half);
        let p_start = std::mem::replace(&mut self.p, p_new);
        let mut wet_start = std::mem::take(&mut work.wet);
        wet_start.clone_from(&self.wet);
        self.update_wet();
        let frame = Frame::new(Dir::Y, self.nx, self.ny);
        let known = Known { cross: &self.p, cross_other: &p_start, t0: self.time + 0.5 * dt, t1: self.time + dt };
        match sweep(self, frame, &known, &self.q, work) {
            Ok((zeta, q)) => {
                let zeta_half = std::mem::replace(&mut self.zeta, zeta);
                let q_older = std::mem::replace(&mut self.q_old, std::mem::replace(&mut self.q, q));
                work.zeta.extend([zeta_start, zeta_half]);
                work.flux.extend([p_start, q_older]);
                work.wet = wet_start;
                self.update_wet();
                self.force(self.time, self.time + dt);
                self.steps += 1;
                self.time = self.steps as f64 * dt;
                Ok(())
            }
            Err(e) => {
                (self.zeta, self.p, self.wet) = (zeta_start, p_start, wet_start);
                Err(e)
            }
        }
    }

    /// `n` steps.
    pub fn run(&mut self, n: usize) -> Result<()> {
        (0..n).try_for_each(|_| self.step())
    }

    fn update_wet(&mut self) {
        let params = &self.params;
        let wet = self.wet.par_iter_mut().zip(&self.d).zip(&self.zeta);
        wet.with_min_len(crate::field::PARALLEL_GRAIN).for_each(|((w, d), z)| {
            *w = adi::wet_next(params, *w, *d + *z);
        });
    }

    /// Σ ζ ΔxΔy (m³), summed in f64: the volume above the still-water level.
    pub fn volume(&self) -> f64 {
        let cell = self.params.dx.to_f64() * self.params.dy.to_f64();
        self.zeta.iter().map(|z| z.to_f64()).sum::<f64>() * cell
    }

    /// Total depth d + ζ of cell (j, k).
    pub fn depth_at(&self, j: usize, k: usize) -> T {
        let i = k * self.nx + j;
        self.d[i] + self.zeta[i]
    }
}

/// One sweep over every line of `frame`: builds each line's rows, solves them, and returns the
/// new ζ and the new along-flux (`flux` holds the old one), in arrays from `work`.
fn sweep<T: Real>(m: &Adi<T>, f: Frame, known: &Known<T>, flux: &[T], work: &mut Work<T>) -> Result<(Vec<T>, Vec<T>)> {
    let n = 2 * f.along + 1;
    let shape = Shape::new(n, f.lines, Layout::Contiguous);
    let Work { a, b, c, d, x, .. } = work;
    for v in [&mut *a, &mut *b, &mut *c, &mut *d, &mut *x] {
        v.resize(n * f.lines, T::ZERO);
    }
    // Lines in parallel (rayon): each builds its own rows.
    let lines = a.par_chunks_mut(n).zip(b.par_chunks_mut(n)).zip(c.par_chunks_mut(n)).zip(d.par_chunks_mut(n));
    lines.enumerate().for_each(|(l, (((a, b), c), d))| {
        for i in 0..n {
            let e = if i % 2 == 1 { mass(m, f, known, flux, l, i / 2) } else { face(m, f, known, flux, l, i / 2) };
            (a[i], b[i], c[i], d[i]) = (e.a, e.b, e.c, e.d);
        }
    });
    thomas::solve(shape, a, b, c, d, x).map_err(|e| {
        let lines = if f.dir == Dir::X { "rows of cells" } else { "columns of cells" };
        Error::invalid(format!(
            "adi: step {} ({:?}-sweep, t = {} s): {e} [the systems are the {lines}, row 2i + 1 of one is ζ of its cell i, row 2i the flux on its face i]",
            m.steps + 1,
            f.dir,
            known.t0
        ))
    })?;
    // The first non-finite value in the lines' order, as a loop over them would meet it.
    if let Some(k) = crate::field::first_where(x, |v| !v.is_finite()) {
        return Err(Error::invalid(format!(
            "adi: step {} ({:?}-sweep, t = {} s): non-finite result on line {} at position {}",
            m.steps + 1,
            f.dir,
            known.t0,
            k / n,
            k % n
        )));
    }
    let mut zeta = sized(work.zeta.pop().unwrap_or_default(), m.zeta.len());
    let mut out = sized(work.flux.pop().unwrap_or_default(), flux.len());
    unpack(f, &work.x, &mut zeta, &mut out);
    Ok((zeta, out))
}

/// A sweep's solution `x` (its lines one after another, 2·along + 1 rows each: row 2i + 1 ζ of
/// the line's cell i, row 2i the flux on its face i) into the cells' ζ and the along-flux
/// faces (`Frame::cell`, `Frame::face`), each row of the grid filled by one task: every value
/// goes where one of them is, whatever order the rows are filled in.
fn unpack<T: Real>(f: Frame, x: &[T], zeta: &mut [T], out: &mut [T]) {
    let (n, nx) = (2 * f.along + 1, f.nx);
    debug_assert!(zeta.len() == f.lines * f.along && out.len() == f.lines * (f.along + 1));
    // Line and position along it of column j of grid row r.
    let line = |r: usize, j: usize| match f.dir {
        Dir::X => (r, j),
        Dir::Y => (j, r),
    };
    // Rows in runs of about PARALLEL_GRAIN values: a small grid's rows are less work than
    // handing them to other threads.
    let grain = crate::field::PARALLEL_GRAIN / nx.max(1);
    zeta.par_chunks_mut(nx).with_min_len(grain).enumerate().for_each(|(r, row)| {
        for (j, z) in row.iter_mut().enumerate() {
            let (l, i) = line(r, j);
            *z = x[l * n + 2 * i + 1];
        }
    });
    // x-faces: rows of nx + 1 faces, one a line; y-faces: rows of nx faces, one a position.
    let width = if f.dir == Dir::X { nx + 1 } else { nx };
    out.par_chunks_mut(width).with_min_len(grain).enumerate().for_each(|(r, row)| {
        for (j, q) in row.iter_mut().enumerate() {
            let (l, i) = line(r, j);
            *q = x[l * n + 2 * i];
        }
    });
}

/// The continuity row of cell i on line l.
fn mass<T: Real>(m: &Adi<T>, f: Frame, known: &Known<T>, flux: &[T], l: usize, i: usize) -> Eq<T> {
    let sum = |s| known.cross[f.cross(l, i, s)] + known.cross_other[f.cross(l, i, s)];
    let at = MassAt {
        zeta: m.zeta[f.cell(l as isize, i)],
        flux_lo: flux[f.face(l as isize, i)],
        flux_hi: flux[f.face(l as isize, i + 1)],
        cross_lo: sum(0),
        cross_hi: sum(1),
    };
    adi::mass_row(&m.params, f.dir, &at)
}

/// The row of along-flux face i (0..=along) on line l: a boundary face by its side's rule, an
/// inner face by momentum if open, else closed.
fn face<T: Real>(m: &Adi<T>, f: Frame, known: &Known<T>, flux: &[T], l: usize, i: usize) -> Eq<T> {
    let k = &m.params;
    let (lo_side, hi_side) = f.ends();
    let li = l as isize;
    if i == 0 || i == f.along {
        let (side, inner) = if i == 0 { (lo_side, 0) } else { (hi_side, f.along - 1) };
        let c = f.cell(li, inner);
        return match &m.sides[side as usize] {
            Boundary::Land => adi::closed_row(T::ZERO),
            Boundary::Flux(v) => adi::closed_row(T::from_f64(*v)),
            Boundary::Level(_) if !m.wet[c] => adi::closed_row(T::ZERO),
            Boundary::Level(level) => {
                let (l0, l1) = (T::from_f64(level.at(known.t0)), T::from_f64(level.at(known.t1)));
                let (z, d) = (m.zeta[c], m.d[c]);
                let mut at = MomentumAt {
                    flux: flux[f.face(li, i)],
                    cross: cross_mean(f, known, l, i),
                    d_lo: d,
                    d_hi: d,
                    ..Default::default()
                };
                if i == 0 {
                    (at.zeta_lo, at.zeta_hi) = (l0, z);
                    adi::known_lo(adi::momentum_row(k, f.dir, &at), l1)
                } else {
                    (at.zeta_lo, at.zeta_hi) = (z, l0);
                    adi::known_hi(adi::momentum_row(k, f.dir, &at), l1)
                }
            }
        };
    }
    let (clo, chi) = (f.cell(li, i - 1), f.cell(li, i));
    let open = adi::face_open(k, (m.wet[clo], m.wet[chi]), (m.zeta[clo], m.zeta[chi]), (m.d[clo], m.d[chi]));
    if !open {
        return adi::closed_row(T::ZERO);
    }
    let h = |c: usize| m.d[c] + m.zeta[c];
    let s = Stencil {
        f: flux[f.face(li, i)],
        f_lo: flux[f.face(li, i - 1)],
        f_hi: flux[f.face(li, i + 1)],
        f_left: flux[f.face(li - 1, i)],
        f_right: flux[f.face(li + 1, i)],
        x_left_lo: known.cross[f.cross(l, i - 1, 0)],
        x_left_hi: known.cross[f.cross(l, i, 0)],
        x_right_lo: known.cross[f.cross(l, i - 1, 1)],
        x_right_hi: known.cross[f.cross(l, i, 1)],
        h_lo: h(clo),
        h_hi: h(chi),
        h_left_lo: h(f.cell(li - 1, i - 1)),
        h_left_hi: h(f.cell(li - 1, i)),
        h_right_lo: h(f.cell(li + 1, i - 1)),
        h_right_hi: h(f.cell(li + 1, i)),
    };
    let at = MomentumAt {
        flux: s.f,
        cross: cross_mean(f, known, l, i),
        zeta_lo: m.zeta[clo],
        zeta_hi: m.zeta[chi],
        d_lo: m.d[clo],
        d_hi: m.d[chi],
        explicit: adi::explicit(k, f.dir, &s),
    };
    adi::momentum_row(k, f.dir, &at)
}

/// The other flux component at along-face i of line l: the mean of the four cross faces of the
/// face's two cells (one cell at a boundary face).
fn cross_mean<T: Real>(f: Frame, known: &Known<T>, l: usize, i: usize) -> T {
    let lo = i.saturating_sub(1);
    let hi = i.min(f.along - 1);
    let x = known.cross;
    let quarter = T::HALF * T::HALF;
    quarter * (x[f.cross(l, lo, 0)] + x[f.cross(l, lo, 1)] + x[f.cross(l, hi, 0)] + x[f.cross(l, hi, 1)])
}

impl<T: Real> Adi<T> {
    /// The rain and soil over the step from `t0` to `t1` applied to ζ, the soil's totals and
    /// the wet flags (nothing without forcing).
    fn force(&mut self, t0: f64, t1: f64) {
        let Some(f) = self.forcing.clone() else { return };
        let span = f.span(t0, t1);
        let cf = f.cell_forcing::<T>();
        let c = &f.per_cell;
        let soils = c.soils_in::<T>();
        let per_cell = !c.soil_cells.is_empty();
        for n in 0..self.nx * self.ny {
            // SAFETY: with frames, frame_times holds frames + 1, rain_cells every cell and frames
            // frames × stride (`RainGrid::new` checked each index); soil_cells null or every
            // cell's entry of soils (`Soils::per_cell` checked each).
            let (add, soil) = unsafe {
                cell_gain(
                    &cf,
                    n,
                    &span,
                    c.frame_times.as_ptr(),
                    c.frames.as_ptr(),
                    c.rain_cells.as_ptr(),
                    soils.as_ptr(),
                    if per_cell { c.soil_cells.as_ptr() } else { std::ptr::null() },
                )
            };
            let f0 = self.infiltrated.get(n).copied().unwrap_or(T::ZERO);
            let (z, nf, wet) =
                force_cell_adi(&self.params, self.d[n], self.zeta[n], self.wet[n], add, soil, f0, self.params.dt);
            self.zeta[n] = z;
            if let Some(v) = self.infiltrated.get_mut(n) {
                *v = nf;
            }
            self.wet[n] = wet;
        }
    }
}
