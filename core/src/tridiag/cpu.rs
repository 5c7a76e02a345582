//! CPU reference: the Thomas algorithm and LU with partial pivoting (LAPACK's gtsv), one
//! system per rayon task, with the same row algebra (`kernels::tridiag::thomas_row`,
//! `lu_solve`) and breakdown rules as the kernels.

use super::{Algorithm, Shape, breakdown};
use crate::{Error, Real, Result};
use kernels::tridiag::{Eq, URow, dominant, lu_solve, row_ok, thomas_row};
use rayon::prelude::*;

/// Equation i of system k as the solvers read it (`a_0 = c_{n−1} = 0`).
#[inline]
fn equation<T: Real>(shape: Shape, k: usize, i: usize, a: &[T], b: &[T], c: &[T], d: &[T]) -> Eq<T> {
    let (n, g) = (shape.n, shape.at(k, i));
    Eq { a: if i == 0 { T::ZERO } else { a[g] }, b: b[g], c: if i + 1 == n { T::ZERO } else { c[g] }, d: d[g] }
}

/// The coefficients of a batch, borrowed.
#[derive(Clone, Copy)]
struct Coeffs<'a, T> {
    shape: Shape,
    a: &'a [T],
    b: &'a [T],
    c: &'a [T],
    d: &'a [T],
}

impl<T: Real> Coeffs<'_, T> {
    fn eq(&self, k: usize, i: usize) -> Eq<T> {
        equation(self.shape, k, i, self.a, self.b, self.c, self.d)
    }
}

/// Thomas on system `k` into `x` (n values, unknown order) with `w` (≥ n values) of scratch.
/// Returns the row to blame: the first whose pivot is unusable or whose c′ or d′ is not
/// finite (where a bad coefficient or an overflow first shows), else the highest row whose x
/// is not finite (the back substitution carries it downwards).
fn thomas_one<T: Real>(s: Coeffs<T>, k: usize, x: &mut [T], w: &mut [T]) -> Option<usize> {
    let n = s.shape.n;
    let (mut cprev, mut dprev) = (T::ZERO, T::ZERO);
    let mut bad = None;
    for i in 0..n {
        let (c1, d1, pivot) = thomas_row(s.eq(k, i), cprev, dprev);
        if !row_ok(pivot, c1, d1) && bad.is_none() {
            bad = Some(i);
        }
        w[i] = c1;
        x[i] = d1;
        (cprev, dprev) = (c1, d1);
    }
    for i in (0..n.saturating_sub(1)).rev() {
        let next = x[i + 1];
        x[i] -= w[i] * next;
    }
    bad.or_else(|| x.iter().rposition(|v| !v.is_finite()))
}

/// LU with partial pivoting on system `k` into `x` (n values), with `w` (≥ 2n values) holding
/// U's superdiagonals. Returns the row to blame (see `lu_solve`).
fn lu_one<T: Real>(s: Coeffs<T>, k: usize, x: &mut [T], w: &mut [T]) -> Option<usize> {
    let n = s.shape.n;
    let (w1, w2) = w.split_at_mut(n);
    // U's y lives in x until the back substitution overwrites it, as in the kernel.
    let x = std::cell::RefCell::new(x);
    let (w1, w2) = (std::cell::RefCell::new(w1), std::cell::RefCell::new(w2));
    let bad = lu_solve(
        n as u32,
        |i| s.eq(k, i as usize),
        |i, u: URow<T>| {
            let i = i as usize;
            w1.borrow_mut()[i] = u.u1;
            w2.borrow_mut()[i] = u.u2;
            x.borrow_mut()[i] = u.y;
        },
        |i| {
            let i = i as usize;
            URow { u1: w1.borrow()[i], u2: w2.borrow()[i], y: x.borrow()[i] }
        },
        |i, v| x.borrow_mut()[i as usize] = v,
        T::ZERO,
    );
    (bad != u32::MAX).then_some(bad as usize)
}

/// A one-system solver: (coefficients, system, x, scratch) → the row to blame.
type SolveOne<T> = fn(Coeffs<T>, usize, &mut [T], &mut [T]) -> Option<usize>;

/// A block of systems solved into contiguous scratch: (first system, x, first failure).
type Solved<T> = (usize, Vec<T>, Option<(usize, usize)>);

/// Solve every system with `one` (scratch of 2n values), `x` in the batch's layout; the first
/// failing (system, row). Where a system's unknowns are consecutive (contiguous, rows) each
/// task solves straight into its line of x; otherwise (interleaved, columns: any strides)
/// blocks of systems are solved into contiguous scratch and scattered through `Shape::at`.
/// Either way only the unknowns are written, never the padding of a padded layout.
fn solve_each<T: Real>(s: Coeffs<T>, x: &mut [T], one: SolveOne<T>) -> Option<(usize, usize)> {
    let shape = s.shape;
    let n = shape.n;
    // A padded field may be longer than the span: nothing past it is the batch's.
    let x = &mut x[..shape.span()];
    match shape.strides() {
        // The last line ends the span, so every chunk holds at least n values.
        (pitch, 1) if !shape.layout.systems_adjacent() => x
            .par_chunks_mut(pitch)
            .enumerate()
            .map_init(|| vec![T::ZERO; 2 * n], |w, (k, xk)| one(s, k, &mut xk[..n], w).map(|i| (k, i)))
            .flatten()
            .min(),
        _ => {
            // Solve into per-block contiguous scratch, then scatter.
            const SYS: usize = 64;
            let blocks: Vec<Solved<T>> = (0..shape.batch.div_ceil(SYS))
                .into_par_iter()
                .map(|blk| {
                    let k0 = blk * SYS;
                    let k1 = (k0 + SYS).min(shape.batch);
                    let mut xs = vec![T::ZERO; (k1 - k0) * n];
                    let mut w = vec![T::ZERO; 2 * n];
                    let mut bad = None;
                    for k in k0..k1 {
                        let xk = &mut xs[(k - k0) * n..(k - k0 + 1) * n];
                        if let Some(i) = one(s, k, xk, &mut w)
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
                for (j, xk) in xs.chunks(n).enumerate() {
                    for (i, &v) in xk.iter().enumerate() {
                        x[shape.at(k0 + j, i)] = v;
                    }
                }
                if first.is_none() {
                    first = bad;
                }
            }
            first
        }
    }
}

/// Solve every system by Thomas: `x` gets the solutions (same layout; a padded layout's
/// padding of x is left as it was). Fails on mismatched lengths (each array holds
/// `shape.span()` values), n = 0, batch = 0, or a breakdown (naming the first failing system
/// and row).
pub fn solve<T: Real>(shape: Shape, a: &[T], b: &[T], c: &[T], d: &[T], x: &mut [T]) -> Result<()> {
    solve_with(Algorithm::Thomas, shape, a, b, c, d, x)
}

/// Solve every system by `alg`, Thomas or LU with partial pivoting (the CPU reference has no
/// other); otherwise as [`solve`].
pub fn solve_with<T: Real>(
    alg: Algorithm,
    shape: Shape,
    a: &[T],
    b: &[T],
    c: &[T],
    d: &[T],
    x: &mut [T],
) -> Result<()> {
    shape.check_lengths(&[("a", a.len()), ("b", b.len()), ("c", c.len()), ("d", d.len()), ("x", x.len())])?;
    let s = Coeffs { shape, a, b, c, d };
    let one: SolveOne<T> = match alg {
        Algorithm::Thomas => thomas_one,
        Algorithm::Lu => lu_one,
        _ => {
            return Err(Error::invalid(format!(
                "the CPU reference solves by thomas or lu; {alg} needs the GPU backend"
            )));
        }
    };
    match solve_each(s, x, one) {
        Some((k, i)) => Err(breakdown(alg, "solve (CPU)", k as u64, i as u64)),
        None => Ok(()),
    }
}

/// [`solve`] writing x over d.
pub fn solve_in_place<T: Real>(shape: Shape, a: &[T], b: &[T], c: &[T], d: &mut [T]) -> Result<()> {
    let rhs = d.to_vec();
    solve(shape, a, b, c, &rhs, d)
}

/// The first (system, row) in index order that is not diagonally dominant
/// (`kernels::tridiag::dominant`), as the GPU's check reports it; None when every row is.
pub fn first_non_dominant<T: Real>(shape: Shape, a: &[T], b: &[T], c: &[T]) -> Option<(usize, usize)> {
    (0..shape.batch).into_par_iter().find_map_first(|k| {
        (0..shape.n).find_map(|i| {
            let e = equation(shape, k, i, a, b, c, b);
            (!dominant(e.a, e.b, e.c)).then_some((k, i))
        })
    })
}
