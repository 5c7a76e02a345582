//! CPU reference transpose (rayon over output rows).

use crate::Result;
use rayon::prelude::*;

/// `out[j·rows + i] = input[i·cols + j]`.
pub fn transpose<T: Copy + Send + Sync>(rows: usize, cols: usize, input: &[T], out: &mut [T]) -> Result<()> {
    super::check(rows, cols, input.len(), out.len())?;
    out.par_chunks_mut(rows).enumerate().for_each(|(j, row)| {
        for (i, o) in row.iter_mut().enumerate() {
            *o = input[i * cols + j];
        }
    });
    Ok(())
}
