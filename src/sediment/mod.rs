//! Sediment transport: the dual-lithology diffusion model of Rivenæs, solved explicitly as in
//! Su et al. 2013. The equations, grid and boundary rule are documented in
//! `gpu/src/sediment/mod.rs`, whose point functions both the CPU reference (`cpu`) and the
//! kernels (`gpu`) call.

#[cfg(feature = "bench")]
pub mod bench;
mod case;
pub mod cpu;
mod flops;
pub mod gpu;
pub mod mixed;
mod model;
mod part;
mod pictures;
mod problem;
mod scheme;
pub mod setup;
pub mod tune;
mod variant;

pub use case::SedimentCase;
pub use flops::{FLOPS_H, FLOPS_S};
pub use kernels::sediment::Coeffs;
pub use model::{SedimentModel, StepPolicy};
pub use part::SlabPart;
pub use problem::{Conductances, Problem, Side, StabilityLimit, Steepness};

pub use crate::accumulation::Accumulation;
pub use scheme::Scheme;
pub use variant::{HVariant, SVariant, StepVariant};

/// The registry's entry.
pub static SOLVER: crate::solver::Solver = crate::solver::Solver {
    name: "sediment",
    about: "sand and mud transport by the Rivenæs dual-lithology diffusion model",
    flags: case::FLAGS,
    load: |doc| Ok(Box::new(SedimentCase::load(doc)?)),
    mixed: true,
    products: crate::solver::Support::None,
    lines: false,
    tune: Some(tune::search),
    #[cfg(feature = "bench")]
    bench: Some(bench::SUITE),
};
