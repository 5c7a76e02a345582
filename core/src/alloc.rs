//! Host vectors allocated fallibly, so that a size too large for this machine's memory is an
//! error, never an abort, and filled on every core when they are large.

use crate::{Error, Result};

/// A vector of `n` copies of `value`, or an error naming `what` when memory is short. A large
/// one is filled on every core: its first touch of each fresh page, where the operating system
/// zeroes the page, is most of the cost of a field of hundreds of megabytes.
pub fn try_filled<T: Clone + Send + Sync>(what: &str, n: usize, value: T) -> Result<Vec<T>> {
    let mut v = try_empty(what, n)?;
    if n < PARALLEL_FILL {
        v.resize(n, value);
    } else {
        use rayon::prelude::*;
        v.par_extend(rayon::iter::repeat_n(value, n));
    }
    Ok(v)
}

/// Values from which [`try_filled`] fills on every core.
const PARALLEL_FILL: usize = 1 << 18;

/// An empty vector with room for `n` values, or an error naming `what` when memory is short.
pub fn try_empty<T>(what: &str, n: usize) -> Result<Vec<T>> {
    let mut v = Vec::new();
    v.try_reserve_exact(n).map_err(|_| {
        Error::invalid(format!(
            "{what}: no host memory for {n} values ({:.1} MiB)",
            n as f64 * std::mem::size_of::<T>() as f64 / (1 << 20) as f64
        ))
    })?;
    Ok(v)
}
