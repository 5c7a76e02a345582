//! The 8th-order centred stencil: its reach, its coefficients and the point function ([`d8`])
//! the kernels and the CPU reference share.

use crate::Real;

/// Points the stencil reaches on each side of the centre.
pub const HALO: u32 = 4;
/// Points the stencil spans: the smallest periodic dimension it accepts.
pub const WIDTH: u32 = 2 * HALO + 1;

/// The unscaled coefficients (a, b, c, d) of f[±1], f[±2], f[±3], f[±4].
pub const COEFFICIENTS: [f64; 4] = [4.0 / 5.0, -1.0 / 5.0, 4.0 / 105.0, -1.0 / 280.0];

/// The stencil's coefficients divided by the grid spacing Δ.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Coef<T> {
    pub a: T,
    pub b: T,
    pub c: T,
    pub d: T,
}

impl<T: Real> Coef<T> {
    /// Coefficients for spacing `1 / inv_delta`, scaled in f64 and rounded once to `T`.
    pub fn new(inv_delta: f64) -> Coef<T> {
        let [a, b, c, d] = COEFFICIENTS.map(|v| T::from_f64(v * inv_delta));
        Coef { a, b, c, d }
    }
}

/// The derivative at the centre of the window `w = f[i−4..=i+4]`.
///
/// Evaluated in Ruetsch's order, `((a Δ1 + b Δ2) + c Δ3) + d Δ4`. The CPU reference rounds
/// every multiply and add; the kernels are built with FMA contraction (`build.rs`), so there
/// the products fuse into the adds and the last bits can differ (the tests allow for it).
#[inline(always)]
pub fn d8<T: Real>(c: &Coef<T>, w: &[T; 9]) -> T {
    c.a * (w[5] - w[3]) + c.b * (w[6] - w[2]) + c.c * (w[7] - w[1]) + c.d * (w[8] - w[0])
}
