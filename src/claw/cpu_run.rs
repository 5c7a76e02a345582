//! A wave-propagation run on the CPU, in two dimensions or three: the padded state, the
//! dimensionally split sweeps of a step (`lines.rs`) and PyClaw's CFL control with
//! reject-and-redo (`lines::step`), over a grid that says what differs between 2D and 3D
//! ([`RunGrid`]: its layout, ghosts, spacings, sweep sequence and slabs).

use super::clock::{Cfl, Clock, Step};
use super::lines::{self, Lines};
use super::part::SlabPart;
use super::slab::{self, Across, Whole};
use super::start::Shape;
use crate::ranks::Halo;
use crate::{Error, Real, Result};
use kernels::claw::{Limiter, Riemann};
use kernels::grid::Layout2;
use std::ops::Range;

/// What a CPU run needs of its grid and choices: [`Setup`](super::cpu::Setup) (2D, slabs cut
/// across y) or [`Setup3`](super::d3::cpu::Setup3) (3D, slabs cut across z).
pub trait RunGrid: Copy {
    /// The padded layout of every field.
    type Layout: Lines;
    /// What a slab's rows are called in messages ("rows", "planes").
    const ROWS: &'static str;
    fn validate(&self) -> Result<()>;
    fn layout(&self) -> Self::Layout;
    /// The grid as a start sees it (`start.rs`).
    fn shape(&self) -> Shape;
    /// The cell size along each axis (1 along z in 2D).
    fn spacings(&self) -> [f64; 3];
    /// The sweeps of a step: (axis, fraction of Δt), by the splitting.
    fn sweeps(&self) -> &'static [(usize, f64)];
    /// Fills the ghosts across axis `dir` of `q` (of `layout`, this grid's) by each side's
    /// condition; at a wall the mirrored ghosts' component `normal` changes sign.
    fn fill_ghosts<T: Real, const N: usize>(
        &self,
        layout: &Self::Layout,
        dir: usize,
        q: &mut [[T; N]],
        normal: Option<usize>,
    );
    fn limiter(&self) -> Limiter;
    fn cfl(&self) -> Cfl;
    /// The rows a slab cuts (y in 2D, z in 3D), and the cells of one.
    fn rows(&self) -> usize;
    fn row_cells(&self) -> usize;
    /// This grid with `rows` rows: a slab's.
    fn with_rows(&self, rows: usize) -> Self;
    /// The slab layout's rows as a rank's halo sees them.
    fn halo_layout(&self) -> Layout2;
    /// The whole grid as the exchange at a slab's cuts sees it.
    fn whole(&self) -> Whole;
}

/// A wave-propagation run on the CPU over grid `G` and solver `R` (M equations, W waves, A aux
/// fields).
pub struct CpuRun<G: RunGrid, T: Real, R: Riemann<T, M, W, A>, const M: usize, const W: usize, const A: usize> {
    solver: R,
    setup: G,
    layout: G::Layout,
    /// The state and the auxiliary fields, padded (`layout`).
    q: Vec<[T; M]>,
    aux: Vec<[T; A]>,
    /// Where a step's trial state is built, kept between steps (an accepted trial swaps with
    /// `q`), so a step allocates no array the size of the state.
    spare: Vec<[T; M]>,
    clock: Clock,
}

impl<G: RunGrid, T: Real, R: Riemann<T, M, W, A>, const M: usize, const W: usize, const A: usize>
    CpuRun<G, T, R, M, W, A>
{
    /// A run from interior states `q` and auxiliary values `aux` (x fastest, then y, then z;
    /// a value a cell each). Inadmissible data (the solver says why) is an error naming the cell.
    pub fn new(solver: R, setup: G, q: &[[T; M]], aux: &[[T; A]]) -> Result<Self> {
        setup.validate()?;
        lines::check_data(&setup.layout(), &solver, q, aux)?;
        let (q, aux) = (|c| q[c], |c| aux[c]);
        let dt = Self::first_dt(&solver, setup, q, aux);
        Ok(Self::start(solver, setup, 0..setup.rows(), q, aux, dt))
    }

    /// [`new`](Self::new) from each interior cell's state `q(c)` and auxiliary values
    /// `aux(c)` (c numbered x fastest, then y, then z), without a copy of them.
    pub fn of_cells(solver: R, setup: G, q: impl Fn(usize) -> [T; M], aux: impl Fn(usize) -> [T; A]) -> Result<Self> {
        setup.validate()?;
        lines::check_cells(&setup.layout(), &solver, &q, &aux)?;
        let dt = Self::first_dt(&solver, setup, &q, &aux);
        Ok(Self::start(solver, setup, 0..setup.rows(), q, aux, dt))
    }

    /// The first Δt of the run [`of_cells`](Self::of_cells) would make (checking the cells
    /// admissible), without making it.
    pub fn first_dt_of_cells(
        solver: &R,
        setup: G,
        q: impl Fn(usize) -> [T; M],
        aux: impl Fn(usize) -> [T; A],
    ) -> Result<f64> {
        setup.validate()?;
        lines::check_cells(&setup.layout(), solver, &q, &aux)?;
        Ok(Self::first_dt(solver, setup, q, aux))
    }

    /// The first Δt of checked cells (`start.rs`).
    fn first_dt(solver: &R, setup: G, q: impl Fn(usize) -> [T; M], aux: impl Fn(usize) -> [T; A]) -> f64 {
        setup.shape().first_dt(solver, setup.spacings(), setup.cfl().desired, q, aux)
    }

    /// The slab of `halo` (its rows, y in 2D and z-planes in 3D, and its neighbours; the
    /// layout of its rows is the slab's padded ones) of the run [`of_cells`](Self::of_cells)
    /// would make, at its start, from its `part` of the whole grid's cells ([`SlabPart::of`] on
    /// `setup.shape()`, which rank 0 has checked admissible): the whole grid's padded cells of
    /// those rows and the two ghost rows each side (the neighbours' rows at a cut, the grid's
    /// ghosts at a side), the whole grid's first Δt, and what its steps need of the other ranks.
    pub fn slab_of_part(solver: R, setup: G, part: &SlabPart, halo: Halo) -> Result<(Self, Across)> {
        setup.validate()?;
        let rows = halo.slab().rows.clone();
        let slab = setup.with_rows(rows.len());
        if rows.end > setup.rows() || halo.layout() != slab.halo_layout() {
            let what = G::ROWS;
            return Err(Error::invalid(format!(
                "claw: a slab of {what} {rows:?} of a grid of {} {what}",
                setup.rows()
            )));
        }
        part.check(&setup.shape(), rows.clone(), M + A)?;
        let before = rows.start * setup.row_cells();
        let (q, aux) = (|c| part.state::<T, M>(c), |c| part.aux::<T, M, A>(c));
        let mut run = Self::start(solver, setup, rows, q, aux, part.first_dt);
        (run.setup, run.layout) = (slab, slab.layout());
        Ok((run, Across::new(halo, M, setup.whole(), before)))
    }

    /// The run of `rows` of the grid of `setup` (all of them: the whole grid's) from its cells'
    /// values, which the caller has checked admissible, and the whole grid's first Δt.
    fn start(
        solver: R,
        setup: G,
        rows: Range<usize>,
        q: impl Fn(usize) -> [T; M],
        aux: impl Fn(usize) -> [T; A],
        first_dt: f64,
    ) -> Self {
        let shape = setup.shape();
        let mut clock = Clock::start(0.0, 0.0);
        clock.set_next_dt(first_dt);
        CpuRun {
            solver,
            setup,
            layout: setup.layout(),
            q: shape.padded(rows.clone(), q, false, [T::ZERO; M]),
            aux: shape.padded(rows, aux, true, [T::ZERO; A]),
            spare: Vec::new(),
            clock,
        }
    }

    /// Fills the ghosts of `q` for a sweep along `dir`: by each side's condition, and on a slab
    /// (`across`) at its cuts from its neighbours.
    fn fill(&self, q: &mut [[T; M]], dir: usize, across: Option<&Across>) {
        self.setup.fill_ghosts(&self.layout, dir, q, R::normal(dir));
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
        let spacing = self.setup.spacings()[dir];
        let dtdx = T::from_f64(dt / spacing);
        let speed = lines::sweep(&self.layout, &self.solver, self.setup.limiter(), q, &self.aux, dir, dtdx);
        speed.to_f64() / spacing
    }

    /// The state after one step of Δt from the current one, and the step's rate: the largest
    /// of its sweeps' (so the CFL number measures each sweep against the whole Δt, Strang's
    /// half sweeps included).
    pub fn trial(&self, dt: f64) -> (Vec<[T; M]>, f64) {
        let mut q = Vec::new();
        let rate = self.trial_into(&mut q, dt, None);
        (q, rate)
    }

    /// [`trial`](Self::trial) into `q`, whose allocation it keeps where it can, on a slab of a
    /// run decomposed over ranks (`across`), whose rate is every rank's largest; or not.
    fn trial_into(&self, q: &mut Vec<[T; M]>, dt: f64, across: Option<&Across>) -> f64 {
        q.clone_from(&self.q);
        let sweeps = self.setup.sweeps();
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
        let (step, accepted) = lines::step(&mut clock, self.setup.cfl(), t_end, R::NAME, &mut spare, trial, bad);
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
        assert_eq!(q.len(), self.q.len());
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
    /// The time reached, the Δt the next step tries, the steps taken.
    pub fn clock(&self) -> &Clock {
        &self.clock
    }
    pub fn setup(&self) -> &G {
        &self.setup
    }
}
