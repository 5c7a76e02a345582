//! Shallow water, Roe's linearisation with the Harten–Hyman entropy fix (as Clawpack's
//! `rpn2_shallow_roe_with_efix`):
//!
//!   h_t + (hu)_x + (hv)_y = 0,
//!   (hu)_t + (hu² + ½gh²)_x + (huv)_y = 0,
//!   (hv)_t + (huv)_x + (hv² + ½gh²)_y = 0.
//!
//! State: h (depth, m), hu, hv (momenta, m²/s). No auxiliary fields (flat bed). Three waves
//! across a face with normal velocity u_n and tangential u_t, from Roe averages û, v̂, ĉ:
//! α₁(1, û − ĉ, v̂) at û − ĉ, α₂(0, 0, 1) at û (shear), α₃(1, û + ĉ, v̂) at û + ĉ (components
//! h, hu_n, hu_t). A transonic rarefaction (the characteristic speed changing sign across the
//! 1- or 3-wave) splits that wave's fluctuation by Harten and Hyman's fraction, so A⁻ΔQ and
//! A⁺ΔQ open the fan instead of keeping an entropy-violating shock; A⁻ΔQ + A⁺ΔQ stays
//! f(q_r) − f(q_l). For depths near zero use `shallow-hlle`, which keeps h ≥ 0. Divisions and
//! square roots are the `_fast` ones (`super::shallow`): per state one square root and one
//! reciprocal, per face one of each for the Roe averages, one for 1/ĉ, one per transonic wave.

use super::{Shallow, roe_average, shallow, shallow_axes, shallow_state};
use crate::Real;
use crate::claw::{Riemann, Solution};

#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ShallowRoe<T> {
    /// Gravity, m/s².
    pub g: T,
}

/// Harten–Hyman: the part of a wave at Roe speed `s` that goes left when the characteristic
/// speed is `lo` on its left and `hi` on its right: s where the wave is not transonic
/// (min(s, 0)), else lo·(hi − s)/(hi − lo), where hi − lo > max(hi, −lo) > 0 (one
/// approximate reciprocal: the fraction only splits the fluctuation, and A⁻ΔQ + A⁺ΔQ is
/// Σ s_p 𝒲_p whatever it is).
#[inline(always)]
fn left_part<T: Real>(s: T, lo: T, hi: T) -> T {
    if lo < T::ZERO && hi > T::ZERO { lo * (hi - s) * (hi - lo).recip_fast() } else { s.min(T::ZERO) }
}

impl<T: Real> Riemann<T, 3, 3, 0> for ShallowRoe<T> {
    const NAME: &'static str = "shallow-roe";
    const FIELDS: [&'static str; 3] = ["h", "hu", "hv"];
    const AUX: [&'static str; 0] = [];
    const CONSTANTS: &'static [(&'static str, f64)] = &[("g", 9.81)];

    fn with_constants(c: &[f64]) -> Self {
        ShallowRoe { g: T::from_f64(c[0]) }
    }

    #[inline(always)]
    fn solve(&self, dir: usize, ql: &[T; 3], qr: &[T; 3], _: &[T; 0], _: &[T; 0]) -> Solution<T, 3, 3> {
        let g = self.g;
        let (n, t) = shallow_axes(dir);
        let sqrt_g = g.sqrt_fast();
        let (l, r) = (shallow(sqrt_g, T::ZERO, dir, ql), shallow(sqrt_g, T::ZERO, dir, qr));
        let Some((u, v, c)) = roe_average(g, &l, &r) else { return Solution::ZERO };
        let d = [qr[0] - ql[0], qr[n] - ql[n], qr[t] - ql[t]];
        let half_inv_c = T::HALF * c.recip_fast();
        let a1 = ((u + c) * d[0] - d[1]) * half_inv_c;
        let a2 = d[2] - v * d[0];
        let a3 = (d[1] - (u - c) * d[0]) * half_inv_c;
        let mut waves = [[T::ZERO; 3]; 3];
        (waves[0][0], waves[0][n], waves[0][t]) = (a1, a1 * (u - c), a1 * v);
        waves[1][t] = a2;
        (waves[2][0], waves[2][n], waves[2][t]) = (a3, a3 * (u + c), a3 * v);
        let speeds = [u - c, u, u + c];
        // Characteristic speeds either side of the 1-wave (q_l, q_l + 𝒲₁) and the 3-wave
        // (q_r − 𝒲₃, q_r).
        let speed = |s: Shallow<T>, sign: T| s.un + sign * s.c;
        let mut q1 = *ql;
        let mut q3 = *qr;
        for m in 0..3 {
            q1[m] += waves[0][m];
            q3[m] -= waves[2][m];
        }
        let f1 = left_part(speeds[0], speed(l, -T::ONE), speed(shallow(sqrt_g, T::ZERO, dir, &q1), -T::ONE));
        let f3 = left_part(speeds[2], speed(shallow(sqrt_g, T::ZERO, dir, &q3), T::ONE), speed(r, T::ONE));
        let left = [f1, speeds[1].min(T::ZERO), f3];
        let (mut amdq, mut apdq) = ([T::ZERO; 3], [T::ZERO; 3]);
        for p in 0..3 {
            for m in 0..3 {
                amdq[m] = left[p].mul_add(waves[p][m], amdq[m]);
                apdq[m] = (speeds[p] - left[p]).mul_add(waves[p][m], apdq[m]);
            }
        }
        Solution { waves, speeds, amdq, apdq }
    }

    fn normal(dir: usize) -> Option<usize> {
        Some(shallow_axes(dir).0)
    }

    fn inadmissible(&self, q: &[T; 3], _: &[T; 0]) -> Option<&'static str> {
        shallow_state(q).or(if q[0] > T::ZERO {
            None
        } else {
            Some("Roe's solver needs h > 0 everywhere (shallow-hlle takes dry cells)")
        })
    }
}
