//! Clawpack-style wave propagation: each Riemann solver on its own against plainly written
//! fluxes and eigenvectors (`riemann.rs`), the CPU reference of the algorithm against exact
//! solutions and invariants (`algorithm.rs`), and the core kernels against the CPU reference
//! (`gpu.rs`).

mod algorithm;
#[path = "../common/mod.rs"]
mod common;
mod gpu;
mod riemann;
mod three_d;
