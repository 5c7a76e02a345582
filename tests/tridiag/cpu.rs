//! The CPU reference against dense LU; layouts and in-place solves agree.

use super::{RESIDUAL, THOMAS_VS_LU};
use crate::common::{Tolerance, cases, magnitude};
use hydrokern::tridiag::{Batch, Layout, Shape, cpu};
use hydrokern::{GpuReal, Real};
use proptest::prelude::*;

/// Dense LU with partial pivoting of one system, in f64.
pub fn dense_solve(n: usize, a: &[f64], b: &[f64], c: &[f64], d: &[f64]) -> Vec<f64> {
    let mut m = vec![vec![0.0; n + 1]; n];
    for i in 0..n {
        if i > 0 {
            m[i][i - 1] = a[i];
        }
        m[i][i] = b[i];
        if i + 1 < n {
            m[i][i + 1] = c[i];
        }
        m[i][n] = d[i];
    }
    for col in 0..n {
        let p = (col..n).max_by(|&x, &y| m[x][col].abs().total_cmp(&m[y][col].abs())).unwrap();
        m.swap(col, p);
        for r in col + 1..n {
            let f = m[r][col] / m[col][col];
            let pivot_row = m[col].clone();
            for (v, p) in m[r][col..].iter_mut().zip(&pivot_row[col..]) {
                *v -= f * p;
            }
        }
    }
    let mut x = vec![0.0; n];
    for i in (0..n).rev() {
        let s: f64 = (i + 1..n).map(|k| m[i][k] * x[k]).sum();
        x[i] = (m[i][n] - s) / m[i][i];
    }
    x
}

/// One system of a batch, in unknown order, as f64.
pub fn system<T: Real>(shape: Shape, v: &[T], k: usize) -> Vec<f64> {
    (0..shape.n).map(|i| v[shape.at(k, i)].to_f64()).collect()
}

fn check_cpu_vs_lu<T: GpuReal>(shape: Shape, seed: u64) -> Result<(), TestCaseError> {
    let b64 = Batch::random(shape, seed, 2.0);
    let bt = b64.to::<T>();
    let mut x = vec![T::ZERO; shape.len()];
    cpu::solve(shape, &bt.a, &bt.b, &bt.c, &bt.d, &mut x).unwrap();
    let r = bt.residual(&x);
    prop_assert!(r <= RESIDUAL * T::EPSILON.to_f64(), "{} {shape:?}: residual {r:e}", T::NAME);
    for k in 0..shape.batch {
        // The reference solves the systems as rounded to T.
        let s = |v: &[T]| system(shape, v, k);
        let want = dense_solve(shape.n, &s(&bt.a), &s(&bt.b), &s(&bt.c), &s(&bt.d));
        let got = s(&x);
        // Compared in f64, the bound in T's ε.
        let bound = THOMAS_VS_LU.scaled(magnitude(&want)).bound::<T>();
        Tolerance::abs(bound).check(&format!("{} {shape:?} system {k}: Thomas vs LU", T::NAME), &got, &want)?;
    }
    Ok(())
}

pub fn layout() -> impl Strategy<Value = Layout> {
    prop::sample::select(Layout::ALL.to_vec())
}

proptest! {
    #![proptest_config(crate::common::config(cases(64), file!()))]
    #[test]
    fn cpu_thomas_matches_dense_lu(n in 1usize..48, batch in 1usize..6, layout in layout(), seed: u64) {
        let shape = Shape::new(n, batch, layout);
        check_cpu_vs_lu::<f64>(shape, seed)?;
        check_cpu_vs_lu::<f32>(shape, seed)?;
    }
}

#[test]
fn cpu_in_place_equals_separate_output_and_layouts_agree() {
    let shape = Shape::new(37, 11, Layout::Contiguous);
    let b = Batch::random(shape, 5, 2.0);
    let mut x = vec![0.0; shape.len()];
    cpu::solve(shape, &b.a, &b.b, &b.c, &b.d, &mut x).unwrap();
    let mut d = b.d.clone();
    cpu::solve_in_place(shape, &b.a, &b.b, &b.c, &mut d).unwrap();
    assert_eq!(x, d);
    let bi = b.relayout(Layout::Interleaved);
    let mut xi = vec![0.0; shape.len()];
    cpu::solve(bi.shape, &bi.a, &bi.b, &bi.c, &bi.d, &mut xi).unwrap();
    for k in 0..shape.batch {
        for i in 0..shape.n {
            assert_eq!(x[shape.at(k, i)], xi[bi.shape.at(k, i)]);
        }
    }
}
