//! The products in a model's checkpoint: the maps as fields of the run's precision, the gauge
//! and line records so far as f64 records (their times would not survive f32; the gauges'
//! values are f64 of the run's precision and the lines' discharges f64, so they come back
//! exactly). A restarted run goes on with them, so its gauge and line files and maps are those
//! of the run that was not interrupted. The lines' discharges are saved, not their cells'
//! samples, which the keepers do not keep.

use super::records::Records;
use super::{GAUGE_VALUES, LineSeries, Series};
use crate::model::Checkpoint;
use crate::{Error, Result};

use super::{MAPS, Maps};

/// Add the gauge and line records and (with `maps`) the maps to `c`: the sample times as
/// `gauge_times` (their number `gauge_samples`), the gauges' values as `gauge_values` and the
/// lines' discharges as `line_discharge`, each sample-major, as the GPU ring holds the samples:
/// every gauge's (line's) values at one time together.
pub(super) fn save<T: Clone>(
    c: Checkpoint<T>,
    series: &[Series],
    lines: &[LineSeries],
    maps: Option<Maps<T>>,
) -> Checkpoint<T> {
    let mut c = match maps {
        Some(m) => MAPS.iter().zip(m).fold(c, |c, (name, map)| c.field(name, map)),
        None => c,
    };
    let Some(times) = series.first().map(|s| &s.times).or(lines.first().map(|l| &l.times)) else { return c };
    c = c.value("gauge_samples", times.len() as f64).record("gauge_times", times.clone());
    if !series.is_empty() {
        let mut values = Vec::with_capacity(times.len() * series.len() * GAUGE_VALUES);
        for k in 0..times.len() {
            for s in series {
                values.extend_from_slice(&s.values[k]);
            }
        }
        c = c.record("gauge_values", values);
    }
    if !lines.is_empty() {
        let discharge = (0..times.len()).flat_map(|k| lines.iter().map(move |l| l.discharge[k])).collect();
        c = c.record("line_discharge", discharge);
    }
    c
}

/// Samples a run has taken after `steps` steps with one every `every`: sample 0 is the initial
/// state, sample n the state after step n·every.
pub(super) fn samples_after(steps: u64, every: u64) -> u64 {
    steps / every + 1
}

/// Replace the records with the checkpoint's, which must hold every sample up to its step
/// (`every` steps apart); the number of samples.
pub(super) fn restore_records<T: Clone>(c: &Checkpoint<T>, records: &mut Records, every: u64) -> Result<u64> {
    if records.is_empty() {
        return Ok(0);
    }
    let n = c.get_count("gauge_samples")?;
    let want = samples_after(c.clock.steps, every);
    if n != want {
        return Err(Error::invalid(format!(
            "the checkpoint holds {n} gauge samples, where step {} with a sample every {every} steps has {want}",
            c.clock.steps
        )));
    }
    let times = c.get_record("gauge_times", n as usize)?;
    let gauges = records.series.len();
    if gauges > 0 {
        let values = c.get_record("gauge_values", n as usize * gauges * GAUGE_VALUES)?;
        for (g, s) in records.series.iter_mut().enumerate() {
            s.times = times.to_vec();
            s.values = (0..n as usize)
                .map(|k| {
                    let at = (k * gauges + g) * GAUGE_VALUES;
                    std::array::from_fn(|v| values[at + v])
                })
                .collect();
        }
    }
    let lines = records.lines.len();
    if lines > 0 {
        let discharge = c.get_record("line_discharge", n as usize * lines)?;
        for (k, l) in records.lines.iter_mut().enumerate() {
            l.times = times.to_vec();
            l.discharge = (0..n as usize).map(|s| discharge[s * lines + k]).collect();
        }
    }
    Ok(n)
}

/// The maps of `cells` values each, from the checkpoint.
pub(super) fn restore_maps<T: Clone>(c: &Checkpoint<T>, cells: usize) -> Result<Maps<T>> {
    let mut maps: Maps<T> = Default::default();
    for (m, name) in maps.iter_mut().zip(MAPS) {
        *m = c.get_field(name, cells)?.to_vec();
    }
    Ok(maps)
}
