//! The bounded scheme's point functions (the default; docs/sediment-bounded.md proves its
//! bounds), shared by its kernels and the CPU reference.
//!
//! Sand and mud cross each face with their own face mobility, the arithmetic mean of the two
//! cells' mobilities a = αs/C_s and b = β(1−s)/C_m but never more than twice the upwind cell's
//! (upwind with respect to the flow −∇h: the cell with the higher h). A cell that holds no
//! sand (or no mud) therefore loses none, while on smooth data the mean is taken and h stays
//! second order. Both equations use the same face fluxes of the old h:
//!
//!   G_s = Σ_f (Δt/Δ_f²) a_f (h_f − h),  G_m = Σ_f (Δt/Δ_f²) b_f (h_f − h)
//!   h' = h + G_s + G_m
//!   s' = s + ((1 − s) G_s − s G_m) / A
//!
//! the second being A(s'−s) + s(h'−h) = G_s, the `seed` scheme's s-equation with the sand flux the
//! h-update moves. Under the Δt limit of the note, s' is a convex combination of s, 0 and 1.

use super::{Coeffs, Five, compensated_add};
use crate::{Level, Real};

/// Mobilities of sand and mud at a point: (αs/C_s, β(1−s)/C_m).
#[inline(always)]
pub fn mobility<T: Real>(k: &Coeffs<T>, s: T, alpha: T, beta: T) -> (T, T) {
    (alpha * s * k.inv_cs, beta * (T::ONE - s) * k.inv_cm)
}

/// Face mobility of one lithology between cells c and n: the mean of `m_c` and `m_n`, capped at
/// twice the upwind cell's (c when `c_up`). Symmetric: the face's two cells get the same value
/// whenever their h differ (equal h carries no flux).
#[inline(always)]
pub fn face_mobility<T: Real>(m_c: T, m_n: T, c_up: bool) -> T {
    let up = if c_up { m_c } else { m_n };
    let mean = T::HALF * (m_c + m_n);
    let cap = up + up;
    if mean < cap { mean } else { cap }
}

/// (sand, mud) face mobilities between cell c and neighbour n.
#[inline(always)]
fn face_mobilities<T: Real, H: Level<T>>(h_c: H, h_n: H, a_c: T, a_n: T, b_c: T, b_n: T) -> (T, T) {
    let c_up = h_c > h_n;
    (face_mobility(a_c, a_n, c_up), face_mobility(b_c, b_n, c_up))
}

/// (sand, mud) flux across one face into cell c, per Δt/Δ², from neighbour n.
#[inline(always)]
fn face_flux<T: Real, H: Level<T>>(h_c: H, h_n: H, a_c: T, a_n: T, b_c: T, b_n: T) -> (T, T) {
    let d = h_n.minus(h_c);
    let (a, b) = face_mobilities(h_c, h_n, a_c, a_n, b_c, b_n);
    (a * d, b * d)
}

/// (h' − h, s') at one interior point. `h` the old heights, `s` the old sand fraction at the
/// point, `a`, `b` the mobilities ([`mobility`]) on the stencil.
#[inline(always)]
fn bounded_terms<T: Real, H: Level<T>>(k: &Coeffs<T>, h: Five<H>, s: T, a: Five<T>, b: Five<T>) -> (H, T) {
    let (ae, be) = face_flux(h.c, h.e, a.c, a.e, b.c, b.e);
    let (aw, bw) = face_flux(h.c, h.w, a.c, a.w, b.c, b.w);
    let (an, bn) = face_flux(h.c, h.n, a.c, a.n, b.c, b.n);
    let (as_, bs) = face_flux(h.c, h.s, a.c, a.s, b.c, b.s);
    let sand = k.dt_dx2 * (ae + aw) + k.dt_dy2 * (an + as_);
    let mud = k.dt_dx2 * (be + bw) + k.dt_dy2 * (bn + bs);
    // With a wider `H` (mixed), h's increment sums the faces' fluxes in `H` ([`Level::face`]):
    // each face's is the same value, of opposite sign, in both of its cells.
    let dh = if H::WIDER {
        let face = |c: f64, n: H, a_n: T, b_n: T| {
            let (a_f, b_f) = face_mobilities(h.c, n, a.c, a_n, b.c, b_n);
            H::face(c, a_f + b_f, n, h.c)
        };
        let (x, y) = (k.dt_dx2_f64, k.dt_dy2_f64);
        face(x, h.e, a.e, b.e) + face(x, h.w, a.w, b.w) + (face(y, h.n, a.n, b.n) + face(y, h.s, a.s, b.s))
    } else {
        H::widen(sand + mud)
    };
    (dh, s + ((T::ONE - s) * sand - s * mud) * k.inv_a)
}

/// (h', s') at one interior point. `h` the old heights, `s` the old sand fraction at the point,
/// `a`, `b` the mobilities ([`mobility`]) on the stencil.
#[inline(always)]
pub fn bounded_point<T: Real, H: Level<T>>(k: &Coeffs<T>, h: Five<H>, s: T, a: Five<T>, b: Five<T>) -> (H, T) {
    let (dh, sp) = bounded_terms(k, h, s, a, b);
    (h.c + dh, sp)
}

/// ((h' high, low), s') at one interior point: with `lo` (the compensated update, the low part
/// of h at the point) h' = h + lo + (h' − h) to round-off of the pair ([`compensated_add`]);
/// without, [`bounded_point`]'s h' and a zero low part. s' is the same either way.
#[inline(always)]
pub fn bounded_next<T: Real, H: Level<T>>(
    k: &Coeffs<T>,
    h: Five<H>,
    lo: Option<H>,
    s: T,
    a: Five<T>,
    b: Five<T>,
) -> ((H, H), T) {
    let (dh, sp) = bounded_terms(k, h, s, a, b);
    match lo {
        None => ((h.c + dh, H::ZERO), sp),
        Some(lo) => (compensated_add(h.c, lo, dh), sp),
    }
}

/// The conductance a_f + b_f of a boundary face whose ghost holds mobilities (`a_g`, `b_g`) and
/// inner cell (`a_i`, `b_i`); the ghost is upwind when the side supplies sediment
/// (`q_delta > 0`), which the ghost h it sets makes true.
#[inline(always)]
pub fn bounded_face_k<T: Real>(a_g: T, a_i: T, b_g: T, b_i: T, q_delta: T) -> T {
    let ghost_up = q_delta > T::ZERO;
    face_mobility(a_g, a_i, ghost_up) + face_mobility(b_g, b_i, ghost_up)
}
