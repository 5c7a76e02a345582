//! Inviscid Burgers' equation in two dimensions, the same flux along both axes:
//!
//!   q_t + (q²/2)_x + (q²/2)_y = 0
//!
//! State: q (a velocity-like scalar). No auxiliary fields, no constants. One wave, the jump Δq,
//! at the Rankine–Hugoniot speed (q_l + q_r)/2; in a transonic rarefaction (q_l < 0 < q_r) each
//! side gets its own flux difference, so the fan opens instead of standing as a shock that
//! violates the entropy condition. The README's "Adding your own equations" walks through this
//! file, which its test keeps identical to the README's copy.

use crate::Real;
use crate::claw::{Riemann, Solution};

/// Burgers' equation: a unit struct, as it has no constants.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Burgers;

impl<T: Real> Riemann<T, 1, 1, 0> for Burgers {
    const NAME: &'static str = "burgers";
    const FIELDS: [&'static str; 1] = ["q"];
    const AUX: [&'static str; 0] = [];
    const CONSTANTS: &'static [(&'static str, f64)] = &[];

    fn with_constants(_: &[f64]) -> Self {
        Burgers
    }

    #[inline(always)]
    fn solve(&self, _dir: usize, ql: &[T; 1], qr: &[T; 1], _: &[T; 0], _: &[T; 0]) -> Solution<T, 1, 1> {
        let (l, r) = (ql[0], qr[0]);
        let mut s = Solution::from_waves([[r - l]], [T::HALF * (l + r)]);
        if l < T::ZERO && r > T::ZERO {
            (s.amdq, s.apdq) = ([-T::HALF * l * l], [T::HALF * r * r]);
        }
        s
    }

    fn normal(_: usize) -> Option<usize> {
        None
    }
}
