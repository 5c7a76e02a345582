//! hydrokern: pure-Rust GPU kernels for water and sediment simulation, each with a CPU
//! reference behind the same API.
//!
//! Layers: [`runtime`] (GPU context, typed buffers, launches, event timing, the GPU-or-CPU
//! choice) over cudarc's driver bindings; one module per solver holding its CPU reference and
//! GPU driver; [`bench`], the benchmark harness. The kernels live in the `kernels` crate (folder
//! `gpu/`), compiled to PTX by `build.rs` and embedded here ([`ptx`]).

pub mod bench;
pub mod error;
pub mod fd3d;
pub mod foundation;
pub mod kp;
pub mod output;
pub mod ptx;
pub mod rng;
pub mod runtime;
pub mod sediment;
pub mod transpose;
pub mod tridiag;

pub use error::{Error, Result};
pub use kernels::Real;

/// A precision the GPU runtime can move and launch with: f32 or f64.
pub trait GpuReal: Real + cudarc::driver::DeviceRepr + cudarc::driver::ValidAsZeroBits + Default {}
impl GpuReal for f32 {}
impl GpuReal for f64 {}
pub use rng::Rng;
pub use runtime::{Backend, BackendChoice, Gpu};

/// Precision chosen at run time; dispatched once to generic code.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum Precision {
    F32,
    F64,
}

impl Precision {
    pub const ALL: [Precision; 2] = [Precision::F32, Precision::F64];
    pub fn name(self) -> &'static str {
        match self {
            Precision::F32 => "f32",
            Precision::F64 => "f64",
        }
    }
}

impl std::fmt::Display for Precision {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// The git revision this library was built from (for benchmark metadata).
pub const GIT_REVISION: &str = env!("HYDROKERN_GIT_REV");
