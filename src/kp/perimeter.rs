//! The CPU reference's measurement of the water account's boundary (docs/kp-forcing.md, "The
//! water account"): after each stage's draining factors, every face of a boundary segment
//! (`segments.rs`) gets the stage's share of its outward flux, recomputed by the flux kernels'
//! point functions (`kernels::kp::outward_flux`), and the step's last stage commits it to the
//! face's totals: what the kernels of `gpu/src/kp/account.rs` do, face by face in the same
//! arithmetic.

use super::clamp::corners;
use super::segments::Segments;
use super::{Problem, WetDry};
use crate::{Error, Real, Result};
use kernels::kp::{
    Bollermann, Clamp, Coeffs, Kp07, Measure, NO_SEGMENT, WetDryScheme, add_pending, block_active, commit_face,
    face_lengths, face_volume, measured_face, measured_faces, outward_flux,
};

/// The measurement of a stage of weight `scale` (1 in Euler, ½ a stage in RK2) over `faces`
/// (`kernels::kp::FACES_*`), committing the step with `commit`.
pub fn measure(scale: f64, faces: u32, commit: bool) -> Measure {
    Measure { scale, faces, commit: commit as u32 }
}

/// The segments' faces, their volumes pending for the step under way and their totals.
pub struct Perimeter {
    /// Each face's segment (`Segments::map`).
    map: Vec<u32>,
    pending: Vec<f64>,
    /// What left through each face (values, then low parts) and what came in (values, then low
    /// parts): four arrays of the faces.
    totals: Vec<f64>,
    /// The problem's cell size, Δx × Δy.
    cell: (f64, f64),
}

impl Perimeter {
    /// The measurement of `problem`'s segments `s` (`Segments::of`, or a slab's
    /// `Segments::slab`); None where it has none to measure.
    pub fn new(problem: &Problem, s: &Segments) -> Option<Perimeter> {
        if s.is_empty() {
            return None;
        }
        let n = s.map.len();
        Some(Perimeter {
            map: s.map.clone(),
            pending: vec![0.0; n],
            totals: vec![0.0; 4 * n],
            cell: (problem.dx, problem.dy),
        })
    }

    /// One stage's share of each measured face's flux ([`measure`]; the faces' lengths from the
    /// problem's cell, `kernels::kp::face_lengths`) in wet–dry scheme `wet_dry`:
    /// the padded state (w, hu, hv) with its ghosts in orientation `k` over the corner bed
    /// `bed` and the padded cells' activity `active` (where the run has an activity map), Δt
    /// `dt` (nothing where it is 0); with `wet` (early exit) nothing where the boundary cell's
    /// block is inactive, and with `phi` (`clamp`) each face drained by its cell's factor. Then,
    /// with `m.commit`, the step's volumes committed.
    #[allow(clippy::too_many_arguments)]
    pub fn stage<T: Real>(
        &mut self,
        wet_dry: WetDry,
        k: &Coeffs<T>,
        m: Measure,
        dt: T,
        q: [&[T]; 3],
        (bed, active): (&[T], Option<&[u8]>),
        wet: Option<&[u8]>,
        phi: Option<&[T]>,
    ) {
        match wet_dry {
            WetDry::Bollermann => self.stage_of::<Bollermann, T>(k, m, dt, q, (bed, active), wet, phi),
            WetDry::Kp07 => self.stage_of::<Kp07, T>(k, m, dt, q, (bed, active), wet, phi),
            WetDry::Clamp => self.stage_of::<Clamp, T>(k, m, dt, q, (bed, active), wet, phi),
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn stage_of<S: WetDryScheme, T: Real>(
        &mut self,
        k: &Coeffs<T>,
        m: Measure,
        dt: T,
        [w, hu, hv]: [&[T]; 3],
        (bed, active): (&[T], Option<&[u8]>),
        wet: Option<&[u8]>,
        phi: Option<&[T]>,
    ) {
        let p = k.pitch as isize;
        let (len_x, len_y) = face_lengths(self.cell, m.faces);
        for n in 0..measured_faces(k, m.faces) {
            let (side, i, j, f) = measured_face(k, m.faces, n);
            let f = f as usize;
            if self.map[f] == NO_SEGMENT || dt <= T::ZERO {
                continue;
            }
            let flag = |a: u32, b: u32| wet.is_some_and(|wet| wet[(b * k.nbx + a) as usize] != 0);
            if wet.is_some() && !block_active(k, i / k.bx, j / k.by, flag) {
                continue;
            }
            let g = k.at(i + 2, j + 2);
            let q = |di: i32, dj: i32| {
                let o = (g as isize + di as isize + dj as isize * p) as usize;
                (w[o], hu[o], hv[o])
            };
            let on =
                |di: i32, dj: i32| active.is_none_or(|a| a[(g as isize + di as isize + dj as isize * p) as usize] != 0);
            let flux = outward_flux::<S, T>(k, side, q, corners(k, bed, g), on, phi.map_or(T::ONE, |phi| phi[g]));
            let length = if side < 2 { len_x } else { len_y };
            self.pending[f] = add_pending(self.pending[f], face_volume(m.scale, dt.to_f64(), flux.to_f64(), length));
        }
        if m.commit != 0 {
            self.commit();
        }
    }

    /// The step is whole: each face's pending volume goes to its totals.
    pub fn commit(&mut self) {
        let n = self.map.len();
        for f in 0..n {
            // SAFETY: f < n; pending holds n values, totals 4n.
            unsafe { commit_face(self.totals.as_mut_ptr(), self.pending.as_mut_ptr(), f, n) };
        }
    }

    /// The step was discarded (a split scheme's substep found Δt too large): its volumes go.
    pub fn drop_pending(&mut self) {
        self.pending.fill(0.0);
    }

    /// Every face's totals (four arrays of the faces: what left, values then low parts; what
    /// came in, values then low parts).
    pub fn totals(&self) -> &[f64] {
        &self.totals
    }

    /// Continue from totals [`totals`](Self::totals) gave of a run of the same problem.
    pub fn resume(&mut self, totals: &[f64]) -> Result<()> {
        if totals.len() != self.totals.len() {
            return Err(Error::invalid(format!(
                "kp: boundary volumes of {} faces to resume from, where this run measures {}",
                totals.len() / 4,
                self.totals.len() / 4
            )));
        }
        self.totals.copy_from_slice(totals);
        self.pending.fill(0.0);
        Ok(())
    }
}
