//! CPU reference transpose (rayon over output rows).

use crate::Result;
use rayon::prelude::*;

/// `out[j·rows + i] = input[i·cols + j]`.
pub fn transpose<T: Copy + Send + Sync>(rows: usize, cols: usize, input: &[T], out: &mut [T]) -> Result<()> {
    super::check(rows, cols, input.len(), out.len())?;
    transpose_pitched(rows, cols, (input, cols), (out, rows))
}

/// `out[j·out_pitch + i] = input[i·in_pitch + j]` for i < rows, j < cols; the rest of `out`
/// (between its rows' ends and the next rows) is left as it is.
pub fn transpose_pitched<T: Copy + Send + Sync>(
    rows: usize,
    cols: usize,
    (input, in_pitch): (&[T], usize),
    (out, out_pitch): (&mut [T], usize),
) -> Result<()> {
    super::check_pitched(rows, cols, (input.len(), in_pitch), (out.len(), out_pitch))?;
    out.par_chunks_mut(out_pitch).take(cols).enumerate().for_each(|(j, row)| {
        for (i, o) in row[..rows].iter_mut().enumerate() {
            *o = input[i * in_pitch + j];
        }
    });
    Ok(())
}
