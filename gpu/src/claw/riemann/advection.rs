//! Constant-velocity advection of one scalar.
//!
//!   q_t + u·q_x + v·q_y + w·q_z = 0
//!
//! State: q (any advected quantity). No auxiliary fields. One wave, the jump itself, moving at
//! the velocity component normal to the interface.

use crate::Real;
use crate::claw::{Riemann, Solution};

#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Advection<T> {
    /// The velocity (u, v, w) in m/s; w is unused in 2D.
    pub velocity: [T; 3],
}

impl<T: Real> Riemann<T, 1, 1, 0> for Advection<T> {
    const NAME: &'static str = "advection";
    const FIELDS: [&'static str; 1] = ["q"];
    const AUX: [&'static str; 0] = [];
    const CONSTANTS: &'static [(&'static str, f64)] = &[("u", 1.0), ("v", 0.0), ("w", 0.0)];

    fn with_constants(c: &[f64]) -> Self {
        Advection { velocity: [T::from_f64(c[0]), T::from_f64(c[1]), T::from_f64(c[2])] }
    }

    #[inline(always)]
    fn solve(&self, dir: usize, ql: &[T; 1], qr: &[T; 1], _: &[T; 0], _: &[T; 0]) -> Solution<T, 1, 1> {
        Solution::from_waves([[qr[0] - ql[0]]], [self.velocity[dir]])
    }

    fn normal(_: usize) -> Option<usize> {
        None
    }
}
