//! ADI shallow water in the style of MIKE 21 HD (the MIKE 21 thesis; docs/adi.md): the row
//! providers. Along a grid line the unknowns interleave (…, flux_{j−½}, ζ_j, flux_{j+½}, …) and
//! each is one row `a x_{i−1} + b x_i + c x_{i+1} = d` of a tridiagonal system. The functions
//! here build one row from the values of its neighbourhood, gathered by the caller into small
//! structs of values: the CPU reference (`src/adi/cpu.rs`) gathers from slices, a kernel will
//! gather from global memory inside the solving kernel, and both then call the same code.
//!
//! Both sweeps use the same functions: "along" is the sweep's direction (x for the x-sweep,
//! whose flux is p; y for the y-sweep, whose flux is q) and "across" the other one. The
//! kernels (`entries.rs`) hand `sweep::SweepLines`, which gathers and calls these, to the
//! tridiagonal solvers.

use crate::Real;
use crate::tridiag::Eq;

mod entries;
mod forcing;
pub mod sweep;
mod wet;
pub use entries::*;
pub use forcing::{force_cell_adi, force_column};
pub use wet::{face_open, wet_next};

/// How the bed friction is given.
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FrictionLaw {
    /// No bed friction.
    None = 0,
    /// Chézy number C (m^½/s), constant.
    Chezy = 1,
    /// Manning's n (s/m^⅓): C = h^⅙ / n.
    Manning = 2,
}

/// The sweep direction, which decides the sign of the Coriolis term: ∂p/∂t = +Ω q,
/// ∂q/∂t = −Ω p.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dir {
    X,
    Y,
}

/// The model's parameters, uniform over the grid, passed by value to every point function
/// (and, later, to the kernels as a field of their parameter struct).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Params<T> {
    /// Gravity (m/s²).
    pub g: T,
    /// Time step (s): one x-sweep and one y-sweep.
    pub dt: T,
    /// Cell sizes (m).
    pub dx: T,
    pub dy: T,
    /// Chézy C or Manning n, as `law` says (unused for `FrictionLaw::None`).
    pub friction: T,
    pub law: FrictionLaw,
    /// 1: the convective terms ∂(p²/h)/∂x + ∂(pq/h)/∂y are on; 0: off (linear momentum).
    pub convection: u32,
    /// Coriolis parameter Ω (1/s).
    pub coriolis: T,
    /// Kinematic wind stress τ/ρ_w (m²/s²), x and y components, uniform.
    pub wind_x: T,
    pub wind_y: T,
    /// A wet cell dries below this total depth (m); a dry cell floods above `h_flood`.
    pub h_dry: T,
    pub h_flood: T,
    /// Constant eddy viscosity E (m²/s), explicit; zero for none.
    pub eddy: T,
}

impl<T: Real> Params<T> {
    /// (spacing along, spacing across) for a sweep in `dir`.
    #[inline(always)]
    pub fn spacing(&self, dir: Dir) -> (T, T) {
        match dir {
            Dir::X => (self.dx, self.dy),
            Dir::Y => (self.dy, self.dx),
        }
    }
}

/// What the continuity row of cell j needs (x-sweep: ζ = ζⁿ, old fluxes pⁿ at j∓½, cross
/// sums q^{n+½} + q^{n−½} at k∓½; y-sweep: ζ = ζ^{n+½}, old fluxes q^{n+½} at k∓½, cross sums
/// pⁿ + p^{n+1} at j∓½).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct MassAt<T> {
    pub zeta: T,
    pub flux_lo: T,
    pub flux_hi: T,
    pub cross_lo: T,
    pub cross_hi: T,
}

/// The continuity row of ζ_j over one half step Δt/2, unknowns (flux_{j−½}, ζ_j, flux_{j+½}),
/// the along-fluxes time-centred (old + new)/2, the cross fluxes as the mean of two levels:
///
///   ζ_j + r (F_{j+½} − F_{j−½}) = ζ_j⁰ − r (F⁰_{j+½} − F⁰_{j−½}) − s (X_{k+½} − X_{k−½}),
///   r = Δt/(4 Δalong), s = Δt/(4 Δacross), X a sum of two flux levels.
#[inline(always)]
pub fn mass_row<T: Real>(k: &Params<T>, dir: Dir, m: &MassAt<T>) -> Eq<T> {
    let (dl, dc) = k.spacing(dir);
    let quarter = T::HALF * T::HALF * k.dt;
    let r = quarter / dl;
    let s = quarter / dc;
    let d = m.zeta - r * (m.flux_hi - m.flux_lo) - s * (m.cross_hi - m.cross_lo);
    Eq { a: -r, b: T::ONE, c: r, d }
}

/// What the momentum row of the face between cells lo and hi needs.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct MomentumAt<T> {
    /// The face's old flux (x-sweep pⁿ, y-sweep q^{n+½}).
    pub flux: T,
    /// The other flux component at this face, the mean of its four neighbours, centred in
    /// time (x-sweep q^{n+½}, y-sweep p^{n+1}): Coriolis and the friction's speed.
    pub cross: T,
    /// Surface elevation of the two cells at the start of the half step (x-sweep ζⁿ, y-sweep
    /// ζ^{n+½}): the face's depth.
    pub zeta_lo: T,
    pub zeta_hi: T,
    /// Still-water depth of the two cells.
    pub d_lo: T,
    pub d_hi: T,
    /// Explicit acceleration terms (m²/s²): − convection + eddy viscosity ([`explicit`]).
    pub explicit: T,
}

/// Total depth at a face: the mean of the two cells' still-water depths and elevations.
#[inline(always)]
pub fn face_depth<T: Real>(m: &MomentumAt<T>) -> T {
    T::HALF * ((m.d_lo + m.zeta_lo) + (m.d_hi + m.zeta_hi))
}

/// g/C² at total depth h: zero without friction; Chézy C; Manning C² = h^⅓/n², so g·n²·h^(−⅓).
#[inline(always)]
pub fn friction_factor<T: Real>(k: &Params<T>, h: T) -> T {
    match k.law {
        FrictionLaw::None => T::ZERO,
        FrictionLaw::Chezy => k.g / (k.friction * k.friction),
        FrictionLaw::Manning => k.g * k.friction * k.friction * h.recip_cbrt(),
    }
}

/// The momentum row of the face, unknowns (ζ_lo, flux, ζ_hi) at the new level, over one full
/// step Δt:
///
///   F + G (ζ_hi − ζ_lo) + Δt g|V⁰|/(C² h²) F = F⁰ + Δt (±Ω X + τ/ρ_w + explicit),
///   G = Δt g h / Δalong,
///
/// with h the face depth at the start of the half step, the friction semi-implicit (the new
/// flux times the old speed |V⁰| = √(F⁰² + X²)) and Coriolis from the time-centred other
/// component X (+ for p, − for q). The face must be wet (h > 0): the caller gives a dry face
/// [`closed_row`].
#[inline(always)]
pub fn momentum_row<T: Real>(k: &Params<T>, dir: Dir, m: &MomentumAt<T>) -> Eq<T> {
    let (dl, _) = k.spacing(dir);
    let h = face_depth(m);
    let gg = k.dt * k.g / dl * h;
    // A flux at rest is common: its speed and friction take the zero-dividend forms.
    let speed = (m.flux * m.flux + m.cross * m.cross).sqrt_often_zero();
    let fric = (k.dt * friction_factor(k, h) * speed).div_often_zero(h * h);
    let (coriolis, wind) = match dir {
        Dir::X => (k.coriolis * m.cross, k.wind_x),
        Dir::Y => (-(k.coriolis * m.cross), k.wind_y),
    };
    let d = m.flux + k.dt * (coriolis + wind + m.explicit);
    Eq { a: -gg, b: T::ONE + fric, c: gg, d }
}

/// A face with a given flux (land: zero; a flux boundary; a dry face): `F = flux`.
#[inline(always)]
pub fn closed_row<T: Real>(flux: T) -> Eq<T> {
    Eq { a: T::ZERO, b: T::ONE, c: T::ZERO, d: flux }
}

/// A row whose lower neighbour is a known value (a water-level boundary below the line's first
/// face): moved to the right-hand side.
#[inline(always)]
pub fn known_lo<T: Real>(e: Eq<T>, x: T) -> Eq<T> {
    Eq { a: T::ZERO, b: e.b, c: e.c, d: e.d - e.a * x }
}

/// A row whose upper neighbour is a known value (a water-level boundary above the line's last
/// face).
#[inline(always)]
pub fn known_hi<T: Real>(e: Eq<T>, x: T) -> Eq<T> {
    Eq { a: e.a, b: e.b, c: T::ZERO, d: e.d - e.c * x }
}

/// The neighbourhood of a face for the explicit terms, in the sweep's frame (along = the
/// sweep's direction). F: the face's flux component, X: the other one. Values beyond the grid
/// are the caller's choice (the CPU reference mirrors the nearest face or cell).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Stencil<T> {
    /// F at the face and at the faces one cell before and after along the line.
    pub f: T,
    pub f_lo: T,
    pub f_hi: T,
    /// F at the same face of the neighbouring lines (across −1, +1).
    pub f_left: T,
    pub f_right: T,
    /// X at the four faces around the face's two across-corners: `x_left_lo` is X on the left
    /// (across −½) side of cell lo, and so on.
    pub x_left_lo: T,
    pub x_left_hi: T,
    pub x_right_lo: T,
    pub x_right_hi: T,
    /// Total depth of the two cells and of their neighbours across (left: −1, right: +1).
    pub h_lo: T,
    pub h_hi: T,
    pub h_left_lo: T,
    pub h_left_hi: T,
    pub h_right_lo: T,
    pub h_right_hi: T,
}

/// The explicit acceleration of a face's flux: −∂(F²/h)/∂along − ∂(F X/h)/∂across (if
/// `k.convection`) + E ∇²F (if `k.eddy` > 0), centred in space. F²/h is taken at the two cell
/// centres (F averaged from the cell's faces), F X/h at the two corners (F and X averaged from
/// their two faces, h from the four cells). Where any depth involved is at or below the drying
/// depth the convective part is zero (no velocity is defined on a drying cell).
#[inline(always)]
pub fn explicit<T: Real>(k: &Params<T>, dir: Dir, s: &Stencil<T>) -> T {
    let (dl, dc) = k.spacing(dir);
    let mut acc = T::ZERO;
    if k.convection != 0 {
        let hmin = s.h_lo.min(s.h_hi).min(s.h_left_lo.min(s.h_left_hi)).min(s.h_right_lo.min(s.h_right_hi));
        if hmin > k.h_dry && hmin > T::ZERO {
            let c_lo = T::HALF * (s.f_lo + s.f);
            let c_hi = T::HALF * (s.f + s.f_hi);
            // Each difference of two quotients over one denominator: a division a term (fluxes
            // at rest are common, so it takes the zero-dividend form).
            let along = (c_hi * c_hi * s.h_lo - c_lo * c_lo * s.h_hi).div_often_zero(s.h_hi * s.h_lo * dl);
            let quarter = T::HALF * T::HALF;
            let f_left = T::HALF * (s.f_left + s.f);
            let f_right = T::HALF * (s.f + s.f_right);
            let x_left = T::HALF * (s.x_left_lo + s.x_left_hi);
            let x_right = T::HALF * (s.x_right_lo + s.x_right_hi);
            let h_left = quarter * (s.h_lo + s.h_hi + s.h_left_lo + s.h_left_hi);
            let h_right = quarter * (s.h_lo + s.h_hi + s.h_right_lo + s.h_right_hi);
            let across = (f_right * x_right * h_left - f_left * x_left * h_right).div_often_zero(h_left * h_right * dc);
            acc = -(along + across);
        }
    }
    if k.eddy > T::ZERO {
        let lap = (s.f_lo - T::TWO * s.f + s.f_hi).div_often_zero(dl * dl)
            + (s.f_left - T::TWO * s.f + s.f_right).div_often_zero(dc * dc);
        acc += k.eddy * lap;
    }
    acc
}
