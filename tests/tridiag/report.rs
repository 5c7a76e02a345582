//! What a tridiagonal run reports and writes: the check's lines, and solutions in (batch, n)
//! order whatever the layout.

use hydrokern::tridiag::{Algorithm, Batch, Layout, Shape, as_rows, check_lines, cpu};
use std::borrow::Cow;

/// The check: quiet for LU on a hard system, a warning naming the system and the
/// non-dominant row for Thomas on it (which returns a wrong x without a breakdown).
#[test]
fn the_check_warns_with_the_system_where_pivoting_was_needed() {
    let shape = Shape::new(10, 4, Layout::Contiguous);
    let mut batch = Batch::try_random(shape, 2, 2.0).unwrap();
    // System 2: a tiny pivot at row 0 ([[δ, 1], [1, b₁]]): Thomas divides by it.
    let g = shape.at(2, 0);
    (batch.b[g], batch.c[g], batch.a[g + 1]) = (1e-14, 1.0, 1.0);
    let mut x = vec![0.0; shape.len()];
    cpu::solve_with(Algorithm::Lu, shape, &batch.a, &batch.b, &batch.c, &batch.d, &mut x).unwrap();
    let lines = check_lines::<f64>(&batch, &x, Algorithm::Lu).unwrap();
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert!(lines[0].starts_with("check: worst backward error"), "{lines:?}");
    cpu::solve_with(Algorithm::Thomas, shape, &batch.a, &batch.b, &batch.c, &batch.d, &mut x).unwrap();
    let lines = check_lines::<f64>(&batch, &x, Algorithm::Thomas).unwrap();
    assert_eq!(lines.len(), 2, "{lines:?}");
    assert!(lines[1].starts_with("warning: system 2:"), "{lines:?}");
    assert!(lines[1].contains("system 2 is not diagonally dominant at row 0") && lines[1].contains("lu"), "{lines:?}");
}

#[test]
fn rows_come_back_in_batch_n_order() {
    let s = Shape::new(3, 2, Layout::Interleaved);
    // Interleaved: unknown i of system k at i·2 + k.
    let v = [0, 10, 1, 11, 2, 12];
    assert_eq!(&*as_rows(s, &v).unwrap(), &[0, 1, 2, 10, 11, 12]);
    let s = Shape::new(3, 2, Layout::Contiguous);
    assert!(matches!(as_rows(s, &v).unwrap(), Cow::Borrowed(_)));
}
