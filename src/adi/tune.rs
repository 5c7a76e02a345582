//! The ADI search: how the two sweeps solve their lines (`adi::gpu::Strategy`: Thomas, twisted
//! Thomas, partition, PCR, CR-PCR, or the automatic choice) and how the y-sweep reaches its
//! columns (`YSweep`: transposed copies or strided columns) — the model's run-time launch
//! parameters: each strategy is its own kernel with its own launch, planned from the line's
//! length (`sweep_plan`). Timed as whole steps of the bench's busy basin at the tuning size,
//! one model a candidate, every model going on from the same start.
//!
//! The ADI sweeps are fused kernels that build their systems from the state; they do not go
//! through the tridiagonal solver's algorithm choice (`tridiag::Limits::auto`, the `tridiag`
//! records), whose timings are of other kernels.

use crate::adi::Setup;
use crate::adi::cpu::Adi;
use crate::adi::gpu::{GpuAdi, Strategy, YSweep, device_bytes};
use crate::runtime::{Gpu, Timer};
use crate::tune::space::Pruned;
use crate::tune::stats::Summary;
use crate::tune::{Record, Tunable, TuneOptions};
use crate::{Error, GpuReal, Precision, Result};

/// What the record is filed under.
pub const KERNEL: &str = "step";

/// The configuration a run takes: the sweeps' strategy and the y-sweep's design.
pub type AdiLaunch = (Strategy, YSweep);

/// A configuration as the cache holds it: `STRATEGY/YSWEEP` (`auto/transposed`).
pub fn label(l: AdiLaunch) -> String {
    format!("{}/{}", l.0, l.1)
}

/// [`label`] read back.
pub fn parse(s: &str) -> Result<AdiLaunch> {
    let (strategy, y) = s
        .split_once('/')
        .ok_or_else(|| Error::invalid(format!("'{s}' is not an ADI configuration (STRATEGY/YSWEEP)")))?;
    Ok((strategy.parse()?, y.parse()?))
}

/// The configuration a run on `gpu` in `precision` should use, from the cache (None: the
/// defaults).
pub fn launch_for(gpu: &Gpu, precision: Precision) -> Option<AdiLaunch> {
    crate::tune::tuned_config(gpu, "adi", KERNEL, precision, parse)
}

/// The candidates: the automatic choice (the default) and every strategy but the one it
/// resolves to at the tuning size (`auto_is`: the same kernels, timed once), each with both
/// y-sweep designs; the default first.
pub fn candidates(auto_is: Option<Strategy>) -> Vec<AdiLaunch> {
    let mut strategies = vec![Strategy::Auto];
    strategies.extend(Strategy::ALL.into_iter().filter(|&s| Some(s) != auto_is));
    let mut v = vec![(Strategy::Auto, YSweep::default())];
    for s in strategies {
        for y in YSweep::ALL {
            if !v.contains(&(s, y)) {
                v.push((s, y));
            }
        }
    }
    v
}

/// Candidates whose models run, interleaved.
struct Steps<T: GpuReal> {
    models: Vec<GpuAdi<T>>,
    labels: Vec<String>,
}

impl<T: GpuReal> Tunable for Steps<T> {
    fn space(&self) -> Vec<(String, std::result::Result<(), Pruned>)> {
        self.labels.iter().map(|l| (l.clone(), Ok(()))).collect()
    }
    fn default_index(&self) -> usize {
        0
    }
    fn run(&mut self, gpu: &Gpu, k: usize, timer: &Timer) -> Result<()> {
        timer.start(gpu)?;
        self.models[k].advance(1)?;
        timer.stop(gpu)
    }
}

pub fn tune<T: GpuReal>(gpu: &Gpu, opts: &TuneOptions) -> Result<Vec<Record>> {
    let n = opts.size;
    let cpu = Adi::<T>::new(&Setup::busy_basin(n))?;
    let auto = GpuAdi::<T>::new(gpu, &cpu, Strategy::Auto)?;
    let resolved = auto.strategies();
    drop(auto);
    let cands = candidates((resolved.0 == resolved.1).then_some(resolved.0));
    // As many models at once as fit in 80% of the free memory: each group starts from the same
    // state and steps as often, so the groups' medians compare.
    let (free, _) = gpu.memory()?;
    let word = std::mem::size_of::<T>();
    let biggest = device_bytes(n, n, word, YSweep::Transposed).max(device_bytes(n, n, word, YSweep::Columns));
    let per_group = ((free as f64 * 0.8) as u64 / biggest.max(1)).max(1) as usize;
    let mut times: Vec<Option<Summary>> = vec![None; cands.len()];
    for group in (0..cands.len()).collect::<Vec<_>>().chunks(per_group) {
        let mut steps = Steps { models: Vec::new(), labels: Vec::new() };
        let mut at = Vec::new();
        for &k in group {
            let (strategy, y) = cands[k];
            // A strategy whose lines do not fit its kernel at this size is pruned.
            match GpuAdi::<T>::with_y_sweep(gpu, &cpu, strategy, y) {
                Ok(m) => {
                    steps.models.push(m);
                    steps.labels.push(label(cands[k]));
                    at.push(k);
                }
                Err(e) if k == 0 => return Err(e),
                Err(e) => crate::note(&format!("tuning adi: {} not timed: {e}", label(cands[k]))),
            }
        }
        if steps.models.is_empty() {
            continue;
        }
        let found = crate::tune::search(gpu, &mut steps, opts.rounds)?;
        // The timed steps must have solved: a breakdown fails the search.
        for m in &mut steps.models {
            m.check(gpu)?;
        }
        for (i, &k) in at.iter().enumerate() {
            times[k] = found.summaries[i];
        }
    }
    let ms = |k: usize| times[k].map_or(f64::NAN, |s| s.median_ms);
    let fastest = (0..cands.len()).filter(|&k| ms(k).is_finite()).min_by(|&a, &b| ms(a).total_cmp(&ms(b)));
    // As in `search`: the default stays unless something is 0.5% faster.
    let best = match fastest {
        Some(f) if ms(f) < 0.995 * ms(0) => f,
        _ => 0,
    };
    Ok(vec![Record {
        solver: "adi".into(),
        kernel: KERNEL.into(),
        precision: Precision::of::<T>(),
        size: vec![n as u64, n as u64],
        default: label(cands[0]),
        best: label(cands[best]),
        default_ms: ms(0),
        best_ms: ms(best),
    }])
}

/// The registry's tuning hook: this search in `precision`.
pub fn search(gpu: &Gpu, opts: &TuneOptions, precision: Precision) -> Result<crate::tune::Tuned> {
    Ok(match precision {
        Precision::F32 | Precision::Mixed => tune::<f32>(gpu, opts)?.into(),
        Precision::F64 => tune::<f64>(gpu, opts)?.into(),
    })
}
