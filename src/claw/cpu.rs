//! The CPU reference of the wave-propagation algorithm in two dimensions: cells with two ghost
//! layers, the boundary conditions of every side, dimensionally split sweeps (Godunov or
//! Strang), and PyClaw's CFL control with reject-and-redo. Any [`Riemann`] solver; the sweeps
//! call the same point functions (`kernels::claw`) the core kernels will.

use super::{Cfl, Splitting};
use crate::model::Halt;
use crate::{Error, Real, Result};
use kernels::claw::clock::{
    self, CLOCK_CFL, CLOCK_DT, CLOCK_LAST_CFL, CLOCK_LAST_DT, CLOCK_LAST_REJECTED, CLOCK_LEN, CLOCK_NEXT,
    CLOCK_REJECTED, CLOCK_STATUS, CLOCK_STEPS, CLOCK_T, Control, NON_FINITE, RUNNING,
};
use kernels::claw::{Limiter, Riemann, Solution, correction, update};
use kernels::grid::Layout2;
use kernels::halo::{EXTRAPOLATE, PERIODIC, WALL, edge_ghost, ghosts_x, ghosts_y};
use rayon::prelude::*;

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
        if let Some(b) = self.bc.iter().find(|b| ![WALL, EXTRAPOLATE, PERIODIC].contains(b)) {
            return Err(Error::invalid(format!(
                "claw: boundary condition code {b} is not wall, extrapolate or periodic"
            )));
        }
        for (axis, pair) in [("x", [0, 1]), ("y", [2, 3])] {
            if (self.bc[pair[0]] == PERIODIC) != (self.bc[pair[1]] == PERIODIC) {
                return Err(Error::invalid(format!("claw: a periodic {axis} axis needs both of its sides periodic")));
            }
        }
        let Cfl { desired, max } = self.cfl;
        if !(desired > 0.0 && desired <= max && max <= 1.0) {
            return Err(Error::invalid(format!(
                "claw: CFL numbers desired {desired} and max {max} must satisfy 0 < desired ≤ max ≤ 1"
            )));
        }
        Ok(())
    }
}

/// One accepted step: its Δt and CFL number, and the steps rejected before it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Step {
    pub dt: f64,
    pub cfl: f64,
    pub rejected: u32,
}

/// A run's clock (time, steps, the Δt the next step tries, rejections), in the slots of
/// `kernels::claw::clock`, whose point functions take PyClaw's decisions here and in the
/// device's control kernel alike.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Clock {
    pub slots: [f64; CLOCK_LEN],
}

impl Clock {
    /// At time `t`, the first step to try `dt`.
    pub fn start(t: f64, dt: f64) -> Clock {
        Clock { slots: clock::start(t, dt) }
    }
    pub fn time(&self) -> f64 {
        self.slots[CLOCK_T]
    }
    pub fn steps(&self) -> u64 {
        self.slots[CLOCK_STEPS] as u64
    }
    /// The Δt the next step tries (before the cut to the stop time).
    pub fn next_dt(&self) -> f64 {
        self.slots[CLOCK_NEXT]
    }
    pub fn set_next_dt(&mut self, dt: f64) {
        self.slots[CLOCK_NEXT] = dt;
    }
    /// Steps rejected in all.
    pub fn rejected(&self) -> u64 {
        self.slots[CLOCK_REJECTED] as u64
    }
    /// The last accepted step.
    pub fn last(&self) -> Step {
        Step {
            dt: self.slots[CLOCK_LAST_DT],
            cfl: self.slots[CLOCK_LAST_CFL],
            rejected: self.slots[CLOCK_LAST_REJECTED] as u32,
        }
    }
    /// Why the run stopped stepping, if it did: a wave speed that is not finite, or steps
    /// rejected [`clock::MAX_REJECTS`] times in a row.
    pub fn halt(&self) -> Option<Halt> {
        match self.slots[CLOCK_STATUS] as u32 {
            RUNNING => None,
            NON_FINITE => Some(Halt::NonFinite),
            _ => Some(Halt::Rejected { times: clock::MAX_REJECTS }),
        }
    }

    /// The message for a run of solver `name` that halted.
    pub fn halt_message(&self, name: &str) -> String {
        format!(
            "claw {name}: step {} at t = {:.6e} s: {} (CFL {:e})",
            self.steps() + 1,
            self.time(),
            self.halt().map_or_else(String::new, |h| h.to_string()),
            self.slots[CLOCK_CFL]
        )
    }

    /// One accepted step towards `t_end` (the last cut to land on it): `trial(Δt)` takes a step
    /// of Δt and returns its rate, the largest max|s|/Δ over its sweeps; a step whose CFL number
    /// Δt·rate exceeds `cfl.max` is rejected and tried again with Δt·desired/CFL
    /// ([`clock::judge`]). A trial's error (a blow-up) ends it, as does a halt.
    pub fn step(
        &mut self,
        cfl: Cfl,
        t_end: f64,
        name: &str,
        mut trial: impl FnMut(f64) -> Result<f64>,
    ) -> Result<Step> {
        let c = Control { desired: cfl.desired, max: cfl.max, t_stop: t_end, sweeps: 2, judge: 1 };
        loop {
            clock::arm(&c, &mut self.slots);
            let dt = self.slots[CLOCK_DT];
            if self.halt().is_some() {
                return Err(Error::invalid(self.halt_message(name)));
            }
            if dt <= 0.0 {
                return Err(Error::invalid(format!(
                    "claw: no time left to step (t = {} s, end {t_end} s)",
                    self.time()
                )));
            }
            let rate = trial(dt)?;
            if clock::judge(&c, &mut self.slots, rate) {
                return Ok(self.last());
            }
            if self.halt().is_some() {
                return Err(Error::invalid(self.halt_message(name)));
            }
        }
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
    clock: Clock,
}

impl<T: Real, R: Riemann<T, M, W, A>, const M: usize, const W: usize, const A: usize> Claw2<T, R, M, W, A> {
    /// A run from interior states `q` and auxiliary values `aux` (row-major, x fastest, nx·ny
    /// each). Inadmissible data (the solver says why) is an error naming the cell.
    pub fn new(solver: R, setup: Setup, q: &[[T; M]], aux: &[[T; A]]) -> Result<Self> {
        setup.validate()?;
        let cells = setup.nx * setup.ny;
        if q.len() != cells || aux.len() != cells {
            return Err(Error::invalid(format!(
                "claw: {} states and {} aux values for {} cells",
                q.len(),
                aux.len(),
                cells
            )));
        }
        for (c, (qc, ac)) in q.iter().zip(aux).enumerate() {
            if let Some(why) = solver.inadmissible(qc, ac) {
                let (i, j) = (c % setup.nx, c / setup.nx);
                return Err(Error::invalid(format!("claw {}: cell ({i}, {j}): {why}", R::NAME)));
            }
        }
        let layout = Layout2::new(setup.nx as u32, setup.ny as u32, HALO);
        let mut run = Claw2 {
            solver,
            setup,
            layout,
            q: vec![[T::ZERO; M]; layout.len()],
            aux: vec![[T::ZERO; A]; layout.len()],
            clock: Clock::start(0.0, 0.0),
        };
        for j in 0..setup.ny {
            for i in 0..setup.nx {
                let at = layout.at(i as i32, j as i32);
                (run.q[at], run.aux[at]) = (q[j * setup.nx + i], aux[j * setup.nx + i]);
            }
        }
        // The auxiliary fields never change: their ghosts are filled once (mirrored at walls,
        // without any sign change).
        for dir in 0..2 {
            fill_ghosts(&layout, &setup.bc, dir, &mut run.aux, None);
        }
        run.clock.set_next_dt(run.initial_dt());
        Ok(run)
    }

    /// The first Δt: `cfl.desired` over the fastest wave of the initial state (unbounded for a
    /// state without waves, which then never changes).
    fn initial_dt(&self) -> f64 {
        let mut q = self.q.clone();
        let mut rate = 0.0f64;
        for dir in 0..2 {
            fill_ghosts(&self.layout, &self.setup.bc, dir, &mut q, R::normal(dir));
            let spacing = if dir == 0 { self.setup.dx } else { self.setup.dy };
            let (n, lines) = self.line_counts(dir);
            for k in 0..lines {
                for c in 0..=n as i32 {
                    let (l, r) = (self.line_at(dir, k, c - 1), self.line_at(dir, k, c));
                    let s = self.solver.solve(dir, &q[l], &q[r], &self.aux[l], &self.aux[r]).max_speed();
                    rate = rate.max(s.to_f64() / spacing);
                }
            }
        }
        if rate > 0.0 { self.setup.cfl.desired / rate } else { f64::INFINITY }
    }

    /// Cells along axis `dir` and the number of lines along it.
    fn line_counts(&self, dir: usize) -> (usize, usize) {
        if dir == 0 { (self.setup.nx, self.setup.ny) } else { (self.setup.ny, self.setup.nx) }
    }

    /// Padded index of cell `c` (−2..n+2) of line `k` along axis `dir`.
    fn line_at(&self, dir: usize, k: usize, c: i32) -> usize {
        if dir == 0 { self.layout.at(c, k as i32) } else { self.layout.at(k as i32, c) }
    }

    /// One sweep along `dir` over Δt `dt`, in place on the padded state `q` (its ghosts along
    /// `dir` refreshed first). Returns the sweep's rate, max|s|/Δx over the interfaces of the
    /// cells it updates (its CFL number over a Δt).
    pub fn sweep(&self, q: &mut [[T; M]], dir: usize, dt: f64) -> f64 {
        fill_ghosts(&self.layout, &self.setup.bc, dir, q, R::normal(dir));
        let spacing = if dir == 0 { self.setup.dx } else { self.setup.dy };
        let dtdx = T::from_f64(dt / spacing);
        let (n, lines) = self.line_counts(dir);
        // Lines are independent: each is swept from the old state into a line of its own, on
        // every thread, then written back.
        let q_old: &[[T; M]] = q;
        let swept: Vec<(Vec<[T; M]>, T)> =
            (0..lines).into_par_iter().map(|k| self.sweep_line(q_old, dir, k, n, dtdx)).collect();
        let mut speed = T::ZERO;
        for (k, (line, s)) in swept.into_iter().enumerate() {
            for (i, v) in line.into_iter().enumerate() {
                q[self.line_at(dir, k, i as i32)] = v;
            }
            speed = speed.max(s);
        }
        speed.to_f64() / spacing
    }

    /// Line `k` along `dir` (n cells) after a sweep, and the largest wave speed at the
    /// interfaces of its cells.
    fn sweep_line(&self, q: &[[T; M]], dir: usize, k: usize, n: usize, dtdx: T) -> (Vec<[T; M]>, T) {
        // Interface i (between cells i−1 and i) for i in −1..=n+1, stored at i + 1.
        let sol: Vec<Solution<T, M, W>> = (-1..=n as i32 + 1)
            .map(|i| {
                let (l, r) = (self.line_at(dir, k, i - 1), self.line_at(dir, k, i));
                self.solver.solve(dir, &q[l], &q[r], &self.aux[l], &self.aux[r])
            })
            .collect();
        let fix: Vec<[T; M]> =
            (0..=n).map(|i| correction(self.setup.limiter, dtdx, &sol[i], &sol[i + 1], &sol[i + 2])).collect();
        let speed = (0..=n).fold(T::ZERO, |s, i| s.max(sol[i + 1].max_speed()));
        let line = (0..n)
            .map(|i| {
                update(
                    dtdx,
                    &q[self.line_at(dir, k, i as i32)],
                    &sol[i + 1].apdq,
                    &fix[i],
                    &sol[i + 2].amdq,
                    &fix[i + 1],
                )
            })
            .collect();
        (line, speed)
    }

    /// The state after one step of Δt from the current one, and the step's rate: the largest
    /// of its sweeps' (so the CFL number measures each sweep against the whole Δt, Strang's
    /// half sweeps included).
    pub fn trial(&self, dt: f64) -> (Vec<[T; M]>, f64) {
        let mut q = self.q.clone();
        let rate = match self.setup.splitting {
            Splitting::Godunov => self.sweep(&mut q, 0, dt).max(self.sweep(&mut q, 1, dt)),
            Splitting::Strang => {
                let a = self.sweep(&mut q, 0, 0.5 * dt);
                let b = self.sweep(&mut q, 1, dt);
                let c = self.sweep(&mut q, 0, 0.5 * dt);
                a.max(b).max(c)
            }
        };
        (q, rate)
    }

    /// One accepted step towards `t_end` (the last cut to land on it): steps whose CFL number
    /// exceeds `cfl.max` are rejected and redone with Δt·desired/CFL. A state that stops being
    /// finite is an error naming the step, time and cell, and the state stays the last good one.
    pub fn step(&mut self, t_end: f64) -> Result<Step> {
        let mut clock = self.clock;
        let mut accepted = None;
        let max = self.setup.cfl.max;
        let step = clock.step(self.setup.cfl, t_end, R::NAME, |dt| {
            let (q, rate) = self.trial(dt);
            if dt * rate <= max {
                if let Some(c) = self.first_bad(&q) {
                    let (i, j) = (c % self.setup.nx, c / self.setup.nx);
                    return Err(Error::invalid(format!(
                        "claw {}: blew up in step {} at t = {:.6e} s: cell ({i}, {j}) is not finite",
                        R::NAME,
                        self.steps() + 1,
                        self.time() + dt
                    )));
                }
                accepted = Some(q);
            }
            Ok(rate)
        });
        self.clock = clock;
        if let Some(q) = accepted {
            self.q = q;
        }
        step
    }

    /// Steps until `t_end`.
    pub fn advance_to(&mut self, t_end: f64) -> Result<()> {
        while self.time() < t_end {
            self.step(t_end)?;
        }
        Ok(())
    }

    /// The first interior cell (row-major index) of `q` that is not finite.
    fn first_bad(&self, q: &[[T; M]]) -> Option<usize> {
        (0..self.setup.nx * self.setup.ny).find(|&c| {
            let at = self.layout.at((c % self.setup.nx) as i32, (c / self.setup.nx) as i32);
            !q[at].iter().all(|v| v.is_finite())
        })
    }

    /// The interior states, row-major.
    pub fn state(&self) -> Vec<[T; M]> {
        let mut out = Vec::with_capacity(self.setup.nx * self.setup.ny);
        for j in 0..self.setup.ny {
            for i in 0..self.setup.nx {
                out.push(self.q[self.layout.at(i as i32, j as i32)]);
            }
        }
        out
    }

    /// The padded state with the ghosts across `dir` filled, and the padded auxiliary fields:
    /// what a sweep along `dir` reads.
    pub fn sweep_input(&self, dir: usize) -> (Vec<[T; M]>, &[[T; A]]) {
        let mut q = self.q.clone();
        fill_ghosts(&self.layout, &self.setup.bc, dir, &mut q, R::normal(dir));
        (q, &self.aux)
    }

    /// The padded state (ghosts as last filled) and auxiliary fields (ghosts filled).
    pub fn padded(&self) -> (&[[T; M]], &[[T; A]]) {
        (&self.q, &self.aux)
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
    for t in 0..count {
        if let Some(g) = edge_ghost(layout, *bc, dir as u32, t) {
            let mut v = q[g.source];
            if let Some(m) = normal.filter(|_| g.mirrored && g.bc == WALL) {
                v[m] = -v[m];
            }
            q[g.ghost] = v;
        }
    }
}
