//! Clawpack-style wave propagation: each Riemann solver on its own against plainly written
//! fluxes and eigenvectors (`riemann.rs`), and the CPU reference of the algorithm against exact
//! solutions and invariants (`algorithm.rs`).

mod algorithm;
mod riemann;
