//! Clawpack-style wave propagation (docs/claw.md): LeVeque's wave-propagation
//! algorithm over any [`Riemann`] solver, with a CPU reference (`cpu`), the GPU driver (`gpu`),
//! case files (`case`) and the registry of the systems of equations a case can name
//! (`equations`). The Riemann solvers and the algorithm's point functions live in the kernels
//! crate (`kernels::claw`), shared by the CPU reference and the core kernels.

#[cfg(feature = "bench")]
pub mod bench;
mod case;
mod clock;
pub mod cpu;
pub mod cpu_run;
pub mod d3;
pub mod equations;
pub mod flops;
pub mod gpu;
pub(crate) mod lines;
mod model;
pub mod part;
mod pictures;
pub mod shapes;
pub mod slab;
mod splitting;
mod start;
pub mod stepper;
pub mod tune;

pub use case::{ClawCase, side_condition};
pub use clock::Cfl;
pub use clock::Clock;
pub use model::{ClawModel, ClawRun};
pub use splitting::Splitting;
pub use start::Shape;

pub use kernels::claw::riemann::*;
pub use kernels::claw::{Limiter, Riemann, Solution};

/// The registry's entry.
pub static SOLVER: crate::solver::Solver = crate::solver::Solver {
    name: "claw",
    about: "wave propagation (LeVeque's algorithm, Clawpack style): advection, acoustics in 2D and 3D, shallow water (Roe, HLLE)",
    flags: case::FLAGS,
    load: |doc| Ok(Box::new(ClawCase::load(doc)?)),
    mixed: false,
    products: crate::solver::Support::Checkpointed,
    lines: false,
    tune: Some(tune::search),
    #[cfg(feature = "bench")]
    bench: Some(bench::SUITE),
};
