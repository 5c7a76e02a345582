//! The mixed precision's CPU reference (docs/f32-conservation.md, "Mixed precision for shallow
//! water"): the surface w stored and updated as a level `W` (f64) of the flux precision `T`
//! (f32); hu, hv, the corner bed, the reconstructions and the face fluxes in `T`.
//!
//! The same point functions as [`CpuKp`](super::cpu::CpuKp), in their level-generic forms: a
//! cell's depth w̄ − B̄ is formed in `W` and rounded once (`kernels::kp::surface_of`), a fully
//! flooded cell's level is w̄ rounded once; R_w is summed face by face in `W` from the `T` mass
//! fluxes (`kernels::kp::mass_rate`), so both cells of a face add the same value with opposite
//! signs and Σ R_w telescopes to `W`'s round-off; the RK stages add to w in `W`
//! (`kernels::kp::rk_of`). With `W` = `T` every step is `CpuKp<T>`'s bit for bit (the tests
//! check it), which is how the f32 and f64 paths keep their arithmetic.
//!
//! RK2 and Euler, every wet–dry scheme, friction; early exit of dry blocks as `CpuKp` has it
//! (not in `clamp`). The split schemes (SRK2, DS1, DS2) refuse it.

use super::clamp::{Faces, corners};
use super::cpu::Halt;
use super::{Problem, Scheme, WetDry};
use crate::field::Field2;
use crate::{Error, Real, Result};
use kernels::Level;
use kernels::halo::{edge_ghost, ghosts_x, ghosts_y};
use kernels::kp::{
    Bollermann, Clamp, Coeffs, Kp07, STEP_OK, WetDryScheme, block_active, cell_faces_of, clean_of, mass_rate, rk_of,
    set_ghost_of, time_step,
};
use rayon::prelude::*;

/// A padded state (or R): the surface in `W`, the momenta in `T`.
#[derive(Clone)]
pub struct State<T, W> {
    pub w: Field2<W>,
    pub hu: Field2<T>,
    pub hv: Field2<T>,
}

/// Whether `scheme` has a mixed-precision step: RK2 and Euler (`CpuMixed`, `GpuKp`'s mixed
/// entry points); the split schemes refuse it in one line.
pub fn check_scheme(scheme: Scheme) -> Result<()> {
    match scheme {
        Scheme::Rk2 | Scheme::Euler => Ok(()),
        s => Err(Error::invalid(format!(
            "precision mixed runs the rk2 and euler schemes only; {} runs f32 or f64",
            s.name()
        ))),
    }
}

/// Set both ghost layers of a state whose surface is a level `W` (see `cpu::apply_boundary`).
pub fn apply_boundary_of<T: Real, W: Level<T>>(k: &Coeffs<T>, w: &mut [W], hu: &mut [T], hv: &mut [T], cell_bed: &[T]) {
    let n = k.cells();
    assert!(w.len() == n && hu.len() == n && hv.len() == n && cell_bed.len() == n, "field lengths");
    let layout = k.layout();
    for (axis, count) in [(0, ghosts_x(&layout)), (1, ghosts_y(&layout))] {
        for t in 0..count {
            if let Some(gh) = edge_ghost(&layout, k.bc, axis, t) {
                // SAFETY: the slices hold (nx+4)(ny+4) cells (asserted) and `gh` indexes them.
                unsafe { set_ghost_of(axis, w.as_mut_ptr(), hu.as_mut_ptr(), hv.as_mut_ptr(), cell_bed.as_ptr(), gh) };
            }
        }
    }
}

/// R of the state on the interior in scheme `S` (R_w by `mass_rate`), and the rate; with `wet`
/// blocks dry with their four neighbours get R = 0, as in `cpu::rhs`.
fn rhs_of<S: WetDryScheme, T: Real, W: Level<T>>(
    k: &Coeffs<T>,
    q: &State<T, W>,
    bed: &[T],
    wet: Option<&[u8]>,
    r: &mut State<T, W>,
) -> T {
    let p = k.pitch as usize;
    let (nx, ny) = (k.nx as usize, k.ny as usize);
    r.w.par_chunks_mut(p)
        .zip(r.hu.par_chunks_mut(p))
        .zip(r.hv.par_chunks_mut(p))
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
                        (row_w[i], row_u[i], row_v[i]) = (W::ZERO, T::ZERO, T::ZERO);
                        continue;
                    }
                }
                let c = j * p + i;
                let at = |di: i32, dj: i32| {
                    let g = (c as isize + di as isize + dj as isize * p as isize) as usize;
                    (q.w[g], q.hu[g], q.hv[g])
                };
                let faces = cell_faces_of::<S, T, W>(k, at, corners(k, bed, c));
                let s = faces.rhs::<S>(k);
                let [fw, fe, gs, gn] = faces.flux;
                (row_w[i], row_u[i], row_v[i]) = (mass_rate(k, [fw.f0, fe.f0, gs.f0, gn.f0]), s.hu, s.hv);
                rate = rate.max(if s.rate.is_finite() { s.rate } else { T::INFINITY });
            }
            rate
        })
        .reduce(|| T::ZERO, |a, b| a.max(b))
}

/// One RK stage (`kernels::kp::rk_of`) on the interior into `out`, and the wet map.
#[allow(clippy::too_many_arguments)]
fn rk_stage<T: Real, W: Level<T>>(
    k: &Coeffs<T>,
    stage: u32,
    dt: T,
    cell_bed: &[T],
    gn2: Option<&[T]>,
    q0: &State<T, W>,
    q1: &State<T, W>,
    r: &State<T, W>,
    out: &mut State<T, W>,
    wet: &mut [u8],
) {
    let p = k.pitch as usize;
    let (nx, ny) = (k.nx as usize, k.ny as usize);
    let row_wet: Vec<Vec<bool>> = out
        .w
        .par_chunks_mut(p)
        .zip(out.hu.par_chunks_mut(p))
        .zip(out.hv.par_chunks_mut(p))
        .enumerate()
        .skip(2)
        .take(ny)
        .map(|(j, ((ow, ou), ov))| {
            (2..nx + 2)
                .map(|i| {
                    let c = j * p + i;
                    let g_n2 = gn2.map_or(k.g_n2, |f| f[c]);
                    let at = |s: &State<T, W>| (s.w[c], s.hu[c], s.hv[c]);
                    let (q, is_wet) = rk_of(k, g_n2, stage, dt, cell_bed[c], at(q0), at(q1), at(r));
                    (ow[i], ou[i], ov[i]) = q;
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

/// The mixed precision's reference solver: w in `W`, the rest in `T` (module comment).
pub struct CpuMixed<T: Real, W: Level<T>> {
    k: Coeffs<T>,
    scheme: Scheme,
    wet_dry: WetDry,
    cfl: f64,
    dt_floor: f64,
    early_exit: bool,
    bed: Field2<T>,
    cell_bed: Field2<T>,
    friction: Option<Field2<T>>,
    /// Qⁿ, Q¹, R and the stage-2 output before it becomes Qⁿ⁺¹ (as `CpuKp`).
    q: State<T, W>,
    q1: State<T, W>,
    r: State<T, W>,
    q2: State<T, W>,
    wet: Vec<u8>,
    faces: Option<Box<Faces<T>>>,
    t: f64,
    dt: f64,
    steps: u64,
}

impl<T: Real, W: Level<T>> CpuMixed<T, W> {
    /// Validate `problem` (RK2 or Euler), convert it: the bed and momenta to `T` as `CpuKp<T>`
    /// does, the surface to `W` (with `W` = `T` `CpuKp<T>`'s; a wider `W` takes the f64 state's
    /// surface h + B̄, so a lake at rest is one level), cleaned against the `T` cell bed.
    pub fn new(problem: &Problem, block: (u32, u32), early_exit: bool) -> Result<CpuMixed<T, W>> {
        problem.validate()?;
        check_scheme(problem.scheme)?;
        if block.0 == 0 || block.1 == 0 {
            return Err(Error::invalid(format!("block {}×{}: sizes must be positive", block.0, block.1)));
        }
        let k = problem.coeffs::<T>(block);
        let padded = problem.padded(&k)?;
        let [w_t, mut hu, mut hv] = padded.q;
        let (bed, cell_bed) = (padded.bed, padded.cell_bed);
        let mut w: Field2<W> = match W::WIDER {
            false => w_t.convert(),
            true => problem.padded(&problem.coeffs::<f64>(block))?.q[0].convert(),
        };
        for c in (0..k.ny).flat_map(|j| (0..k.nx).map(move |i| k.at(i + 2, j + 2))) {
            ((w[c], hu[c], hv[c]), _) = clean_of(&k, cell_bed[c], (w[c], hu[c], hv[c]));
        }
        apply_boundary_of(&k, &mut w, &mut hu, &mut hv, &cell_bed);
        let wet = wet_map_of(&k, &w, &cell_bed);
        let clamp = problem.wet_dry == WetDry::Clamp;
        let faces = clamp.then(|| Box::new(Faces::new(&k, &bed)));
        let q = State { w, hu, hv };
        let zeros = || -> Result<State<T, W>> {
            let l = problem.layout();
            Ok(State { w: Field2::filled(l, W::ZERO)?, hu: Field2::filled(l, T::ZERO)?, hv: Field2::filled(l, T::ZERO)? })
        };
        Ok(CpuMixed {
            k,
            scheme: problem.scheme,
            wet_dry: problem.wet_dry,
            cfl: problem.cfl,
            dt_floor: problem.dt_floor,
            early_exit,
            bed,
            friction: problem.friction_field()?,
            q1: q.clone(),
            q2: q.clone(),
            q,
            r: zeros()?,
            cell_bed,
            wet,
            faces,
            t: 0.0,
            dt: 0.0,
            steps: 0,
        })
    }

    /// Continue from a padded state, its wet map and clock, as [`state`](Self::state),
    /// [`wet`](Self::wet) and the clock's getters gave them of a run of the same problem.
    pub fn resume(&mut self, (w, hu, hv): (&[W], &[T], &[T]), wet: &[u8], t: f64, dt: f64, steps: u64) -> Result<()> {
        let n = self.k.cells();
        if w.len() != n || hu.len() != n || hv.len() != n || wet.len() != self.wet.len() {
            return Err(Error::invalid(format!("kp: a state to resume from of other sizes than this run's ({n} cells)")));
        }
        self.q.w.copy_from_slice(w);
        self.q.hu.copy_from_slice(hu);
        self.q.hv.copy_from_slice(hv);
        self.wet.copy_from_slice(wet);
        (self.t, self.dt, self.steps) = (t, dt, steps);
        Ok(())
    }

    pub fn set_early_exit(&mut self, on: bool) {
        self.early_exit = on;
    }

    /// R of Qⁿ (or Q¹) and the rate; in `clamp` the faces only, R follows in [`drain`](Self::drain).
    fn eval_rhs(&mut self, from_q1: bool) -> T {
        let src = if from_q1 { &self.q1 } else { &self.q };
        if let Some(faces) = &mut self.faces {
            return faces.fluxes_of(&self.k, &src.w, &src.hu, &src.hv, &self.bed);
        }
        let wet = if self.early_exit { Some(&self.wet[..]) } else { None };
        let (k, bed, r) = (&self.k, &self.bed[..], &mut self.r);
        match self.wet_dry {
            WetDry::Bollermann => rhs_of::<Bollermann, T, W>(k, src, bed, wet, r),
            WetDry::Kp07 => rhs_of::<Kp07, T, W>(k, src, bed, wet, r),
            WetDry::Clamp => rhs_of::<Clamp, T, W>(k, src, bed, wet, r),
        }
    }

    fn drain(&mut self, from_q1: bool, dt: T) {
        if let Some(faces) = &mut self.faces {
            let src = if from_q1 { &self.q1 } else { &self.q };
            let r = (&mut self.r.w[..], &mut self.r.hu[..], &mut self.r.hv[..]);
            faces.drain_and_rhs_of(&self.k, dt, &src.w, &self.cell_bed, &self.bed, r);
        }
    }

    /// The velocity clamp (`clamp`) and the ghost layers of a stage's output.
    fn finish_stage(k: &Coeffs<T>, faces: &mut Option<Box<Faces<T>>>, cell_bed: &[T], s: &mut State<T, W>) {
        if let Some(faces) = faces {
            faces.clamp_of(k, cell_bed, &s.w, &mut s.hu, &mut s.hv);
        }
        apply_boundary_of(k, &mut s.w, &mut s.hu, &mut s.hv, cell_bed);
    }

    /// One step towards `t_stop`, as `CpuKp::step`.
    pub fn step(&mut self, t_stop: f64) -> std::result::Result<f64, Halt> {
        let rate = self.eval_rhs(false);
        let (dt, status) = time_step(self.cfl, rate.to_f64(), self.t, t_stop, self.dt_floor);
        if status != STEP_OK {
            return Err(if status == kernels::kp::STEP_NON_FINITE { Halt::NonFinite } else { Halt::Collapsed });
        }
        let dtt = T::from_f64(dt);
        let k = self.k;
        self.drain(false, dtt);
        let gn2 = self.friction.as_deref();
        rk_stage(&k, 1, dtt, &self.cell_bed, gn2, &self.q, &self.q, &self.r, &mut self.q1, &mut self.wet);
        Self::finish_stage(&k, &mut self.faces, &self.cell_bed, &mut self.q1);
        if self.scheme == Scheme::Euler {
            std::mem::swap(&mut self.q, &mut self.q1);
        } else {
            self.eval_rhs(true);
            self.drain(true, dtt);
            let gn2 = self.friction.as_deref();
            rk_stage(&k, 2, dtt, &self.cell_bed, gn2, &self.q, &self.q1, &self.r, &mut self.q2, &mut self.wet);
            Self::finish_stage(&k, &mut self.faces, &self.cell_bed, &mut self.q2);
            std::mem::swap(&mut self.q, &mut self.q2);
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
    pub fn state(&self) -> (&[W], &[T], &[T]) {
        (&self.q.w, &self.q.hu, &self.q.hv)
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
    /// The last R computed (padded).
    pub fn residual(&self) -> (&[W], &[T], &[T]) {
        (&self.r.w, &self.r.hu, &self.r.hv)
    }
    /// In `clamp`: cells drained and cells whose momenta the clamp changed, over the run.
    pub fn clamp_counts(&self) -> Option<(u64, u64)> {
        self.faces.as_ref().map(|f| (f.drained, f.clamped))
    }
    /// Water volume Σ (w − B̄)·ΔxΔy over the interior, summed in f64.
    pub fn volume(&self, problem: &Problem) -> f64 {
        let (w, cb, p) = (&self.q.w, &self.cell_bed, self.k.pitch as usize);
        let mut sum = 0.0f64;
        for j in 2..self.k.ny as usize + 2 {
            for i in 2..self.k.nx as usize + 2 {
                sum += w[j * p + i].to_f64() - cb[j * p + i].to_f64();
            }
        }
        sum * problem.dx * problem.dy
    }
}

/// The wet map of a padded state whose surface is a level `W` (`cpu::wet_map`'s, compared in `W`).
pub fn wet_map_of<T: Real, W: Level<T>>(k: &Coeffs<T>, w: &[W], cell_bed: &[T]) -> Vec<u8> {
    let mut wet = vec![0u8; (k.nbx * k.nby) as usize];
    for j in 0..k.ny {
        for i in 0..k.nx {
            let c = k.at(i + 2, j + 2);
            if w[c] - W::widen(cell_bed[c]) > W::widen(k.wet_above) {
                wet[(j / k.by * k.nbx + i / k.bx) as usize] = 1;
            }
        }
    }
    wet
}
