//! CPU reference: the same point functions as the kernels, rayon over rows; either scheme.

use super::{Coeffs, Problem, Scheme};
use crate::field::Field2;
use crate::{Real, Result};
use kernels::halo::{perimeter_ghost, perimeter_len};
use kernels::sediment::{Five, bounded_point, h_point, mobility, s_point, set_ghost, upwind_is_south, upwind_is_west};
use rayon::prelude::*;

/// h' on the interior (ghost entries of `hn` are left for [`apply_ghosts`]).
pub fn h_step<T: Real>(k: &Coeffs<T>, h: &[T], s: &[T], al: &[T], be: &[T], hn: &mut [T]) {
    let p = k.pitch as usize;
    let ab = |g: usize| (al[g] * s[g], be[g] * (T::ONE - s[g]));
    hn.par_chunks_mut(p).enumerate().skip(1).take(k.ny as usize).for_each(|(j, row)| {
        for (i, out) in row.iter_mut().enumerate().skip(1).take(k.nx as usize) {
            let c = j * p + i;
            let [(ac, bc), (aw, bw), (ae, bee), (as_, bs), (an, bn)] = [c, c - 1, c + 1, c - p, c + p].map(ab);
            let hv = Five { c: h[c], w: h[c - 1], e: h[c + 1], s: h[c - p], n: h[c + p] };
            let a = Five { c: ac, w: aw, e: ae, s: as_, n: an };
            let b = Five { c: bc, w: bw, e: bee, s: bs, n: bn };
            *out = h_point(k, hv, a, b);
        }
    });
}

/// s' on the interior.
pub fn s_step<T: Real>(k: &Coeffs<T>, h: &[T], hp: &[T], s: &[T], al: &[T], sn: &mut [T]) {
    let p = k.pitch as usize;
    sn.par_chunks_mut(p).enumerate().skip(1).take(k.ny as usize).for_each(|(j, row)| {
        for (i, out) in row.iter_mut().enumerate().skip(1).take(k.nx as usize) {
            let c = j * p + i;
            let hv = Five { c: hp[c], w: hp[c - 1], e: hp[c + 1], s: hp[c - p], n: hp[c + p] };
            let ux = if upwind_is_west(&hv) { c - 1 } else { c + 1 };
            let uy = if upwind_is_south(&hv) { c - p } else { c + p };
            *out = s_point(k, h[c], s[c], hv, al[c] * s[c], al[ux] * s[ux], al[uy] * s[uy]);
        }
    });
}

/// The bounded scheme's step on the interior: h' into `hn`, s' into `sn`, from the old fields.
#[allow(clippy::too_many_arguments)]
pub fn bounded_step<T: Real>(k: &Coeffs<T>, h: &[T], s: &[T], al: &[T], be: &[T], hn: &mut [T], sn: &mut [T]) {
    let p = k.pitch as usize;
    let ab = |g: usize| mobility(k, s[g], al[g], be[g]);
    let rows = hn.par_chunks_mut(p).zip(sn.par_chunks_mut(p));
    rows.enumerate().skip(1).take(k.ny as usize).for_each(|(j, (h_row, s_row))| {
        for i in 1..=k.nx as usize {
            let c = j * p + i;
            let [(ac, bc), (aw, bw), (ae, bee), (as_, bs), (an, bn)] = [c, c - 1, c + 1, c - p, c + p].map(ab);
            let hv = Five { c: h[c], w: h[c - 1], e: h[c + 1], s: h[c - p], n: h[c + p] };
            let a = Five { c: ac, w: aw, e: ae, s: as_, n: an };
            let b = Five { c: bc, w: bw, e: bee, s: bs, n: bn };
            (h_row[i], s_row[i]) = bounded_point(k, hv, s[c], a, b);
        }
    });
}

/// Set the ghost layer of all four fields (see `kernels::sediment::set_ghost`).
pub fn apply_ghosts<T: Real>(k: &Coeffs<T>, h: &mut [T], s: &mut [T], al: &mut [T], be: &mut [T]) {
    let n = (k.nx as usize + 2) * (k.ny as usize + 2);
    assert!(h.len() == n && s.len() == n && al.len() == n && be.len() == n, "field lengths");
    let layout = k.layout();
    for t in 0..perimeter_len(&layout) {
        if let Some(gh) = perimeter_ghost(&layout, Coeffs::<T>::GHOSTS, t) {
            // SAFETY: the four slices hold (nx+2)(ny+2) elements (asserted) and `gh` indexes
            // the ghost layer of that grid.
            unsafe { set_ghost(k, h.as_mut_ptr(), s.as_mut_ptr(), al.as_mut_ptr(), be.as_mut_ptr(), gh) };
        }
    }
}

/// The reference solver's state.
pub struct CpuSediment<T: Real> {
    scheme: Scheme,
    k: Coeffs<T>,
    h: Field2<T>,
    s: Field2<T>,
    alpha: Field2<T>,
    beta: Field2<T>,
    /// h′ and s′ while a step computes them.
    hn: Field2<T>,
    sn: Field2<T>,
}

impl<T: Real> CpuSediment<T> {
    /// Validate `problem`, convert it to `T`, fill the ghost layer.
    pub fn new(problem: &Problem, dt: f64) -> Result<CpuSediment<T>> {
        problem.validate()?;
        let zeros = || Field2::filled(problem.layout(), T::ZERO);
        let mut m = CpuSediment {
            scheme: problem.scheme,
            k: problem.coeffs(dt, 1),
            h: problem.h.convert(),
            s: problem.s.convert(),
            alpha: problem.alpha.convert(),
            beta: problem.beta.convert(),
            hn: zeros()?,
            sn: zeros()?,
        };
        apply_ghosts(&m.k, &mut m.h, &mut m.s, &mut m.alpha, &mut m.beta);
        Ok(m)
    }

    pub fn set_dt(&mut self, problem: &Problem, dt: f64) {
        self.k = problem.coeffs(dt, 1);
    }

    /// One forward-Euler step. Seed: h', ghosts of h', s', ghosts of both. Bounded: h' and s'
    /// from the old fields, ghosts of both.
    pub fn step(&mut self) {
        let k = &self.k;
        match self.scheme {
            Scheme::Seed => {
                h_step(k, &self.h, &self.s, &self.alpha, &self.beta, &mut self.hn);
                apply_ghosts(k, &mut self.hn, &mut self.s, &mut self.alpha, &mut self.beta);
                s_step(k, &self.h, &self.hn, &self.s, &self.alpha, &mut self.sn);
            }
            Scheme::Bounded => {
                bounded_step(k, &self.h, &self.s, &self.alpha, &self.beta, &mut self.hn, &mut self.sn);
            }
        }
        apply_ghosts(k, &mut self.hn, &mut self.sn, &mut self.alpha, &mut self.beta);
        std::mem::swap(&mut self.h, &mut self.hn);
        std::mem::swap(&mut self.s, &mut self.sn);
    }

    /// Continue from h and s with their ghosts, as [`h`](Self::h) and [`s`](Self::s) gave them
    /// of a run of the same problem.
    pub fn resume(&mut self, h: &[T], s: &[T]) -> Result<()> {
        if h.len() != self.h.len() || s.len() != self.s.len() {
            return Err(crate::Error::invalid(format!(
                "sediment: a state to resume from of other sizes than this run's ({} points)",
                self.h.len()
            )));
        }
        self.h.copy_from_slice(h);
        self.s.copy_from_slice(s);
        Ok(())
    }

    pub fn h(&self) -> &[T] {
        &self.h
    }
    pub fn s(&self) -> &[T] {
        &self.s
    }
}
