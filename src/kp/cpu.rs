//! CPU reference: the same point functions as the kernels, rayon over rows.

use super::clamp::Faces;
use super::problem::Padded;
use super::split::{Fail, Split};
use super::{Problem, Scheme, WetDry};
use crate::field::Field2;
use crate::{Error, Real, Result};
use kernels::kp::{
    Bollermann, Clamp, Coeffs, Kp07, STEP_OK, WetDryScheme, block_active, cell_rhs, rk_pair, rk_point, set_ghost,
    time_step,
};
use kernels::halo::{edge_ghost, ghosts_x, ghosts_y};
use rayon::prelude::*;

/// R = (R_w, R_hu, R_hv) on the interior from the padded state in wet–dry scheme `wet_dry`;
/// returns max(a_x/Δx, a_y/Δy). With `wet` (one flag a block of `k.bx × k.by` cells), blocks
/// that are dry with their four neighbours get R = 0 and rate 0 without computing, as the
/// early-exit kernel does. In `clamp` it is R before the draining factors, which need Δt
/// (`CpuKp::step` drains and clamps).
#[allow(clippy::too_many_arguments)]
pub fn rhs<T: Real>(
    k: &Coeffs<T>,
    wet_dry: WetDry,
    w: &[T],
    hu: &[T],
    hv: &[T],
    bed: &[T],
    wet: Option<&[u8]>,
    rw: &mut [T],
    rhu: &mut [T],
    rhv: &mut [T],
) -> T {
    // The scheme is a type parameter of the point functions: one loop compiled for each.
    match wet_dry {
        WetDry::Bollermann => rhs_of::<Bollermann, T>(k, [w, hu, hv], bed, wet, [rw, rhu, rhv]),
        WetDry::Kp07 => rhs_of::<Kp07, T>(k, [w, hu, hv], bed, wet, [rw, rhu, rhv]),
        WetDry::Clamp => rhs_of::<Clamp, T>(k, [w, hu, hv], bed, wet, [rw, rhu, rhv]),
    }
}

/// [`rhs`] in scheme `S`: R of the state (w, hu, hv) into (R_w, R_hu, R_hv).
fn rhs_of<S: WetDryScheme, T: Real>(
    k: &Coeffs<T>,
    [w, hu, hv]: [&[T]; 3],
    bed: &[T],
    wet: Option<&[u8]>,
    [rw, rhu, rhv]: [&mut [T]; 3],
) -> T {
    let p = k.pitch as usize;
    let cp = k.cpitch as usize;
    let (nx, ny) = (k.nx as usize, k.ny as usize);
    rw.par_chunks_mut(p)
        .zip(rhu.par_chunks_mut(p))
        .zip(rhv.par_chunks_mut(p))
        .enumerate()
        .skip(2)
        .take(ny)
        .map(|(j, ((row_w, row_u), row_v))| {
            let mut rate = T::ZERO;
            for i in 2..nx + 2 {
                if let Some(wet) = wet {
                    let (bi, bj) = ((i as u32 - 2) / k.bx, (j as u32 - 2) / k.by);
                    let flag = |a: u32, b: u32| wet[(b * k.nbx + a) as usize] != 0;
                    if !block_active(k, bi, bj, flag) {
                        (row_w[i], row_u[i], row_v[i]) = (T::ZERO, T::ZERO, T::ZERO);
                        continue;
                    }
                }
                let c = j * p + i;
                let q = |di: i32, dj: i32| {
                    let g = (c as isize + di as isize + dj as isize * p as isize) as usize;
                    (w[g], hu[g], hv[g])
                };
                let cc = j * cp + i;
                let b = |ci: i32, cj: i32| bed[(cc as isize + ci as isize + cj as isize * cp as isize) as usize];
                let r = cell_rhs::<S, T>(k, q, b);
                (row_w[i], row_u[i], row_v[i]) = (r.w, r.hu, r.hv);
                // A NaN would lose every max: count it as an infinite speed.
                rate = rate.max(if r.rate.is_finite() { r.rate } else { T::INFINITY });
            }
            rate
        })
        .reduce(|| T::ZERO, |a, b| a.max(b))
}

/// w's low parts of a compensated RK stage (padded): Qⁿ's and Q¹'s, read, and the output's.
pub struct LowParts<'a, T> {
    pub q0: &'a [T],
    pub q1: &'a [T],
    pub out: &'a mut [T],
}

/// One RK stage on the interior into `out` (see `kernels::kp::rk_point`), and the wet map. Each
/// cell's g·n² is `k.g_n2`, or its value in `gn2` (padded) when the problem has a friction field.
/// With `low`, the compensated stage (`kernels::kp::rk_pair`), w's low parts read and written.
#[allow(clippy::too_many_arguments)]
pub fn rk<T: Real>(
    k: &Coeffs<T>,
    stage: u32,
    dt: T,
    cell_bed: &[T],
    gn2: Option<&[T]>,
    q0: [&[T]; 3],
    q1: [&[T]; 3],
    r: [&[T]; 3],
    out: [&mut [T]; 3],
    low: Option<LowParts<'_, T>>,
    wet: &mut [u8],
) {
    let p = k.pitch as usize;
    let (nx, ny) = (k.nx as usize, k.ny as usize);
    let [ow, ou, ov] = out;
    // The output's low part row by row, or none a row on the plain path.
    let (lo_in, lo_rows): (_, Vec<Option<&mut [T]>>) = match low {
        Some(LowParts { q0, q1, out }) => (Some((q0, q1)), out.chunks_mut(p).map(Some).collect()),
        None => (None, ow.chunks(p).map(|_| None).collect()),
    };
    let row_wet: Vec<Vec<bool>> = ow
        .par_chunks_mut(p)
        .zip(ou.par_chunks_mut(p))
        .zip(ov.par_chunks_mut(p))
        .zip(lo_rows)
        .enumerate()
        .skip(2)
        .take(ny)
        .map(|(j, (((rw, ru), rv), mut rl))| {
            (2..nx + 2)
                .map(|i| {
                    let c = j * p + i;
                    let (g_n2, bc) = (gn2.map_or(k.g_n2, |f| f[c]), cell_bed[c]);
                    let (a, b, d) = ((q0[0][c], q0[1][c], q0[2][c]), (q1[0][c], q1[1][c], q1[2][c]), (r[0][c], r[1][c], r[2][c]));
                    let (q, is_wet) = match (lo_in, rl.as_deref_mut()) {
                        (Some((l0, l1)), Some(rl)) => {
                            let (q, lo, is_wet) = rk_pair(k, g_n2, stage, dt, bc, (a, l0[c]), (b, l1[c]), d);
                            rl[i] = lo;
                            (q, is_wet)
                        }
                        _ => rk_point(k, g_n2, stage, dt, bc, a, b, d),
                    };
                    (rw[i], ru[i], rv[i]) = q;
                    is_wet
                })
                .collect()
        })
        .collect();
    wet.fill(0);
    for (j, row) in row_wet.iter().enumerate() {
        for (i, &is_wet) in row.iter().enumerate() {
            if is_wet {
                wet[(j as u32 / k.by * k.nbx + i as u32 / k.bx) as usize] = 1;
            }
        }
    }
}

/// Set both ghost layers on all four sides (x-pass, then y-pass over all columns).
pub fn apply_boundary<T: Real>(k: &Coeffs<T>, w: &mut [T], hu: &mut [T], hv: &mut [T], cell_bed: &[T]) {
    let n = k.cells();
    assert!(w.len() == n && hu.len() == n && hv.len() == n && cell_bed.len() == n, "field lengths");
    let layout = k.layout();
    for (axis, count) in [(0, ghosts_x(&layout)), (1, ghosts_y(&layout))] {
        for t in 0..count {
            if let Some(gh) = edge_ghost(&layout, k.bc, axis, t) {
                // SAFETY: the slices hold (nx+4)(ny+4) cells (asserted) and `gh` indexes them.
                unsafe { set_ghost(axis, w.as_mut_ptr(), hu.as_mut_ptr(), hv.as_mut_ptr(), cell_bed.as_ptr(), gh) };
            }
        }
    }
}

/// Start from a clean state, as every RK stage leaves it: the surface not below the bed, no
/// momentum in dry cells (h ≤ `k.dry`). The GPU's early exit relies on dry blocks being clean.
pub fn clean_state<T: Real>(k: &Coeffs<T>, w: &mut [T], hu: &mut [T], hv: &mut [T], cell_bed: &[T]) {
    for j in 0..k.ny {
        for i in 0..k.nx {
            let c = k.at(i + 2, j + 2);
            ((w[c], hu[c], hv[c]), _) = kernels::kp::clean(k, cell_bed[c], (w[c], hu[c], hv[c]));
        }
    }
}

/// The wet map of a padded state: 1 for a block with a cell deeper than `k.wet_above`.
pub fn wet_map<T: Real>(k: &Coeffs<T>, w: &[T], cell_bed: &[T]) -> Vec<u8> {
    let mut wet = vec![0u8; (k.nbx * k.nby) as usize];
    for j in 0..k.ny {
        for i in 0..k.nx {
            let c = k.at(i + 2, j + 2);
            if w[c] - cell_bed[c] > k.wet_above {
                wet[(j / k.by * k.nbx + i / k.bx) as usize] = 1;
            }
        }
    }
    wet
}

/// Why a run stopped early.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Halt {
    NonFinite,
    Collapsed,
}

/// The reference solver's state.
pub struct CpuKp<T: Real> {
    k: Coeffs<T>,
    scheme: Scheme,
    wet_dry: WetDry,
    cfl: f64,
    dt_floor: f64,
    early_exit: bool,
    bed: Field2<T>,
    cell_bed: Field2<T>,
    /// g·n² per cell (padded) when the problem has a Manning field.
    friction: Option<Field2<T>>,
    /// Qⁿ, the stage state Q¹, the residual R, and the stage-2 output before it becomes Qⁿ⁺¹.
    q: [Field2<T>; 3],
    q1: [Field2<T>; 3],
    r: [Field2<T>; 3],
    q2: [Field2<T>; 3],
    /// On the compensated path (`Problem::compensates`), w's low parts of Qⁿ, Q¹ and the stage-2
    /// output, swapped with them; zero on the ghost layers (no stencil reads them).
    low: Option<[Field2<T>; 3]>,
    wet: Vec<u8>,
    /// The faces of a stage in `clamp`, which drains after Δt is known (every cell computed:
    /// no early exit).
    faces: Option<Box<Faces<T>>>,
    /// DS1 and DS2 (`split.rs`): their buffers and Δt estimates.
    split: Option<Box<Split<T>>>,
    t: f64,
    dt: f64,
    steps: u64,
}

impl<T: Real> CpuKp<T> {
    /// Validate `problem`, convert it to `T`, set the ghosts. `block` is the wet map's block
    /// (the GPU's flux block); `early_exit` skips dry blocks as the early-exit kernel does.
    pub fn new(problem: &Problem, block: (u32, u32), early_exit: bool) -> Result<CpuKp<T>> {
        problem.validate()?;
        if block.0 == 0 || block.1 == 0 {
            return Err(Error::invalid(format!("block {}×{}: sizes must be positive", block.0, block.1)));
        }
        let k = problem.coeffs::<T>(block);
        let Padded { bed, cell_bed, q } = problem.padded(&k)?;
        let wet = wet_map(&k, &q[0], &cell_bed);
        // The split schemes keep their own faces (`split.rs`).
        let clamp = problem.wet_dry == WetDry::Clamp;
        let faces = (clamp && !problem.scheme.is_split()).then(|| Box::new(Faces::new(&k, &bed)));
        let zeros = || Field2::filled(problem.layout(), T::ZERO);
        let split = match problem.scheme.is_split() {
            true => Some(Box::new(Split::new(problem.scheme, problem.wet_dry, problem.cfl, problem.ds_safety, &k, &bed, &cell_bed)?)),
            false => None,
        };
        Ok(CpuKp {
            k,
            // SRK2 splits the fluxes into two GPU kernels; its arithmetic is RK2's.
            scheme: if problem.scheme == Scheme::Srk2 { Scheme::Rk2 } else { problem.scheme },
            split,
            wet_dry: problem.wet_dry,
            cfl: problem.cfl,
            dt_floor: problem.dt_floor,
            early_exit,
            bed,
            friction: problem.friction_field()?,
            q1: q.clone(),
            q2: q.clone(),
            q,
            r: [zeros()?, zeros()?, zeros()?],
            low: problem.compensates::<T>().then(|| Ok::<_, Error>([zeros()?, zeros()?, zeros()?])).transpose()?,
            cell_bed,
            wet,
            faces,
            t: 0.0,
            dt: 0.0,
            steps: 0,
        })
    }

    /// Continue from a padded state (w, hu, hv with their ghosts), its wet map and clock, as
    /// [`state`](Self::state), [`low`](Self::low), [`wet`](Self::wet) and the clock's getters gave
    /// them of a run of the same problem and block: every later step is the one that run takes.
    /// The stage buffers and R are written by a step before it reads them. On the compensated
    /// path w's low part is `low`, or 0 without one (a plain run's state).
    pub fn resume(&mut self, q: [&[T]; 3], low: Option<&[T]>, wet: &[u8], t: f64, dt: f64, steps: u64) -> Result<()> {
        let n = self.k.cells();
        if q.iter().chain(&low).any(|f| f.len() != n) || wet.len() != self.wet.len() {
            return Err(Error::invalid(format!("kp: a state to resume from of other sizes than this run's ({n} cells)")));
        }
        for (field, from) in self.q.iter_mut().zip(q) {
            field.copy_from_slice(from);
        }
        if let Some([lo, ..]) = &mut self.low {
            match low {
                Some(from) => lo.copy_from_slice(from),
                None => lo.fill(T::ZERO),
            }
        }
        self.wet.copy_from_slice(wet);
        (self.t, self.dt, self.steps) = (t, dt, steps);
        Ok(())
    }

    /// DS1 and DS2: the Δt estimates (Δt_x, Δt_y) the next step starts from (`None` before the
    /// first step) and the steps retried so far; `None` in the other schemes.
    pub fn split_state(&self) -> Option<(Option<(f64, f64)>, u64)> {
        self.split.as_ref().map(|s| (s.estimates, s.retries))
    }

    /// Continue a DS1 or DS2 run from the estimates and retry count
    /// [`split_state`](Self::split_state) gave (after [`resume`](Self::resume)); nothing in the
    /// other schemes.
    pub fn resume_split(&mut self, estimates: Option<(f64, f64)>, retries: u64) {
        if let Some(s) = &mut self.split {
            (s.estimates, s.retries) = (estimates, retries);
        }
    }

    /// Early exit of dry blocks; the split schemes have none (the seed's neither) and ignore it.
    pub fn set_early_exit(&mut self, on: bool) {
        self.early_exit = on;
    }

    /// R of Qⁿ (or Q¹) and the rate; in `clamp` the faces only, R follows in [`drain`](Self::drain).
    fn eval_rhs(&mut self, from_q1: bool) -> T {
        let [rw, ru, rv] = &mut self.r;
        let src = if from_q1 { &self.q1 } else { &self.q };
        if let Some(faces) = &mut self.faces {
            return faces.fluxes(&self.k, [&src[0], &src[1], &src[2]], &self.bed);
        }
        let wet = if self.early_exit { Some(&self.wet[..]) } else { None };
        rhs(&self.k, self.wet_dry, &src[0], &src[1], &src[2], &self.bed, wet, rw, ru, rv)
    }

    /// In `clamp`, once Δt is known: the draining factors and R of the faces [`eval_rhs`](Self::eval_rhs) left.
    fn drain(&mut self, from_q1: bool, dt: T) {
        if let Some(faces) = &mut self.faces {
            let src = if from_q1 { &self.q1 } else { &self.q };
            let [rw, ru, rv] = &mut self.r;
            faces.drain_and_rhs(&self.k, dt, &src[0], &self.cell_bed, &self.bed, [rw, ru, rv]);
        }
    }

    /// One step towards `t_stop` (Δt capped at the time left). Returns the Δt taken, or why
    /// the run must stop (the state is then left as it was before the step).
    /// In DS2 a step is the double step X Y Y X and advances 2Δt.
    pub fn step(&mut self, t_stop: f64) -> std::result::Result<f64, Halt> {
        if let Some(split) = &mut self.split {
            let [w, hu, hv] = &mut self.q;
            let q = [&mut w[..], &mut hu[..], &mut hv[..]];
            let dt = split.step(q, &mut self.wet, self.friction.as_deref(), self.t, t_stop, self.dt_floor).map_err(|f| match f {
                Fail::NonFinite => Halt::NonFinite,
                Fail::TooLarge | Fail::Collapsed => Halt::Collapsed,
            })?;
            self.t += dt;
            self.dt = dt;
            self.steps += 1;
            return Ok(dt);
        }
        let rate = self.eval_rhs(false);
        let (dt, status) = time_step(self.cfl, rate.to_f64(), self.t, t_stop, self.dt_floor);
        if status != STEP_OK {
            return Err(if status == kernels::kp::STEP_NON_FINITE { Halt::NonFinite } else { Halt::Collapsed });
        }
        let dtt = T::from_f64(dt);
        let k = self.k;
        self.drain(false, dtt);
        {
            let [a, b, c] = &mut self.q1;
            let q = [&self.q[0][..], &self.q[1][..], &self.q[2][..]];
            let r = [&self.r[0][..], &self.r[1][..], &self.r[2][..]];
            let low = self.low.as_mut().map(|[l0, l1, _]| LowParts { q0: &l0[..], q1: &l0[..], out: &mut l1[..] });
            rk(&k, 1, dtt, &self.cell_bed, self.friction.as_deref(), q, q, r, [a, b, c], low, &mut self.wet);
            if let Some(faces) = &mut self.faces {
                faces.clamp(&k, &self.cell_bed, [a, b, c]);
            }
            apply_boundary(&k, a, b, c, &self.cell_bed);
        }
        match self.scheme {
            Scheme::Euler => {
                std::mem::swap(&mut self.q, &mut self.q1);
                if let Some([l0, l1, _]) = &mut self.low {
                    std::mem::swap(l0, l1);
                }
            }
            Scheme::Rk2 | Scheme::Srk2 | Scheme::Ds1 | Scheme::Ds2 => {
                self.eval_rhs(true);
                self.drain(true, dtt);
                // Stage 2 reads Qⁿ at the cell it writes. The kernel does that in place (each
                // thread reads its own cell first); `rk` takes inputs and output as separate
                // slices, so here it writes a third set of fields, which then becomes Qⁿ⁺¹.
                let [a, b, c] = &mut self.q2;
                let q0 = [&self.q[0][..], &self.q[1][..], &self.q[2][..]];
                let q1 = [&self.q1[0][..], &self.q1[1][..], &self.q1[2][..]];
                let r = [&self.r[0][..], &self.r[1][..], &self.r[2][..]];
                let low = self.low.as_mut().map(|[l0, l1, l2]| LowParts { q0: &l0[..], q1: &l1[..], out: &mut l2[..] });
                rk(&k, 2, dtt, &self.cell_bed, self.friction.as_deref(), q0, q1, r, [a, b, c], low, &mut self.wet);
                if let Some(faces) = &mut self.faces {
                    faces.clamp(&k, &self.cell_bed, [a, b, c]);
                }
                apply_boundary(&k, a, b, c, &self.cell_bed);
                std::mem::swap(&mut self.q, &mut self.q2);
                if let Some([l0, _, l2]) = &mut self.low {
                    std::mem::swap(l0, l2);
                }
            }
        }
        self.t += dt;
        self.dt = dt;
        self.steps += 1;
        Ok(dt)
    }

    pub fn coeffs(&self) -> &Coeffs<T> {
        &self.k
    }
    pub fn time(&self) -> f64 {
        self.t
    }
    pub fn steps(&self) -> u64 {
        self.steps
    }
    pub fn last_dt(&self) -> f64 {
        self.dt
    }
    /// Padded (w, hu, hv).
    pub fn state(&self) -> [&[T]; 3] {
        [&self.q[0], &self.q[1], &self.q[2]]
    }
    /// On the compensated path, w's low part (padded): the surface is w + low.
    pub fn low(&self) -> Option<&[T]> {
        self.low.as_ref().map(|[l, ..]| &l[..])
    }
    /// Padded cell-centre bed.
    pub fn cell_bed(&self) -> &[T] {
        &self.cell_bed
    }
    /// Padded corner bed.
    pub fn bed(&self) -> &[T] {
        &self.bed
    }
    pub fn wet(&self) -> &[u8] {
        &self.wet
    }
    /// In `clamp`: how many times a cell was drained and how many times the velocity clamp
    /// changed a cell's momenta, over the run.
    pub fn clamp_counts(&self) -> Option<(u64, u64)> {
        if self.wet_dry != WetDry::Clamp {
            return None;
        }
        let split = self.split.as_ref().map(|s| s.clamp_counts());
        split.or_else(|| self.faces.as_ref().map(|f| (f.drained, f.clamped)))
    }
    /// The last R computed (padded).
    pub fn residual(&self) -> [&[T]; 3] {
        [&self.r[0], &self.r[1], &self.r[2]]
    }
}
