//! CPU reference: the same point functions as the kernels, rayon over rows; either scheme. h is
//! a [`Level`] `H` of the flux precision `T`: `T` itself, or f64 under f32 fluxes (the mixed
//! precision; docs/f32-conservation.md).

use super::{Coeffs, Problem, Scheme};
use crate::field::{Field2, stencil_rows};
use crate::ranks::Halo;
use crate::{Real, Result};
use kernels::Level;
use kernels::halo::{perimeter_ghost, perimeter_len};
use kernels::sediment::{
    Five, bounded_next, h_next, mobility, products, s_point, set_ghost, upwind_is_south, upwind_is_west,
};
use rayon::prelude::*;

/// The low part of h (the compensated update): `lo` read, `lo_next` written at the interior.
pub struct Low<'a, T> {
    pub lo: &'a [T],
    pub lo_next: &'a mut [T],
}

/// Each row of `out` with the matching row of `low`'s output (or none), for a parallel loop.
fn rows_with_low<'a, T: Real>(
    out: &'a mut [T],
    low: Option<&'a mut [T]>,
    p: usize,
) -> impl IndexedParallelIterator<Item = (&'a mut [T], Option<&'a mut [T]>)> {
    let lows: Vec<Option<&mut [T]>> = match low {
        Some(l) => l.chunks_mut(p).map(Some).collect(),
        None => (0..out.len().div_ceil(p)).map(|_| None).collect(),
    };
    out.par_chunks_mut(p).zip(lows.into_par_iter())
}

/// h' on the interior (ghost entries of `hn` are left for [`apply_ghosts`]); with `low`, the
/// compensated update into (`hn`, `low.lo_next`).
#[allow(clippy::too_many_arguments)]
pub fn h_step<T: Real, H: Level<T>>(
    k: &Coeffs<T>,
    h: &[H],
    s: &[T],
    al: &[T],
    be: &[T],
    hn: &mut [H],
    low: Option<Low<H>>,
) {
    let p = k.pitch as usize;
    let ab = |g: usize| products::<T, H>(al[g], s[g], be[g]);
    let (lo, lo_next) = match low {
        Some(l) => (Some(l.lo), Some(l.lo_next)),
        None => (None, None),
    };
    let rows = rows_with_low(hn, lo_next, p).enumerate().skip(1).take(k.ny as usize);
    rows.with_min_len(stencil_rows(p)).for_each(|(j, (row, mut lrow))| {
        for i in 1..=k.nx as usize {
            let c = j * p + i;
            let [(ac, bc), (aw, bw), (ae, bee), (as_, bs), (an, bn)] = [c, c - 1, c + 1, c - p, c + p].map(ab);
            let hv = Five { c: h[c], w: h[c - 1], e: h[c + 1], s: h[c - p], n: h[c + p] };
            let a = Five { c: ac, w: aw, e: ae, s: as_, n: an };
            let b = Five { c: bc, w: bw, e: bee, s: bs, n: bn };
            let (hi, l) = h_next(k, hv, lo.map(|lo| lo[c]), a, b);
            row[i] = hi;
            if let Some(lr) = lrow.as_deref_mut() {
                lr[i] = l;
            }
        }
    });
}

/// s' on the interior.
pub fn s_step<T: Real, H: Level<T>>(k: &Coeffs<T>, h: &[H], hp: &[H], s: &[T], al: &[T], sn: &mut [T]) {
    let p = k.pitch as usize;
    let rows = sn.par_chunks_mut(p).enumerate().skip(1).take(k.ny as usize);
    rows.with_min_len(stencil_rows(p)).for_each(|(j, row)| {
        for (i, out) in row.iter_mut().enumerate().skip(1).take(k.nx as usize) {
            let c = j * p + i;
            let hv = Five { c: hp[c], w: hp[c - 1], e: hp[c + 1], s: hp[c - p], n: hp[c + p] };
            let ux = if upwind_is_west(&hv) { c - 1 } else { c + 1 };
            let uy = if upwind_is_south(&hv) { c - p } else { c + p };
            *out = s_point(k, h[c], s[c], hv, al[c] * s[c], al[ux] * s[ux], al[uy] * s[uy]);
        }
    });
}

/// The bounded scheme's step on the interior: h' into `hn`, s' into `sn`, from the old fields;
/// with `low`, h' by the compensated update into (`hn`, `low.lo_next`).
#[allow(clippy::too_many_arguments)]
pub fn bounded_step<T: Real, H: Level<T>>(
    k: &Coeffs<T>,
    h: &[H],
    s: &[T],
    al: &[T],
    be: &[T],
    hn: &mut [H],
    sn: &mut [T],
    low: Option<Low<H>>,
) {
    let p = k.pitch as usize;
    let ab = |g: usize| mobility(k, s[g], al[g], be[g]);
    let (lo, lo_next) = match low {
        Some(l) => (Some(l.lo), Some(l.lo_next)),
        None => (None, None),
    };
    let rows = rows_with_low(hn, lo_next, p).zip(sn.par_chunks_mut(p));
    let rows = rows.enumerate().skip(1).take(k.ny as usize).with_min_len(stencil_rows(p));
    rows.for_each(|(j, ((h_row, mut l_row), s_row))| {
        for i in 1..=k.nx as usize {
            let c = j * p + i;
            let [(ac, bc), (aw, bw), (ae, bee), (as_, bs), (an, bn)] = [c, c - 1, c + 1, c - p, c + p].map(ab);
            let hv = Five { c: h[c], w: h[c - 1], e: h[c + 1], s: h[c - p], n: h[c + p] };
            let a = Five { c: ac, w: aw, e: ae, s: as_, n: an };
            let b = Five { c: bc, w: bw, e: bee, s: bs, n: bn };
            let ((hi, l), sp) = bounded_next(k, hv, lo.map(|lo| lo[c]), s[c], a, b);
            (h_row[i], s_row[i]) = (hi, sp);
            if let Some(lr) = l_row.as_deref_mut() {
                lr[i] = l;
            }
        }
    });
}

/// [`apply_ghosts`], then on a slab of a decomposed run the ghost rows at its cuts from its
/// neighbours.
fn set_ghosts<T: Real, H: Level<T>>(
    k: &Coeffs<T>,
    halo: Option<&Halo>,
    h: &mut [H],
    s: &mut [T],
    al: &mut [T],
    be: &mut [T],
) {
    apply_ghosts(k, h, s, al, be);
    if let Some(halo) = halo {
        halo.refresh(&mut [h]);
        halo.refresh(&mut [s, al, be]);
    }
}

/// Set the ghost layer of all four fields (see `kernels::sediment::set_ghost`).
pub fn apply_ghosts<T: Real, H: Level<T>>(k: &Coeffs<T>, h: &mut [H], s: &mut [T], al: &mut [T], be: &mut [T]) {
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

/// The reference solver's state: s, α, β and the fluxes in `T`, h in `H` (`T`, or f64 in
/// mixed precision).
pub struct CpuSediment<T: Real, H: Level<T> = T> {
    scheme: Scheme,
    k: Coeffs<T>,
    h: Field2<H>,
    s: Field2<T>,
    alpha: Field2<T>,
    beta: Field2<T>,
    /// h′ and s′ while a step computes them.
    hn: Field2<H>,
    sn: Field2<T>,
    /// The compensated update's low parts of h and h′ (zero on the ghost layer, which no
    /// stencil reads them from); none on the plain path, nor in mixed precision (h is f64).
    low: Option<(Field2<H>, Field2<H>)>,
}

impl<T: Real, H: Level<T>> CpuSediment<T, H> {
    /// Validate `problem`, convert it to `T`, fill the ghost layer.
    pub fn new(problem: &Problem, dt: f64) -> Result<CpuSediment<T, H>> {
        CpuSediment::slab(problem, dt, None)
    }

    /// [`new`](Self::new) for one slab of a decomposed run (`problem`:
    /// [`Problem::slab`](super::Problem::slab)), which takes the ghost rows at its cuts from
    /// its neighbours through `halo` (then step it with [`step_with`](Self::step_with)).
    pub fn slab(problem: &Problem, dt: f64, halo: Option<&Halo>) -> Result<CpuSediment<T, H>> {
        problem.validate()?;
        let zeros = || Field2::filled(problem.layout(), H::ZERO);
        let mut m = CpuSediment {
            scheme: problem.scheme,
            k: problem.coeffs(dt, 1),
            h: problem.h.convert(),
            s: problem.s.convert(),
            alpha: problem.alpha.convert(),
            beta: problem.beta.convert(),
            hn: zeros()?,
            sn: Field2::filled(problem.layout(), T::ZERO)?,
            // An f64 h (f64 or mixed) is not compensated.
            low: if problem.accumulation.compensates::<H>() { Some((zeros()?, zeros()?)) } else { None },
        };
        set_ghosts(&m.k, halo, &mut m.h, &mut m.s, &mut m.alpha, &mut m.beta);
        Ok(m)
    }

    pub fn set_dt(&mut self, problem: &Problem, dt: f64) {
        self.k = problem.coeffs(dt, 1);
    }

    /// One forward-Euler step. Seed: h', ghosts of h', s', ghosts of both. Bounded: h' and s'
    /// from the old fields, ghosts of both. The compensated update keeps h's low part beside it.
    pub fn step(&mut self) {
        self.step_with(None)
    }

    /// [`step`](Self::step) of a slab of a decomposed run, which takes the ghost rows at its
    /// cuts from its neighbours through `halo` each time it sets its ghosts.
    pub fn step_with(&mut self, halo: Option<&Halo>) {
        let k = &self.k;
        let low = self.low.as_mut().map(|(lo, lo_next)| Low { lo: &lo[..], lo_next: &mut lo_next[..] });
        match self.scheme {
            Scheme::Seed => {
                h_step(k, &self.h, &self.s, &self.alpha, &self.beta, &mut self.hn, low);
                set_ghosts(k, halo, &mut self.hn, &mut self.s, &mut self.alpha, &mut self.beta);
                s_step(k, &self.h, &self.hn, &self.s, &self.alpha, &mut self.sn);
            }
            Scheme::Bounded => {
                bounded_step(k, &self.h, &self.s, &self.alpha, &self.beta, &mut self.hn, &mut self.sn, low);
            }
        }
        set_ghosts(k, halo, &mut self.hn, &mut self.sn, &mut self.alpha, &mut self.beta);
        std::mem::swap(&mut self.h, &mut self.hn);
        std::mem::swap(&mut self.s, &mut self.sn);
        if let Some((lo, lo_next)) = &mut self.low {
            std::mem::swap(lo, lo_next);
        }
    }

    /// Continue from h and s with their ghosts, as [`h`](Self::h) and [`s`](Self::s) gave them
    /// of a run of the same problem, and h's low part as [`low`](Self::low) gave it (none: zero).
    pub fn resume(&mut self, h: &[H], s: &[T], low: Option<&[H]>) -> Result<()> {
        let n = self.h.len();
        if h.len() != n || s.len() != n || low.is_some_and(|l| l.len() != n) {
            return Err(crate::Error::invalid(format!(
                "sediment: a state to resume from of other sizes than this run's ({n} points)"
            )));
        }
        self.h.copy_from_slice(h);
        self.s.copy_from_slice(s);
        if let Some((lo, _)) = &mut self.low {
            match low {
                Some(l) => lo.copy_from_slice(l),
                None => lo.fill(H::ZERO),
            }
        }
        Ok(())
    }

    /// The high part of h with its ghosts (all of h on the plain path).
    pub fn h(&self) -> &[H] {
        &self.h
    }
    pub fn s(&self) -> &[T] {
        &self.s
    }
    /// The low part of h with its ghosts on the compensated path: h is h() + low().
    pub fn low(&self) -> Option<&[H]> {
        self.low.as_ref().map(|(lo, _)| &lo[..])
    }
}
