//! CPU reference of the foundation's kernels (rayon over chunks).

use super::{ReduceOp, identity};
use crate::{Error, Real, Result};
use rayon::prelude::*;

pub fn copy<T: Copy + Send + Sync>(src: &[T], dst: &mut [T]) -> Result<()> {
    if src.len() != dst.len() {
        return Err(Error::invalid(format!("copy of {} elements into {}", src.len(), dst.len())));
    }
    dst.par_iter_mut().zip(src.par_iter()).for_each(|(d, s)| *d = *s);
    Ok(())
}

pub fn fill<T: Copy + Send + Sync>(dst: &mut [T], value: T) {
    dst.par_iter_mut().for_each(|d| *d = value);
}

/// Reduce `x` with `op`; the identity for an empty slice.
pub fn reduce<T: Real>(op: ReduceOp, x: &[T]) -> T {
    let id = identity::<T>(op);
    match op {
        ReduceOp::MaxAbs => x.par_iter().map(|v| v.abs()).reduce(|| id, |a, b| a.max(b)),
        ReduceOp::Max => x.par_iter().copied().reduce(|| id, |a, b| a.max(b)),
        ReduceOp::Min => x.par_iter().copied().reduce(|| id, |a, b| a.min(b)),
        ReduceOp::Sum => x.par_iter().copied().reduce(|| id, |a, b| a + b),
    }
}
