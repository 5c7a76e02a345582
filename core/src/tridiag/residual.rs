//! The residual ‖Ax − d‖₂ / ‖d‖₂ of a batch's solution, computed so that it neither overflows
//! nor underflows for any finite coefficients and solution: each row is scaled by a power of
//! two near its largest coefficient (exact, so the row's residual is the same number, only
//! represented in range), and the two sums of squares carry their own binary exponent
//! (LAPACK's `dlassq` idea). A batch scaled by 1e300 has the residual of the unscaled one.
//!
//! [`checked_residual`] also refuses a solution or residual that is not finite, naming the
//! first system and row where it is not.

use super::Shape;
use crate::{Error, Real, Result};
use rayon::prelude::*;

/// 2^k as an f64: 0 below the smallest subnormal, ∞ above the largest finite power.
fn pow2(k: i64) -> f64 {
    if k > 1023 {
        f64::INFINITY
    } else if k >= -1022 {
        f64::from_bits(((k + 1023) as u64) << 52)
    } else if k >= -1074 {
        f64::from_bits(1u64 << (k + 1074))
    } else {
        0.0
    }
}

/// `x · 2^k` without overflowing or underflowing on the way (exact unless the result itself is
/// subnormal or out of range).
fn ldexp(x: f64, k: i64) -> f64 {
    // Three steps of the same sign, each within the normal range's exponents.
    let k = k.clamp(-3000, 3000);
    let third = k / 3;
    x * pow2(third) * pow2(third) * pow2(k - 2 * third)
}

/// The binary exponent e of a finite, non-zero `x`: 2^e ≤ |x| < 2^(e+1).
fn exponent(x: f64) -> i64 {
    let bits = x.abs().to_bits();
    let biased = (bits >> 52) as i64;
    if biased == 0 {
        // Subnormal: scale into the normal range first.
        exponent(x * pow2(64)) - 64
    } else {
        biased - 1023
    }
}

/// A sum of squares Σ vᵢ² held as `ssq · 4^e`, so that no square overflows or underflows.
#[derive(Clone, Copy, Debug, Default)]
struct SumSq {
    e: i64,
    ssq: f64,
}

impl SumSq {
    /// Add (m · 2^k)².
    fn add(&mut self, m: f64, k: i64) {
        if m == 0.0 {
            return;
        }
        let em = exponent(m);
        let (m, k) = (ldexp(m, -em), k + em);
        self.merge(SumSq { e: k, ssq: m * m });
    }
    /// A plain sum of squares `sum` (finite, ≥ 0), held with a mantissa in [1, 4).
    fn from_plain(sum: f64) -> SumSq {
        if sum == 0.0 {
            return SumSq::default();
        }
        let e = exponent(sum).div_euclid(2);
        SumSq { e, ssq: ldexp(sum, -2 * e) }
    }
    fn merge(&mut self, o: SumSq) {
        if o.ssq == 0.0 {
            return;
        }
        if self.ssq == 0.0 {
            *self = o;
        } else if o.e > self.e {
            self.ssq = ldexp(self.ssq, 2 * (self.e - o.e)) + o.ssq;
            self.e = o.e;
        } else {
            self.ssq += ldexp(o.ssq, 2 * (o.e - self.e));
        }
    }
    /// √(Σ vᵢ²) as (mantissa, exponent).
    fn sqrt(self) -> (f64, i64) {
        (self.ssq.sqrt(), self.e)
    }
}

/// The largest row residual seen: (binary exponent, mantissa in [1, 2), system, row).
type Worst = Option<(i64, f64, usize, usize)>;

/// The larger of two, the earlier on a tie.
fn larger(a: Worst, b: Worst) -> Worst {
    match (a, b) {
        (Some(x), Some(y)) => Some(if (y.0, y.1) > (x.0, x.1) { y } else { x }),
        (x, None) => x,
        (None, y) => y,
    }
}

/// One system's contribution.
struct Part {
    num: SumSq,
    den: SumSq,
    worst: Worst,
    /// The first row where x or the row's residual is not finite.
    bad: Option<usize>,
}

/// Row i of system k: (a, b, c, d, x₋, x, x₊) in f64, with a₀ and c_{n−1} read as zero, as
/// the solvers read them.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn row<T: Real>(shape: Shape, k: usize, i: usize, a: &[T], b: &[T], c: &[T], d: &[T], x: &[T]) -> [f64; 7] {
    let n = shape.n;
    let g = shape.at(k, i);
    let ai = if i > 0 { a[g].to_f64() } else { 0.0 };
    let ci = if i + 1 < n { c[g].to_f64() } else { 0.0 };
    let xm = if i > 0 { x[shape.at(k, i - 1)].to_f64() } else { 0.0 };
    let xp = if i + 1 < n { x[shape.at(k, i + 1)].to_f64() } else { 0.0 };
    [ai, b[g].to_f64(), ci, d[g].to_f64(), xm, x[g].to_f64(), xp]
}

/// The smallest sum of squares the plain sums are trusted with: below it, squares that
/// underflowed could be a visible part of the sum.
const PLAIN_FLOOR: f64 = 1e-270;

/// System k by plain sums, when no square overflowed and none that underflowed can matter
/// (the common case, several times faster); else None.
fn plain<T: Real>(shape: Shape, k: usize, a: &[T], b: &[T], c: &[T], d: &[T], x: &[T]) -> Option<(SumSq, SumSq)> {
    let (mut num, mut den) = (0.0f64, 0.0f64);
    let (mut any_r, mut any_d) = (false, false);
    for i in 0..shape.n {
        let [ai, bi, ci, di, xm, xi, xp] = row(shape, k, i, a, b, c, d, x);
        let r = ai * xm + bi * xi + ci * xp - di;
        num += r * r;
        den += di * di;
        any_r |= r != 0.0;
        any_d |= di != 0.0;
    }
    let trusted = |sum: f64, any: bool| sum.is_finite() && (if any { sum >= PLAIN_FLOOR } else { sum == 0.0 });
    (trusted(num, any_r) && trusted(den, any_d)).then(|| (SumSq::from_plain(num), SumSq::from_plain(den)))
}

/// System k: by plain sums when `fast` and they can be trusted, else row by row scaled.
#[allow(clippy::too_many_arguments)]
fn system<T: Real>(shape: Shape, k: usize, a: &[T], b: &[T], c: &[T], d: &[T], x: &[T], fast: bool) -> Part {
    let n = shape.n;
    let mut p = Part { num: SumSq::default(), den: SumSq::default(), worst: None, bad: None };
    // A value of x that is not finite is named itself, not by its neighbours' residuals.
    if let Some(i) = (0..n).position(|i| !x[shape.at(k, i)].is_finite()) {
        p.bad = Some(i);
        return p;
    }
    if let Some((num, den)) = plain(shape, k, a, b, c, d, x).filter(|_| fast) {
        (p.num, p.den) = (num, den);
        return p;
    }
    for i in 0..n {
        let [ai, bi, ci, di, xm, xi, xp] = row(shape, k, i, a, b, c, d, x);
        let s = ai.abs().max(bi.abs()).max(ci.abs()).max(di.abs());
        if !s.is_finite() || [ai, bi, ci, di].iter().any(|v| v.is_nan()) {
            p.bad = Some(i);
            return p;
        }
        if s == 0.0 {
            continue;
        }
        // Coefficients scaled into [1/8, 1/4): four terms of at most |x|/4 cannot overflow.
        let e = exponent(s) + 3;
        let sc = |v: f64| ldexp(v, -e);
        let r = sc(ai) * xm + sc(bi) * xi + sc(ci) * xp - sc(di);
        if !r.is_finite() {
            p.bad = Some(i);
            return p;
        }
        if r != 0.0 {
            let er = exponent(r);
            p.worst = larger(p.worst, Some((er + e, ldexp(r.abs(), -er), k, i)));
        }
        p.num.add(r, e);
        p.den.add(sc(di), e);
    }
    p
}

/// Why a residual cannot be given.
enum Failure {
    /// x or a row's residual is not finite at (system, row).
    Row(usize, usize),
    /// The residual is past f64's range; the largest row residual is at (system, row).
    Range(f64, Worst),
}

/// ‖Ax − d‖₂/‖d‖₂ over systems 0, `every`, 2·`every`, … of the batch (‖Ax − d‖₂ when d = 0).
fn compute<T: Real>(
    shape: Shape,
    a: &[T],
    b: &[T],
    c: &[T],
    d: &[T],
    x: &[T],
    every: usize,
) -> std::result::Result<f64, Failure> {
    match compute_with(shape, a, b, c, d, x, true, every) {
        // Plain sums do not track the largest row: find it row by row.
        Err(Failure::Range(..)) => compute_with(shape, a, b, c, d, x, false, every),
        r => r,
    }
}

#[allow(clippy::too_many_arguments)]
fn compute_with<T: Real>(
    shape: Shape,
    a: &[T],
    b: &[T],
    c: &[T],
    d: &[T],
    x: &[T],
    fast: bool,
    every: usize,
) -> std::result::Result<f64, Failure> {
    // One part per system, collected in order and summed in order: the same bits every run.
    // Every scaling is by a power of two, so either way of summing a system gives the same
    // bits as long as nothing overflows or underflows.
    let parts: Vec<Part> =
        (0..shape.batch).into_par_iter().step_by(every.max(1)).map(|k| system(shape, k, a, b, c, d, x, fast)).collect();
    let (mut num, mut den, mut worst) = (SumSq::default(), SumSq::default(), None);
    for (j, p) in parts.into_iter().enumerate() {
        if let Some(i) = p.bad {
            return Err(Failure::Row(j * every.max(1), i));
        }
        num.merge(p.num);
        den.merge(p.den);
        worst = larger(worst, p.worst);
    }
    let (rn, en) = num.sqrt();
    let (rd, ed) = den.sqrt();
    let r = if rd == 0.0 { ldexp(rn, en) } else { ldexp(rn / rd, en - ed) };
    if r.is_finite() { Ok(r) } else { Err(Failure::Range(r, worst)) }
}

/// ‖Ax − d‖₂ / ‖d‖₂ over the whole batch (‖Ax − d‖₂ when d = 0), in f64 and without overflow
/// or underflow (see the module's doc); NaN when x, a coefficient or a row's residual is not
/// finite, ∞ when the residual is past f64's range.
pub fn residual<T: Real>(shape: Shape, a: &[T], b: &[T], c: &[T], d: &[T], x: &[T]) -> f64 {
    if shape.check_lengths(&[("a", a.len()), ("b", b.len()), ("c", c.len()), ("d", d.len()), ("x", x.len())]).is_err() {
        return f64::NAN;
    }
    match compute(shape, a, b, c, d, x, 1) {
        Ok(r) | Err(Failure::Range(r, _)) => r,
        Err(Failure::Row(..)) => f64::NAN,
    }
}

/// [`residual`] over at most `most` systems spread evenly over the batch (every
/// ⌈batch/most⌉-th, from the first): a quick check that a solve of a large batch is right.
pub fn sampled_residual<T: Real>(shape: Shape, a: &[T], b: &[T], c: &[T], d: &[T], x: &[T], most: usize) -> f64 {
    if shape.check_lengths(&[("a", a.len()), ("b", b.len()), ("c", c.len()), ("d", d.len()), ("x", x.len())]).is_err() {
        return f64::NAN;
    }
    match compute(shape, a, b, c, d, x, shape.batch.div_ceil(most.max(1))) {
        Ok(r) | Err(Failure::Range(r, _)) => r,
        Err(Failure::Row(..)) => f64::NAN,
    }
}

/// [`residual`], or an error naming the first system and row (in system order) where the
/// solution, a coefficient or the row's residual is not finite; or, when the residual itself
/// is past f64's range (a solution far off), the system and row of the largest row residual.
pub fn checked_residual<T: Real>(shape: Shape, a: &[T], b: &[T], c: &[T], d: &[T], x: &[T]) -> Result<f64> {
    shape.check_lengths(&[("a", a.len()), ("b", b.len()), ("c", c.len()), ("d", d.len()), ("x", x.len())])?;
    match compute(shape, a, b, c, d, x, 1) {
        Ok(r) => Ok(r),
        Err(Failure::Range(r, worst)) => {
            let at = worst
                .map(|(_, _, k, i)| format!("; the largest row residual is at system {k}, row {i}"))
                .unwrap_or_default();
            Err(Error::invalid(format!(
                "tridiagonal solve: the residual ‖Ax − d‖/‖d‖ = {r} is past f64's range{at} (the solution is far off: is the matrix singular?)"
            )))
        }
        Err(Failure::Row(k, i)) => {
            let g = shape.at(k, i);
            let what = if !x[g].is_finite() {
                format!("the solution x = {} is not finite", x[g])
            } else {
                format!(
                    "the residual is not finite (a = {}, b = {}, c = {}, d = {}, x = {})",
                    a[g], b[g], c[g], d[g], x[g]
                )
            };
            Err(Error::invalid(format!("tridiagonal solve: system {k}, row {i}: {what}")))
        }
    }
}

/// Backward errors past this many machine epsilons (of the precision solved in) are reported:
/// a backward-stable solve (Thomas on a dominant system, LU with partial pivoting on any) stays
/// within a few ε per row of U, far below it; a solve without pivoting on a system it does not
/// suit lands many orders above it.
pub const BACKWARD_LIMIT_EPS: f64 = 1024.0;

/// The worst system's normwise backward error `‖Ax − d‖∞ / (‖A‖∞‖x‖∞ + ‖d‖∞)` (Rigal–Gaches):
/// the smallest relative change of A and d of which x is the exact solution.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BackwardError {
    /// The largest backward error of any system (∞ or NaN when x is not finite).
    pub value: f64,
    /// The system it belongs to (the first such on a tie).
    pub system: usize,
}

/// max |v|, 0 for none, NaN when any is NaN (so that a NaN is never hidden by a max).
fn max_abs(v: impl Iterator<Item = f64>) -> f64 {
    v.fold(0.0, |m: f64, x| if x.is_nan() || m.is_nan() { f64::NAN } else { m.max(x.abs()) })
}

/// The binary exponent of a norm, 0 for a zero one (nothing to scale).
fn norm_exponent(v: f64) -> i64 {
    if v == 0.0 || !v.is_finite() { 0 } else { exponent(v) }
}

/// System k's backward error, without overflow or underflow: A scaled by 2^−eA (its largest
/// entry), x by 2^−ex, and both terms of the residual and of the denominator by 2^−E with
/// E = max(eA + ex, ed), so that every intermediate lies within a few units of 1.
#[allow(clippy::too_many_arguments)]
fn system_backward<T: Real>(shape: Shape, k: usize, a: &[T], b: &[T], c: &[T], d: &[T], x: &[T]) -> f64 {
    let rows = |i| row(shape, k, i, a, b, c, d, x);
    let n = shape.n;
    let xn = max_abs((0..n).map(|i| x[shape.at(k, i)].to_f64()));
    if !xn.is_finite() {
        return f64::INFINITY;
    }
    let am = max_abs((0..n).flat_map(|i| {
        let [ai, bi, ci, ..] = rows(i);
        [ai, bi, ci]
    }));
    let dn = max_abs((0..n).map(|i| d[shape.at(k, i)].to_f64()));
    if !am.is_finite() || !dn.is_finite() {
        return f64::NAN;
    }
    let (ea, ex, ed) = (norm_exponent(am), norm_exponent(xn), norm_exponent(dn));
    let e = (ea + ex).max(ed);
    let (mut rn, mut an) = (0.0f64, 0.0f64);
    for i in 0..n {
        let [ai, bi, ci, di, xm, xi, xp] = rows(i);
        let (sa, sx) = (|v: f64| ldexp(v, -ea), |v: f64| ldexp(v, -ex));
        let ax = sa(ai) * sx(xm) + sa(bi) * sx(xi) + sa(ci) * sx(xp);
        let r = ldexp(ax, ea + ex - e) - ldexp(di, -e);
        rn = rn.max(r.abs());
        an = an.max(sa(ai).abs() + sa(bi).abs() + sa(ci).abs());
    }
    let den = ldexp(an * ldexp(xn, -ex), ea + ex - e) + ldexp(dn, -e);
    if den == 0.0 { if rn == 0.0 { 0.0 } else { f64::INFINITY } } else { rn / den }
}

/// The worst system's normwise backward error ([`BackwardError`]), computed in f64 without
/// overflow or underflow for any finite batch.
pub fn backward_error<T: Real>(shape: Shape, a: &[T], b: &[T], c: &[T], d: &[T], x: &[T]) -> Result<BackwardError> {
    shape.check_lengths(&[("a", a.len()), ("b", b.len()), ("c", c.len()), ("d", d.len()), ("x", x.len())])?;
    let each: Vec<f64> = (0..shape.batch).into_par_iter().map(|k| system_backward(shape, k, a, b, c, d, x)).collect();
    let mut worst = BackwardError { value: 0.0, system: 0 };
    for (k, v) in each.into_iter().enumerate() {
        // NaN is the worst of all.
        if !worst.value.is_nan() && (v.is_nan() || v > worst.value) {
            worst = BackwardError { value: v, system: k };
        }
    }
    Ok(worst)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn powers_and_exponents() {
        assert_eq!(pow2(0), 1.0);
        assert_eq!(pow2(-1074), f64::from_bits(1));
        assert_eq!(pow2(-1075), 0.0);
        assert_eq!(pow2(1024), f64::INFINITY);
        assert_eq!(exponent(1.0), 0);
        assert_eq!(exponent(0.75), -1);
        assert_eq!(exponent(f64::from_bits(1)), -1074);
        assert_eq!(exponent(f64::MAX), 1023);
        assert_eq!(ldexp(3.0, -1000) * pow2(1000), 3.0);
        assert_eq!(ldexp(pow2(-1074), 2050), pow2(976));
        assert_eq!(ldexp(1.0, -3000), 0.0);
    }

    #[test]
    fn sums_of_squares_keep_their_range() {
        let mut s = SumSq::default();
        s.add(3.0, 1000);
        s.add(4.0, 1000);
        let (m, e) = s.sqrt();
        assert_eq!((m * pow2(e - 1000)), 5.0);
        let mut t = SumSq::default();
        t.add(1.0, -2000);
        t.add(1.0, -2000);
        assert_eq!(t.sqrt().0, 2f64.sqrt());
    }

    /// A random dominant batch of `shape` and its solution by the CPU's Thomas.
    fn solved(shape: Shape, seed: u64) -> (crate::tridiag::Batch<f64>, Vec<f64>) {
        let b = crate::tridiag::Batch::random(shape, seed, 1.0);
        let mut x = vec![0.0; shape.len()];
        crate::tridiag::cpu::solve(shape, &b.a, &b.b, &b.c, &b.d, &mut x).unwrap();
        (b, x)
    }

    #[test]
    fn plain_and_scaled_sums_give_the_same_bits() {
        for layout in crate::tridiag::Layout::ALL {
            let shape = Shape::new(37, 9, layout);
            let (b, x) = solved(shape, 4);
            let fast = compute_with(shape, &b.a, &b.b, &b.c, &b.d, &x, true, 1).ok().unwrap();
            let slow = compute_with(shape, &b.a, &b.b, &b.c, &b.d, &x, false, 1).ok().unwrap();
            assert_eq!(fast, slow, "{layout:?}");
            assert!(fast > 0.0 && fast < 1e-14, "{fast}");
        }
    }

    #[test]
    fn a_sampled_residual_reads_every_kth_system_from_the_first() {
        for layout in crate::tridiag::Layout::ALL {
            let shape = Shape::new(16, 10, layout);
            let (b, x) = solved(shape, 5);
            // At most 4 of 10 systems: 0, 3, 6, 9. A wrong system among them shows; one
            // between them does not; all ten read give the whole residual.
            let mut off = x.clone();
            off[shape.at(4, 7)] += 1.0;
            let sampled = |x: &[f64], most| sampled_residual(shape, &b.a, &b.b, &b.c, &b.d, x, most);
            assert!(sampled(&off, 4) < 1e-14, "{layout:?}: system 4 is not read");
            off[shape.at(6, 2)] += 1.0;
            assert!(sampled(&off, 4) > 1e-3, "{layout:?}: system 6 is read");
            assert_eq!(sampled(&x, 10), residual(shape, &b.a, &b.b, &b.c, &b.d, &x), "{layout:?}");
            off[shape.at(9, 0)] = f64::NAN;
            assert!(sampled(&off, 4).is_nan(), "{layout:?}: system 9 is read");
        }
    }
}
