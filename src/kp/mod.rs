//! Kurganov–Petrova shallow water: the central-upwind scheme of Kurganov & Petrova
//! 2007 with wet–dry fronts, as Brodtkorb, Sætra & Altinakar 2012 run it on GPUs. The scheme,
//! grid layout and point functions are documented in `gpu/src/kp/mod.rs`; the CPU reference
//! (`cpu`) and the kernels (`gpu`) both call those functions.
//!
//! Choices this module makes:
//! - κ (desingularization): κ = (0.01·min(Δx, Δy))⁴, i.e. velocities are desingularized below
//!   a depth of 1% of the cell size (linear in the resolution, as Brodtkorb et al. do, instead of
//!   Kurganov–Petrova's κ = max(Δx⁴, Δy⁴)); [`Problem::kappa_depth`] overrides the 1%.
//! - dry depth: 10⁻⁶ m, or 4ε·(max|B| + max h) where the precision's ε makes that larger.
//! - wet–dry fronts: by default (`numerics.wet_dry = "clamp"`) partially flooded cells are
//!   reconstructed as Bollermann, Chen, Kurganov & Noelle 2013 do, in 2D, drained with the
//!   actual Δt and their velocities held to their neighbours' range, and every cell's velocity
//!   (not momentum) reconstructed at its faces (`clamp`; docs/kp-wet-dry.md);
//!   `"bollermann"` caps their outflow a priori instead, and `"kp07"` keeps Kurganov–Petrova's
//!   correction.
//! - time integration (`time.scheme`, docs/kp-schemes.md): RK2 by default; Euler; SRK2 (RK2's
//!   arithmetic, split into F and G kernels on the GPU); DS1 and DS2, dimensionally split with
//!   the y-operator run on the transposed state (`split`), on the CPU and the GPU.
//! - Δt: from the first RK stage's largest wave speed, Δt = CFL / max(a_x/Δx, a_y/Δy), capped
//!   at the time left to the next stop (snapshot or end); on the GPU this is computed on the
//!   device (per-block maxima → device-wide max → one-thread Δt kernel) and read back only for
//!   reports.

#[cfg(feature = "bench")]
pub mod bench;
mod case;
pub mod centreline;
mod clamp;
pub mod cpu;
pub mod exact;
pub mod forcing;
pub mod gpu;
mod gpu_run;
pub mod mixed;
mod model;
mod out_only;
pub mod part;
mod perimeter;
pub mod pictures;
mod problem;
mod rk;
pub mod scheme_choice;
pub mod segments;
pub mod setup;
mod slab;
mod split;
mod state;
pub mod tune;

pub use case::{KpCase, MAX_CFL};
pub use gpu_run::{CYCLE, EarlyExit};
pub use kernels::kp::Coeffs;
pub use model::KpModel;
pub use problem::{Boundary, Problem, Scheme, WetDry};
pub use slab::{Start, WholeGrid};

/// The registry's entry.
pub static SOLVER: crate::solver::Solver = crate::solver::Solver {
    name: "kp",
    about: "shallow water by the Kurganov–Petrova central-upwind scheme, wet–dry fronts, GPU early exit",
    flags: case::FLAGS,
    load: |doc| Ok(Box::new(KpCase::load(doc)?)),
    mixed: true,
    products: crate::solver::Support::Checkpointed,
    lines: true,
    tune: Some(tune::search),
    #[cfg(feature = "bench")]
    bench: Some(bench::SUITE),
};
