//! hydrokern's core: everything the solvers stand on and nothing solver-specific. The modules,
//! lowest layer first:
//! - [`error`], [`files`], [`alloc`] (host vectors allocated fallibly), [`rng`], [`precision`],
//!   [`ptx`] (the embedded kernels);
//! - [`runtime`]: the GPU (context, typed buffers, kernel launches, timers, block limits) and
//!   the GPU-or-CPU choice, over cudarc's driver bindings;
//! - [`grid`] and [`field`]: grids in metres and padded fields with ghost layers, on the host and
//!   on the GPU;
//! - [`model`]: the one interface of a time-dependent model (advance, clock, state out), and
//!   [`account`]: a water account assembled from a state; [`ranks`]: a model decomposed over
//!   ranks (slabs, ghost-row exchange, the joined state), over MPI or threads;
//! - the shared numerical building blocks: [`foundation`] (copy, fill, reductions),
//!   [`transpose`], [`tridiag`] (batched tridiagonal solves), [`accumulation`];
//! - [`case`]: case files (TOML), the command-line flags that override their keys, the sections
//!   every solver shares; [`input`] (rasters) and [`output`] (NPY, NetCDF, pictures) and
//!   [`products`] (gauges, maximum maps);
//! - [`run`]: the runner — backend and precision, memory and step-limit checks, progress,
//!   snapshots, checkpoints, blow-up handling, output directories written whole;
//! - [`tune`]: the tuning engine (search, statistics, the cache); [`bench`](mod@bench) (feature `bench`):
//!   the benchmark harness;
//! - [`solver`]: what a solver offers the registry that lists them (the `hydrokern` crate).

pub mod account;
pub mod accumulation;
pub mod alloc;
pub mod atomic;
#[cfg(feature = "bench")]
pub mod bench;
pub mod case;
pub mod cf_time;
pub mod error;
pub mod field;
pub mod files;
pub mod forcing;
pub mod foundation;
pub mod fused;
pub mod grid;
pub mod hash;
pub mod input;
pub mod model;
pub mod npy;
pub mod output;
pub mod places;
pub mod precision;
pub mod products;
pub mod ptx;
pub mod ranks;
pub mod rng;
pub mod run;
pub mod runtime;
pub mod solver;
pub mod transpose;
pub mod tridiag;
pub mod tune;
pub mod view;

pub use error::{Error, Result, note, warn};
pub use precision::{GpuReal, Precision, Real};
pub use rng::Rng;
pub use runtime::{Backend, BackendChoice, Gpu};

/// The git revision this library was built from (for benchmark metadata and run manifests).
pub const GIT_REVISION: &str = env!("HYDROKERN_GIT_REV");
