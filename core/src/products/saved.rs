//! The products in a model's checkpoint: the maps as fields of the run's precision, the gauge
//! records so far as f64 records (their times would not survive f32; their values are f64 of
//! the run's precision, so they come back exactly). A restarted run goes on with them, so its
//! gauge files and maps are those of the run that was not interrupted.

use super::{GAUGE_VALUES, Series};
use crate::model::Checkpoint;
use crate::{Error, Result};

use super::{MAPS, Maps};

/// Add the gauge records and (with `maps`) the maps to `c`.
pub(super) fn save<T: Clone>(c: Checkpoint<T>, series: &[Series], maps: Option<Maps<T>>) -> Checkpoint<T> {
    let mut c = match maps {
        Some(m) => MAPS.iter().zip(m).fold(c, |c, (name, map)| c.field(name, map)),
        None => c,
    };
    if let Some(first) = series.first() {
        // Sample-major, as the GPU ring holds them: every gauge's values at one time together.
        let mut values = Vec::with_capacity(first.times.len() * series.len() * GAUGE_VALUES);
        for k in 0..first.times.len() {
            for s in series {
                values.extend_from_slice(&s.values[k]);
            }
        }
        c = c.value("gauge_samples", first.times.len() as f64).record("gauge_times", first.times.clone());
        c = c.record("gauge_values", values);
    }
    c
}

/// Samples a run has taken after `steps` steps with one every `every`: sample 0 is the initial
/// state, sample n the state after step n·every.
pub(super) fn samples_after(steps: u64, every: u64) -> u64 {
    steps / every + 1
}

/// Replace `series`' records with the checkpoint's, which must hold every sample up to its
/// step (`every` steps apart); the number of samples.
pub(super) fn restore_series<T: Clone>(c: &Checkpoint<T>, series: &mut [Series], every: u64) -> Result<u64> {
    if series.is_empty() {
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
    let values = c.get_record("gauge_values", n as usize * series.len() * GAUGE_VALUES)?;
    let gauges = series.len();
    for (g, s) in series.iter_mut().enumerate() {
        s.times = times.to_vec();
        s.values = (0..n as usize)
            .map(|k| {
                let at = (k * gauges + g) * GAUGE_VALUES;
                std::array::from_fn(|v| values[at + v])
            })
            .collect();
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
