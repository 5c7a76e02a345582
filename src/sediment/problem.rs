//! A sediment problem: grid, constants, boundary inflows and initial fields; its validation
//! and its explicit stability limit.

use super::{Accumulation, Coeffs, Scheme};
use crate::field::Field2;
use crate::ranks::Slab;
use crate::{Error, Real, Result};
use rayon::prelude::*;

/// Boundary condition of one side: sediment inflow `q` (volume per unit boundary length per
/// unit time, into the basin; 0 closes the side, negative drains it) and the sand fraction of
/// what flows in.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Side {
    pub q: f64,
    pub s_in: f64,
}

impl Side {
    pub const CLOSED: Side = Side { q: 0.0, s_in: 0.0 };
}

/// The problem, in f64 on the host; solvers convert to their precision.
#[derive(Clone, Debug)]
pub struct Problem {
    pub nx: usize,
    pub ny: usize,
    pub dx: f64,
    pub dy: f64,
    /// Compaction ratios of sand and mud.
    pub cs: f64,
    pub cm: f64,
    /// Thickness of the transport layer.
    pub a: f64,
    /// West, east, south, north.
    pub sides: [Side; 4],
    /// Fields with their ghost layer ([`Problem::layout`]).
    pub h: Field2<f64>,
    pub s: Field2<f64>,
    pub alpha: Field2<f64>,
    pub beta: Field2<f64>,
    /// The discretisation.
    pub scheme: Scheme,
    /// How a step adds its increment to h (in f32: compensated or plain).
    pub accumulation: Accumulation,
}

/// How steep a field of h is: the largest |∇²h| and the largest upwind slope term (the seed
/// scheme), or the largest Σ_faces |h_n − h|/Δ² in `slope` (the bounded scheme).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Steepness {
    pub curv: f64,
    pub slope: f64,
}

/// The two limits of the explicit step, and which one binds.
#[derive(Clone, Copy, Debug)]
pub struct StabilityLimit {
    /// Monotonicity of the h-update: Δt ≤ 1 / (2 K_max (1/Δx² + 1/Δy²)), K_max the largest
    /// face conductance max(α/C_s, β/C_m); independent of the state.
    pub diffusion: f64,
    /// Boundedness of the s-update. Seed scheme: Δt ≤ A / ((α_max/C_s + K_max)·(max|∇²h| +
    /// max(|∂h/∂x|/Δx + |∂h/∂y|/Δy))): the upwind convection of s by (α/(A C_s))∇h and the
    /// −s ∂h/∂t term must not move s by more than it holds (a heuristic: s can still leave
    /// [0, 1]). Bounded scheme: Δt ≤ A / (2 K_max · max Σ_faces |h_n − h|/Δ²), under which s'
    /// is a convex combination of s, 0 and 1 (docs/sediment-bounded.md). Depends on h;
    /// infinite on a flat basin.
    pub sand: f64,
}

/// The largest conductances over the interior: K_max = max(α/C_s, β/C_m) and α_max.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Conductances {
    pub k_max: f64,
    pub alpha_max: f64,
}

impl StabilityLimit {
    pub fn limit(&self) -> f64 {
        self.diffusion.min(self.sand)
    }
    /// The step taken when none is forced: 90% of the limit.
    pub fn automatic(&self) -> f64 {
        0.9 * self.limit()
    }
}

impl Problem {
    pub fn pitch(&self) -> usize {
        self.nx + 2
    }
    pub fn len(&self) -> usize {
        (self.nx + 2) * (self.ny + 2)
    }
    pub fn is_empty(&self) -> bool {
        self.nx == 0 || self.ny == 0
    }
    pub fn index(&self, i: usize, j: usize) -> usize {
        j * self.pitch() + i
    }
    /// The layout of the fields: one ghost layer.
    pub fn layout(&self) -> crate::grid::Layout2 {
        crate::grid::Layout2::new(self.nx as u32, self.ny as u32, 1)
    }

    /// Every side with inflow can take it in: its boundary faces conduct (`seed` scheme: α or β
    /// positive at the cells next to it; bounded scheme: the supplied sand or mud can move
    /// there), so the basin gains what the side supplies.
    pub fn check_inflow(&self) -> Result<()> {
        let p = self.pitch();
        for (k, side) in self.sides.iter().enumerate() {
            if side.q <= 0.0 {
                continue;
            }
            let cells: Vec<usize> = match k {
                0 => (1..=self.ny).map(|j| j * p + 1).collect(),
                1 => (1..=self.ny).map(|j| j * p + self.nx).collect(),
                2 => (1..=self.nx).map(|i| p + i).collect(),
                _ => (1..=self.nx).map(|i| self.ny * p + i).collect(),
            };
            // The bounded scheme's boundary face carries only what the supplied sediment can: sand
            // where α > 0 and s_in > 0, mud where β > 0 and s_in < 1.
            let blocked = |c: usize| match self.scheme {
                Scheme::Seed => self.alpha[c] <= 0.0 && self.beta[c] <= 0.0,
                Scheme::Bounded => !(self.alpha[c] > 0.0 && side.s_in > 0.0 || self.beta[c] > 0.0 && side.s_in < 1.0),
            };
            if let Some(&c) = cells.iter().find(|&&c| blocked(c)) {
                let name = ["west", "east", "south", "north"][k];
                let (i, j) = (c % p - 1, c / p - 1);
                return Err(Error::invalid(format!(
                    "the {name} side supplies {} m³/m/yr ({}% sand) but α = {}, β = {} at its cell h[{j}, {i}] (NumPy row, column): \
                     sediment cannot enter there",
                    side.q,
                    100.0 * side.s_in,
                    self.alpha[c],
                    self.beta[c]
                )));
            }
        }
        Ok(())
    }

    /// Check sizes, constants and fields; the message names the first problem found.
    pub fn validate(&self) -> Result<()> {
        let bad = |m: String| Err(Error::invalid(m));
        if self.nx == 0 || self.ny == 0 {
            return bad(format!("grid {}×{}: sizes must be positive", self.nx, self.ny));
        }
        if self.nx > u32::MAX as usize / 4 || self.ny > u32::MAX as usize / 4 {
            return bad(format!("grid {}×{} is too large", self.nx, self.ny));
        }
        for (name, v) in [("dx", self.dx), ("dy", self.dy), ("C_s", self.cs), ("C_m", self.cm), ("A", self.a)] {
            if !(v.is_finite() && v > 0.0) {
                return bad(format!("{name} = {v}: must be positive and finite"));
            }
        }
        for (k, side) in self.sides.iter().enumerate() {
            let name = ["west", "east", "south", "north"][k];
            if !side.q.is_finite() || !(0.0..=1.0).contains(&side.s_in) {
                return bad(format!(
                    "{name} side: inflow {} with sand fraction {} (needs a finite inflow and s_in in [0, 1])",
                    side.q, side.s_in
                ));
            }
        }
        let n = self.len();
        for (name, f) in [("h", &self.h), ("s", &self.s), ("alpha", &self.alpha), ("beta", &self.beta)] {
            if f.len() != n {
                return bad(format!(
                    "{name} has {} values; a {}×{} grid with ghosts needs {n}",
                    f.len(),
                    self.nx,
                    self.ny
                ));
            }
        }
        let p = self.pitch();
        for (name, f, lo, hi) in [
            ("h", &self.h, f64::NEG_INFINITY, f64::INFINITY),
            ("s", &self.s, 0.0, 1.0),
            ("alpha", &self.alpha, 0.0, f64::INFINITY),
            ("beta", &self.beta, 0.0, f64::INFINITY),
        ] {
            for j in 1..=self.ny {
                for i in 1..=self.nx {
                    let v = f[j * p + i];
                    if !v.is_finite() || v < lo || v > hi {
                        return bad(format!("{name}[{i}, {j}] = {v}: {name} must be finite{}", range_text(lo, hi)));
                    }
                }
            }
        }
        Ok(())
    }

    /// The explicit stability limits for the current height field `h` (with ghosts).
    pub fn stability<T: Real>(&self, h: &[T]) -> StabilityLimit {
        self.stability_with(self.conductances(), h)
    }

    /// The largest conductances over the interior, which the limits take from α and β: they
    /// never change during a run, so a model finds them once ([`Problem::stability_with`]).
    pub fn conductances(&self) -> Conductances {
        let p = self.pitch();
        let rows = (1..=self.ny).into_par_iter().map(|j| {
            let mut m = Conductances { k_max: 0.0, alpha_max: 0.0 };
            for c in j * p + 1..=j * p + self.nx {
                m.k_max = m.k_max.max(self.alpha[c] / self.cs).max(self.beta[c] / self.cm);
                m.alpha_max = m.alpha_max.max(self.alpha[c]);
            }
            m
        });
        let zero = || Conductances { k_max: 0.0, alpha_max: 0.0 };
        rows.reduce(zero, |a, b| Conductances { k_max: a.k_max.max(b.k_max), alpha_max: a.alpha_max.max(b.alpha_max) })
    }

    /// [`Problem::stability`] with the conductances found before.
    pub fn stability_with<T: Real>(&self, k: Conductances, h: &[T]) -> StabilityLimit {
        self.limit_of(k, self.steepness(h))
    }

    /// How steep h is, which the sand-fraction limit rests on. Rows are reduced in parallel:
    /// a maximum does not depend on the order, so neither does the step (nor on how many
    /// slabs the grid is cut into: the slabs' maxima give the grid's).
    pub fn steepness<T: Real>(&self, h: &[T]) -> Steepness {
        let p = self.pitch();
        let (dx, dy) = (self.dx, self.dy);
        let bounded = self.scheme == Scheme::Bounded;
        let rows = (1..=self.ny).into_par_iter().map(|j| {
            let (mut curv, mut slope) = (0.0f64, 0.0f64);
            for c in j * p + 1..=j * p + self.nx {
                let v = |k: usize| h[k].to_f64();
                if bounded {
                    // Σ_faces |h_n − h|/Δ², the boundary faces' ghosts included.
                    let d = |n: usize| (v(n) - v(c)).abs();
                    slope = slope.max((d(c + 1) + d(c - 1)) / (dx * dx) + (d(c + p) + d(c - p)) / (dy * dy));
                    continue;
                }
                let lap =
                    (v(c + 1) - 2.0 * v(c) + v(c - 1)) / (dx * dx) + (v(c + p) - 2.0 * v(c) + v(c - p)) / (dy * dy);
                let g =
                    ((v(c + 1) - v(c - 1)) / (2.0 * dx)).abs() / dx + ((v(c + p) - v(c - p)) / (2.0 * dy)).abs() / dy;
                curv = curv.max(lap.abs());
                slope = slope.max(g);
            }
            (curv, slope)
        });
        let (curv, slope) = rows.reduce(|| (0.0, 0.0), |a, b| (a.0.max(b.0), a.1.max(b.1)));
        Steepness { curv, slope }
    }

    /// The limits for conductances `k` and steepness `s`.
    pub fn limit_of(&self, k: Conductances, Steepness { curv, slope }: Steepness) -> StabilityLimit {
        let (dx, dy) = (self.dx, self.dy);
        let bounded = self.scheme == Scheme::Bounded;
        let diffusion = 1.0 / (2.0 * k.k_max * (1.0 / (dx * dx) + 1.0 / (dy * dy)));
        let rate = if bounded { 2.0 * k.k_max * slope } else { (k.alpha_max / self.cs + k.k_max) * (curv + slope) };
        let sand = if rate > 0.0 { self.a / rate } else { f64::INFINITY };
        StabilityLimit { diffusion: if k.k_max > 0.0 { diffusion } else { f64::INFINITY }, sand }
    }

    /// Refuse a forced Δt above the limit, naming the limit.
    pub fn check_dt(&self, dt: f64, h: &[f64]) -> Result<()> {
        let lim = self.stability(h);
        if !(dt.is_finite() && dt > 0.0) {
            return Err(Error::invalid(format!("time step {dt}: must be positive")));
        }
        if dt > lim.limit() {
            return Err(Error::invalid(format!(
                "time step {dt} is above the explicit stability limit {:.6e} (diffusion limit {:.6e}, sand-fraction limit {:.6e}); use a smaller --dt or leave it out",
                lim.limit(),
                lim.diffusion,
                lim.sand
            )));
        }
        Ok(())
    }

    /// The kernels' constants for step `dt`, in precision `T`.
    pub fn coeffs<T: Real>(&self, dt: f64, rows_per_thread: u32) -> Coeffs<T> {
        let t = T::from_f64;
        let q_delta = |k: usize| t(self.q_delta(k));
        Coeffs {
            nx: self.nx as u32,
            ny: self.ny as u32,
            pitch: self.pitch() as u32,
            rows_per_thread: rows_per_thread.max(1),
            scheme: self.scheme.code(),
            dt_dx2: t(dt / (self.dx * self.dx)),
            dt_dy2: t(dt / (self.dy * self.dy)),
            inv_dx2: t(1.0 / (self.dx * self.dx)),
            inv_dy2: t(1.0 / (self.dy * self.dy)),
            inv_2dx: t(0.5 / self.dx),
            inv_2dy: t(0.5 / self.dy),
            inv_dx: t(1.0 / self.dx),
            inv_dy: t(1.0 / self.dy),
            dt_a: t(dt / self.a),
            inv_a: t(1.0 / self.a),
            inv_cs: t(1.0 / self.cs),
            inv_cm: t(1.0 / self.cm),
            q_delta: [q_delta(0), q_delta(1), q_delta(2), q_delta(3)],
            s_in: [t(self.sides[0].s_in), t(self.sides[1].s_in), t(self.sides[2].s_in), t(self.sides[3].s_in)],
            dt_dx2_f64: dt / (self.dx * self.dx),
            dt_dy2_f64: dt / (self.dy * self.dy),
            q_delta_f64: [0, 1, 2, 3].map(|k| self.q_delta(k)),
        }
    }

    /// q·Δ of side `k` (0..4: west, east, south, north): the inflow times the spacing normal to it.
    fn q_delta(&self, k: usize) -> f64 {
        self.sides[k].q * if k < 2 { self.dx } else { self.dy }
    }

    /// The problem of one slab of a decomposed run: its interior rows with the ghost rows
    /// around them as the whole grid holds them. A side at a cut supplies nothing: its ghosts
    /// come from the neighbouring slab ([`Halo`](crate::ranks::Halo)).
    pub fn slab(&self, slab: &Slab) -> Result<Problem> {
        let rows = slab.rows.clone();
        let mut sides = self.sides;
        if slab.below.is_some() {
            sides[2] = Side::CLOSED;
        }
        if slab.above.is_some() {
            sides[3] = Side::CLOSED;
        }
        Ok(Problem {
            nx: self.nx,
            ny: rows.len(),
            dx: self.dx,
            dy: self.dy,
            cs: self.cs,
            cm: self.cm,
            a: self.a,
            sides,
            h: self.h.slab(rows.clone())?,
            s: self.s.slab(rows.clone())?,
            alpha: self.alpha.slab(rows.clone())?,
            beta: self.beta.slab(rows)?,
            scheme: self.scheme,
            accumulation: self.accumulation,
        })
    }

    /// Sediment volume the sides supply per unit time (inflow × side length).
    pub fn supply_rate(&self) -> f64 {
        let lx = self.nx as f64 * self.dx;
        let ly = self.ny as f64 * self.dy;
        (self.sides[0].q + self.sides[1].q) * ly + (self.sides[2].q + self.sides[3].q) * lx
    }

    /// Sediment volume in the basin: Σ h ΔxΔy over the interior.
    pub fn volume<T: Real>(&self, h: &[T]) -> f64 {
        let p = self.pitch();
        let sum: f64 = (1..=self.ny).map(|j| (1..=self.nx).map(|i| h[j * p + i].to_f64()).sum::<f64>()).sum();
        sum * self.dx * self.dy
    }
}

fn range_text(lo: f64, hi: f64) -> String {
    match (lo.is_finite(), hi.is_finite()) {
        (true, true) => format!(" and within [{lo}, {hi}]"),
        (true, false) => format!(" and at least {lo}"),
        _ => String::new(),
    }
}
