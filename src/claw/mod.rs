//! Clawpack-style wave propagation (seed 002; docs/claw.md): LeVeque's wave-propagation
//! algorithm over any [`Riemann`] solver, with a CPU reference (`cpu`), the GPU driver (`gpu`),
//! case files (`case`, `initial`) and the registry of the systems of equations a case can name
//! (`equations`). The Riemann solvers and the algorithm's point functions live in the kernels
//! crate (`kernels::claw`), shared by the CPU reference and the core kernels.

#[cfg(feature = "bench")]
pub mod bench;
#[cfg(feature = "bench")]
pub mod bench3;
mod case;
pub mod cpu;
pub mod cpu3;
pub mod equations;
pub mod flops;
pub mod gpu;
pub mod gpu3;
pub(crate) mod initial;
mod lines;
mod model;
mod pictures;
pub mod shapes;
pub mod stepper;

pub use case::{ClawCase, SOLVER};
pub use model::ClawModel;

pub use kernels::claw::riemann::*;
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
