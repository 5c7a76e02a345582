//! ADI shallow water in the style of MIKE 21 HD (docs/adi.md): Abbott's time-centred
//! alternating-direction scheme on an Arakawa C grid. The problem description ([`Setup`], the
//! boundaries, the wind's drag law) and its checks are `setup.rs`'s; the CPU reference is
//! [`cpu`], and the equation of each unknown is a point function of the kernels crate
//! (`kernels::adi`), which the GPU sweeps ([`gpu`]) build inside their solving kernels too.
//!
//! Grid (no ghost cells): ζ and the still-water depth d at the nx × ny cell centres, index
//! `k·nx + j`; p on the (nx+1) × ny x-faces, index `k·(nx+1) + j` (face j at x = jΔx); q on the
//! nx × (ny+1) y-faces, index `k·nx + j` (face k at y = kΔy). The boundaries are the outermost
//! faces: [`Boundary`] per side.

#[cfg(feature = "bench")]
pub mod bench;
pub mod case;
pub mod cpu;
pub mod forcing;
pub mod gpu;
mod gpu_forcing;
pub mod model;
mod pictures;
mod setup;
pub mod tune;

pub use setup::{
    Boundary, Friction, G, H_DRY, H_FLOOD, Level, RHO_AIR, RHO_WATER, Setup, Side, Tide, Wind, drag_coefficient,
};

pub use kernels::adi::{Dir, FrictionLaw, Params};

/// The registry's entry.
pub static SOLVER: crate::solver::Solver = crate::solver::Solver {
    name: "adi",
    about: "shallow water by the time-centred ADI scheme of MIKE 21 HD: tides, wind, friction, flooding and drying",
    flags: case::FLAGS,
    load: |doc| Ok(Box::new(case::AdiCase::load(doc)?)),
    mixed: false,
    products: crate::solver::Support::Checkpointed,
    lines: false,
    tune: Some(tune::search),
    #[cfg(feature = "bench")]
    bench: Some(bench::SUITE),
};
