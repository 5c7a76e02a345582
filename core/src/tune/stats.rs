//! The statistics of a search: repetitions interleaved across candidates, outliers beyond 3σ
//! dropped, candidates compared by the median of what is left.

use crate::Result;

/// What the repetitions of one candidate came to.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Summary {
    /// Median of the kept repetitions, ms (NaN when none was kept).
    pub median_ms: f64,
    /// Repetitions kept and dropped as outliers.
    pub kept: usize,
    pub dropped: usize,
}

/// The median of `t` (NaN when empty).
pub fn median(t: &[f64]) -> f64 {
    let mut s: Vec<f64> = t.to_vec();
    s.sort_by(|a, b| a.total_cmp(b));
    let n = s.len();
    match n {
        0 => f64::NAN,
        _ if n % 2 == 1 => s[n / 2],
        _ => 0.5 * (s[n / 2 - 1] + s[n / 2]),
    }
}

/// `t` without the values further than 3 standard deviations (of all of `t`) from its mean.
/// With fewer than about 10 values no single value can lie that far out, so short runs keep
/// everything and the median (which one outlier cannot move far) does the work.
pub fn drop_outliers(t: &[f64]) -> Vec<f64> {
    let n = t.len() as f64;
    if t.len() < 3 {
        return t.to_vec();
    }
    let mean = t.iter().sum::<f64>() / n;
    let sd = (t.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0)).sqrt();
    t.iter().copied().filter(|x| (x - mean).abs() <= 3.0 * sd).collect()
}

/// Drop outliers, then take the median.
pub fn summarize(t: &[f64]) -> Summary {
    let kept = drop_outliers(t);
    Summary { median_ms: median(&kept), kept: kept.len(), dropped: t.len() - kept.len() }
}

/// The order repetitions run in: `rounds` rounds, each visiting every candidate once, each
/// round starting one candidate later than the one before, so that no candidate always runs
/// first (right after the warm-up or another's) and slow drifts of the running simulation
/// (clocks, the state's wet area) fall on every candidate alike.
pub fn schedule(candidates: usize, rounds: usize) -> Vec<usize> {
    let mut order = Vec::with_capacity(candidates * rounds);
    for r in 0..rounds {
        for k in 0..candidates {
            order.push((k + r) % candidates);
        }
    }
    order
}

/// Time every candidate `rounds` times in [`schedule`]'s order: `run(k)` runs candidate k once
/// and returns its time in ms (the GPU searches time one launch or step with CUDA events while
/// the simulation goes on). Then per candidate [`summarize`].
pub fn measure(candidates: usize, rounds: usize, mut run: impl FnMut(usize) -> Result<f64>) -> Result<Vec<Summary>> {
    let mut times = vec![Vec::with_capacity(rounds); candidates];
    for k in schedule(candidates, rounds) {
        times[k].push(run(k)?);
    }
    Ok(times.iter().map(|t| summarize(t)).collect())
}

/// The candidate of the smallest median (ties: the first), or None when no median is a number.
pub fn fastest(s: &[Summary]) -> Option<usize> {
    s.iter()
        .enumerate()
        .filter(|(_, m)| m.median_ms.is_finite())
        .min_by(|a, b| a.1.median_ms.total_cmp(&b.1.median_ms))
        .map(|(k, _)| k)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_of_odd_even_and_empty() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), 2.5);
        assert!(median(&[]).is_nan());
    }

    #[test]
    fn a_far_outlier_is_dropped_and_near_values_are_kept() {
        let mut t = vec![1.0; 20];
        for (k, v) in t.iter_mut().enumerate() {
            *v += 0.01 * (k % 5) as f64;
        }
        t.push(50.0);
        let s = summarize(&t);
        assert_eq!((s.kept, s.dropped), (20, 1));
        assert!((s.median_ms - 1.02).abs() < 1e-12, "{s:?}");
        // Spread without outliers: nothing dropped.
        let even: Vec<f64> = (0..20).map(|k| k as f64).collect();
        assert_eq!(summarize(&even).dropped, 0);
    }

    #[test]
    fn short_runs_keep_everything() {
        let s = summarize(&[1.0, 1.0, 1.0, 100.0]);
        assert_eq!(s.dropped, 0);
        assert_eq!(s.median_ms, 1.0);
    }

    #[test]
    fn the_schedule_interleaves_and_rotates() {
        assert_eq!(schedule(3, 3), vec![0, 1, 2, 1, 2, 0, 2, 0, 1]);
        let order = schedule(5, 7);
        for k in 0..5 {
            assert_eq!(order.iter().filter(|&&c| c == k).count(), 7);
        }
        // Never two repetitions of one candidate back to back within a round.
        for round in order.chunks(5) {
            let mut seen = round.to_vec();
            seen.sort();
            assert_eq!(seen, vec![0, 1, 2, 3, 4]);
        }
    }

    #[test]
    fn measure_finds_the_fastest_despite_a_slow_outlier() {
        // Fake timings: candidate 2 is fastest, but its first repetition is a 40 ms hiccup.
        let base = [3.0, 2.0, 1.0, 4.0];
        let mut calls = [0usize; 4];
        let s = measure(4, 15, |k| {
            calls[k] += 1;
            Ok(if k == 2 && calls[k] == 1 { 40.0 } else { base[k] + 0.001 * calls[k] as f64 })
        })
        .unwrap();
        assert_eq!(calls, [15; 4]);
        assert_eq!(fastest(&s), Some(2));
        assert_eq!(s[2].dropped, 1);
        assert!(s[2].median_ms < 1.1);
    }

    #[test]
    fn fastest_skips_failed_candidates() {
        let s = |m| Summary { median_ms: m, kept: 1, dropped: 0 };
        assert_eq!(fastest(&[s(f64::NAN), s(2.0), s(1.5)]), Some(2));
        assert_eq!(fastest(&[s(f64::NAN)]), None);
    }
}
