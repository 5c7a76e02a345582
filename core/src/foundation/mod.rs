//! The foundation's kernels behind one API: copy, fill and device-wide reductions (max |x| is
//! what CFL time steps use). `cpu` is the reference, `gpu` drives the kernels.

#[cfg(feature = "bench")]
pub mod bench;
pub mod cpu;
pub mod gpu;

pub use kernels::foundation::ReduceOp;

/// The value a reduction of no elements gives.
pub fn identity<T: crate::Real>(op: ReduceOp) -> T {
    match op {
        ReduceOp::MaxAbs | ReduceOp::Sum => T::ZERO,
        ReduceOp::Max => -T::INFINITY,
        ReduceOp::Min => T::INFINITY,
    }
}
