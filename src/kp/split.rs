//! The dimensionally split schemes DS1 and DS2 of the CPU reference (Amundsen §3.1.2–3.1.3,
//! docs/kp-schemes.md).
//!
//! The x-operator X(Δt) updates the state with the x faces only: the F fluxes, the x part of
//! the bed-slope source, and Manning friction (friction belongs to X: applied once per Δt of
//! time, see the docs). The y-operator Y(Δt) is X done as the GPU will do it: the state is
//! transposed (w, hu and hv swapped, the corner and centre beds transposed, the sides following:
//! the transposed west is the south), X of the transposed problem without friction is applied,
//! and the state is transposed back. DS1 is X(Δt)·Y(Δt) with Euler substeps; DS2 is the double
//! step X(Δt)·Y(Δt)·Y(Δt)·X(Δt) with RK2 substeps, advancing 2Δt, kept transposed between its
//! two Y substeps as Amundsen's implementation does.
//!
//! Δt = min(r·Δt_x, r·Δt_y) from the last substeps' own CFL limits Δt_x = CFL/max(a_x/Δx) (the
//! first step measures both at the initial state). Each substep measures its limit at the state
//! it starts from; one below Δt discards the whole step (Qⁿ is untouched: the substeps work on
//! copies), halves the estimates as Amundsen's scheme does, and retries.

use super::clamp::{clamp_velocities, corners, draining_factors, ghost_factor, highest_corners};
use super::perimeter::{Perimeter, measure};
use super::rk::rk;
use super::state::{apply_boundary, wet_map};
use crate::{Real, Result};
use kernels::kp::{
    Bollermann, Clamp, Coeffs, FACES_X, FACES_X_T, Flux, Kp07, Recon, STEP_COLLAPSED, SplitClock, WetDryScheme, bed_x,
    cell_view_at, central_upwind, drain_face, recon_x, rhs_x, slope_source, split_dt, split_limit,
};

use super::{Scheme, WetDry};

/// One orientation of the grid: the problem's, or the transposed one Y works in.
struct Side<T> {
    k: Coeffs<T>,
    bed: Vec<T>,
    cell_bed: Vec<T>,
    /// Each cell's highest corner (the velocity clamp's partially flooded test).
    hi: Vec<T>,
}

/// Why a split step did not complete.
pub enum Fail {
    /// A substep's own CFL limit (the Δt it allows) is below the Δt taken.
    TooLarge,
    /// A substep met a non-finite wave speed.
    NonFinite,
    /// Δt fell below the floor short of the stop time.
    Collapsed,
}

/// The split schemes' state besides Qⁿ: both orientations, the substeps' buffers, and the Δt
/// estimates.
pub struct Split<T> {
    scheme: Scheme,
    wet_dry: WetDry,
    cfl: f64,
    /// r of Δt = r·min(Δt_x, Δt_y).
    safety: f64,
    xs: Side<T>,
    ys: Side<T>,
    /// The working state, the stage-1 output and the stage-2 output of a substep, and R.
    s: [Vec<T>; 3],
    s1: [Vec<T>; 3],
    s2: [Vec<T>; 3],
    wet: Vec<u8>,
    faces: XFaces<T>,
    /// The last substeps' CFL limits in x and y; `None` before the first step.
    pub estimates: Option<(f64, f64)>,
    /// Steps discarded and retried with halved estimates, over the run.
    pub retries: u64,
    /// In `clamp`: cells whose velocities the clamp changed, over the run.
    pub clamped: u64,
}

/// The x faces of a substep and R from them.
struct XFaces<T> {
    /// Per padded cell: (w*, hu, hv, cap), x reconstruction, west face flux, draining factor.
    surf: Vec<(T, T, T, T)>,
    rx: Vec<Recon<T>>,
    fx: Vec<Flux<T>>,
    phi: Vec<T>,
    r: [Vec<T>; 3],
    /// In `clamp`: cells drained over the run.
    drained: u64,
}

/// `src` (`w` × `h`, x fastest) transposed into `dst` (`h` × `w`).
fn transpose<T: Copy>(src: &[T], w: usize, h: usize, dst: &mut [T]) {
    for j in 0..h {
        for i in 0..w {
            dst[i * h + j] = src[j * w + i];
        }
    }
}

/// `src` (`w` × `h`, x fastest) transposed into a new vector (the transposed orientation's beds,
/// on both backends).
pub(super) fn transposed<T: Copy + Default>(src: &[T], w: usize, h: usize) -> Vec<T> {
    let mut dst = vec![T::default(); src.len()];
    transpose(src, w, h, &mut dst);
    dst
}

impl<T: Real> Split<T> {
    /// For a problem of constants `k` over the padded corner bed `bed` and centre bed
    /// `cell_bed`, in `scheme` (DS1 or DS2) with r = `safety`.
    pub fn new(
        scheme: Scheme,
        wet_dry: WetDry,
        cfl: f64,
        safety: f64,
        k: &Coeffs<T>,
        bed: &[T],
        cell_bed: &[T],
    ) -> Result<Split<T>> {
        let kt = k.transposed();
        let (px, py) = (k.nx as usize + 4, k.ny as usize + 4);
        let tbed = transposed(bed, px + 1, py + 1);
        let tcell = transposed(cell_bed, px, py);
        let n = k.cells();
        let zeros = || [vec![T::ZERO; n], vec![T::ZERO; n], vec![T::ZERO; n]];
        Ok(Split {
            scheme,
            wet_dry,
            cfl,
            safety,
            xs: Side { k: *k, hi: highest_corners(k, bed), bed: bed.to_vec(), cell_bed: cell_bed.to_vec() },
            ys: Side { k: kt, hi: highest_corners(&kt, &tbed), bed: tbed, cell_bed: tcell },
            s: zeros(),
            s1: zeros(),
            s2: zeros(),
            wet: vec![0; (k.nbx * k.nby) as usize],
            faces: XFaces {
                surf: vec![(T::ZERO, T::ZERO, T::ZERO, T::ZERO); n],
                rx: vec![Recon::ZERO; n],
                fx: vec![Flux::ZERO; n],
                phi: vec![T::ONE; n],
                r: zeros(),
                drained: 0,
            },
            estimates: None,
            retries: 0,
            clamped: 0,
        })
    }

    /// One step of the scheme from Qⁿ = `q` towards `t_stop` at time `t`; `friction` is the
    /// problem's g·n² field (padded) if it has one. On success `q` is Qⁿ⁺¹ and the wet map
    /// `wet` its own; Δt between `dt_floor` and `dt_max`; returns the time advanced (2Δt in DS2) or 0 where the state is still and
    /// `t_stop` infinitely far. On a failure `q` is left as it was. With `account`, each
    /// substep's stages measure the x faces of their orientation, committed when the step goes
    /// through and dropped when it is discarded.
    #[allow(clippy::too_many_arguments)]
    pub fn step(
        &mut self,
        q: [&mut [T]; 3],
        wet: &mut [u8],
        friction: Option<&[T]>,
        t: f64,
        t_stop: f64,
        (dt_floor, dt_max): (f64, f64),
        mut account: Option<&mut Perimeter>,
    ) -> std::result::Result<f64, Fail> {
        let substeps = if self.scheme == Scheme::Ds2 { 2.0 } else { 1.0 };
        let (mut ex, mut ey) = match self.estimates {
            Some(e) => e,
            None => self.measure([&*q[0], &*q[1], &*q[2]])?,
        };
        let c = SplitClock { cfl: self.cfl, safety: self.safety, substeps, t_stop, dt_floor, dt_max };
        loop {
            // The GPU's rule (`kernels::kp::split_dt`), so both backends take the same Δt.
            let dt = match split_dt(&c, ex, ey, t) {
                (_, STEP_COLLAPSED) => return Err(Fail::Collapsed),
                (0.0, _) => return Ok(0.0),
                (dt, _) => dt,
            };
            let tried = self.attempt([&*q[0], &*q[1], &*q[2]], friction, T::from_f64(dt), dt, &mut ex, &mut ey, {
                account.as_deref_mut()
            });
            if let Some(a) = account.as_deref_mut() {
                match tried {
                    Ok(()) => a.commit(),
                    Err(_) => a.drop_pending(),
                }
            }
            match tried {
                Ok(()) => {
                    wet.copy_from_slice(&wet_map(&self.xs.k, &self.s[0], &self.xs.cell_bed));
                    for (q, s) in q.into_iter().zip(&self.s) {
                        q.copy_from_slice(s);
                    }
                    self.estimates = Some((ex, ey));
                    return Ok(substeps * dt);
                }
                Err(Fail::TooLarge) => {
                    self.retries += 1;
                    (ex, ey) = (0.5 * ex, 0.5 * ey);
                }
                Err(e) => return Err(e),
            }
        }
    }

    /// The CFL limits Δt_x and Δt_y of the state `q` (the first step's estimates).
    fn measure(&mut self, q: [&[T]; 3]) -> std::result::Result<(f64, f64), Fail> {
        let rx = self.faces.rhs(&self.xs, self.wet_dry, q, T::ZERO);
        let (px, py) = (self.xs.k.nx as usize + 4, self.xs.k.ny as usize + 4);
        // Transposed: w with w, hu into hv's place and hv into hu's.
        for (from, to) in [(0, 0), (1, 2), (2, 1)] {
            transpose(q[from], px, py, &mut self.s[to]);
        }
        let ry = self.faces.rhs(&self.ys, self.wet_dry, [&self.s[0], &self.s[1], &self.s[2]], T::ZERO);
        let limit = |rate: T| split_limit(self.cfl, rate.to_f64()).ok_or(Fail::NonFinite);
        Ok((limit(rx)?, limit(ry)?))
    }

    /// One try of the step with Δt = `dt` (`dt64` in f64) from Qⁿ = `q`, updating the estimates
    /// `ex`, `ey` with each substep's limit, each substep's stages measured into `account`.
    /// Leaves Qⁿ⁺¹ in the working state `s` when every substep passed.
    #[allow(clippy::too_many_arguments)]
    fn attempt(
        &mut self,
        q: [&[T]; 3],
        friction: Option<&[T]>,
        dt: T,
        dt64: f64,
        ex: &mut f64,
        ey: &mut f64,
        mut account: Option<&mut Perimeter>,
    ) -> std::result::Result<(), Fail> {
        for (s, q) in self.s.iter_mut().zip(q) {
            s.copy_from_slice(q);
        }
        let stages = if self.scheme == Scheme::Ds2 { 2 } else { 1 };
        // DS1: X Y; DS2: X Y Y X (the state stays transposed between the two Y substeps).
        let plan: &[bool] = if self.scheme == Scheme::Ds2 { &[false, true, true, false] } else { &[false, true] };
        let mut transposed = false;
        for &y in plan {
            if y != transposed {
                self.flip(y);
                transposed = y;
            }
            let limit = self.substep(y, stages, dt, if y { None } else { friction }, account.as_deref_mut())?;
            *(if y { &mut *ey } else { &mut *ex }) = limit;
            if limit < dt64 {
                return Err(Fail::TooLarge);
            }
        }
        if transposed {
            self.flip(false);
        }
        Ok(())
    }

    /// In `clamp`: cells drained and cells whose velocities were clamped, over the run.
    pub fn clamp_counts(&self) -> (u64, u64) {
        (self.faces.drained, self.clamped)
    }

    /// Transpose the working state into the orientation `to_y` (true: Y's), ghosts included,
    /// and set its ghosts for the sides of that orientation.
    fn flip(&mut self, to_y: bool) {
        let from = if to_y { &self.xs.k } else { &self.ys.k };
        let (pw, ph) = (from.pitch as usize, from.ny as usize + 4);
        for (from, to) in [(0, 0), (1, 2), (2, 1)] {
            transpose(&self.s[from], pw, ph, &mut self.s2[to]);
        }
        std::mem::swap(&mut self.s, &mut self.s2);
        let side = if to_y { &self.ys } else { &self.xs };
        let [w, hu, hv] = &mut self.s;
        apply_boundary(&side.k, w, hu, hv, &side.cell_bed, None);
    }

    /// One substep X(Δt) on the working state in orientation `y`: Euler (`stages` 1) or RK2
    /// (2), each stage's x faces measured into `account`. Returns the substep's own CFL limit,
    /// measured at the state it starts from; the state is updated whatever the limit (the caller
    /// discards the step if it is below Δt).
    fn substep(
        &mut self,
        y: bool,
        stages: u32,
        dt: T,
        friction: Option<&[T]>,
        mut account: Option<&mut Perimeter>,
    ) -> std::result::Result<f64, Fail> {
        let side = if y { &self.ys } else { &self.xs };
        let rate = self.faces.rhs(side, self.wet_dry, [&self.s[0], &self.s[1], &self.s[2]], dt).to_f64();
        let limit = split_limit(self.cfl, rate).ok_or(Fail::NonFinite)?;
        if limit < dt.to_f64() {
            return Ok(limit);
        }
        let scale = if stages == 2 { 0.5 } else { 1.0 };
        self.account_stage(y, scale, dt, false, account.as_deref_mut());
        self.stage(y, 1, dt, friction);
        if stages == 2 {
            let side = if y { &self.ys } else { &self.xs };
            self.faces.rhs(side, self.wet_dry, [&self.s1[0], &self.s1[1], &self.s1[2]], dt);
            self.account_stage(y, scale, dt, true, account);
            self.stage(y, 2, dt, friction);
            std::mem::swap(&mut self.s, &mut self.s2);
        } else {
            std::mem::swap(&mut self.s, &mut self.s1);
        }
        Ok(limit)
    }

    /// A stage's x faces in orientation `y` of weight `scale` into `account`: the working
    /// state `s`, or with `second` the stage-1 output `s1`, drained by the factors `rhs` left.
    fn account_stage(&self, y: bool, scale: f64, dt: T, second: bool, account: Option<&mut Perimeter>) {
        let Some(a) = account else { return };
        let side = if y { &self.ys } else { &self.xs };
        let m = measure(scale, if y { FACES_X_T } else { FACES_X }, false);
        let s = if second { &self.s1 } else { &self.s };
        let phi = (self.wet_dry == WetDry::Clamp).then_some(&self.faces.phi[..]);
        a.stage(self.wet_dry, &side.k, m, dt, [&s[0], &s[1], &s[2]], (&side.bed, None), None, phi);
    }

    /// RK stage `stage` of the substep from R in `self.r`: stage 1 writes `s1`, stage 2 `s2`;
    /// then the velocity clamp (in `clamp`) and the ghosts.
    fn stage(&mut self, y: bool, stage: u32, dt: T, friction: Option<&[T]>) {
        let side = if y { &self.ys } else { &self.xs };
        let k = &side.k;
        let q0 = (&self.s[0][..], &self.s[1][..], &self.s[2][..]);
        let q1 = (&self.s1[0][..], &self.s1[1][..], &self.s1[2][..]);
        let r = (&self.faces.r[0][..], &self.faces.r[1][..], &self.faces.r[2][..]);
        let [a, b, c] = &mut self.s2;
        if stage == 1 {
            rk(k, 1, dt, &side.cell_bed, friction, q0, q0, r, (&mut a[..], &mut b[..], &mut c[..]), &mut self.wet);
        } else {
            rk(k, 2, dt, &side.cell_bed, friction, q0, q1, r, (&mut a[..], &mut b[..], &mut c[..]), &mut self.wet);
        }
        if self.wet_dry == WetDry::Clamp {
            self.clamped += clamp_velocities(k, &side.hi, &side.cell_bed, a, b, c, 2..k.ny as usize + 2);
        }
        apply_boundary(k, a, b, c, &side.cell_bed, None);
        if stage == 1 {
            std::mem::swap(&mut self.s1, &mut self.s2);
        }
    }
}

impl<T: Real> XFaces<T> {
    /// R of the x faces of the padded state `q` in orientation `side` into `self.r`; in `clamp`
    /// the faces drained for a stage of `dt`. Returns max(a_x/Δx) over the interior's x faces
    /// (a NaN counts as infinite).
    fn rhs(&mut self, side: &Side<T>, wet_dry: WetDry, q: [&[T]; 3], dt: T) -> T {
        match wet_dry {
            WetDry::Bollermann => self.rhs_of::<Bollermann>(side, q, dt),
            WetDry::Kp07 => self.rhs_of::<Kp07>(side, q, dt),
            WetDry::Clamp => self.rhs_of::<Clamp>(side, q, dt),
        }
    }

    fn rhs_of<S: WetDryScheme>(&mut self, side: &Side<T>, [w, hu, hv]: [&[T]; 3], dt: T) -> T {
        let (k, bed) = (&side.k, &side.bed);
        let (nx, ny, p) = (k.nx as usize, k.ny as usize, k.pitch as usize);
        // Each face flux once, from the plus face of the cell before and the minus face of the
        // cell after, as `cell_faces` pairs them.
        for j in 2..ny + 2 {
            for i in 0..nx + 4 {
                let c = j * p + i;
                self.surf[c] = cell_view_at::<S, T>(k, (w[c], hu[c], hv[c]), &corners(k, bed, c), 0, 0);
            }
            for i in 1..nx + 3 {
                let c = j * p + i;
                let surf = &self.surf;
                let q = |di: i32, _: i32| surf[(c as isize + di as isize) as usize];
                self.rx[c] = recon_x::<S, T>(k, &q, &corners(k, bed, c), 0);
            }
        }
        let mut rate = T::ZERO;
        for j in 2..ny + 2 {
            for i in 2..nx + 3 {
                let c = j * p + i;
                self.fx[c] = central_upwind::<S, T>(k, self.rx[c - 1].p, self.rx[c].m, false);
                let speed = self.fx[c].speed;
                rate = rate.max(if speed.is_finite() { speed * k.inv_dx } else { T::INFINITY });
            }
        }
        // `clamp`: the draining factors of the partially flooded cells for the substep's Δt,
        // from what leaves them through its faces, and those faces drained.
        if S::PARTIAL && !S::CAP && dt > T::ZERO {
            let fx = &self.fx;
            let faces = |c: usize| [fx[c].f0, fx[c + 1].f0, T::ZERO, T::ZERO];
            let (any, drained) = draining_factors(k, dt, w, &side.cell_bed, &self.surf, faces, None, &mut self.phi);
            self.drained += drained;
            if any {
                for j in 2..ny + 2 {
                    for i in 2..nx + 3 {
                        let c = j * p + i;
                        // A ghost across a periodic side drains by the factor of the cell it is
                        // the image of; other ghost cells are not drained.
                        let phi = |c: usize| {
                            if (2..nx + 2).contains(&(c % p)) { self.phi[c] } else { ghost_factor(k, &self.phi, c) }
                        };
                        self.fx[c] = drain_face(k, self.fx[c], (self.rx[c - 1].p, self.rx[c].m), phi(c - 1), phi(c));
                    }
                }
            }
        }
        let [rw, rhu, rhv] = &mut self.r;
        for j in 2..ny + 2 {
            for i in 2..nx + 2 {
                let c = j * p + i;
                let b = corners(k, bed, c);
                let sx = slope_source::<S, T>(k, bed_x(&b, 0), bed_x(&b, 1), &self.rx[c], k.inv_dx);
                (rw[c], rhu[c], rhv[c]) = rhs_x(k, self.fx[c], self.fx[c + 1], sx);
            }
        }
        rate
    }
}
