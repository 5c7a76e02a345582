//! Clawpack-style wave propagation (seed 002; docs/claw.md): the CPU reference of the
//! wave-propagation algorithm over any [`Riemann`] solver. The Riemann solvers and the
//! algorithm's point functions live in the kernels crate (`kernels::claw`), shared with the
//! core kernels to come; the case file, scenarios and GPU driver are not built yet (issue 12).

#[cfg(feature = "bench")]
pub mod bench;
#[cfg(feature = "bench")]
pub mod bench3;
pub mod cpu;
pub mod cpu3;
pub mod gpu;
pub mod gpu3;
mod lines;

pub use kernels::claw::riemann::{Acoustics2d, Acoustics3d, Advection, ShallowHlle, ShallowRoe};
pub use kernels::claw::{Limiter, Riemann, Solution};

/// How the sweeps of a step are combined (two in 2D, three in 3D).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Splitting {
    /// Godunov: x over Δt, then y over Δt (then z over Δt in 3D; first order in the
    /// splitting; the seed's choice).
    Godunov,
    /// Strang: x over Δt/2, y over Δt, x over Δt/2 (in 3D x½ y½ z y½ x½, `cpu3::STRANG`;
    /// second order in the splitting).
    Strang,
}

/// Time-step control, PyClaw's: the CFL number of a step is the largest Δt·|s|/Δx over every
/// wave of every sweep; a step above `cfl_max` is rejected and redone, and the next Δt is
/// Δt·`cfl_desired`/CFL.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Cfl {
    pub desired: f64,
    pub max: f64,
}

impl Default for Cfl {
    fn default() -> Self {
        Cfl { desired: 0.9, max: 1.0 }
    }
}
