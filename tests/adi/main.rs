//! The ADI shallow-water CPU reference (docs/adi.md) against exact solutions and
//! invariants: the seiche of a closed basin (period, amplitude, second-order convergence, large
//! Courant numbers: `seiche.rs`), the wind set-up (`wind.rs`), mass, rest and depth invariants
//! (`invariants.rs`), a geostrophic current for Coriolis (`coriolis.rs`), a uniform current for
//! the explicit terms (`convection.rs`), the tide through an open side (`tide.rs`), the row
//! providers against plainly written rows (`rows.rs`), bad input (`input.rs`), the water-level
//! series (`series.rs`), rain and infiltration (`forcing.rs`), case files through the runner
//! (`case.rs`) and the GPU sweeps against this reference (`gpu.rs`).

mod case;
#[path = "../common/mod.rs"]
mod common;
mod convection;
mod coriolis;
mod forcing;
mod gpu;
mod input;
mod invariants;
mod products;
mod rows;
mod seiche;
mod tide;
mod tuning;
mod wind;

use hydrokern::Real;
use hydrokern::adi::Setup;
use hydrokern::adi::cpu::Adi;

/// A model from a setup that must be valid.
pub fn model<T: Real>(s: &Setup) -> Adi<T> {
    Adi::new(s).expect("valid setup")
}
