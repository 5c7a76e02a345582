//! The CPU reference of the wave-propagation algorithm in two dimensions: cells with two ghost
//! layers, the boundary conditions of every side, dimensionally split sweeps (Godunov or
//! Strang), and PyClaw's CFL control with reject-and-redo. Any [`Riemann`] solver; the sweeps
//! (`lines.rs`, shared with the 3D reference) call the same point functions (`kernels::claw`)
//! the core kernels do.

use super::clock::Cfl;
use super::lines;
use super::part::SlabPart;
use super::slab::{self, Across, Whole};
use super::splitting::Splitting;
use super::start::Shape;
use crate::ranks::Halo;
use crate::{Error, Real, Result};
use kernels::claw::{Limiter, Riemann};
use kernels::grid::Layout2;
use kernels::halo::{WALL, edge_ghost, ghosts_x, ghosts_y};
use std::ops::Range;

pub use super::clock::{Clock, Step};

/// Ghost layers: a cell's update reads the waves of the interfaces one beyond its own.
pub const HALO: u32 = 2;

/// The grid and the algorithm's choices.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Setup {
    pub nx: usize,
    pub ny: usize,
    /// Cell sizes in metres.
    pub dx: f64,
    pub dy: f64,
    /// Boundary condition per side (west, east, south, north): `kernels::halo::{WALL,
    /// EXTRAPOLATE, PERIODIC}`.
    pub bc: [u32; 4],
    pub limiter: Limiter,
    pub splitting: Splitting,
    pub cfl: Cfl,
}

impl Setup {
    fn validate(&self) -> Result<()> {
        if self.nx == 0 || self.ny == 0 || self.nx > u32::MAX as usize / 2 || self.ny > u32::MAX as usize / 2 {
            return Err(Error::invalid(format!("claw: {} × {} cells is not a grid", self.nx, self.ny)));
        }
        if !(self.dx > 0.0 && self.dx.is_finite() && self.dy > 0.0 && self.dy.is_finite()) {
            return Err(Error::invalid(format!("claw: cell sizes {} × {} m must be positive", self.dx, self.dy)));
        }
        lines::check_sides_and_cfl(&self.bc, self.cfl)
    }

    /// The grid as a start sees it (`start.rs`): slabs cut across y.
    pub fn shape(&self) -> Shape {
        let [w, e, s, n] = self.bc;
        let h = HALO as usize;
        Shape::new([self.nx, self.ny, 1], [h, h, 0], [w, e, s, n, WALL, WALL], 1)
    }
}

/// A 2D wave-propagation run on the CPU over solver `R` (M equations, W waves, A aux fields).
pub struct Claw2<T: Real, R: Riemann<T, M, W, A>, const M: usize, const W: usize, const A: usize> {
    solver: R,
    setup: Setup,
    layout: Layout2,
    /// The state and the auxiliary fields, padded (`layout`).
    q: Vec<[T; M]>,
    aux: Vec<[T; A]>,
    /// Where a step's trial state is built, kept between steps (an accepted trial swaps with
    /// `q`), so a step allocates no array the size of the state.
    spare: Vec<[T; M]>,
    clock: Clock,
}

impl<T: Real, R: Riemann<T, M, W, A>, const M: usize, const W: usize, const A: usize> Claw2<T, R, M, W, A> {
    /// A run from interior states `q` and auxiliary values `aux` (row-major, x fastest, nx·ny
    /// each). Inadmissible data (the solver says why) is an error naming the cell.
    pub fn new(solver: R, setup: Setup, q: &[[T; M]], aux: &[[T; A]]) -> Result<Self> {
        setup.validate()?;
        let layout = Layout2::new(setup.nx as u32, setup.ny as u32, HALO);
        lines::check_data(&layout, &solver, q, aux)?;
        let (q, aux) = (|c| q[c], |c| aux[c]);
        let dt = Self::first_dt(&solver, setup, q, aux);
        Ok(Self::start(solver, setup, 0..setup.ny, q, aux, dt))
    }

    /// [`new`](Self::new) from each interior cell's state `q(c)` and auxiliary values
    /// `aux(c)` (c numbered x fastest), without a copy of them.
    pub fn of_cells(
        solver: R,
        setup: Setup,
        q: impl Fn(usize) -> [T; M],
        aux: impl Fn(usize) -> [T; A],
    ) -> Result<Self> {
        setup.validate()?;
        lines::check_cells(&Layout2::new(setup.nx as u32, setup.ny as u32, HALO), &solver, &q, &aux)?;
        let dt = Self::first_dt(&solver, setup, &q, &aux);
        Ok(Self::start(solver, setup, 0..setup.ny, q, aux, dt))
    }

    /// The first Δt of the run [`of_cells`](Self::of_cells) would make (checking the cells
    /// admissible), without making it.
    pub fn first_dt_of_cells(
        solver: &R,
        setup: Setup,
        q: impl Fn(usize) -> [T; M],
        aux: impl Fn(usize) -> [T; A],
    ) -> Result<f64> {
        setup.validate()?;
        lines::check_cells(&Layout2::new(setup.nx as u32, setup.ny as u32, HALO), solver, &q, &aux)?;
        Ok(Self::first_dt(solver, setup, q, aux))
    }

    /// The first Δt of checked cells (`start.rs`).
    fn first_dt(solver: &R, setup: Setup, q: impl Fn(usize) -> [T; M], aux: impl Fn(usize) -> [T; A]) -> f64 {
        setup.shape().first_dt(solver, [setup.dx, setup.dy, 1.0], setup.cfl.desired, q, aux)
    }

    /// The slab of `halo` (its rows and neighbours, over the slab's padded layout) of the run
    /// [`of_cells`](Self::of_cells) would make, at its start, from its `part` of the whole
    /// grid's cells ([`SlabPart::of`] on `setup.shape()`, which rank 0 has checked admissible):
    /// the whole grid's padded cells of those rows and the two ghost rows each side (the
    /// neighbours' rows at a cut, the grid's ghosts at a side), the whole grid's first Δt, and
    /// what its steps need of the other ranks.
    pub fn slab_of_part(solver: R, setup: Setup, part: &SlabPart, halo: Halo) -> Result<(Self, Across)> {
        setup.validate()?;
        let whole = Layout2::new(setup.nx as u32, setup.ny as u32, HALO);
        let rows = halo.slab().rows.clone();
        let layout = Layout2::new(setup.nx as u32, rows.len() as u32, HALO);
        if rows.end > setup.ny || halo.layout() != layout {
            return Err(Error::invalid(format!("claw: a slab of rows {rows:?} of a grid of {} rows", setup.ny)));
        }
        part.check(&setup.shape(), rows.clone(), M + A)?;
        let before = rows.start * setup.nx;
        let (q, aux) = (|c| part.state::<T, M>(c), |c| part.aux::<T, M, A>(c));
        let mut slab = Self::start(solver, setup, rows.clone(), q, aux, part.first_dt);
        (slab.setup.ny, slab.layout) = (rows.len(), layout);
        Ok((slab, Across::new(halo, M, Whole::Plane(whole), before)))
    }

    /// The run of `rows` of the grid of `setup` (all of them: the whole grid's) from its cells'
    /// values, which the caller has checked admissible, and the whole grid's first Δt.
    fn start(
        solver: R,
        setup: Setup,
        rows: Range<usize>,
        q: impl Fn(usize) -> [T; M],
        aux: impl Fn(usize) -> [T; A],
        first_dt: f64,
    ) -> Self {
        let shape = setup.shape();
        let mut clock = Clock::start(0.0, 0.0);
        clock.set_next_dt(first_dt);
        Claw2 {
            solver,
            setup,
            layout: Layout2::new(setup.nx as u32, setup.ny as u32, HALO),
            q: shape.padded(rows.clone(), q, false, [T::ZERO; M]),
            aux: shape.padded(rows, aux, true, [T::ZERO; A]),
            spare: Vec::new(),
            clock,
        }
    }

    /// Fills the ghosts of `q` for a sweep along `dir`: by each side's condition, and on a slab
    /// (`across`) at its cuts from its neighbours.
    fn fill(&self, q: &mut [[T; M]], dir: usize, across: Option<&Across>) {
        fill_ghosts(&self.layout, &self.setup.bc, dir, q, R::normal(dir));
        if let Some(a) = across {
            a.exchange(q, dir);
        }
    }

    fn spacing(&self, dir: usize) -> f64 {
        if dir == 0 { self.setup.dx } else { self.setup.dy }
    }

    /// One sweep along `dir` over Δt `dt`, in place on the padded state `q` (its ghosts along
    /// `dir` refreshed first). Returns the sweep's rate, max|s|/Δx over the interfaces of the
    /// cells it updates (its CFL number over a Δt).
    pub fn sweep(&self, q: &mut [[T; M]], dir: usize, dt: f64) -> f64 {
        self.sweep_across(q, dir, dt, None)
    }

    /// [`sweep`](Self::sweep) on a slab of a run decomposed over ranks (`across`), or not.
    fn sweep_across(&self, q: &mut [[T; M]], dir: usize, dt: f64, across: Option<&Across>) -> f64 {
        self.fill(q, dir, across);
        let spacing = self.spacing(dir);
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
        let mut sweep = |dir, dt| self.sweep_across(q, dir, dt, across);
        let rate = match self.setup.splitting {
            Splitting::Godunov => sweep(0, dt).max(sweep(1, dt)),
            Splitting::Strang => {
                let a = sweep(0, 0.5 * dt);
                let b = sweep(1, dt);
                let c = sweep(0, 0.5 * dt);
                a.max(b).max(c)
            }
        };
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
        while self.time() < t_end {
            self.step(t_end)?;
        }
        Ok(())
    }

    /// The interior states, row-major.
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

    pub fn time(&self) -> f64 {
        self.clock.time()
    }
    pub fn steps(&self) -> u64 {
        self.clock.steps()
    }
    /// The Δt the next step will try.
    pub fn next_dt(&self) -> f64 {
        self.clock.next_dt()
    }
    pub fn set_next_dt(&mut self, dt: f64) {
        self.clock.set_next_dt(dt);
    }
    pub fn clock(&self) -> &Clock {
        &self.clock
    }
    pub fn setup(&self) -> &Setup {
        &self.setup
    }
}

/// Fills the ghost cells across axis `dir` by each side's condition (`halo::edge_ghost`, the
/// pass the kp solver and the GPU's ghost kernel use); at a wall the mirrored ghosts'
/// component `normal` changes sign. A split sweep reads no corner ghost, so what the y-pass
/// puts there does not matter.
fn fill_ghosts<T: Real, const N: usize>(
    layout: &Layout2,
    bc: &[u32; 4],
    dir: usize,
    q: &mut [[T; N]],
    normal: Option<usize>,
) {
    let count = if dir == 0 { ghosts_x(layout) } else { ghosts_y(layout) };
    lines::fill(q, normal, (0..count).filter_map(|t| edge_ghost(layout, *bc, dir as u32, t)));
}
