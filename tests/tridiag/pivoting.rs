//! The CPU reference's LU with partial pivoting: the hard cases (small pivots with a
//! small condition number), random systems that are not diagonally dominant, and exact
//! solutions, each against the plain dense solve with partial pivoting of `cpu.rs`; bad
//! values named at their row by every CPU algorithm; the automatic choice on the CPU.

use super::cpu::{dense_solve, layout, system};
use super::{LU_BACKWARD, LU_FORWARD};
use crate::common::cases;
use hydrokern::runtime::Backend;
use hydrokern::tridiag::{Algorithm, Batch, Choice, Layout, Limits, Shape, Solver, backward_error, cpu};
use hydrokern::{GpuReal, Real};
use kernels::tridiag::{
    Eq, URow, lu_solve, lu_solve_grouped, spike_ends, spike_fill, spike_interior, spike_level_chunks, spike_reduce,
    spike_start,
};
use proptest::prelude::*;
use std::cell::RefCell;

/// ‖A‖∞‖A⁻¹‖∞ of one system, by the dense inverse (Gauss–Jordan with partial pivoting).
fn condition(n: usize, a: &[f64], b: &[f64], c: &[f64]) -> f64 {
    let mut norm_a = 0.0f64;
    for i in 0..n {
        let row = if i > 0 { a[i].abs() } else { 0.0 } + b[i].abs() + if i + 1 < n { c[i].abs() } else { 0.0 };
        norm_a = norm_a.max(row);
    }
    let mut inv_norm = 0.0f64;
    let mut cols = vec![vec![0.0; n]; n];
    for (j, col) in cols.iter_mut().enumerate() {
        let mut e = vec![0.0; n];
        e[j] = 1.0;
        *col = dense_solve(n, a, b, c, &e);
    }
    if cols.iter().flatten().any(|v| !v.is_finite()) {
        return f64::INFINITY; // singular: a zero pivot in the dense solve
    }
    for i in 0..n {
        inv_norm = inv_norm.max(cols.iter().map(|col| col[i].abs()).sum());
    }
    norm_a * inv_norm
}

/// ‖x − want‖∞ / ‖want‖∞ of system k.
fn forward_error<T: Real>(shape: Shape, x: &[T], k: usize, want: &[f64]) -> f64 {
    let got = system(shape, x, k);
    let top = got.iter().zip(want).fold(0.0f64, |m, (g, w)| m.max((g - w).abs()));
    top / want.iter().fold(0.0f64, |m, w| m.max(w.abs()))
}

/// The 2×2 block `[[δ, 1], [1, 1]]` (κ∞ = 4 by itself as δ → 0) ahead of a dominant tail (b = 4,
/// a = c = 1), solution x_i = 2 + sin(i + 1); d = A·x in f64.
fn small_pivot(n: usize, delta: f64) -> (Batch<f64>, Vec<f64>) {
    let shape = Shape::new(n, 1, Layout::Contiguous);
    let (mut a, mut b, mut c) = (vec![1.0; n], vec![4.0; n], vec![1.0; n]);
    (a[0], b[0], c[0], b[1]) = (0.0, delta, 1.0, 1.0);
    c[n - 1] = 0.0;
    let x: Vec<f64> = (0..n).map(|i| (1.0 + i as f64).sin() + 2.0).collect();
    let d = (0..n)
        .map(|i| {
            let l = if i > 0 { a[i] * x[i - 1] } else { 0.0 };
            let r = if i + 1 < n { c[i] * x[i + 1] } else { 0.0 };
            l + b[i] * x[i] + r
        })
        .collect();
    (Batch { shape, a, b, c, d }, x)
}

/// The small-pivot cases: pivot 1e-14 in f64 and 1e-7 in f32, well conditioned (κ∞ ≈ 13 here,
/// 4.5 in docs/tridiag-pivoting.md's 2-norm example). Thomas (no
/// pivoting) loses most digits (forward error ~1e-3 in f64, ~0.2 in f32) and its backward
/// error shows it; LU's forward error is a few ε, like NumPy's (LAPACK's) pivoted solve.
fn small_pivot_case<T: GpuReal>(delta: f64, thomas_at_least: f64) {
    let (b64, x_exact) = small_pivot(12, delta);
    let kappa = condition(12, &b64.a, &b64.b, &b64.c);
    assert!(kappa < 16.0, "κ∞ = {kappa}: the case is meant to be well conditioned");
    let bt = b64.to::<T>();
    let s = bt.shape;
    // The system as rounded to T, solved densely in f64: the reference both solvers face.
    let f = |v: &[T]| system(s, v, 0);
    let dense = dense_solve(12, &f(&bt.a), &f(&bt.b), &f(&bt.c), &f(&bt.d));
    let eps = T::EPSILON.to_f64();
    let mut x = vec![T::ZERO; s.len()];
    cpu::solve_with(Algorithm::Lu, s, &bt.a, &bt.b, &bt.c, &bt.d, &mut x).unwrap();
    let (fe, fe_exact) = (forward_error(s, &x, 0, &dense), forward_error(s, &x, 0, &x_exact));
    assert!(fe <= LU_FORWARD * kappa * eps, "{} lu: forward error {fe:e} against the dense solve", T::NAME);
    // Against the exact solution also the rounding of the coefficients to T counts (κ ε).
    assert!(fe_exact <= 2.0 * LU_FORWARD * kappa * eps, "{} lu: forward error {fe_exact:e}", T::NAME);
    let be = backward_error(s, &bt.a, &bt.b, &bt.c, &bt.d, &x).unwrap();
    assert!(be.value <= LU_BACKWARD * eps, "{} lu: backward error {:e}", T::NAME, be.value);
    // Thomas does return, wrongly: the case is hard, and the check sees it.
    cpu::solve_with(Algorithm::Thomas, s, &bt.a, &bt.b, &bt.c, &bt.d, &mut x).unwrap();
    let fe_thomas = forward_error(s, &x, 0, &dense);
    assert!(fe_thomas >= thomas_at_least, "{} thomas: forward error only {fe_thomas:e}", T::NAME);
    let be = backward_error(s, &bt.a, &bt.b, &bt.c, &bt.d, &x).unwrap();
    assert!(be.value > 1024.0 * eps, "{} thomas: backward error {:e} hides the failure", T::NAME, be.value);
    eprintln!(
        "{} pivot {delta:e}, κ∞ {kappa:.2}: lu forward error {fe:.1e} ({fe_exact:.1e} to the exact x), thomas {fe_thomas:.1e}",
        T::NAME
    );
}

#[test]
fn small_pivots_are_solved_to_a_few_eps_by_lu() {
    small_pivot_case::<f64>(1e-14, 1e-4);
    small_pivot_case::<f32>(1e-7, 1e-2);
    small_pivot_case::<f32>(1e-14, 1e-2);
}

/// Random systems that are not diagonally dominant (dominance 0: |b| ≥ 0.1 + U(0, 1), a, c in
/// [−1, 1]), every one against the dense solve, within κ∞·ε times a constant; and the
/// backward error within a few ε, whatever κ.
fn check_lu_vs_dense<T: GpuReal>(shape: Shape, seed: u64) -> Result<(), TestCaseError> {
    let b64 = Batch::random(shape, seed, 0.0);
    let bt = b64.to::<T>();
    let mut x = vec![T::ZERO; shape.len()];
    cpu::solve_with(Algorithm::Lu, shape, &bt.a, &bt.b, &bt.c, &bt.d, &mut x).unwrap();
    let eps = T::EPSILON.to_f64();
    let be = backward_error(shape, &bt.a, &bt.b, &bt.c, &bt.d, &x).unwrap();
    prop_assert!(be.value <= LU_BACKWARD * eps, "{} {shape:?}: backward error {:e}", T::NAME, be.value);
    for k in 0..shape.batch {
        let s = |v: &[T]| system(shape, v, k);
        let (a, b, c) = (s(&bt.a), s(&bt.b), s(&bt.c));
        let want = dense_solve(shape.n, &a, &b, &c, &s(&bt.d));
        let kappa = condition(shape.n, &a, &b, &c);
        let fe = forward_error(shape, &x, k, &want);
        prop_assert!(
            fe <= LU_FORWARD * kappa * eps,
            "{} {shape:?} system {k}: forward error {fe:e}, κ∞ {kappa:e}",
            T::NAME
        );
    }
    Ok(())
}

/// Exact solutions: integer coefficients in −4..=4 (b ≠ 0, not dominant), x_i small
/// integers, d = A·x exact in either precision; LU's forward error against x within κ∞·ε.
fn check_exact<T: GpuReal>(n: usize, coeffs: &[(i8, i8, i8, i8)]) -> Result<(), TestCaseError> {
    let shape = Shape::new(n, 1, Layout::Contiguous);
    let (mut a, mut b, mut c, mut x) = (vec![0.0; n], vec![0.0; n], vec![0.0; n], vec![0.0; n]);
    for i in 0..n {
        let (ai, bi, ci, xi) = coeffs[i];
        (a[i], b[i], c[i], x[i]) = (ai as f64, if bi == 0 { 1.0 } else { bi as f64 }, ci as f64, xi as f64);
    }
    (a[0], c[n - 1]) = (0.0, 0.0);
    let d: Vec<f64> = (0..n)
        .map(|i| {
            (if i > 0 { a[i] * x[i - 1] } else { 0.0 }) + b[i] * x[i] + if i + 1 < n { c[i] * x[i + 1] } else { 0.0 }
        })
        .collect();
    let kappa = condition(n, &a, &b, &c);
    // A singular (or nearly) draw says nothing about the solver: proptest draws another.
    prop_assume!(kappa.is_finite() && kappa < 1e6);
    prop_assume!(x.iter().any(|v| *v != 0.0));
    let bt = Batch { shape, a, b, c, d }.to::<T>();
    let mut got = vec![T::ZERO; n];
    cpu::solve_with(Algorithm::Lu, shape, &bt.a, &bt.b, &bt.c, &bt.d, &mut got).unwrap();
    let fe = forward_error(shape, &got, 0, &x);
    prop_assert!(
        fe <= LU_FORWARD * kappa * T::EPSILON.to_f64(),
        "{} n {n}: forward error {fe:e}, κ∞ {kappa:e}",
        T::NAME
    );
    Ok(())
}

proptest! {
    #![proptest_config(crate::common::config(cases(64), file!()))]
    #[test]
    fn cpu_lu_matches_dense_on_non_dominant_systems(n in 1usize..40, batch in 1usize..5, layout in layout(), seed: u64) {
        let shape = Shape::new(n, batch, layout);
        check_lu_vs_dense::<f64>(shape, seed)?;
        check_lu_vs_dense::<f32>(shape, seed)?;
    }

    #[test]
    fn cpu_lu_finds_exact_solutions(coeffs in prop::collection::vec((-4i8..=4, -4i8..=4, -4i8..=4, -3i8..=3), 1..30)) {
        check_exact::<f64>(coeffs.len(), &coeffs)?;
        check_exact::<f32>(coeffs.len(), &coeffs)?;
    }
}

/// One system through `lu_solve` (G = 1) or `lu_solve_grouped::<G>`: x, the rows of U as
/// stored, and the row blamed.
fn lu_grouped<const G: usize>(eqs: &[Eq<f32>]) -> (Vec<u32>, Vec<[u32; 3]>, u32) {
    let n = eqs.len();
    let u = RefCell::new(vec![[0u32; 3]; n]);
    let x = RefCell::new(vec![0u32; n]);
    let eq = |i: u32| eqs[i as usize];
    let put = |i: u32, r: URow<f32>| u.borrow_mut()[i as usize] = [r.u1.to_bits(), r.u2.to_bits(), r.y.to_bits()];
    let get = |i: u32| {
        let [u1, u2, y] = u.borrow()[i as usize];
        URow { u1: f32::from_bits(u1), u2: f32::from_bits(u2), y: f32::from_bits(y) }
    };
    let set_x = |i: u32, v: f32| x.borrow_mut()[i as usize] = v.to_bits();
    let bad = if G == 1 {
        lu_solve(n as u32, eq, put, get, set_x, 0.0)
    } else {
        lu_solve_grouped::<f32, f32, G>(n as u32, eq, put, get, set_x, 0.0)
    };
    (x.into_inner(), u.into_inner(), bad)
}

proptest! {
    #![proptest_config(crate::common::config(cases(64), file!()))]
    /// LU loading equations in groups, a group ahead (the GPU kernel's), steps as `lu_solve`
    /// does: the same x, rows of U and blamed row, bit for bit, for every group size, on
    /// lengths that end groups anywhere and systems with a zero pivot or a bad value placed at
    /// random.
    #[test]
    fn lu_in_groups_is_lu_bit_for_bit(
        rows in prop::collection::vec((-4.0f32..4.0, -4.0f32..4.0, -4.0f32..4.0, -4.0f32..4.0), 1..70),
        spoil in prop::option::of((0usize..70, 0usize..5)),
    ) {
        let n = rows.len();
        let mut eqs: Vec<Eq<f32>> = rows
            .iter()
            .enumerate()
            .map(|(i, &(a, b, c, d))| Eq { a: if i == 0 { 0.0 } else { a }, b, c: if i + 1 == n { 0.0 } else { c }, d })
            .collect();
        if let Some((i, what)) = spoil {
            let e = &mut eqs[i % n];
            match what {
                0 => (e.a, e.b) = (0.0, 0.0),
                1 => e.b = f32::NAN,
                2 => e.d = f32::INFINITY,
                3 => e.c = f32::NAN,
                _ => (e.a, e.b, e.c) = (0.0, 0.0, 0.0),
            }
        }
        let one = lu_grouped::<1>(&eqs);
        prop_assert_eq!(&lu_grouped::<2>(&eqs), &one);
        prop_assert_eq!(&lu_grouped::<7>(&eqs), &one);
        prop_assert_eq!(&lu_grouped::<8>(&eqs), &one);
        prop_assert_eq!(&lu_grouped::<16>(&eqs), &one);
    }
}

/// A NaN or infinity in any coefficient of row 7 is named at row 7 by both CPU algorithms
/// (a NaN in d at row 7, not at row 0, where the back substitution ends).
#[test]
fn a_bad_value_is_named_at_its_row() {
    for alg in [Algorithm::Thomas, Algorithm::Lu] {
        for layout in Layout::ALL {
            for array in 0..4 {
                for bad in [f64::NAN, f64::INFINITY] {
                    let shape = Shape::new(12, 4, layout);
                    let mut bt = Batch::random(shape, 3, 2.0);
                    let g = shape.at(2, 7);
                    [&mut bt.a, &mut bt.b, &mut bt.c, &mut bt.d][array][g] = bad;
                    let mut x = vec![0.0; shape.len()];
                    let e = cpu::solve_with(alg, shape, &bt.a, &bt.b, &bt.c, &bt.d, &mut x).unwrap_err().to_string();
                    assert!(
                        e.contains("system 2, row 7"),
                        "{alg} {layout:?} {}[7] = {bad}: {e}",
                        ["a", "b", "c", "d"][array]
                    );
                }
            }
        }
    }
}

/// A singular system is refused by LU, naming the system; a zero diagonal it pivots past.
#[test]
fn lu_refuses_a_singular_system_and_pivots_past_a_zero_diagonal() {
    let shape = Shape::new(6, 3, Layout::Interleaved);
    let mut bt = Batch::random(shape, 5, 0.0);
    // System 1: row 3 all zero (singular).
    for (v, i) in [(&mut bt.a, 3), (&mut bt.b, 3), (&mut bt.c, 3)] {
        v[shape.at(1, i)] = 0.0;
    }
    let mut x = vec![0.0; shape.len()];
    let e = cpu::solve_with(Algorithm::Lu, shape, &bt.a, &bt.b, &bt.c, &bt.d, &mut x).unwrap_err().to_string();
    assert!(e.contains("system 1, row") && e.contains("singular"), "{e}");
    // b_0 = 0 with a regular matrix: Thomas breaks down, LU pivots.
    let mut bt = Batch::random(shape, 5, 2.0);
    bt.b[shape.at(0, 0)] = 0.0;
    assert!(cpu::solve_with(Algorithm::Thomas, shape, &bt.a, &bt.b, &bt.c, &bt.d, &mut x).is_err());
    cpu::solve_with(Algorithm::Lu, shape, &bt.a, &bt.b, &bt.c, &bt.d, &mut x).unwrap();
    assert!(bt.residual(&x) < 1e-14);
}

/// On the CPU the automatic choice runs Thomas on a dominant batch and LU on one with a row
/// that is not; forcing an algorithm the CPU lacks is refused.
#[test]
fn cpu_auto_pivots_only_where_dominance_fails() {
    let shape = Shape::new(30, 5, Layout::Contiguous);
    let backend = Backend::Cpu { why: None };
    let mut s = Solver::<f64>::new(&backend, shape).unwrap();
    let easy = Batch::random(shape, 2, 1.0);
    assert_eq!(cpu::first_non_dominant(shape, &easy.a, &easy.b, &easy.c), None);
    let (_, alg) = s.solve(Choice::Auto, &easy.a, &easy.b, &easy.c, &easy.d).unwrap();
    assert_eq!(alg, Algorithm::Thomas);
    let mut hard = easy.clone();
    hard.b[shape.at(3, 17)] = 0.5 * (hard.a[shape.at(3, 17)].abs() + hard.c[shape.at(3, 17)].abs());
    assert_eq!(cpu::first_non_dominant(shape, &hard.a, &hard.b, &hard.c), Some((3, 17)));
    let (x, alg) = s.solve(Choice::Auto, &hard.a, &hard.b, &hard.c, &hard.d).unwrap();
    assert_eq!(alg, Algorithm::Lu);
    let mut want = vec![0.0; shape.len()];
    cpu::solve_with(Algorithm::Lu, shape, &hard.a, &hard.b, &hard.c, &hard.d, &mut want).unwrap();
    assert_eq!(x, want);
    let e = s.solve(Choice::Force(Algorithm::Pcr), &easy.a, &easy.b, &easy.c, &easy.d).unwrap_err().to_string();
    assert!(e.contains("thomas or lu"), "{e}");
}

/// Equation i of system k of `host` as the kernels load it (`a_0 = c_{n−1} = 0`).
fn equation<T: Real>(host: &Batch<T>, k: usize, i: u32) -> Eq<T> {
    let (shape, n) = (host.shape, host.shape.n as u32);
    let g = shape.at(k, i as usize);
    Eq {
        a: if i == 0 { T::ZERO } else { host.a[g] },
        b: host.b[g],
        c: if i + 1 == n { T::ZERO } else { host.c[g] },
        d: host.d[g],
    }
}

/// The one-block `tridiag_spike`'s algebra on the CPU, system by system, with its chunking:
/// every chunk reduced (`spike_reduce`), the reduced system solved by LU, the chunks filled
/// in (`spike_fill`). Returns x (the batch's layout), or the first (system, row) to blame.
pub fn spike_one_block<T: Real>(host: &Batch<T>, chunks: u32) -> Result<Vec<T>, (usize, u32)> {
    let shape = host.shape;
    let n = shape.n as u32;
    let mut x = vec![T::NAN; shape.span()];
    for k in 0..shape.batch {
        let eq = |i: u32| equation(host, k, i);
        let work = RefCell::new(vec![URow { u1: T::ZERO, u2: T::ZERO, y: [T::ZERO; 3] }; n as usize]);
        let mut reduced = Vec::new();
        if n == 1 {
            reduced.push(eq(0));
        }
        for j in 0..chunks {
            let f = spike_start(n, chunks, j);
            let len = spike_start(n, chunks, j + 1) - f;
            if len < 2 {
                continue;
            }
            let (first, last, bad) = spike_reduce(
                len,
                |r| eq(f + r),
                |r, u| work.borrow_mut()[(f + r) as usize] = u,
                |r| work.borrow()[(f + r) as usize],
                |r, v| work.borrow_mut()[(f + r) as usize].y = v,
            );
            if bad != u32::MAX {
                return Err((k, f + bad));
            }
            reduced.extend([first, last]);
        }
        let m = reduced.len() as u32;
        let u = RefCell::new(vec![URow { u1: T::ZERO, u2: T::ZERO, y: T::ZERO }; m as usize]);
        let z = RefCell::new(vec![T::ZERO; m as usize]);
        let bad = lu_solve(
            m,
            |q| reduced[q as usize],
            |q, r| u.borrow_mut()[q as usize] = r,
            |q| u.borrow()[q as usize],
            |q, v| z.borrow_mut()[q as usize] = v,
            T::ZERO,
        );
        if bad != u32::MAX {
            return Err((k, spike_row(n, chunks, bad)));
        }
        let z = z.into_inner();
        for j in 0..chunks {
            let f = spike_start(n, chunks, j);
            let len = spike_start(n, chunks, j + 1) - f;
            let (xf, xl) = if n == 1 { (z[0], z[0]) } else { (z[2 * j as usize], z[2 * j as usize + 1]) };
            for r in 0..len {
                let v = if r == 0 {
                    xf
                } else if r + 1 == len {
                    xl
                } else {
                    spike_fill(work.borrow()[(f + r) as usize].y, xf, xl)
                };
                x[shape.at(k, (f + r) as usize)] = v;
            }
        }
    }
    Ok(x)
}

/// The row of a system of n cut into `chunks` that its reduced equation q stands for.
fn spike_row(n: u32, chunks: u32, q: u32) -> u32 {
    let j = q / 2;
    if q.is_multiple_of(2) { spike_start(n, chunks, j) } else { spike_start(n, chunks, j + 1) - 1 }
}

/// `tridiag_spike_reduce` on the CPU: every chunk's two reduced equations (`spike_ends`) as
/// the next level's systems (contiguous, 2·chunks unknowns each), or the (system, row) to blame.
pub fn spike_level_reduce<T: Real>(host: &Batch<T>, chunks: u32) -> Result<Batch<T>, (usize, u32)> {
    let (shape, n, m) = (host.shape, host.shape.n as u32, 2 * chunks as usize);
    let rs = Shape::new(m, shape.batch, Layout::Contiguous);
    let zero = vec![T::ZERO; rs.len()];
    let mut r = Batch { shape: rs, a: zero.clone(), b: zero.clone(), c: zero.clone(), d: zero };
    for k in 0..shape.batch {
        for j in 0..chunks {
            let f = spike_start(n, chunks, j);
            let len = spike_start(n, chunks, j + 1) - f;
            let (first, last, bad) = spike_ends(len, |i| equation(host, k, f + i));
            if bad != u32::MAX {
                return Err((k, f + bad));
            }
            for (q, e) in [(k * m + 2 * j as usize, first), (k * m + 2 * j as usize + 1, last)] {
                (r.a[q], r.b[q], r.c[q], r.d[q]) = (e.a, e.b, e.c, e.d);
            }
        }
    }
    Ok(r)
}

/// `tridiag_spike_fill` on the CPU: every chunk's interior from its ends (`spike_interior`),
/// the ends being the solution of the next level's systems (`ends`, contiguous).
pub fn spike_level_fill<T: Real>(host: &Batch<T>, chunks: u32, ends: &[T]) -> Result<Vec<T>, (usize, u32)> {
    let (shape, n, m) = (host.shape, host.shape.n as u32, 2 * chunks as usize);
    let mut x = vec![T::NAN; shape.span()];
    for k in 0..shape.batch {
        for j in 0..chunks {
            let f = spike_start(n, chunks, j);
            let len = spike_start(n, chunks, j + 1) - f;
            let (xf, xl) = (ends[k * m + 2 * j as usize], ends[k * m + 2 * j as usize + 1]);
            let at = |r: u32| shape.at(k, (f + r) as usize);
            (x[at(0)], x[at(len - 1)]) = (xf, xl);
            if len > 2 {
                let u = RefCell::new(vec![URow { u1: T::ZERO, u2: T::ZERO, y: T::ZERO }; len as usize]);
                let x = RefCell::new(&mut x);
                let bad = spike_interior(
                    len,
                    |r| equation(host, k, f + r),
                    xf,
                    xl,
                    |r, v| u.borrow_mut()[r as usize] = v,
                    |r| u.borrow()[r as usize],
                    |r, v| x.borrow_mut()[at(r)] = v,
                );
                if bad != u32::MAX {
                    return Err((k, f + bad));
                }
            }
        }
    }
    Ok(x)
}

/// SPIKE's algebra on the CPU: the multi-block levels with `levels` chunks each (top first),
/// then the one-block kernel with `bottom_chunks` on the last reduced systems, then the fills
/// back up. Returns x and the reduced systems of the levels below the top (for their chunk
/// interiors' condition), or the (system, row of the original system) to blame.
pub type SpikeRun<T> = (Vec<T>, Vec<Batch<T>>);
pub fn spike_emulated<T: Real>(
    host: &Batch<T>,
    levels: &[u32],
    bottom_chunks: u32,
) -> Result<SpikeRun<T>, (usize, u32)> {
    let Some((&chunks, rest)) = levels.split_first() else {
        return spike_one_block(host, bottom_chunks).map(|x| (x, Vec::new()));
    };
    let reduced = spike_level_reduce(host, chunks)?;
    let n = host.shape.n as u32;
    let (ends, mut below) =
        spike_emulated(&reduced, rest, bottom_chunks).map_err(|(k, q)| (k, spike_row(n, chunks, q)))?;
    let x = spike_level_fill(host, chunks, &ends)?;
    below.insert(0, reduced);
    Ok((x, below))
}

/// SPIKE's algebra chunked as the GPU plans it for n (`Limits::spike_levels`, `spike_chunks`).
pub fn spike_as_planned<T: Real>(host: &Batch<T>) -> Result<SpikeRun<T>, (usize, u32)> {
    let levels = Limits::spike_levels(host.shape.n);
    let bottom_n = levels.last().map_or(host.shape.n, |p| 2 * *p as usize);
    spike_emulated(host, &levels, Limits::spike_chunks(bottom_n))
}

/// Multi-block levels of `depth` at most over a system of n: `SPIKE_ROWS`-row chunks as the GPU
/// cuts them, while the system has at least 4 rows (smaller than the GPU's threshold, so that
/// small systems exercise every level's algebra), and the last system's length.
fn small_levels(n: usize, depth: usize) -> (Vec<u32>, usize) {
    let (mut levels, mut m) = (Vec::new(), n as u32);
    while levels.len() < depth && m >= 4 {
        levels.push(spike_level_chunks(m));
        m = 2 * spike_level_chunks(m);
    }
    (levels, m as usize)
}

proptest! {
    #![proptest_config(crate::common::config(cases(64), file!()))]
    /// SPIKE's algebra, chunked as the kernels chunk (one block, with other chunk counts, and
    /// zero to two multi-block levels above it), against the dense solve on non-dominant
    /// systems: forward error within κ∞·ε when every chunk's interior is well conditioned. A
    /// random non-dominant chunk interior can be near singular (SPIKE's known weakness), which
    /// the backward error shows: such a draw is rejected (proptest draws another, and fails
    /// when too many are), the forward error checked on the rest.
    #[test]
    fn spike_algebra_matches_dense(n in 1usize..120, batch in 1usize..4, layout in layout(), extra in 0u32..4, depth in 0usize..3, seed: u64) {
        let shape = Shape::new(n, batch, layout);
        let host = Batch::random(shape, seed, 0.0);
        let (levels, m) = small_levels(n, depth);
        let chunks = (Limits::spike_chunks(m) + extra).min((m as u32 / 2).max(1));
        let (x, _) = spike_emulated(&host, &levels, chunks)
            .map_err(|(k, i)| TestCaseError::fail(format!("{shape:?}, levels {levels:?}, {chunks} chunks: breakdown at system {k}, row {i}")))?;
        let be = backward_error(shape, &host.a, &host.b, &host.c, &host.d, &x).unwrap();
        prop_assume!(be.value <= LU_BACKWARD * f64::EPSILON);
        for k in 0..batch {
            let s = |v: &[f64]| system(shape, v, k);
            let (a, b, c) = (s(&host.a), s(&host.b), s(&host.c));
            let want = dense_solve(n, &a, &b, &c, &s(&host.d));
            let kappa = condition(n, &a, &b, &c);
            let fe = forward_error(shape, &x, k, &want);
            prop_assert!(fe <= LU_FORWARD * kappa * f64::EPSILON, "{shape:?} system {k}, levels {levels:?}, {chunks} chunks: forward error {fe:e}, κ∞ {kappa:e}");
        }
    }
}

/// SPIKE on the small pivot (row 0) under several chunkings, with and without
/// multi-block levels: the reduced systems' pivoting (row 0 is a chunk's first row) keeps it
/// to a few ε, as LU's does.
#[test]
fn spike_algebra_pivots_past_small_pivots() {
    let (base, x_exact) = small_pivot(40, 1e-14);
    for depth in 0..3 {
        let (levels, m) = small_levels(40, depth);
        for chunks in [1, 2, 4, 6, 13, 20].into_iter().filter(|c| *c <= (m as u32 / 2).max(1)) {
            let (x, _) = spike_emulated(&base, &levels, chunks).unwrap();
            let fe = forward_error(base.shape, &x, 0, &x_exact);
            assert!(fe <= 16.0 * LU_FORWARD * f64::EPSILON, "levels {levels:?}, {chunks} chunks: forward error {fe:e}");
        }
    }
}

/// SPIKE's algebra as the GPU plans it (two multi-block levels at n = 2¹⁶, then one block on
/// 1024 rows) on long random non-dominant systems: the backward error of a stable solve. The
/// chunks' 14-row interiors are sometimes ill conditioned (up to κ ≈ 10⁷ among 4096 chunks),
/// which SPIKE's error bound multiplies in; measured here: 0.3–2 ε in f32 (LU: 0.07–0.26 ε).
#[test]
fn spike_levels_are_backward_stable_on_long_systems() {
    for seed in 1..4 {
        let shape = Shape::new(1 << 16, 1, Layout::Contiguous);
        let host = Batch::random(shape, seed, 0.0);
        assert_eq!(Limits::spike_levels(shape.n), [4096, 512]);
        let (x, _) = spike_as_planned(&host).unwrap();
        let be = backward_error(shape, &host.a, &host.b, &host.c, &host.d, &x).unwrap().value;
        assert!(be <= LU_BACKWARD * f64::EPSILON, "f64 seed {seed}: backward error {be:e}");
        let h32 = host.to::<f32>();
        let (x, _) = spike_as_planned(&h32).unwrap();
        let be = backward_error(shape, &h32.a, &h32.b, &h32.c, &h32.d, &x).unwrap().value;
        assert!(be <= LU_BACKWARD * f32::EPSILON as f64, "f32 seed {seed}: backward error {be:e}");
    }
}

/// SPIKE's algebra with the GPU's levels names a NaN in a, b, c or d at its row, inside a
/// chunk, at a chunk's first row and at the last row of the chunk before (the GPU test
/// `gpu_spike_levels_name_a_bad_value_at_its_row` checks the kernels the same way).
#[test]
fn spike_levels_name_a_bad_value_at_its_row() {
    for (n, layout) in [(5000, Layout::Contiguous), (20_000, Layout::Interleaved)] {
        let shape = Shape::new(n, 3, layout);
        let start = spike_start(n as u32, Limits::spike_levels(n)[0], 100) as usize;
        for row in [7, start, start - 1] {
            for array in 0..4 {
                let mut host = Batch::random(shape, 3, 2.0);
                [&mut host.a, &mut host.b, &mut host.c, &mut host.d][array][shape.at(1, row)] = f64::NAN;
                let got = spike_as_planned(&host).map(|_| ()).unwrap_err();
                assert_eq!(got, (1, row as u32), "n {n} {layout:?} array {array}");
            }
        }
    }
}
