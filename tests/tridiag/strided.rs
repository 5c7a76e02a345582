//! The padded layouts (`Layout::Rows`, `Layout::Columns`: the lines of a padded 2-D field) on
//! the CPU: each system packed out of the field by the test's own index formula and solved by
//! a plain Thomas written here agrees with the CPU reference's strided solve; the strided solve
//! is bit for bit the packed contiguous one; the padding (NaN) is never read and never
//! written; sizes, pitches and lengths that do not fit are refused in one line. The GPU side
//! is in `gpu.rs` (`tridiag_gpu_matches_cpu` draws padded layouts too).

use super::THOMAS_VS_LU;
use crate::common::{Tolerance, cases, magnitude};
use hydrokern::tridiag::{Algorithm, Batch, Layout, Shape, cpu};
use hydrokern::{GpuReal, Real};
use proptest::prelude::*;

/// A layout drawn for (n, batch): contiguous, interleaved, or rows/columns with `extra`
/// values of padding per line; built once the sizes are known (the GPU tests clip them).
#[derive(Clone, Copy, Debug)]
pub enum Pick {
    Plain(Layout),
    Rows(usize),
    Columns(usize),
}

impl Pick {
    pub fn layout(self, n: usize, batch: usize) -> Layout {
        match self {
            Pick::Plain(l) => l,
            Pick::Rows(extra) => Layout::Rows { pitch: n + extra },
            Pick::Columns(extra) => Layout::Columns { pitch: batch + extra },
        }
    }
}

/// Padding per line: none (pitch = the line), one, an odd few, a warp's worth, or any.
fn extra() -> impl Strategy<Value = usize> {
    prop_oneof![prop::sample::select(vec![0usize, 1, 3, 31, 32, 33]), 0usize..100]
}

/// Every layout, the padded ones with random padding.
pub fn pick() -> impl Strategy<Value = Pick> {
    prop_oneof![
        prop::sample::select(Layout::ALL.to_vec()).prop_map(Pick::Plain),
        extra().prop_map(Pick::Rows),
        extra().prop_map(Pick::Columns),
    ]
}

/// The offset of unknown i of system k, written out here rather than taken from `Shape::at`.
fn offset(layout: Layout, n: usize, batch: usize, k: usize, i: usize) -> usize {
    match layout {
        Layout::Contiguous => k * n + i,
        Layout::Interleaved => i * batch + k,
        Layout::Rows { pitch } => k * pitch + i,
        Layout::Columns { pitch } => i * pitch + k,
    }
}

/// Which offsets below `len` hold an unknown.
pub fn unknowns(shape: Shape, len: usize) -> Vec<bool> {
    let mut used = vec![false; len];
    for k in 0..shape.batch {
        for i in 0..shape.n {
            used[offset(shape.layout, shape.n, shape.batch, k, i)] = true;
        }
    }
    used
}

/// Offsets of `v` that are padding and whose bits differ from `want`'s (the first few).
pub fn padding_changed<T: Real>(shape: Shape, got: &[T], want: &[T]) -> Vec<usize> {
    let used = unknowns(shape, got.len());
    (0..got.len()).filter(|&g| !used[g] && got[g].to_f64().to_bits() != want[g].to_f64().to_bits()).take(5).collect()
}

/// The textbook Thomas algorithm on one packed system, in f64.
fn plain_thomas(a: &[f64], b: &[f64], c: &[f64], d: &[f64]) -> Vec<f64> {
    let n = b.len();
    let (mut cp, mut dp) = (vec![0.0; n], vec![0.0; n]);
    for i in 0..n {
        let ai = if i == 0 { 0.0 } else { a[i] };
        let ci = if i + 1 == n { 0.0 } else { c[i] };
        let (cprev, dprev) = if i == 0 { (0.0, 0.0) } else { (cp[i - 1], dp[i - 1]) };
        let m = b[i] - ai * cprev;
        cp[i] = ci / m;
        dp[i] = (d[i] - ai * dprev) / m;
    }
    let mut x = dp.clone();
    for i in (0..n.saturating_sub(1)).rev() {
        x[i] = dp[i] - cp[i] * x[i + 1];
    }
    x
}

/// `v` grown to a whole field of lines·pitch values (NaN past the span), as a model hands its
/// field over; unpadded layouts stay as they are.
fn whole_field<T: Real>(shape: Shape, mut v: Vec<T>) -> Vec<T> {
    let lines = match shape.layout {
        Layout::Rows { .. } => shape.batch,
        Layout::Columns { .. } => shape.n,
        _ => return v,
    };
    v.resize(lines * shape.layout.pitch().unwrap(), T::NAN);
    v
}

fn check_strided<T: GpuReal>(
    n: usize,
    batch: usize,
    pick: Pick,
    alg: Algorithm,
    field: bool,
    seed: u64,
) -> Result<(), TestCaseError> {
    let layout = pick.layout(n, batch);
    let shape = Shape::new(n, batch, layout);
    let host = Batch::random(shape, seed, 2.0).to::<T>();
    let grow = |v: &Vec<T>| if field { whole_field(shape, v.clone()) } else { v.clone() };
    let (a, b, c, d) = (grow(&host.a), grow(&host.b), grow(&host.c), grow(&host.d));
    // x poisoned: its padding must stay NaN, bit for bit.
    let poison = vec![T::NAN; a.len()];
    let mut x = poison.clone();
    cpu::solve_with(alg, shape, &a, &b, &c, &d, &mut x).map_err(|e| TestCaseError::fail(format!("{shape:?}: {e}")))?;
    let changed = padding_changed(shape, &x, &poison);
    prop_assert!(changed.is_empty(), "{alg} {shape:?}: padding of x written at {changed:?}");
    // Packed by the formula above, solved contiguous: the same bits.
    let packed = Shape::new(n, batch, Layout::Contiguous);
    let pack = |v: &[T]| -> Vec<T> {
        (0..batch).flat_map(|k| (0..n).map(move |i| (k, i))).map(|(k, i)| v[offset(layout, n, batch, k, i)]).collect()
    };
    let (pa, pb, pc, pd) = (pack(&a), pack(&b), pack(&c), pack(&d));
    let mut px = vec![T::ZERO; packed.len()];
    cpu::solve_with(alg, packed, &pa, &pb, &pc, &pd, &mut px).unwrap();
    prop_assert!(pack(&x) == px, "{alg} {shape:?}: the strided solve differs from the packed one");
    // And a plain Thomas of each packed system, in f64.
    for k in 0..batch {
        let sys = |v: &[T]| v[k * n..(k + 1) * n].iter().map(|x| x.to_f64()).collect::<Vec<f64>>();
        let want = plain_thomas(&sys(&pa), &sys(&pb), &sys(&pc), &sys(&pd));
        let got = sys(&px);
        let bound = THOMAS_VS_LU.scaled(magnitude(&want)).bound::<T>();
        Tolerance::abs(bound).check(&format!("{} {alg} {shape:?} system {k}: plain Thomas", T::NAME), &got, &want)?;
    }
    // The residual, backward error and dominance check read the same systems.
    prop_assert_eq!(
        host.residual(&x),
        Batch { shape: packed, a: pa.clone(), b: pb.clone(), c: pc.clone(), d: pd }.residual(&px)
    );
    prop_assert_eq!(cpu::first_non_dominant(shape, &a, &b, &c), cpu::first_non_dominant(packed, &pa, &pb, &pc));
    Ok(())
}

proptest! {
    #![proptest_config(crate::common::config(cases(64), file!()))]
    #[test]
    fn cpu_strided_solve_matches_packed_plain_thomas(
        n in 1usize..48,
        batch in 1usize..80,
        pick in pick(),
        lu: bool,
        field: bool,
        seed: u64,
    ) {
        let alg = if lu { Algorithm::Lu } else { Algorithm::Thomas };
        check_strided::<f64>(n, batch, pick, alg, field, seed)?;
        check_strided::<f32>(n, batch, pick, alg, field, seed)?;
    }
}

/// Rows of pitch n are the contiguous layout and columns of pitch batch the interleaved one:
/// the same offsets, the same span, the same solution.
#[test]
fn minimal_pitches_are_the_unpadded_layouts() {
    for (n, batch) in [(1, 1), (7, 1), (1, 9), (13, 5)] {
        for (plain, padded) in
            [(Layout::Contiguous, Layout::Rows { pitch: n }), (Layout::Interleaved, Layout::Columns { pitch: batch })]
        {
            let (s, p) = (Shape::new(n, batch, plain), Shape::new(n, batch, padded));
            assert_eq!(
                (s.span(), s.dims().sys_stride, s.dims().elem_stride),
                (p.span(), p.dims().sys_stride, p.dims().elem_stride)
            );
            for k in 0..batch {
                for i in 0..n {
                    assert_eq!(s.at(k, i), p.at(k, i));
                }
            }
            let b = Batch::random(s, 3, 2.0);
            let (mut xs, mut xp) = (vec![0.0; s.span()], vec![0.0; p.span()]);
            cpu::solve(s, &b.a, &b.b, &b.c, &b.d, &mut xs).unwrap();
            cpu::solve(p, &b.a, &b.b, &b.c, &b.d, &mut xp).unwrap();
            assert_eq!(xs, xp, "{padded:?}");
        }
    }
}

/// The span: the last unknown's offset + 1; relayout keeps the systems and poisons padding.
#[test]
fn spans_and_relayout() {
    let rows = Shape::new(5, 3, Layout::Rows { pitch: 8 });
    assert_eq!(rows.span(), 2 * 8 + 5);
    let cols = Shape::new(5, 3, Layout::Columns { pitch: 4 });
    assert_eq!(cols.span(), 4 * 4 + 3);
    let b = Batch::random(Shape::new(5, 3, Layout::Contiguous), 2, 1.0);
    for shape in [rows, cols] {
        let p = b.relayout(shape.layout);
        assert_eq!(p.a.len(), shape.span());
        let used = unknowns(shape, shape.span());
        for (g, v) in p.d.iter().enumerate() {
            assert_eq!(v.is_nan(), !used[g], "{shape:?} offset {g}");
        }
        assert_eq!(p.relayout(Layout::Contiguous), b);
        let q: Batch<f32> = p.try_to_layout(Layout::Interleaved).unwrap();
        assert_eq!(q.relayout(Layout::Contiguous), b.to::<f32>());
    }
}

/// One system, and systems of one unknown, in every layout: both strides are 1 in some of
/// them, and the relayout still puts every value where its layout says.
#[test]
fn relayout_of_one_system_and_of_one_unknown_systems() {
    for (n, batch) in [(7, 1), (1, 6), (1, 1)] {
        let b = Batch::random(Shape::new(n, batch, Layout::Contiguous), 9, 1.0);
        for layout in [Layout::Interleaved, Layout::Rows { pitch: n + 2 }, Layout::Columns { pitch: batch + 3 }] {
            let p = b.relayout(layout);
            for k in 0..batch {
                for i in 0..n {
                    assert_eq!(p.d[p.shape.at(k, i)], b.d[b.shape.at(k, i)], "{n}×{batch} {layout:?} ({k}, {i})");
                }
            }
            assert_eq!(p.relayout(Layout::Contiguous), b, "{n}×{batch} {layout:?}");
        }
    }
}

/// Pitches below the line, pitches past 32 bits, arrays shorter than the span, and layouts
/// named without (or with a needless) pitch: one line each, naming what is wrong.
#[test]
fn bad_pitches_and_lengths_are_refused() {
    let one_line = |e: String| {
        assert_eq!(e.lines().count(), 1, "{e}");
        e
    };
    let e = one_line(Shape::new(10, 4, Layout::Rows { pitch: 9 }).validate().unwrap_err().to_string());
    assert!(e.contains("pitch 9 is below n") && e.contains("= 10"), "{e}");
    let e = one_line(Shape::new(10, 4, Layout::Columns { pitch: 3 }).validate().unwrap_err().to_string());
    assert!(e.contains("pitch 3 is below batch") && e.contains("= 4"), "{e}");
    let e = one_line(Shape::new(10, 4, Layout::Rows { pitch: 1 << 33 }).validate().unwrap_err().to_string());
    assert!(e.contains("too large"), "{e}");
    let e = one_line(Shape::new(10, 4, Layout::Columns { pitch: usize::MAX / 2 }).validate().unwrap_err().to_string());
    assert!(e.contains("too large"), "{e}");
    // 3 rows of 12: the span is 2·12 + 10 = 34; a whole field (36) will do too.
    let shape = Shape::new(10, 3, Layout::Rows { pitch: 12 });
    let b = Batch::random(shape, 1, 2.0);
    let mut x = vec![0.0; 36];
    let e = one_line(cpu::solve(shape, &b.a[..33], &b.b, &b.c, &b.d, &mut x).unwrap_err().to_string());
    assert!(e.contains("a has 33 values, expected at least the span") && e.contains("= 34"), "{e}");
    cpu::solve(shape, &b.a, &b.b, &b.c, &b.d, &mut x).unwrap();
    assert_eq!(x[34..], [0.0, 0.0], "past the span");
    let e = one_line(Layout::parse("rows", None).unwrap_err().to_string());
    assert!(e.contains("needs a pitch"), "{e}");
    let e = one_line(Layout::parse("contiguous", Some(40)).unwrap_err().to_string());
    assert!(e.contains("takes no pitch"), "{e}");
    assert_eq!(Layout::parse("columns", Some(40)).unwrap(), Layout::Columns { pitch: 40 });
    assert_eq!(Layout::parse("interleaved", None).unwrap(), Layout::Interleaved);
}

/// A breakdown in a padded layout names the system and row, not an offset.
#[test]
fn padded_breakdowns_name_system_and_row() {
    for layout in [Layout::Rows { pitch: 13 }, Layout::Columns { pitch: 9 }] {
        let shape = Shape::new(10, 6, layout);
        let b = super::input::broken(shape, 4, 7, true);
        let mut x = vec![0.0; shape.span()];
        let e = cpu::solve(shape, &b.a, &b.b, &b.c, &b.d, &mut x).unwrap_err().to_string();
        assert!(e.contains("system 4, row 7"), "{layout:?}: {e}");
    }
}
