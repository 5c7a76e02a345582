//! CPU reference: the Thomas algorithm, one system per rayon task, with the same row algebra
//! (`kernels::tridiag::thomas_row`) and breakdown rule as the kernels.

use super::{Shape, breakdown};
use crate::{Real, Result};
use kernels::tridiag::{Eq, pivot_ok, thomas_row};
use rayon::prelude::*;

/// Solve system `k` into `x_k` (n values, unknown order) and `cp` (n values of scratch).
/// Returns the first failing row.
#[allow(clippy::too_many_arguments)]
fn thomas_one<T: Real>(
    shape: Shape,
    k: usize,
    a: &[T],
    b: &[T],
    c: &[T],
    d: &[T],
    x: &mut [T],
    cp: &mut [T],
) -> Option<usize> {
    let n = shape.n;
    let (mut cprev, mut dprev) = (T::ZERO, T::ZERO);
    let mut bad = None;
    for i in 0..n {
        let g = shape.at(k, i);
        let e =
            Eq { a: if i == 0 { T::ZERO } else { a[g] }, b: b[g], c: if i + 1 == n { T::ZERO } else { c[g] }, d: d[g] };
        let (c1, d1, pivot) = thomas_row(e, cprev, dprev);
        if !pivot_ok(pivot) && bad.is_none() {
            bad = Some(i);
        }
        cp[i] = c1;
        x[i] = d1;
        (cprev, dprev) = (c1, d1);
    }
    for i in (0..n.saturating_sub(1)).rev() {
        let next = x[i + 1];
        x[i] -= cp[i] * next;
    }
    if bad.is_none() {
        bad = x.iter().position(|v| !v.is_finite());
    }
    bad
}

/// A block of systems solved into contiguous scratch: (first system, x, first failure).
type Solved<T> = (usize, Vec<T>, Option<(usize, usize)>);

/// Solve every system: `x` gets the solutions (same layout). Fails on mismatched lengths,
/// n = 0, batch = 0, or a breakdown (naming the first failing system and row).
pub fn solve<T: Real>(shape: Shape, a: &[T], b: &[T], c: &[T], d: &[T], x: &mut [T]) -> Result<()> {
    shape.check_lengths(&[("a", a.len()), ("b", b.len()), ("c", c.len()), ("d", d.len()), ("x", x.len())])?;
    let n = shape.n;
    let bad = match shape.layout {
        super::Layout::Contiguous => x
            .par_chunks_mut(n)
            .enumerate()
            .map_init(|| vec![T::ZERO; n], |cp, (k, xk)| thomas_one(shape, k, a, b, c, d, xk, cp).map(|i| (k, i)))
            .flatten()
            .min(),
        super::Layout::Interleaved => {
            // Solve into per-block contiguous scratch, then scatter.
            const SYS: usize = 64;
            let blocks: Vec<Solved<T>> = (0..shape.batch.div_ceil(SYS))
                .into_par_iter()
                .map(|blk| {
                    let k0 = blk * SYS;
                    let k1 = (k0 + SYS).min(shape.batch);
                    let mut xs = vec![T::ZERO; (k1 - k0) * n];
                    let mut cp = vec![T::ZERO; n];
                    let mut bad = None;
                    for k in k0..k1 {
                        let xk = &mut xs[(k - k0) * n..(k - k0 + 1) * n];
                        if let Some(i) = thomas_one(shape, k, a, b, c, d, xk, &mut cp)
                            && bad.is_none()
                        {
                            bad = Some((k, i));
                        }
                    }
                    (k0, xs, bad)
                })
                .collect();
            let mut first = None;
            for (k0, xs, bad) in blocks {
                for (s, xk) in xs.chunks(n).enumerate() {
                    for (i, &v) in xk.iter().enumerate() {
                        x[shape.at(k0 + s, i)] = v;
                    }
                }
                if first.is_none() {
                    first = bad;
                }
            }
            first
        }
    };
    match bad {
        Some((k, i)) => Err(breakdown("solve (CPU Thomas)", k as u64, i as u64)),
        None => Ok(()),
    }
}

/// [`solve`] writing x over d.
pub fn solve_in_place<T: Real>(shape: Shape, a: &[T], b: &[T], c: &[T], d: &mut [T]) -> Result<()> {
    let rhs = d.to_vec();
    solve(shape, a, b, c, &rhs, d)
}
