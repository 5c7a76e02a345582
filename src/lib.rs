//! hydrokern: pure-Rust GPU kernels for water and sediment simulation, each with a CPU reference
//! behind the same API.
//!
//! This crate holds the solvers, side by side, and the registry that lists them; it re-exports
//! the core they stand on (`hydrokern-core`: runtime, grids and fields, the model interface,
//! case files, the runner, input and output, the tuning engine, the benchmark harness and the
//! shared building blocks), so `hydrokern::grid::Grid2` and `hydrokern::kp::KpModel` are both
//! paths of this crate. Each solver is one module (problem and case schema, CPU reference, GPU
//! driver, model, tuning search, benchmark suite, pictures) with its kernels in the kernels
//! crate (`gpu/`); no solver imports another. [`registry`] is the one list of them and
//! [`scenarios`] the built-in cases (`examples/`).

pub use hydrokern_core::*;

pub mod registry;
#[cfg(feature = "bench")]
pub mod scaling;
pub mod scenarios;

pub mod adi;
pub mod claw;
pub mod fd3d;
pub mod kp;
pub mod sediment;
pub mod tridiag;

/// The README's Rust blocks (the "add your own equations" walk-through), compiled and run as
/// doctests by the test command.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
