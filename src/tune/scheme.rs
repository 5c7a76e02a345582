//! Choosing the fastest time-integration scheme (`--scheme auto`, seed 003 §4.4.1): time a
//! whole run of the sine case with each scheme that has GPU kernels and keep the fastest.
//!
//! The hook for the owner: the Kurganov–Petrova schemes (`kp::Scheme`) and their choice
//! (`SchemeChoice`) are being added on another branch; once their GPU kernels exist, `--scheme
//! auto` calls [`choose_scheme`] with those schemes and a closure that runs the sine case
//! with one of them and returns its wall time, and stores the winner like any other record.

use super::stats;
use crate::{Error, Result};

/// How many whole runs each scheme gets (interleaved: A B C, B C A, …), the median compared.
pub const SCHEME_RUNS: usize = 3;

/// What [`choose_scheme`] found: the winner and each scheme's median time.
#[derive(Clone, Debug, PartialEq)]
pub struct SchemeTimes<S> {
    pub best: S,
    pub times: Vec<(S, f64)>,
}

/// The scheme of `schemes` whose whole sine-case run is fastest: each run `runs` times through
/// `time_run` (which returns the run's time in ms, or an error that removes the scheme from the
/// choice: a scheme whose run fails is not a candidate), runs interleaved, outliers beyond 3σ
/// dropped, medians compared; ties go to the earlier scheme in `schemes` (list the default
/// first). An error when `schemes` is empty or every run failed.
pub fn choose_scheme<S: Copy + std::fmt::Debug>(
    schemes: &[S],
    runs: usize,
    mut time_run: impl FnMut(S) -> Result<f64>,
) -> Result<SchemeTimes<S>> {
    if schemes.is_empty() {
        return Err(Error::invalid("scheme selection: no scheme has GPU kernels"));
    }
    let mut failed = vec![None; schemes.len()];
    let summaries = stats::measure(schemes.len(), runs.max(1), |k| {
        if failed[k].is_some() {
            return Ok(f64::NAN);
        }
        match time_run(schemes[k]) {
            Ok(ms) if ms.is_finite() && ms > 0.0 => Ok(ms),
            Ok(ms) => {
                failed[k] = Some(format!("{ms} ms"));
                Ok(f64::NAN)
            }
            Err(e) => {
                failed[k] = Some(e.to_string());
                Ok(f64::NAN)
            }
        }
    })?;
    let medians: Vec<stats::Summary> = summaries
        .iter()
        .zip(&failed)
        .map(|(s, f)| if f.is_some() { stats::Summary { median_ms: f64::NAN, ..*s } } else { *s })
        .collect();
    let Some(best) = stats::fastest(&medians) else {
        let why: Vec<String> =
            schemes.iter().zip(&failed).map(|(s, f)| format!("{s:?}: {}", f.as_deref().unwrap_or("no time"))).collect();
        return Err(Error::invalid(format!("scheme selection: every run failed ({})", why.join("; "))));
    };
    Ok(SchemeTimes {
        best: schemes[best],
        times: schemes.iter().copied().zip(medians.iter().map(|m| m.median_ms)).collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Clone, Copy, Debug, PartialEq)]
    enum Fake {
        Rk2,
        Srk2,
        Ds2,
    }

    #[test]
    fn the_fastest_median_wins_and_every_scheme_runs_interleaved() {
        let mut log = Vec::new();
        let t = choose_scheme(&[Fake::Rk2, Fake::Srk2, Fake::Ds2], 3, |s| {
            log.push(s);
            // Srk2 has one very slow run; its median is still the best.
            let slow = s == Fake::Srk2 && log.iter().filter(|&&x| x == s).count() == 1;
            Ok(match s {
                Fake::Rk2 => 100.0,
                Fake::Srk2 if slow => 500.0,
                Fake::Srk2 => 80.0,
                Fake::Ds2 => 90.0,
            })
        })
        .unwrap();
        assert_eq!(t.best, Fake::Srk2);
        assert_eq!(t.times, vec![(Fake::Rk2, 100.0), (Fake::Srk2, 80.0), (Fake::Ds2, 90.0)]);
        assert_eq!(&log[..6], &[Fake::Rk2, Fake::Srk2, Fake::Ds2, Fake::Srk2, Fake::Ds2, Fake::Rk2]);
    }

    #[test]
    fn a_failing_scheme_drops_out_and_ties_go_to_the_first() {
        let t = choose_scheme(&[Fake::Rk2, Fake::Ds2, Fake::Srk2], 3, |s| match s {
            Fake::Ds2 => Err(Error::invalid("restart loop")),
            _ => Ok(50.0),
        })
        .unwrap();
        assert_eq!(t.best, Fake::Rk2);
        assert!(t.times[1].1.is_nan());
        let e = choose_scheme(&[Fake::Rk2], 2, |_| Err(Error::invalid("no kernel"))).unwrap_err();
        assert!(e.to_string().contains("no kernel"));
        assert!(choose_scheme::<Fake>(&[], 2, |_| Ok(1.0)).is_err());
    }
}
