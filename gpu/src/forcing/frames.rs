//! Gridded rain changing in time: frames of intensities, each held from its time to the next
//! frame's (radar products are accumulations over their interval, and LISFLOOD-FP and TUFLOW
//! hold a gridded rain's frames so). `times` lists the frames' start times and then the end of
//! the last: frame k holds over [times[k], times[k + 1]). What a cell receives over a span is
//! the exact integral of that step function, so a span straddling frame times takes each
//! frame's intensity for the part of the span it holds.

use crate::Real;

/// The frame holding at `a`: the last k with times\[k\] ≤ a (0 before the first frame; the number
/// of frames at or after the end, where no frame holds).
#[inline(always)]
pub fn frame_at(times: &[f64], a: f64) -> usize {
    times.partition_point(|&t| t <= a).saturating_sub(1)
}

/// ∫ from `a` to `b` of a step function held over the frames of `times` (as the module says),
/// frame k's value `value(k)`, starting from frame `first` (at most [`frame_at`]`(times, a)`):
/// Σ value(k)·|\[times\[k\], times\[k + 1\]) ∩ [a, b]|, added in the frames' order, each product
/// and sum rounded on its own (never contracted into a multiply-add), so the kernels and the CPU
/// reference compute the same bits. Nothing falls before the first frame or after the end.
#[inline(always)]
pub fn held_integral(times: &[f64], first: usize, a: f64, b: f64, value: impl Fn(usize) -> f64) -> f64 {
    let mut sum = 0.0;
    let mut k = first;
    while k + 1 < times.len() {
        // SAFETY: k + 1 < times.len().
        let (t0, t1) = unsafe { (*times.get_unchecked(k), *times.get_unchecked(k + 1)) };
        if t0 >= b {
            break;
        }
        let span = (if t1 < b { t1 } else { b }) - (if t0 > a { t0 } else { a });
        if span > 0.0 {
            sum = sum.add_rn(span.mul_rn(value(k)));
        }
        k += 1;
    }
    sum
}
