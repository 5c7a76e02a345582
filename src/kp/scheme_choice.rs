//! Choosing the fastest time-integration scheme (`--scheme auto`, Amundsen §4.4.1): time a
//! whole run of the sine case with each second-order scheme and keep the fastest.
//!
//! The candidates ([`candidates`]) are the second-order schemes: RK2 and SRK2 (which differ in
//! how the flux kernels divide the work, not in the result) and, in f64, DS2. Runs are compared
//! by wall time per simulated time, so that DS2's double steps and its discarded steps count as
//! they cost. In f32 DS2 is not a candidate: the split schemes have no compensated update, and a
//! choice made once for this GPU must not give up f32's volume (docs/f32-conservation.md).
//! `hydrokern tune` times them after the kp launch search, on its launch, and stores the winner
//! as the record `kp` / [`KERNEL`]; a case with `time.scheme = "auto"` (`--scheme auto`) runs it
//! ([`auto_scheme`]). Euler and DS1 are first order.

use crate::kp::gpu::{FluxKernel, GpuKp, Launch};
use crate::kp::{Scheme, setup};
use crate::runtime::{Gpu, Timer};
use crate::tune::{Record, TuneOptions, stats};
use crate::{Backend, Error, GpuReal, Precision, Result};

/// What the scheme record is filed under.
pub const KERNEL: &str = "scheme";

/// Every scheme `--scheme auto` may choose, the default first.
pub const AUTO: [Scheme; 3] = [Scheme::Rk2, Scheme::Srk2, Scheme::Ds2];

/// The schemes `--scheme auto` chooses from in `precision`, the default first: DS2 only in f64
/// (in f32 the split schemes lack the compensated update).
pub fn candidates(precision: Precision) -> &'static [Scheme] {
    match precision {
        Precision::F64 => &AUTO,
        _ => &AUTO[..2],
    }
}

/// Steps of one timed run of the sine case.
const RUN_STEPS: usize = 100;

/// A scheme of [`AUTO`] by name (the record's configuration read back).
pub fn parse(s: &str) -> Result<Scheme> {
    let scheme: Scheme = s.parse()?;
    if !AUTO.contains(&scheme) {
        return Err(Error::invalid(format!("'{s}' is not a scheme --scheme auto chooses from")));
    }
    Ok(scheme)
}

/// The scheme a run with `--scheme auto` in `precision` takes on `backend`: the tuning cache's
/// choice for this GPU, else RK2 (with a one-line note saying why).
pub fn auto_scheme(backend: &Backend, precision: Precision) -> Scheme {
    let Backend::Gpu(gpu) = backend else {
        crate::note("--scheme auto on the CPU: rk2 (the choice is timed on a GPU; SRK2 is RK2 on the CPU)");
        return Scheme::Rk2;
    };
    match crate::tune::tuned_config(gpu, "kp", KERNEL, precision, parse) {
        Some(s) if !candidates(precision).contains(&s) => {
            crate::note(&format!(
                "--scheme auto: rk2 (the tuning cache's {} is no candidate in {precision})",
                s.name()
            ));
            Scheme::Rk2
        }
        Some(s) => {
            crate::note(&format!("--scheme auto: {} (the tuning cache's choice for this GPU, {precision})", s.name()));
            s
        }
        None => {
            crate::note(&format!(
                "--scheme auto: rk2 (no tuned scheme for this GPU in {precision}{}; `hydrokern tune` times them)",
                if crate::tune::mode() == crate::tune::Mode::Off { " with --tuning off" } else { "" }
            ));
            Scheme::Rk2
        }
    }
}

/// Seed 003 §4.4.1: whole runs of the sine case (`RUN_STEPS` steps each, from one model a
/// scheme on `launch`, interleaved, [`SCHEME_RUNS`] runs or the options' rounds if fewer) with
/// every scheme of [`candidates`]; the record of the fastest (the default unless another is 0.5%
/// faster, as in the launch searches). Its times are milliseconds per second of simulated time
/// (a run's event time over the time its clock advanced).
pub fn tune_kp<T: GpuReal>(gpu: &Gpu, opts: &TuneOptions, launch: Launch) -> Result<Record> {
    let n = opts.size;
    let timer = Timer::new(gpu)?;
    let schemes = candidates(Precision::of::<T>());
    let mut models = Vec::new();
    for &scheme in schemes {
        let mut problem = setup::sine(n, n);
        problem.scheme = scheme;
        models.push(GpuKp::<T>::new(gpu, &problem, launch)?);
    }
    let mut run = |s: Scheme| -> Result<f64> {
        let k = schemes.iter().position(|&a| a == s).unwrap_or(0);
        let m = &mut models[k];
        let t0 = m.clock(gpu)?.t;
        timer.start(gpu)?;
        for _ in 0..RUN_STEPS {
            m.step(FluxKernel::Full)?;
        }
        timer.stop(gpu)?;
        let advanced = m.clock(gpu)?.t - t0;
        if advanced.is_nan() || advanced <= 0.0 {
            return Err(Error::invalid(format!("--scheme auto: {} did not advance the sine case", s.name())));
        }
        Ok(timer.elapsed_ms()? / advanced)
    };
    let times = choose_scheme(schemes, SCHEME_RUNS.min(opts.rounds.max(1)), &mut run)?;
    let ms = |s: Scheme| times.times.iter().find(|t| t.0 == s).map_or(f64::NAN, |t| t.1);
    let default_ms = ms(Scheme::Rk2);
    let best = if ms(times.best) < 0.995 * default_ms { times.best } else { Scheme::Rk2 };
    Ok(Record {
        solver: "kp".into(),
        kernel: KERNEL.into(),
        precision: Precision::of::<T>(),
        size: vec![n as u64, n as u64],
        default: Scheme::Rk2.name().into(),
        best: best.name().into(),
        default_ms,
        best_ms: ms(best),
    })
}

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
