//! Margins, ticks and tick labels shared by maps and plots.

/// Blank border around every picture, pixels.
pub(super) const MARGIN: usize = 16;
/// Length of a tick mark, pixels.
pub(super) const TICK_LEN: usize = 5;

pub(super) fn finite_min_max(values: impl Iterator<Item = f64>) -> Option<(f64, f64)> {
    values.filter(|v| v.is_finite()).fold(None, |acc, v| match acc {
        None => Some((v, v)),
        Some((lo, hi)) => Some((v.min(lo), v.max(hi))),
    })
}

/// Labels for ticks `step` apart: enough decimals to tell neighbours apart plus `extra`, one
/// more where that makes every label exact (1.125, not 1.12), and scientific notation for
/// magnitudes where fixed decimals get unreadable.
pub(super) fn tick_labels(values: &[f64], step: f64, extra: i32) -> Vec<String> {
    let biggest = values.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    let step_exp = if step > 0.0 && step.is_finite() { step.log10().floor() as i32 } else { -2 };
    let sci = biggest.is_finite() && (biggest >= 1e6 || (biggest > 0.0 && biggest < 1e-3));
    let base = if sci { biggest.log10().floor() as i32 - step_exp + extra } else { extra - step_exp };
    let label = |v: f64, digits: i32| {
        let digits = digits.clamp(0, if sci { 6 } else { 9 }) as usize;
        let s = if sci { format!("{v:.digits$e}") } else { format!("{v:.digits$}") };
        // Rounding a tiny negative value must not print as "-0.00".
        match s.strip_prefix('-') {
            Some(rest) if rest.chars().take_while(|&c| c != 'e').all(|c| c == '0' || c == '.') => rest.to_string(),
            _ => s,
        }
    };
    let exact = |digits| {
        values.iter().all(|&v| label(v, digits).parse::<f64>().is_ok_and(|back| (back - v).abs() <= 1e-3 * step))
    };
    let digits = if exact(base) { base } else { base + 1 };
    values.iter().map(|&v| label(v, digits)).collect()
}
