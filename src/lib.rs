//! hydrokern: pure-Rust GPU kernels for water and sediment simulation, each with a CPU
//! reference behind the same API.
//!
//! The skeleton every solver stands on:
//! - [`grid`] and [`field`]: grids in metres and padded fields with ghost layers, on the host
//!   and on the GPU; the ghost fills are point functions of the kernels crate (`kernels::halo`).
//! - [`model`]: the one interface of a time-dependent model (advance, clock, state out), with
//!   a CPU and a GPU implementation per solver.
//! - [`case`]: case files (TOML) and the command-line flags that override their keys.
//! - [`run`]: the runner — backend and precision, memory and step-limit checks, progress,
//!   snapshots, blow-up handling, output directories written whole.
//! - [`runtime`]: the GPU (context, typed buffers, kernel launches, timers) and the GPU-or-CPU
//!   choice, over cudarc's driver bindings.
//!
//! Each solver is one module here (problem, case, CPU reference, GPU driver, model) with its
//! kernels in the kernels crate (`gpu/`); [`SOLVERS`] lists them and [`scenarios`] holds the
//! built-in cases (`examples/`). `bench` (the feature of the same name) is the benchmark
//! harness and each solver's suite, apart from the simulation API.

pub mod accumulation;
#[cfg(feature = "bench")]
pub mod bench;
pub mod case;
pub mod error;
pub mod field;
pub mod files;
pub mod foundation;
pub mod grid;
pub mod input;
pub mod model;
pub mod output;
pub mod products;
pub mod ptx;
pub mod rng;
pub mod run;
pub mod runtime;
pub mod scenarios;
pub mod solver;
pub mod transpose;
pub mod tune;

/// Declares the solver modules and lists them: adding a solver is one name here.
macro_rules! solvers {
    ($($m:ident),* $(,)?) => {
        $(pub mod $m;)*
        /// Every solver, by the name case files give it.
        pub static SOLVERS: &[&solver::Solver] = &[$(&$m::SOLVER),*];
    };
}
solvers! { sediment, kp, fd3d, tridiag, claw, adi }

pub use error::{Error, Result};

/// The README's Rust blocks (the "add your own equations" walk-through), compiled and run as
/// doctests by the test command.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
pub use kernels::Real;
pub use rng::Rng;
pub use runtime::{Backend, BackendChoice, Gpu};

/// A precision the GPU runtime can move and launch with, and the output can write: f32 or f64.
pub trait GpuReal:
    Real + cudarc::driver::DeviceRepr + cudarc::driver::ValidAsZeroBits + Default + output::NpyElem + Send + Sync + 'static
{
}
impl GpuReal for f32 {}
impl GpuReal for f64 {}

/// Precision chosen at run time; dispatched once to generic code.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Precision {
    F32,
    F64,
    /// The conserved level (sediment's h, shallow water's w) stored and updated in f64,
    /// everything else in f32 (docs/f32-conservation.md, "Mixed precision"): only the solvers
    /// whose `Solver::mixed` says so run it; the runner hands their states and checkpoints over
    /// as f64.
    Mixed,
}

impl Precision {
    /// The precisions every solver runs (and the tuner tunes; mixed runs on f32's tuning).
    pub const ALL: [Precision; 2] = [Precision::F32, Precision::F64];
    pub fn name(self) -> &'static str {
        match self {
            Precision::F32 => "f32",
            Precision::F64 => "f64",
            Precision::Mixed => "mixed",
        }
    }
    /// Bytes per value the runner sees (states, outputs, checkpoints): f64's for mixed.
    pub fn bytes(self) -> u64 {
        match self {
            Precision::F32 => 4,
            Precision::F64 | Precision::Mixed => 8,
        }
    }
    /// The type of the values the runner sees, by name: "f32" or "f64" (mixed: "f64").
    pub fn values(self) -> &'static str {
        match self {
            Precision::F32 => "f32",
            Precision::F64 | Precision::Mixed => "f64",
        }
    }
}

impl std::fmt::Display for Precision {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// The git revision this library was built from (for benchmark metadata and run manifests).
pub const GIT_REVISION: &str = env!("HYDROKERN_GIT_REV");
