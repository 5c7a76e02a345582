//! CPU reference of the 8th-order periodic derivative (rayon over rows or planes).
//!
//! Each output point is `d8` of its 9 periodic neighbours along the direction, read
//! straight from the input: the plainest statement of the stencil, which the GPU variants are
//! tested against.

use super::{Direction, Grid3, HALO, PeriodicGrid, d8};
use crate::{Error, Real, Result};
use rayon::prelude::*;

/// `df = ∂f/∂dir` on the periodic `grid`. Errors on an invalid grid (a dimension below 9)
/// or buffers of the wrong length.
pub fn derivative<T: Real>(grid: Grid3, dir: Direction, f: &[T], df: &mut [T]) -> Result<()> {
    grid.validate_periodic()?;
    if f.len() != grid.len() || df.len() != grid.len() {
        return Err(Error::invalid(format!(
            "fd3d: input of {} and output of {} values for a {grid} grid of {} points",
            f.len(),
            df.len(),
            grid.len()
        )));
    }
    let c = grid.coef::<T>(dir);
    let (mx, my, mz) = (grid.nx, grid.ny, grid.nz);
    let h = HALO as usize;
    // Periodic index of `i + o - 4` for o in 0..9.
    let wrap = |i: usize, o: usize, m: usize| (i + o + m - h) % m;
    match dir {
        Direction::X => df.par_chunks_mut(mx).zip(f.par_chunks(mx)).with_min_len(64).for_each(|(out, row)| {
            // Interior points read a window of the row; the 4 at either end wrap.
            for (o, w) in out[h..mx - h].iter_mut().zip(row.windows(2 * h + 1)) {
                *o = d8(&c, w.try_into().expect("windows of 9"));
            }
            for i in (0..h).chain(mx - h..mx) {
                out[i] = d8(&c, &std::array::from_fn(|t| row[wrap(i, t, mx)]));
            }
        }),
        Direction::Y => {
            let plane = mx * my;
            df.par_chunks_mut(mx).enumerate().with_min_len(16).for_each(|(r, out)| {
                let (j, k) = (r % my, r / my);
                let src = &f[k * plane..][..plane];
                let rows: [&[T]; 9] = std::array::from_fn(|t| &src[wrap(j, t, my) * mx..][..out.len()]);
                for (i, o) in out.iter_mut().enumerate() {
                    *o = d8(&c, &std::array::from_fn(|t| rows[t][i]));
                }
            })
        }
        Direction::Z => {
            let plane = mx * my;
            df.par_chunks_mut(mx).enumerate().with_min_len(16).for_each(|(r, out)| {
                let (j, k) = (r % my, r / my);
                let rows: [&[T]; 9] = std::array::from_fn(|t| &f[wrap(k, t, mz) * plane + j * mx..][..out.len()]);
                for (i, o) in out.iter_mut().enumerate() {
                    *o = d8(&c, &std::array::from_fn(|t| rows[t][i]));
                }
            })
        }
    }
    Ok(())
}
