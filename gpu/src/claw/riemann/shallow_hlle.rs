//! Shallow water, the HLLE solver (Harten–Lax–van Leer with Einfeldt's speeds; as Clawpack's
//! `rpn2_shallow_hlle`), for dry and near-dry states:
//!
//!   h_t + (hu)_x + (hv)_y = 0,
//!   (hu)_t + (hu² + ½gh²)_x + (huv)_y = 0,
//!   (hv)_t + (huv)_x + (hv² + ½gh²)_y = 0.
//!
//! State: h (depth, m), hu, hv (momenta, m²/s). No auxiliary fields (flat bed). Two waves
//! across a face: q* − q_l at s₁ = min(u_l − c_l, û − ĉ) and q_r − q* at s₂ = max(u_r + c_r,
//! û + ĉ) (Roe averages û, ĉ), with the middle state q* = (f(q_r) − f(q_l) − s₂q_r + s₁q_l)/(s₁ − s₂)
//! that makes A⁻ΔQ + A⁺ΔQ = f(q_r) − f(q_l). Its depth
//! h* = (h_r(u_r − s₂) + h_l(s₁ − u_l))/(s₁ − s₂) is never negative, so with the CFL number
//! at most 1 the first-order update keeps h ≥ 0. Velocities are taken as 0 where h ≤ `dry`.
//! Divisions and square roots are the `_fast` ones (`super::shallow`): 1/h per state, one
//! reciprocal each for the Roe averages and for 1/(s₁ − s₂).

use super::{roe_average, shallow, shallow_axes, shallow_state};
use crate::Real;
use crate::claw::{Riemann, Solution};

#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ShallowHlle<T> {
    /// Gravity, m/s².
    pub g: T,
    /// Depth (m) at and below which a cell's velocity is taken as 0.
    pub dry: T,
}

impl<T: Real> Riemann<T, 3, 2, 0> for ShallowHlle<T> {
    const NAME: &'static str = "shallow-hlle";
    const FIELDS: [&'static str; 3] = ["h", "hu", "hv"];
    const AUX: [&'static str; 0] = [];
    const CONSTANTS: &'static [(&'static str, f64)] = &[("g", 9.81), ("dry", 1e-6)];

    fn with_constants(c: &[f64]) -> Self {
        ShallowHlle { g: T::from_f64(c[0]), dry: T::from_f64(c[1]) }
    }

    #[inline(always)]
    fn solve(&self, dir: usize, ql: &[T; 3], qr: &[T; 3], _: &[T; 0], _: &[T; 0]) -> Solution<T, 3, 2> {
        let g = self.g;
        let (n, t) = shallow_axes(dir);
        let sqrt_g = g.sqrt_fast();
        let (l, r) = (shallow(sqrt_g, self.dry, dir, ql), shallow(sqrt_g, self.dry, dir, qr));
        let Some((u, _, c)) = roe_average(g, &l, &r) else { return Solution::ZERO };
        let s1 = (l.un - l.c).min(u - c);
        let s2 = (r.un + r.c).max(u + c);
        // The normal flux f = (hu_n, hu_n·u_n + ½gh², hu_n·u_t) of each side, in (h, n, t) order.
        let flux = |q: &[T; 3], s: &super::Shallow<T>| [q[n], q[n].mul_add(s.un, T::HALF * g * s.h * s.h), q[n] * s.ut];
        let (fl, fr) = (flux(ql, &l), flux(qr, &r));
        // The middle state, component by component (h, hu_n, hu_t). s₂ − s₁ ≥ 2ĉ > 0, and an
        // approximate reciprocal keeps the sign of every component, so h* ≥ 0 still holds.
        let inv = (s1 - s2).recip_fast();
        let mid = |k: usize, m: usize| (fr[k] - fl[k] - s2 * qr[m] + s1 * ql[m]) * inv;
        let (h, mn, mt) = (mid(0, 0), mid(1, n), mid(2, t));
        let mut waves = [[T::ZERO; 3]; 2];
        (waves[0][0], waves[0][n], waves[0][t]) = (h - ql[0], mn - ql[n], mt - ql[t]);
        (waves[1][0], waves[1][n], waves[1][t]) = (qr[0] - h, qr[n] - mn, qr[t] - mt);
        Solution::from_waves(waves, [s1, s2])
    }

    fn normal(dir: usize) -> Option<usize> {
        Some(shallow_axes(dir).0)
    }

    fn inadmissible(&self, q: &[T; 3], _: &[T; 0]) -> Option<&'static str> {
        shallow_state(q)
    }
}
