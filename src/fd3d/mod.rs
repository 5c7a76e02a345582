//! 3D finite differences: the periodic 8th-order centred first derivative along x,
//! y or z of a field on an `mx × my × mz` grid, by the CPU reference ([`cpu`]) or one of the
//! GPU kernel variants ([`gpu`]).
//!
//! The domain is the periodic unit cube `[0, 1)³` with `m` distinct points per direction,
//! `x_i = i / m` (Δ = 1/m; unlike Ruetsch's Fortran, no duplicated end point). Layout
//! `f[i + mx·(j + my·k)]`, x fastest. Every dimension needs at least 9 points, the stencil's
//! width. The stencil itself is `kernels::fd3d::d8`, shared by the kernels and the CPU reference.
//!
//! [`TestField`] is the scenario's (`case`) and the tests' field with a known derivative:
//! `f = cos(2π kx x) · sin(2π ky y) · cos(2π kz z)`.

#[cfg(feature = "bench")]
pub mod bench;
mod case;
pub mod cpu;
mod direction;
pub mod gpu;
mod periodic;
mod test_field;
pub mod tune;
mod variant;

pub use case::{Fd3dCase, MAX_REPS};

pub use kernels::fd3d::{COEFFICIENTS, Coef, HALO, WIDTH, d8};

pub use crate::grid::Grid3;
pub use direction::Direction;
pub use periodic::{MAX_DIM, PeriodicGrid};
pub use test_field::{ErrorNorms, TestField};
pub use variant::Variant;

/// The registry's entry.
pub static SOLVER: crate::solver::Solver = crate::solver::Solver {
    name: "fd3d",
    about: "8th-order periodic first derivatives of a known 3D field: error and bandwidth per kernel variant",
    flags: case::FLAGS,
    load: |doc| Ok(Box::new(Fd3dCase::load(doc)?)),
    mixed: false,
    products: crate::solver::Support::None,
    lines: false,
    tune: Some(tune::search),
    #[cfg(feature = "bench")]
    bench: Some(bench::SUITE),
};
