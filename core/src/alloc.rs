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

#[cfg(test)]
mod tests {
    use super::*;

    /// Both fill paths give n copies of the value; a size no machine holds is an error naming
    /// what was asked for, not an abort.
    #[test]
    fn fills_on_one_core_and_on_every_core_and_refuses_what_does_not_fit() {
        for n in [0, 1, PARALLEL_FILL - 1, PARALLEL_FILL, 3 * PARALLEL_FILL + 7] {
            let v = try_filled("a test vector", n, 2.5f64).unwrap();
            assert_eq!(v.len(), n);
            assert!(v.iter().all(|&x| x == 2.5), "n = {n}");
        }
        let e = try_filled("a test vector", usize::MAX / 8, 0u64).unwrap_err().to_string();
        assert!(e.contains("a test vector: no host memory"), "{e}");
        let e = try_empty::<f32>("another", usize::MAX / 2).unwrap_err().to_string();
        assert!(e.contains("another: no host memory"), "{e}");
    }
}
