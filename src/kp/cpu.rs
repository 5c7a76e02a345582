//! CPU reference: the same point functions as the kernels, rayon over rows.
//!
//! One set of loops and one state machine, generic over the level `W` the surface w is stored
//! and updated in (`kernels::Level`): `CpuKp<T>` (`W` = `T`) is the f32 and f64 paths, whose
//! level-generic point functions are the plain ones bit for bit, and `CpuKp<f32, f64>` the mixed
//! precision (w in f64, the rest in f32; `mixed.rs` holds what only it has). The compensated low
//! part of w and the split schemes exist where `W` = `T` only ([`Surface::plain`]).

use super::clamp::{Faces, corners};
use super::forcing::{CpuForcing, Layout};
use super::out_only::set_out_only;
use super::perimeter::{Perimeter, measure};
use super::problem::Padded;
use super::slab::Start;
use super::split::{Fail, Split};
use super::{Problem, Scheme, WetDry};
use crate::field::{Field2, stencil_rows};
use crate::ranks::Halo;
use crate::{Error, Real, Result};
use kernels::Level;
use kernels::kp::{
    Bollermann, Clamp, Coeffs, FACES_ALL, Kp07, STEP_OK, WetDryScheme, block_active, cell_faces_on, mass_rate,
    time_step,
};
use rayon::prelude::*;

pub use super::rk::{LowParts, rk, rk_compensated};
pub use super::state::{State, Surface, apply_boundary, clean_state, wet_map};

/// R = (R_w, R_hu, R_hv) on the interior from the padded state in wet–dry scheme `wet_dry`;
/// returns max(a_x/Δx, a_y/Δy). With `wet` (one flag a block of `k.bx × k.by` cells), blocks
/// that are dry with their four neighbours get R = 0 and rate 0 without computing, as the
/// early-exit kernel does. In `clamp` it is R before the draining factors, which need Δt
/// (`CpuKp::step` drains and clamps). R_w is summed face by face in `W`
/// (`kernels::kp::mass_rate`: with `W` = `T` the plain R_w).
#[allow(clippy::too_many_arguments)]
pub fn rhs<T: Real, W: Level<T>>(
    k: &Coeffs<T>,
    wet_dry: WetDry,
    w: &[W],
    hu: &[T],
    hv: &[T],
    bed: &[T],
    wet: Option<&[u8]>,
    active: Option<&[u8]>,
    rw: &mut [W],
    rhu: &mut [T],
    rhv: &mut [T],
) -> T {
    // The scheme is a type parameter of the point functions: one loop compiled for each.
    let r = (rw, rhu, rhv);
    match wet_dry {
        WetDry::Bollermann => rhs_of::<Bollermann, T, W>(k, (w, hu, hv), bed, wet, active, r),
        WetDry::Kp07 => rhs_of::<Kp07, T, W>(k, (w, hu, hv), bed, wet, active, r),
        WetDry::Clamp => rhs_of::<Clamp, T, W>(k, (w, hu, hv), bed, wet, active, r),
    }
}

/// [`rhs`] in scheme `S`: R of the state (w, hu, hv) into (R_w, R_hu, R_hv).
#[allow(clippy::type_complexity)]
fn rhs_of<S: WetDryScheme, T: Real, W: Level<T>>(
    k: &Coeffs<T>,
    (w, hu, hv): (&[W], &[T], &[T]),
    bed: &[T],
    wet: Option<&[u8]>,
    active: Option<&[u8]>,
    (rw, rhu, rhv): (&mut [W], &mut [T], &mut [T]),
) -> T {
    let p = k.pitch as usize;
    let (nx, ny) = (k.nx as usize, k.ny as usize);
    rw.par_chunks_mut(p)
        .zip(rhu.par_chunks_mut(p))
        .zip(rhv.par_chunks_mut(p))
        .enumerate()
        .skip(2)
        .take(ny)
        .with_min_len(stencil_rows(p))
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
                let at = |di: i32, dj: i32| (c as isize + di as isize + dj as isize * p as isize) as usize;
                let on = |di: i32, dj: i32| active.is_none_or(|a| a[at(di, dj)] != 0);
                if !on(0, 0) {
                    // Outside the domain: no water moves, no wave sets Δt.
                    (row_w[i], row_u[i], row_v[i]) = (W::ZERO, T::ZERO, T::ZERO);
                    continue;
                }
                let q = |di: i32, dj: i32| {
                    let g = at(di, dj);
                    (w[g], hu[g], hv[g])
                };
                let faces = cell_faces_on::<S, T, W>(k, q, corners(k, bed, c), on);
                let r = faces.rhs::<S>(k);
                let [fw, fe, gs, gn] = faces.flux;
                (row_w[i], row_u[i], row_v[i]) = (mass_rate(k, [fw.f0, fe.f0, gs.f0, gn.f0]), r.hu, r.hv);
                // A NaN would lose every max: count it as an infinite speed.
                rate = rate.max(if r.rate.is_finite() { r.rate } else { T::INFINITY });
            }
            rate
        })
        .reduce(|| T::ZERO, |a, b| a.max(b))
}

/// Why the mixed precision refuses forcing.
pub const MIXED_FORCING: &str =
    "forcing (rain, infiltration, inflows, held levels) runs in precision f32 or f64; precision mixed has none yet";

/// The padded rows of `k` that are cells of the grid: the interior's, and on a slab also the
/// two ghost rows beyond each cut inside the grid (`Coeffs::cut`: the neighbours' cells, which
/// `clamp` drains and clamps by).
pub(super) fn grid_rows<T: Real>(k: &Coeffs<T>) -> std::ops::Range<usize> {
    let ny = k.ny as usize;
    let start = if k.cut & 1 != 0 { 0 } else { 2 };
    start..if k.cut & 2 != 0 { ny + 4 } else { ny + 2 }
}

/// Why the split schemes refuse held levels.
pub const SPLIT_LEVELS: &str = "water levels held on the sides and outlets run with the euler, rk2 and srk2 schemes; ds1 and ds2 sweep the sides in two orientations and have neither yet";

/// Why the split schemes refuse inactive cells.
pub const SPLIT_INACTIVE: &str = "inactive cells (nodata in the bed) run with the euler, rk2 and srk2 schemes; ds1 and ds2 sweep in two orientations and have none yet: give one of those";

/// Why a run stopped early.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Halt {
    NonFinite,
    Collapsed,
}

/// The reference solver's state: w as a level `W` (`T` by default), the rest in `T`.
pub struct CpuKp<T: Real, W: Surface<T> = T> {
    k: Coeffs<T>,
    scheme: Scheme,
    wet_dry: WetDry,
    cfl: f64,
    dt_floor: f64,
    dt_max: f64,
    early_exit: bool,
    bed: Field2<T>,
    cell_bed: Field2<T>,
    /// g·n² per cell (padded) when the problem has a Manning field.
    friction: Option<Field2<T>>,
    /// Qⁿ, the stage state Q¹, the residual R, and the stage-2 output before it becomes Qⁿ⁺¹.
    q: State<T, W>,
    q1: State<T, W>,
    r: State<T, W>,
    q2: State<T, W>,
    /// On the compensated path (`Problem::compensates`, `W` = `T`), w's low parts of Qⁿ, Q¹ and
    /// the stage-2 output, swapped with them; zero on the ghost layers (no stencil reads them).
    low: Option<[Field2<T>; 3]>,
    wet: Vec<u8>,
    /// The activity of the padded cells (`Problem::active_map`), where some cell is inactive or
    /// some face lets water only out; the ghosts beyond those faces (`out_only`) are set before
    /// each flux evaluation.
    active: Option<Vec<u8>>,
    out_only: Vec<u32>,
    /// The faces of a stage in `clamp`, which drains after Δt is known (every cell computed:
    /// no early exit).
    faces: Option<Box<Faces<T>>>,
    /// DS1 and DS2 (`split.rs`, `W` = `T`): their buffers and Δt estimates.
    split: Option<Box<Split<T>>>,
    /// Rain, infiltration and inflows, applied after each step (`W` = `T`).
    forcing: Option<Box<CpuForcing<T>>>,
    /// The water account's boundary faces, measured every stage (with forcing and a boundary
    /// segment: `perimeter.rs`).
    account: Option<Box<Perimeter>>,
    /// On one rank's slab of a grid decomposed over ranks: the ghost rows at its cuts, taken
    /// from its neighbours whenever its ghosts are set, and Δt's rate taken over every rank.
    halo: Option<Halo>,
    t: f64,
    dt: f64,
    steps: u64,
}

impl<T: Real, W: Surface<T>> CpuKp<T, W> {
    /// Validate `problem`, convert it to `T` (w to `W`: with a wider `W` the mixed precision's
    /// start, `mixed::start`), set the ghosts. `block` is the wet map's block (the GPU's flux
    /// block); `early_exit` skips dry blocks as the early-exit kernel does.
    pub fn new(problem: &Problem, block: (u32, u32), early_exit: bool) -> Result<CpuKp<T, W>> {
        problem.validate()?;
        Self::refuse(problem, block)?;
        Self::from_start(problem, problem.start(block)?, None, early_exit, None)
    }

    /// What the reference refuses of `problem` and `block`.
    fn refuse(problem: &Problem, block: (u32, u32)) -> Result<()> {
        if W::WIDER {
            super::mixed::check_scheme(problem.scheme)?;
            if !problem.forcing.is_empty() {
                return Err(Error::invalid(MIXED_FORCING));
            }
        }
        if problem.scheme.is_split() && !problem.forcing.boundary_is_plain() {
            return Err(Error::invalid(SPLIT_LEVELS));
        }
        if problem.scheme.is_split() && problem.active.is_some() {
            return Err(Error::invalid(SPLIT_INACTIVE));
        }
        if block.0 == 0 || block.1 == 0 {
            return Err(Error::invalid(format!("block {}×{}: sizes must be positive", block.0, block.1)));
        }
        Ok(())
    }

    /// The reference of `problem` from `start` (the whole grid's, or with `halo` a slab's:
    /// [`slab`](CpuKp::slab)), its state `state` where given (a mixed slab's, cut from the
    /// whole grid's mixed start: `mixed::slab_start`), else `start`'s.
    fn from_start(
        problem: &Problem,
        start: Start<T>,
        state: Option<State<T, W>>,
        early_exit: bool,
        halo: Option<Halo>,
    ) -> Result<CpuKp<T, W>> {
        let Start { k, padded: Padded { bed, cell_bed, q: [w, hu, hv] }, active, out_only, friction, segments, .. } =
            start;
        let block = (k.bx, k.by);
        let q = match state {
            Some(q) => q,
            None => {
                let mut q = State { w: w.convert::<W>(), hu, hv };
                if W::WIDER {
                    super::mixed::start(problem, (&k, &problem.coeffs::<f64>(block)), &cell_bed, &mut q)?;
                }
                q
            }
        };
        let wet = wet_map(&k, &q.w, &cell_bed);
        // The split schemes keep their own faces (`split.rs`).
        let clamp = problem.wet_dry == WetDry::Clamp;
        let rows = grid_rows(&k);
        let faces = (clamp && !problem.scheme.is_split()).then(|| Box::new(Faces::new(&k, &bed, rows)));
        let zeros = || Field2::filled(problem.layout(), T::ZERO);
        let split = match problem.scheme.is_split() {
            true => Some(Box::new(Split::new(
                problem.scheme,
                problem.wet_dry,
                problem.cfl,
                problem.ds_safety,
                &k,
                &bed,
                &cell_bed,
            )?)),
            false => None,
        };
        let compensates = problem.compensates::<T>() && !W::WIDER;
        // Early exit skips blocks that are dry with their neighbours, which a held level's
        // ghosts do not count among: water would not enter a dry block by a held side.
        let early_exit = early_exit && problem.forcing.boundary_is_plain();
        let mut m = CpuKp {
            k,
            // SRK2 splits the fluxes into two GPU kernels; its arithmetic is RK2's.
            scheme: if problem.scheme == Scheme::Srk2 { Scheme::Rk2 } else { problem.scheme },
            split,
            wet_dry: problem.wet_dry,
            cfl: problem.cfl,
            dt_floor: problem.dt_floor,
            dt_max: problem.dt_max,
            early_exit,
            bed,
            friction,
            q1: q.clone(),
            q2: q.clone(),
            q,
            r: State { w: Field2::filled(problem.layout(), W::ZERO)?, hu: zeros()?, hv: zeros()? },
            low: compensates.then(|| Ok::<_, Error>([zeros()?, zeros()?, zeros()?])).transpose()?,
            forcing: Layout::of(problem).map(|l| Box::new(CpuForcing::new(l, k.cells()))),
            account: Perimeter::new(problem, &segments).map(Box::new),
            cell_bed,
            wet,
            active,
            out_only,
            faces,
            halo,
            t: 0.0,
            dt: 0.0,
            steps: 0,
        };
        m.set_level_ghosts();
        Ok(m)
    }

    /// The reference of one rank's slab of a grid decomposed over ranks (docs/ranks.md):
    /// `problem` is the slab's (`Problem::slab`), `start` the slab's of the whole grid's
    /// (`Problem::slab_start`), and `halo` exchanges the ghost rows at its cuts. Refused where
    /// the problem does not run on several ranks (`Problem::refuses_ranks`). With a wider `W`
    /// (the mixed precision) `state` is the slab's rows of the whole grid's mixed start
    /// (`mixed::slab_start`): the slab's own rows cannot make it, the rows about it can.
    pub fn slab(problem: &Problem, start: Start<T>, state: Option<State<T, W>>, halo: Halo) -> Result<CpuKp<T, W>> {
        if let Some(why) = problem.refuses_ranks() {
            return Err(Error::invalid(why));
        }
        if W::WIDER && state.is_none() {
            return Err(Error::invalid("kp: a mixed slab starts from the whole grid's mixed start"));
        }
        Self::refuse(problem, (start.k.bx, start.k.by))?;
        Self::from_start(problem, start, state, false, Some(halo))
    }

    /// A slab's ghost rows at its cuts from its neighbours (nothing on one rank): all three
    /// fields in one message each way.
    fn exchange(halo: Option<&Halo>, s: &mut State<T, W>) {
        let Some(h) = halo else { return };
        match W::plain_mut(&mut s.w) {
            Some(w) => h.refresh(&mut [w, &mut s.hu, &mut s.hv]),
            None => {
                h.refresh(&mut [&mut s.w[..]]);
                h.refresh(&mut [&mut s.hu[..], &mut s.hv[..]]);
            }
        }
    }

    /// The rate Δt is taken from: this grid's, or on a slab the largest of every rank's (a
    /// maximum, so the one-rank run's bit for bit).
    fn global_rate(&self, rate: T) -> T {
        let Some(h) = &self.halo else { return rate };
        match crate::ranks::spent::reducing(|| h.comm().max(rate.to_f64())) {
            Ok(r) => T::from_f64(r),
            Err(e) => h.comm().abort(&format!("rank {}: {e}", h.slab().rank), 1),
        }
    }

    /// The held levels' ghosts of Qⁿ at the forcing clock's time (nothing without levels).
    fn set_level_ghosts(&mut self) {
        if let Some(levels) = self.forcing.as_deref().and_then(|f| f.ghosts()) {
            apply_boundary(&self.k, &mut self.q.w, &mut self.q.hu, &mut self.q.hv, &self.cell_bed, Some(levels));
            // The pass sets a slab's cuts as sides: their rows are the neighbours'.
            Self::exchange(self.halo.as_ref(), &mut self.q);
        }
    }

    /// Continue from a padded state (w, hu, hv with their ghosts), its wet map and clock, as
    /// [`fields`](Self::fields), [`low`](Self::low), [`wet`](Self::wet) and the clock's getters
    /// gave them of a run of the same problem and block: every later step is the one that run
    /// takes. The stage buffers and R are written by a step before it reads them. On the
    /// compensated path w's low part is `low`, or 0 without one (a plain run's state).
    #[allow(clippy::type_complexity)]
    pub fn resume_fields(
        &mut self,
        (w, hu, hv): (&[W], &[T], &[T]),
        low: Option<&[T]>,
        wet: &[u8],
        t: f64,
        dt: f64,
        steps: u64,
    ) -> Result<()> {
        let n = self.k.cells();
        if [w.len(), hu.len(), hv.len()].iter().chain(low.map(|l| l.len()).as_ref()).any(|&l| l != n)
            || wet.len() != self.wet.len()
        {
            return Err(Error::invalid(format!(
                "kp: a state to resume from of other sizes than this run's ({n} cells)"
            )));
        }
        self.q.w.copy_from_slice(w);
        self.q.hu.copy_from_slice(hu);
        self.q.hv.copy_from_slice(hv);
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

    /// Early exit of dry blocks; the split schemes have none (Amundsen's neither) and ignore it.
    pub fn set_early_exit(&mut self, on: bool) {
        self.early_exit = on && self.forcing.as_ref().is_none_or(|f| f.layout.level_map.is_empty());
    }

    /// R of Qⁿ (or Q¹) and the rate; in `clamp` the faces only, R follows in [`drain`](Self::drain).
    /// First the faces that let water only out are opened or closed for the stage.
    fn eval_rhs(&mut self, from_q1: bool) -> T {
        let (w, hu, hv) = if from_q1 { self.q1.fields() } else { self.q.fields() };
        if let Some(active) = self.active.as_mut().filter(|_| !self.out_only.is_empty()) {
            set_out_only(self.wet_dry, &self.k, &self.out_only, (w, hu, hv), &self.bed, active);
        }
        if let Some(faces) = &mut self.faces {
            return faces.fluxes(&self.k, w, hu, hv, &self.bed, self.active.as_deref());
        }
        let wet = if self.early_exit { Some(&self.wet[..]) } else { None };
        let (rw, ru, rv) = self.r.fields_mut();
        rhs(&self.k, self.wet_dry, w, hu, hv, &self.bed, wet, self.active.as_deref(), rw, ru, rv)
    }

    /// In `clamp`, once Δt is known: the draining factors and R of the faces [`eval_rhs`](Self::eval_rhs) left.
    fn drain(&mut self, from_q1: bool, dt: T) {
        if let Some(faces) = &mut self.faces {
            let src = if from_q1 { &self.q1 } else { &self.q };
            let active = self.active.as_deref();
            faces.factors(&self.k, dt, &src.w, &self.cell_bed, active);
            // A face at a cut drains by the factor of the neighbour's cell beyond it.
            if let Some(h) = &self.halo {
                h.refresh(&mut [faces.phi_mut()]);
            }
            faces.drain_and_rhs(&self.k, &self.bed, active, self.r.fields_mut());
        }
    }

    /// The water account's share of stage `stage` (of Qⁿ, or Q¹ with `from_q1`) of an unsplit
    /// step of `dt`, once its draining factors are known: the faces of the boundary segments,
    /// through the wet map R was computed with (early exit; `clamp` has none here) and the
    /// draining factors; the step's last stage commits it.
    fn account_stage(&mut self, from_q1: bool, dt: T) {
        let Some(acc) = &mut self.account else { return };
        let src = if from_q1 { &self.q1 } else { &self.q };
        // `new` refuses forcing, so an account, with a wider `W`.
        let Some(w) = W::plain(&src.w) else { return };
        let euler = self.scheme == Scheme::Euler;
        let m = measure(if euler { 1.0 } else { 0.5 }, FACES_ALL, euler || from_q1);
        let wet = (self.early_exit && self.faces.is_none()).then_some(&self.wet[..]);
        let phi = self.faces.as_ref().map(|f| f.phi());
        let (bed, active) = (&self.bed[..], self.active.as_deref());
        acc.stage(self.wet_dry, &self.k, m, dt, [w, &src.hu, &src.hv], (bed, active), wet, phi);
    }

    /// One step towards `t_stop` (Δt capped at the time left), then the forcing over the time
    /// it advanced and the ghosts of the forced state. Returns the Δt taken, or why the run must
    /// stop (the state is then left as it was before the step).
    /// In DS2 a step is the double step X Y Y X and advances 2Δt.
    pub fn step(&mut self, t_stop: f64) -> std::result::Result<f64, Halt> {
        let dt = self.flow(t_stop)?;
        if let Some(f) = &mut self.forcing {
            let k = &self.k;
            // `new` refuses forcing with a wider `W`.
            let [w, hu, hv] = self.q.plain_mut();
            let low = self.low.as_mut().map(|[l, ..]| &mut l[..]);
            f.apply(k, self.t, w, low, hu, hv, &self.cell_bed, &mut self.wet);
            apply_boundary(k, w, hu, hv, &self.cell_bed, f.ghosts());
            Self::exchange(self.halo.as_ref(), &mut self.q);
        }
        Ok(dt)
    }

    /// The step of [`step`](Self::step) without the forcing.
    fn flow(&mut self, t_stop: f64) -> std::result::Result<f64, Halt> {
        if let Some(split) = &mut self.split {
            // `new` refuses a split scheme with a wider `W`.
            let q = self.q.plain_mut();
            let account = self.account.as_deref_mut();
            let dt = split
                .step(q, &mut self.wet, self.friction.as_deref(), self.t, t_stop, (self.dt_floor, self.dt_max), account)
                .map_err(|f| match f {
                    Fail::NonFinite => Halt::NonFinite,
                    Fail::TooLarge | Fail::Collapsed => Halt::Collapsed,
                })?;
            self.t += dt;
            self.dt = dt;
            // As the device clock: a step of Δt = 0 (a still state with no stop time) counts none.
            self.steps += (dt > 0.0) as u64;
            return Ok(dt);
        }
        let rate = self.eval_rhs(false);
        let rate = self.global_rate(rate);
        let (dt, status) = time_step(self.cfl, rate.to_f64(), self.t, t_stop, self.dt_floor, self.dt_max);
        if status != STEP_OK {
            return Err(if status == kernels::kp::STEP_NON_FINITE { Halt::NonFinite } else { Halt::Collapsed });
        }
        let dtt = T::from_f64(dt);
        // The step's uniform forcing acts inside its last stage, over the span to the new time.
        let to = self.t + dt;
        let euler = self.scheme == Scheme::Euler;
        self.drain(false, dtt);
        self.account_stage(false, dtt);
        self.stage(1, dtt, euler.then_some(to));
        match self.scheme {
            Scheme::Euler => {
                std::mem::swap(&mut self.q, &mut self.q1);
                if let Some([l0, l1, _]) = &mut self.low {
                    std::mem::swap(l0, l1);
                }
            }
            Scheme::Rk2 | Scheme::Srk2 | Scheme::Ds1 | Scheme::Ds2 => {
                // The second stage's fluxes, draining and measured faces read the step's Δt, as
                // the GPU's read its buffer: `bollermann`'s cap counts no face faster than it
                // allows (`Coeffs::cap_speed`), `kp07` lets a face out at most a quarter of its
                // depth (`Coeffs::quarter_take`).
                let first = self.k;
                // SAFETY: `dtt` outlives the three calls, after which the constants are restored.
                self.k = unsafe { first.after_dt(&dtt) };
                self.eval_rhs(true);
                self.drain(true, dtt);
                self.account_stage(true, dtt);
                self.k = first;
                self.stage(2, dtt, Some(to));
                std::mem::swap(&mut self.q, &mut self.q2);
                if let Some([l0, _, l2]) = &mut self.low {
                    std::mem::swap(l0, l2);
                }
            }
        }
        self.t += dt;
        self.dt = dt;
        self.steps += (dt > 0.0) as u64;
        Ok(dt)
    }

    /// RK stage `stage` from R: stage 1 from Qⁿ into Q¹; stage 2 from Qⁿ and Q¹ into the third set
    /// of fields, which then becomes Qⁿ⁺¹ (the kernel works in place, each thread reading its
    /// own cell first; `rk` takes inputs and output as separate slices). Then the velocity clamp
    /// (`clamp`) and the ghosts. In the step's last stage, which takes the model to time `to`, the
    /// step's uniform forcing acts on the output before the clamp (with
    /// [`Layout::fused`](super::forcing::Layout::fused), as the GPU's stage kernels apply it).
    fn stage(&mut self, stage: u32, dt: T, to: Option<f64>) {
        let (k, cell_bed, gn2) = (&self.k, &self.cell_bed[..], self.friction.as_deref());
        let (q0, q1, out) = match stage {
            1 => (&self.q, &self.q, &mut self.q1),
            _ => (&self.q, &self.q1, &mut self.q2),
        };
        let low = self.low.as_mut().map(|[l0, l1, l2]| match stage {
            1 => LowParts { q0: &l0[..], q1: &l0[..], out: &mut l1[..] },
            _ => LowParts { q0: &l0[..], q1: &l1[..], out: &mut l2[..] },
        });
        match low {
            None => rk(
                k,
                stage,
                dt,
                cell_bed,
                gn2,
                q0.fields(),
                q1.fields(),
                self.r.fields(),
                out.fields_mut(),
                &mut self.wet,
            ),
            Some(low) => {
                let (q0, q1, r) = (q0.plain(), q1.plain(), self.r.plain());
                rk_compensated(k, stage, dt, cell_bed, gn2, q0, q1, r, out.plain_mut(), low, &mut self.wet);
            }
        }
        if let (Some(to), Some(f)) = (to, self.forcing.as_deref_mut()) {
            let low = self.low.as_mut().map(|l| &mut l[stage as usize][..]);
            let [w, hu, hv] = out.plain_mut();
            f.force_stage(k, to, [w, hu, hv], low, cell_bed, &mut self.wet);
        }
        // A stage of Δt = 0 changes nothing, so neither does the pass (which can move films
        // and shore cells whatever the stage did); the GPU's RK kernel flags nothing to clamp then either.
        if let Some(faces) = &mut self.faces
            && dt > T::ZERO
        {
            // The clamp holds a cell to its neighbours' velocities as the stage left them,
            // beyond a cut too.
            Self::exchange(self.halo.as_ref(), out);
            faces.clamp(k, cell_bed, &out.w, &mut out.hu, &mut out.hv);
        }
        let levels = self.forcing.as_deref().and_then(|f| f.ghosts());
        apply_boundary(k, &mut out.w, &mut out.hu, &mut out.hv, cell_bed, levels);
        Self::exchange(self.halo.as_ref(), out);
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
    /// Padded (w, hu, hv), w as `W`.
    pub fn fields(&self) -> (&[W], &[T], &[T]) {
        self.q.fields()
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
    /// With forcing, the time it has been applied up to and the depth each cell's soil has
    /// taken (padded; `None` without a soil).
    pub fn forcing_state(&self) -> Option<(f64, Option<&[T]>)> {
        let f = self.forcing.as_ref()?;
        Some((f.forced(), f.layout.has_soil().then_some(&f.infiltrated[..])))
    }

    /// Continue the forcing from [`forcing_state`](Self::forcing_state)'s values (nothing
    /// without forcing; zeros where `infiltrated` is `None`).
    pub fn resume_forcing(&mut self, forced: f64, infiltrated: Option<&[T]>) -> Result<()> {
        let Some(f) = &mut self.forcing else { return Ok(()) };
        match infiltrated {
            Some(src) if src.len() == f.infiltrated.len() => f.infiltrated.copy_from_slice(src),
            Some(_) => return Err(Error::invalid("kp: a soil state to resume from of other sizes than this run's")),
            None => f.infiltrated.fill(T::ZERO),
        }
        f.set_clock(forced);
        self.set_level_ghosts();
        Ok(())
    }

    /// With forcing and boundary segments, every face's volumes so far (four arrays of the
    /// perimeter's faces: what left, values then low parts; what came in, values then low
    /// parts; `segments.rs` sums them into the segments); None otherwise.
    pub fn boundary_volumes(&self) -> Option<&[f64]> {
        self.account.as_ref().map(|a| a.totals())
    }

    /// Continue the boundary volumes from [`boundary_volumes`](Self::boundary_volumes)' values
    /// (nothing without segments).
    pub fn resume_boundary(&mut self, totals: &[f64]) -> Result<()> {
        self.account.as_mut().map_or(Ok(()), |a| a.resume(totals))
    }

    /// The last R computed (padded), R_w as `W`.
    pub fn residual_fields(&self) -> (&[W], &[T], &[T]) {
        self.r.fields()
    }
    /// Water volume Σ (w − B̄)·ΔxΔy over the interior, summed in f64 (without a compensated low
    /// part: `Problem::volume_with_low`).
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

/// The f32 and f64 paths' views: the state as three `T` fields.
impl<T: Real> CpuKp<T> {
    /// Padded (w, hu, hv).
    pub fn state(&self) -> [&[T]; 3] {
        let (w, hu, hv) = self.fields();
        [w, hu, hv]
    }
    /// [`resume_fields`](Self::resume_fields) from (w, hu, hv) as [`state`](Self::state) gave them.
    pub fn resume(
        &mut self,
        [w, hu, hv]: [&[T]; 3],
        low: Option<&[T]>,
        wet: &[u8],
        t: f64,
        dt: f64,
        steps: u64,
    ) -> Result<()> {
        self.resume_fields((w, hu, hv), low, wet, t, dt, steps)
    }
    /// The last R computed (padded).
    pub fn residual(&self) -> [&[T]; 3] {
        let (w, hu, hv) = self.residual_fields();
        [w, hu, hv]
    }
}
