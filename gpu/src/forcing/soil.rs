//! A cell's soil: how much water it can take over a span, given what it has taken so far.
//! Two models, each written in terms of the cumulative infiltration F a cell keeps, so a soil
//! that the rain could not keep ponded (F behind the ponded curve) carries on from where its F
//! says rather than from the clock: Green–Ampt ([`green_ampt`]) and Horton ([`horton`]).

use super::{exp_neg, one_minus_exp_neg, one_minus_given};
use crate::Real;

/// [`Infiltration::model`]: no soil, Green–Ampt, Horton.
pub const NO_SOIL: u32 = 0;
pub const GREEN_AMPT: u32 = 1;
pub const HORTON: u32 = 2;

/// Green–Ampt soil of a cell: saturated hydraulic conductivity `ks` (m/s) and the product of
/// the wetting front's suction head and the moisture deficit, `suction_deficit` = ψΔθ (m).
/// `ks` = 0: no infiltration.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Soil<T> {
    pub ks: T,
    pub suction_deficit: T,
}

impl<T: Real> Soil<T> {
    pub const NONE: Soil<T> = Soil { ks: T::ZERO, suction_deficit: T::ZERO };
}

/// Horton soil of a cell: the initial and final infiltration capacities `f0` ≥ `fc` ≥ 0 (m/s)
/// and the decay constant `k` (1/s) of f(t) = fc + (f0 − fc)e^(−kt).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Horton<T> {
    pub f0: T,
    pub fc: T,
    pub k: T,
}

/// A cell's soil as the kernels take it: its model ([`NO_SOIL`], [`GREEN_AMPT`], [`HORTON`])
/// and the model's three parameters — Green–Ampt's (K_s, ψΔθ, unused), Horton's (f0, fc, k) —
/// so a table of soils is a flat array of three values a soil whatever the model.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Infiltration<T> {
    pub model: u32,
    pub p: [T; 3],
}

impl<T: Real> Infiltration<T> {
    pub const NONE: Infiltration<T> = Infiltration { model: NO_SOIL, p: [T::ZERO; 3] };

    pub fn green_ampt(s: Soil<T>) -> Infiltration<T> {
        Infiltration { model: GREEN_AMPT, p: [s.ks, s.suction_deficit, T::ZERO] }
    }

    pub fn horton(h: Horton<T>) -> Infiltration<T> {
        Infiltration { model: HORTON, p: [h.f0, h.fc, h.k] }
    }

    /// What the soil can take over `dt` (s) having taken `f` (m) so far, if the water is there.
    #[inline(always)]
    pub fn capacity(self, f: T, dt: T) -> T {
        let [a, b, c] = self.p;
        match self.model {
            GREEN_AMPT => green_ampt(Soil { ks: a, suction_deficit: b }, f, dt),
            HORTON => horton(Horton { f0: a, fc: b, k: c }, f, dt),
            _ => T::ZERO,
        }
    }
}

/// What a ponded Green–Ampt soil that has taken `f` (m) so far takes over `dt` (s): the
/// increment d of dF/dt = K(1 + ψΔθ/F) with the rate at the step's mean F + d/2 (the midpoint
/// rule, second order in dt), the positive root of d²/2 + d(F − KΔt/2) − KΔt(F + ψΔθ) = 0. It
/// needs only a square root, is finite at F = 0 (where it is √(2KψΔθΔt) to first order, the
/// exact solution's start), and tends to the exact implicit solution as Δt → 0.
#[inline(always)]
pub fn green_ampt<T: Real>(soil: Soil<T>, f: T, dt: T) -> T {
    let kdt = soil.ks * dt;
    if kdt <= T::ZERO {
        return T::ZERO;
    }
    let b = f - T::HALF * kdt;
    let c = T::TWO * kdt * (f + soil.suction_deficit);
    let root = (b * b + c).sqrt_refined();
    // Without cancellation: for b > 0 the root's two terms nearly cancel in −b + root.
    if b > T::ZERO { c.div_refined(b + root) } else { root - b }
}

/// Newton steps [`horton`] allows itself to find a soil's time; from its start the iterates
/// converge quadratically, in under ten steps to round-off over the tests' soils and days.
const HORTON_STEPS: u32 = 40;

/// What a Horton soil that has taken `f` (m) so far can take over `dt` (s), exactly: with
/// ponded water since t = 0 it would have taken F(t) = fc·t + (f0 − fc)(1 − e^(−kt))/k, so a soil
/// at F = `f` is at its potential infiltration time τ, the root of F(τ) = f, and takes
/// F(τ + Δt) − F(τ) = fc·Δt + (f0 − fc)/k·e^(−kτ)(1 − e^(−kΔt)), written so that nothing
/// cancels. Where rain could not keep the soil ponded its F, and so τ, lags the clock, as the
/// soil's recovery of capacity under light rain wants. In f64 whatever `T`: the increments are
/// small against F.
#[inline(always)]
pub fn horton<T: Real>(soil: Horton<T>, f: T, dt: T) -> T {
    let (f0, fc, k, f, dt) = (soil.f0.to_f64(), soil.fc.to_f64(), soil.k.to_f64(), f.to_f64(), dt.to_f64());
    if !(dt > 0.0 && f0 > 0.0) {
        return T::ZERO;
    }
    let d = f0 - fc;
    // A capacity that does not decay: a constant rate.
    if !(k > 0.0 && d > 0.0) {
        return T::from_f64(f0 * dt);
    }
    let tau = horton_time(f0, fc, d, k, f.max(0.0));
    T::from_f64(fc * dt + d / k * exp_neg(k * tau) * one_minus_exp_neg(k * dt))
}

/// τ ≥ 0 with fc·τ + d(1 − e^(−kτ))/k = `f` (f0 > 0, d = f0 − fc > 0, k > 0), by Newton's method
/// from a point left of the root: F is increasing and concave, so F(τ) ≤ f0·τ and
/// F(τ) ≤ fc·τ + d/k make f/f0 and (f − d/k)/fc lower bounds, and from the left every Newton
/// iterate stays left of the root and increases to it. A soil of fc = 0 at or past its limit
/// d/k (which round-off may put it) has no root: the slope vanishes, and τ stops there.
#[inline(always)]
fn horton_time(f0: f64, fc: f64, d: f64, k: f64, f: f64) -> f64 {
    let mut tau = f / f0;
    if fc > 0.0 {
        tau = tau.max((f - d / k) / fc);
    }
    let mut n = 0;
    while n < HORTON_STEPS {
        let e = exp_neg(k * tau);
        let g = fc * tau + d / k * one_minus_given(k * tau, e) - f;
        let slope = fc + d * e;
        if !(g < 0.0 && slope > 0.0) {
            break;
        }
        let step = -g / slope;
        tau += step;
        if step.is_nan() || step <= 1e-15 * tau {
            break;
        }
        n += 1;
    }
    tau
}
