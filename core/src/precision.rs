//! Floating-point precision: the run-time choice ([`Precision`]) and the types the GPU runtime
//! moves and launches with ([`GpuReal`]).

pub use kernels::Real;

/// A precision the GPU runtime can move and launch with, and the output can write: f32 or f64.
pub trait GpuReal:
    Real
    + cudarc::driver::DeviceRepr
    + cudarc::driver::ValidAsZeroBits
    + Default
    + crate::npy::NpyElem
    + Send
    + Sync
    + 'static
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
    /// The precision of `T`.
    pub fn of<T: GpuReal>() -> Precision {
        if std::mem::size_of::<T>() == 4 { Precision::F32 } else { Precision::F64 }
    }
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
