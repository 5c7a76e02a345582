//! The CPU reference of the wave-propagation algorithm in three dimensions: the 2D reference
//! (`cpu.rs`) one axis up, on the same line sweeps (`lines.rs`) and the same step control
//! ([`Clock::step`]). Cells with two ghost layers on every side, six sides each a wall,
//! extrapolation or periodic, and dimensionally split sweeps:
//!
//! - Godunov: x, y, z, each over Δt (first order in the splitting; cudaclaw's choice);
//! - Strang: x over Δt/2, y over Δt/2, z over Δt, y over Δt/2, x over Δt/2 — the symmetric
//!   sequence, second order in the splitting (each half of it is the other's adjoint).
//!
//! The CFL number of a step is the largest Δt·|s|/Δ of any wave of any sweep, half sweeps
//! measured against the full Δt.

use crate::claw::clock::{Cfl, Clock, Step};
use crate::claw::cpu::{HALO, Setup};
use crate::claw::lines;
use crate::claw::part::SlabPart;
use crate::claw::slab::{self, Across, Whole};
use crate::claw::splitting::Splitting;
use crate::claw::start::Shape;
use crate::ranks::Halo;
use crate::{Error, Real, Result};
use kernels::claw::{Limiter, Riemann};
use kernels::grid::{Layout2, Layout3};
use kernels::halo::{WALL, edge_ghost3, ghosts3};
use std::ops::Range;

/// Strang's sweeps in 3D: (axis, fraction of Δt), x½ y½ z y½ x½.
pub const STRANG: [(usize, f64); 5] = [(0, 0.5), (1, 0.5), (2, 1.0), (1, 0.5), (0, 0.5)];

/// The grid and the algorithm's choices in 3D.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Setup3 {
    pub nx: usize,
    pub ny: usize,
    pub nz: usize,
    /// Cell sizes in metres.
    pub dx: f64,
    pub dy: f64,
    pub dz: f64,
    /// Boundary condition per side (west, east, south, north, bottom, top):
    /// `kernels::halo::{WALL, EXTRAPOLATE, PERIODIC}`.
    pub bc: [u32; 6],
    pub limiter: Limiter,
    pub splitting: Splitting,
    pub cfl: Cfl,
}

impl Setup3 {
    fn validate(&self) -> Result<()> {
        let n = [self.nx, self.ny, self.nz];
        // The padded grid's points must count in u32 (the kernels' ghost enumeration).
        let padded: f64 = n.iter().map(|&n| (n + 2 * HALO as usize) as f64).product();
        if n.contains(&0) || padded > u32::MAX as f64 {
            return Err(Error::invalid(format!("claw: {} × {} × {} cells is not a grid", n[0], n[1], n[2])));
        }
        if ![self.dx, self.dy, self.dz].iter().all(|d| *d > 0.0 && d.is_finite()) {
            return Err(Error::invalid(format!(
                "claw: cell sizes {} × {} × {} m must be positive",
                self.dx, self.dy, self.dz
            )));
        }
        lines::check_sides_and_cfl(&self.bc, self.cfl)
    }

    /// `n` cells along x and y and `nz` along z of side 1/`n` (the unit square when `nz` is 1),
    /// walls all round, the MC limiter, Godunov splitting and the default CFL targets: the
    /// benchmarks' and the tuner's problem.
    pub fn walled(n: usize, nz: usize) -> Setup3 {
        let h = 1.0 / n as f64;
        Setup3 {
            nx: n,
            ny: n,
            nz,
            dx: h,
            dy: h,
            dz: h,
            bc: [WALL; 6],
            limiter: Limiter::Mc,
            splitting: Splitting::Godunov,
            cfl: Cfl::default(),
        }
    }

    /// The padded layout of every field.
    pub fn layout(&self) -> Layout3 {
        Layout3::new(self.nx as u32, self.ny as u32, self.nz as u32, HALO)
    }

    /// The 2D set-up of the plane z = 0: x and y as they are (the bottom and top sides and dz
    /// dropped).
    pub fn plane(&self) -> Setup {
        let [w, e, s, n, ..] = self.bc;
        Setup {
            nx: self.nx,
            ny: self.ny,
            dx: self.dx,
            dy: self.dy,
            bc: [w, e, s, n],
            limiter: self.limiter,
            splitting: self.splitting,
            cfl: self.cfl,
        }
    }

    /// The cell size along axis `dir`.
    pub fn spacing(&self, dir: usize) -> f64 {
        [self.dx, self.dy, self.dz][dir]
    }

    /// The grid as a start sees it (`start.rs`): slabs cut across z.
    pub fn shape(&self) -> Shape {
        Shape::new([self.nx, self.ny, self.nz], [HALO as usize; 3], self.bc, 2)
    }
}

/// A 3D wave-propagation run on the CPU over solver `R` (M equations, W waves, A aux fields).
pub struct Claw3<T: Real, R: Riemann<T, M, W, A>, const M: usize, const W: usize, const A: usize> {
    solver: R,
    setup: Setup3,
    layout: Layout3,
    /// The state and the auxiliary fields, padded (`layout`).
    q: Vec<[T; M]>,
    aux: Vec<[T; A]>,
    /// Where a step's trial state is built, kept between steps (an accepted trial swaps with
    /// `q`), so a step allocates no array the size of the state.
    spare: Vec<[T; M]>,
    clock: Clock,
}

impl<T: Real, R: Riemann<T, M, W, A>, const M: usize, const W: usize, const A: usize> Claw3<T, R, M, W, A> {
    /// A run from interior states `q` and auxiliary values `aux` (x fastest, then y, then z;
    /// nx·ny·nz each). Inadmissible data (the solver says why) is an error naming the cell.
    pub fn new(solver: R, setup: Setup3, q: &[[T; M]], aux: &[[T; A]]) -> Result<Self> {
        setup.validate()?;
        lines::check_data(&setup.layout(), &solver, q, aux)?;
        let (q, aux) = (|c| q[c], |c| aux[c]);
        let dt = Self::first_dt(&solver, setup, q, aux);
        Ok(Self::start(solver, setup, 0..setup.nz, q, aux, dt))
    }

    /// [`new`](Self::new) from each interior cell's state `q(c)` and auxiliary values
    /// `aux(c)` (c numbered x fastest, then y, then z), without a copy of them.
    pub fn of_cells(
        solver: R,
        setup: Setup3,
        q: impl Fn(usize) -> [T; M],
        aux: impl Fn(usize) -> [T; A],
    ) -> Result<Self> {
        setup.validate()?;
        lines::check_cells(&setup.layout(), &solver, &q, &aux)?;
        let dt = Self::first_dt(&solver, setup, &q, &aux);
        Ok(Self::start(solver, setup, 0..setup.nz, q, aux, dt))
    }

    /// The first Δt of the run [`of_cells`](Self::of_cells) would make (checking the cells
    /// admissible), without making it.
    pub fn first_dt_of_cells(
        solver: &R,
        setup: Setup3,
        q: impl Fn(usize) -> [T; M],
        aux: impl Fn(usize) -> [T; A],
    ) -> Result<f64> {
        setup.validate()?;
        lines::check_cells(&setup.layout(), solver, &q, &aux)?;
        Ok(Self::first_dt(solver, setup, q, aux))
    }

    /// The first Δt of checked cells (`start.rs`).
    fn first_dt(solver: &R, setup: Setup3, q: impl Fn(usize) -> [T; M], aux: impl Fn(usize) -> [T; A]) -> f64 {
        setup.shape().first_dt(solver, [setup.dx, setup.dy, setup.dz], setup.cfl.desired, q, aux)
    }

    /// The slab of `halo` (its planes along z and neighbours; the layout of its rows is the
    /// slab's padded planes) of the run [`of_cells`](Self::of_cells) would make, at its
    /// start, from its `part` of the whole grid's cells ([`SlabPart::of`] on `setup.shape()`,
    /// which rank 0 has checked admissible): the whole grid's padded cells of those planes and
    /// the two ghost planes each side (the neighbours' planes at a cut, the grid's ghosts at a
    /// side), the whole grid's first Δt, and what its steps need of the other ranks.
    pub fn slab_of_part(solver: R, setup: Setup3, part: &SlabPart, halo: Halo) -> Result<(Self, Across)> {
        setup.validate()?;
        let planes = halo.slab().rows.clone();
        let slab = Setup3 { nz: planes.len(), ..setup };
        if planes.end > setup.nz || halo.layout() != rows_of(&slab.layout()) {
            return Err(Error::invalid(format!("claw: a slab of planes {planes:?} of a grid of {} planes", setup.nz)));
        }
        part.check(&setup.shape(), planes.clone(), M + A)?;
        let before = planes.start * setup.nx * setup.ny;
        let (q, aux) = (|c| part.state::<T, M>(c), |c| part.aux::<T, M, A>(c));
        let mut run = Self::start(solver, setup, planes, q, aux, part.first_dt);
        (run.setup, run.layout) = (slab, slab.layout());
        Ok((run, Across::new(halo, M, Whole::Volume(setup.layout()), before)))
    }

    /// The run of `planes` of the grid of `setup` (all of them: the whole grid's) from its
    /// cells' values, which the caller has checked admissible, and the whole grid's first Δt.
    fn start(
        solver: R,
        setup: Setup3,
        planes: Range<usize>,
        q: impl Fn(usize) -> [T; M],
        aux: impl Fn(usize) -> [T; A],
        first_dt: f64,
    ) -> Self {
        let shape = setup.shape();
        let mut clock = Clock::start(0.0, 0.0);
        clock.set_next_dt(first_dt);
        Claw3 {
            solver,
            setup,
            layout: setup.layout(),
            q: shape.padded(planes.clone(), q, false, [T::ZERO; M]),
            aux: shape.padded(planes, aux, true, [T::ZERO; A]),
            spare: Vec::new(),
            clock,
        }
    }

    /// Fills the ghosts of `q` for a sweep along `dir`: by each side's condition, and on a slab
    /// (`across`) at its cuts from its neighbours.
    fn fill(&self, q: &mut [[T; M]], dir: usize, across: Option<&Across>) {
        fill_ghosts3(&self.layout, &self.setup.bc, dir, q, R::normal(dir));
        if let Some(a) = across {
            a.exchange(q, dir);
        }
    }

    /// One sweep along `dir` (0, 1, 2 = x, y, z) over Δt `dt`, in place on the padded state `q`
    /// (its ghosts across `dir` refreshed first). Returns the sweep's rate, max|s|/Δ over the
    /// interfaces of the cells it updates (its CFL number over a Δt).
    pub fn sweep(&self, q: &mut [[T; M]], dir: usize, dt: f64) -> f64 {
        self.sweep_across(q, dir, dt, None)
    }

    /// [`sweep`](Self::sweep) on a slab of a run decomposed over ranks (`across`), or not.
    fn sweep_across(&self, q: &mut [[T; M]], dir: usize, dt: f64, across: Option<&Across>) -> f64 {
        self.fill(q, dir, across);
        let spacing = self.setup.spacing(dir);
        let dtdx = T::from_f64(dt / spacing);
        let speed = lines::sweep(&self.layout, &self.solver, self.setup.limiter, q, &self.aux, dir, dtdx);
        speed.to_f64() / spacing
    }

    /// The state after one step of Δt from the current one, and the step's rate: the largest
    /// of its sweeps' (so the CFL number measures each sweep against the whole Δt, Strang's
    /// half sweeps included).
    pub fn trial(&self, dt: f64) -> (Vec<[T; M]>, f64) {
        self.trial_across(dt, None)
    }

    /// [`trial`](Self::trial) on a slab of a run decomposed over ranks (`across`), whose rate is
    /// every rank's largest; or not.
    fn trial_across(&self, dt: f64, across: Option<&Across>) -> (Vec<[T; M]>, f64) {
        let mut q = Vec::new();
        let rate = self.trial_into(&mut q, dt, across);
        (q, rate)
    }

    /// [`trial_across`](Self::trial_across) into `q`, whose allocation it keeps where it can.
    fn trial_into(&self, q: &mut Vec<[T; M]>, dt: f64, across: Option<&Across>) -> f64 {
        q.clone_from(&self.q);
        let sweeps: &[(usize, f64)] = match self.setup.splitting {
            Splitting::Godunov => &[(0, 1.0), (1, 1.0), (2, 1.0)],
            Splitting::Strang => &STRANG,
        };
        let rate = sweeps.iter().map(|&(dir, frac)| self.sweep_across(q, dir, frac * dt, across)).fold(0.0, f64::max);
        across.map_or(rate, |a| a.rate(rate))
    }

    /// One accepted step towards `t_end` (the last cut to land on it): steps whose CFL number
    /// exceeds `cfl.max` are rejected and redone with Δt·desired/CFL. A state that stops being
    /// finite is an error naming the step, time and cell, and the state stays the last good one.
    pub fn step(&mut self, t_end: f64) -> Result<Step> {
        self.step_across(t_end, None)
    }

    /// [`step`](Self::step) on a slab of a run decomposed over ranks (`across`): the ranks take
    /// the same decisions, and a blow-up names the whole grid's first bad cell.
    pub fn step_across(&mut self, t_end: f64, across: Option<&Across>) -> Result<Step> {
        let mut clock = self.clock;
        let mut spare = std::mem::take(&mut self.spare);
        let bad = |q: &Vec<[T; M]>| slab::first_bad(across, &self.layout, q);
        let trial = |q: &mut Vec<[T; M]>, dt| self.trial_into(q, dt, across);
        let (step, accepted) = lines::step(&mut clock, self.setup.cfl, t_end, R::NAME, &mut spare, trial, bad);
        self.clock = clock;
        if accepted {
            std::mem::swap(&mut self.q, &mut spare);
        }
        self.spare = spare;
        step
    }

    /// Steps until `t_end`.
    pub fn advance_to(&mut self, t_end: f64) -> Result<()> {
        while self.clock.time() < t_end {
            self.step(t_end)?;
        }
        Ok(())
    }

    /// The interior states, x fastest, then y, then z.
    pub fn state(&self) -> Vec<[T; M]> {
        lines::interior(&self.layout, &self.q)
    }

    /// The padded state with the ghosts across `dir` filled, and the padded auxiliary fields:
    /// what a sweep along `dir` reads.
    pub fn sweep_input(&self, dir: usize) -> (Vec<[T; M]>, &[[T; A]]) {
        let mut q = self.q.clone();
        self.fill(&mut q, dir, None);
        (q, &self.aux)
    }

    /// The padded state (ghosts as last filled) and auxiliary fields (ghosts filled).
    pub fn padded(&self) -> (&[[T; M]], &[[T; A]]) {
        (&self.q, &self.aux)
    }

    /// Replaces the clock (a restart's).
    pub fn set_clock(&mut self, clock: Clock) {
        self.clock = clock;
    }

    /// Replaces the padded state (a trial's result, say).
    pub fn set_padded(&mut self, q: Vec<[T; M]>) {
        assert_eq!(q.len(), self.layout.len());
        self.q = q;
    }

    /// The time reached, the Δt the next step tries, the steps taken.
    pub fn clock(&self) -> &Clock {
        &self.clock
    }
    pub fn set_next_dt(&mut self, dt: f64) {
        self.clock.set_next_dt(dt);
    }
    pub fn setup(&self) -> &Setup3 {
        &self.setup
    }
}

/// Fills the ghost cells across axis `dir` by each side's condition (`halo::edge_ghost3`, the
/// pass the GPU's 3D ghost kernel uses); at a wall the mirrored ghosts' component `normal`
/// changes sign. A split sweep reads no edge or corner ghost, so what later passes put there
/// does not matter.
pub fn fill_ghosts3<T: Real, const N: usize>(
    layout: &Layout3,
    bc: &[u32; 6],
    dir: usize,
    q: &mut [[T; N]],
    normal: Option<usize>,
) {
    let count = ghosts3(layout, dir as u32);
    lines::fill(q, normal, (0..count).filter_map(|t| edge_ghost3(layout, *bc, dir as u32, t)));
}

/// The padded 3D `layout` as rows of a 2D layout, one padded z-plane a row: how a run cut
/// across z is decomposed (the slabs' rows are planes; a checkpoint's fields join and split
/// plane by plane).
pub fn rows_of(layout: &Layout3) -> Layout2 {
    let plane = layout.plane_len() as u32;
    Layout2::new(plane - 2 * layout.halo, layout.nz, layout.halo)
}
