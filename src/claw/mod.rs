//! Clawpack-style wave propagation (seed 002; docs/claw.md): LeVeque's wave-propagation
//! algorithm over any [`Riemann`] solver, with a CPU reference (`cpu`), the GPU driver (`gpu`),
//! case files (`case`) and the registry of the systems of equations a case can name
//! (`equations`). The Riemann solvers and the algorithm's point functions live in the kernels
//! crate (`kernels::claw`), shared by the CPU reference and the core kernels.

#[cfg(feature = "bench")]
pub mod bench;
mod case;
pub mod cpu;
pub mod d3;
pub mod equations;
pub mod flops;
pub mod gpu;
pub(crate) mod lines;
mod model;
mod pictures;
pub mod shapes;
pub mod stepper;
pub mod tune;

pub use case::ClawCase;
pub use model::ClawModel;

pub use kernels::claw::riemann::*;
pub use kernels::claw::{Limiter, Riemann, Solution};

/// How the sweeps of a step are combined (two in 2D, three in 3D).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Splitting {
    /// Godunov: x over Δt, then y over Δt (then z over Δt in 3D; first order in the
    /// splitting; the seed's choice).
    Godunov,
    /// Strang: x over Δt/2, y over Δt, x over Δt/2 (in 3D x½ y½ z y½ x½, `d3::cpu::STRANG`;
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

/// The registry's entry.
pub static SOLVER: crate::solver::Solver = crate::solver::Solver {
    name: "claw",
    about: "wave propagation (LeVeque's algorithm, Clawpack style): advection, acoustics in 2D and 3D, shallow water (Roe, HLLE)",
    flags: case::FLAGS,
    load: |doc| Ok(Box::new(ClawCase::load(doc)?)),
    mixed: false,
    products: crate::solver::Support::Checkpointed,
    tune: Some(tune::search),
    #[cfg(feature = "bench")]
    bench: Some(bench::SUITE),
};
