//! Linear acoustics in two dimensions in a heterogeneous medium (Clawpack's
//! `acoustics_variable` in 2D):
//!
//!   p_t + K (u_x + v_y) = 0,   ρ u_t + p_x = 0,   ρ v_t + p_y = 0.
//!
//! State: p (pressure perturbation, Pa), u, v (velocity, m/s). Auxiliary per cell: ρ (density,
//! kg/m³) and K (bulk modulus, Pa); sound speed c = √(K/ρ), impedance Z = ρc. Two waves across a
//! face: left-going at −c of the left cell, right-going at +c of the right cell (`acoustic_waves`).

use super::{acoustic_medium, acoustic_waves};
use crate::Real;
use crate::claw::{Riemann, Solution};

#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Acoustics2d;

impl<T: Real> Riemann<T, 3, 2, 2> for Acoustics2d {
    const NAME: &'static str = "acoustics-2d";
    const FIELDS: [&'static str; 3] = ["p", "u", "v"];
    const AUX: [&'static str; 2] = ["rho", "bulk"];
    const CONSTANTS: &'static [(&'static str, f64)] = &[];

    fn with_constants(_: &[f64]) -> Self {
        Acoustics2d
    }

    #[inline(always)]
    fn solve(&self, dir: usize, ql: &[T; 3], qr: &[T; 3], al: &[T; 2], ar: &[T; 2]) -> Solution<T, 3, 2> {
        acoustic_waves(dir, ql, qr, al, ar)
    }

    fn normal(dir: usize) -> Option<usize> {
        Some(dir + 1)
    }

    fn inadmissible(&self, _: &[T; 3], aux: &[T; 2]) -> Option<&'static str> {
        acoustic_medium(aux)
    }
}
