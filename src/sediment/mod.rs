//! Sediment transport (seed 000): the dual-lithology diffusion model of Rivenæs, solved
//! explicitly as in Su et al. 2013. The equations, grid and boundary rule are documented in
//! `gpu/src/sediment/mod.rs`, whose point functions both the CPU reference (`cpu`) and the
//! kernels (`gpu`) call.

#[cfg(feature = "bench")]
pub mod bench;
mod case;
pub mod cpu;
pub mod gpu;
pub mod mixed;
mod model;
mod pictures;
mod problem;
mod scheme;
pub mod setup;
mod variant;

pub use kernels::sediment::Coeffs;
pub use problem::{Conductances, Problem, Side, StabilityLimit};
pub use case::{SOLVER, SedimentCase};
pub use model::{SedimentModel, StepPolicy};

pub use crate::accumulation::Accumulation;
pub use scheme::Scheme;
pub use variant::{HVariant, SVariant, StepVariant};

/// Floating-point operations per point as seed 000 counts them (for GFLOP/s).
pub const FLOPS_H: f64 = 55.0;
pub const FLOPS_S: f64 = 34.0;
