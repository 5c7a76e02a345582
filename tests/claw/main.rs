//! Clawpack-style wave propagation: each Riemann solver on its own against plainly written
//! fluxes and eigenvectors (`riemann.rs`), the CPU reference of the algorithm against exact
//! solutions and invariants (`algorithm.rs`, in 3D `three_d.rs`), and the core kernels against
//! the CPU reference (`gpu.rs`, in 3D `gpu3.rs`), a run's start made from its cells against
//! the padded grid's (`start.rs`), and the operation count behind `bench claw`'s GFLOP/s
//! (`flops.rs`).

mod algorithm;
mod case;
#[path = "../common/mod.rs"]
mod common;
mod flops;
mod gpu;
mod gpu3;
mod products;
mod ranks;
mod riemann;
mod start;
mod three_d;
mod tuning;
mod view;
