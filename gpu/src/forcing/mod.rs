//! External forcing of a shallow-water model, point by point: time series evaluated and
//! integrated over a step, gridded rain held between its frames (`frames`), a cell's soil
//! (`soil`: Green–Ampt or Horton), what a cell receives over a span (`cell`) and a cell's
//! gains (rain, inflow) and losses (infiltration). The kernels and the CPU references call these
//! same functions, so both apply the same amounts.
//!
//! A time series is a piecewise-linear interpolant of points (tᵢ, vᵢ) with increasing times; it
//! holds its end values beyond its ends. What a step receives is the exact integral of the
//! interpolant over the step, so a run's water account sums integrals, not samples.

mod cell;
mod exp;
mod frames;
mod soil;

pub use cell::{CellForcing, NO_RAIN, Span, cell_gain};
pub use exp::{exp_neg, one_minus_exp_neg, one_minus_given};
pub use frames::{frame_at, held_integral};
pub use soil::{GREEN_AMPT, HORTON, Horton, Infiltration, NO_SOIL, Soil, green_ampt, horton};

use crate::Real;

/// The value at `t` of the series of `times` (increasing) and `values` (as many, at least one).
#[inline(always)]
pub fn series_at(times: &[f64], values: &[f64], t: f64) -> f64 {
    assert!(!times.is_empty() && times.len() == values.len(), "a series of points");
    // SAFETY: asserted just above.
    unsafe { series_at_unchecked(times, values, t) }
}

/// [`series_at`] without its check, for the kernels (whose checks would be traps).
///
/// # Safety
/// `times` and `values` have the same length, at least 1.
#[inline(always)]
pub unsafe fn series_at_unchecked(times: &[f64], values: &[f64], t: f64) -> f64 {
    let k = times.partition_point(|&x| x <= t);
    unsafe {
        if k == 0 {
            return *values.get_unchecked(0);
        }
        if k >= times.len() {
            return *values.get_unchecked(times.len() - 1);
        }
        let (t0, t1) = (*times.get_unchecked(k - 1), *times.get_unchecked(k));
        let (v0, v1) = (*values.get_unchecked(k - 1), *values.get_unchecked(k));
        v0 + (t - t0) / (t1 - t0) * (v1 - v0)
    }
}

/// ∫ v dt from `a` to `b` of the series' interpolant, exactly (0 unless a < b): the trapezoid
/// rule over the breakpoints inside (a, b) and the ends, on each piece of which the interpolant
/// is linear.
#[inline(always)]
pub fn series_integral(times: &[f64], values: &[f64], a: f64, b: f64) -> f64 {
    assert!(!times.is_empty() && times.len() == values.len(), "a series of points");
    // SAFETY: asserted just above.
    unsafe { series_integral_unchecked(times, values, a, b) }
}

/// [`series_integral`] without its check, for the kernels.
///
/// # Safety
/// As [`series_at_unchecked`].
#[inline(always)]
pub unsafe fn series_integral_unchecked(times: &[f64], values: &[f64], a: f64, b: f64) -> f64 {
    if b <= a {
        return 0.0;
    }
    let (first, end) = (times.partition_point(|&x| x <= a), times.partition_point(|&x| x < b));
    unsafe {
        let (mut sum, mut t0, mut v0) = (0.0, a, series_at_unchecked(times, values, a));
        let mut k = first;
        while k < end && k < times.len() {
            let (t, v) = (*times.get_unchecked(k), *values.get_unchecked(k));
            sum += 0.5 * (v0 + v) * (t - t0);
            (t0, v0) = (t, v);
            k += 1;
        }
        sum + 0.5 * (v0 + series_at_unchecked(times, values, b)) * (b - t0)
    }
}

/// One cell's forcing over a span of `dt` seconds: it holds `h` (m), receives the depth `add`
/// (rain and inflow, m, ≥ 0), and a soil that has taken `f` so far takes what its model allows
/// ([`Infiltration::capacity`]), at most what the cell then holds. Returns (the change of the
/// cell's depth, what the soil took); the depth change is `add` − taken, so the cell never goes
/// below zero.
#[inline(always)]
pub fn force_cell<T: Real>(h: T, add: T, soil: Infiltration<T>, f: T, dt: T) -> (T, T) {
    let held = h + add;
    let taken = soil.capacity(f, dt).min(held).max(T::ZERO);
    (add - taken, taken)
}
