//! Gauges, discharge lines and maximum maps, as GeoClaw offers gauges and fgmax and flood models
//! their cross-sections: time series of depth, momenta and surface at named points and of the
//! discharge through named polylines, sampled every step (or every k steps), and maps of the
//! largest depth and speed each cell has seen and of the time water first arrived in it.
//!
//! What the case asks for is [`Spec`] (`[output]` keys `gauges`, `lines`, `gauge_every`,
//! `maxima`, `arrival_depth`), sampled at the [`Sites`] it names on the grid; a model keeps the
//! products on its backend ([`CpuProducts`], [`GpuProducts`], both calling the point functions
//! of `kernels::products`), and hands them out as [`Products`], which [`write`] turns into
//! files. On the GPU the maps and the samples stay on the device while stepping: no copy to the
//! host per step; the samples come over in batches when the model reads its clock anyway. The
//! lines' discharges follow on the host from the samples of the cells beside their faces
//! ([`lines`]), so both backends record the same.

mod cpu;
mod gpu;
mod joined;
pub mod lines;
mod records;
mod saved;

pub use cpu::CpuProducts;
pub use gpu::{ClockAt, GpuProducts};
pub use joined::{Joined, slab_spec};
pub use kernels::products::{
    Fields, GAUGE_COLUMNS, GAUGE_VALUES, LEVEL_DEPTH, LEVEL_DEPTH_FLAT, LEVEL_ELEVATION, LEVEL_SURFACE, Sampling, View,
};
pub use kernels::products::{flood_duration, update_spell};
pub use lines::{Sites, crossings};

pub use crate::case::products::{ARRIVAL_DEPTH, Gauge, Line, MAX_GAUGES, Spec};
pub use crate::model::{LineSeries, Products, Series};

use crate::model::Output;

/// The state fields, in this order, of equations that have a water depth: the ones whose runs
/// keep gauges and maximum maps among the wave-propagation solver's.
pub const DEPTH_FIELDS: [&str; 3] = ["h", "hu", "hv"];

/// The maps a keeper holds, in this order (the checkpoint's names, and the names of the
/// outputs it hands out): the running maxima of depth, speed and depth × speed, the time of
/// the maximum depth, the arrival time, and the flooding (time above the arrival threshold in
/// spells that ended, and the start of the current spell).
pub const MAPS: [&str; 7] = ["max_h", "max_speed", "max_hazard", "max_h_time", "arrival", "duration", "wet_since"];

/// The maps the files show ([`shown`]): all but `wet_since`.
pub const SHOWN: usize = MAPS.len() - 1;

/// What each map starts as: maxima and durations at 0, times unset (NaN).
const UNSET: [bool; 7] = [false, false, false, true, true, false, true];

/// The maps of a keeper, in the order of [`MAPS`].
pub type Maps<T> = [Vec<T>; 7];

/// What each map's cells start as ([`UNSET`]): NaN for the times, 0 for the rest.
fn map_starts<T: crate::Real>() -> [T; 7] {
    UNSET.map(|unset| if unset { T::NAN } else { T::ZERO })
}

/// Maps of `n` cells each at their start.
fn fresh_maps<T: crate::Real>(n: usize) -> Maps<T> {
    map_starts::<T>().map(|start| vec![start; n])
}

/// A cell of the arrival map as the files show it: NaN where the water was above the threshold
/// from the start, as where it never came. The map records t = 0 for the first (only the
/// initial state has that time), so a restart restores it as it was and the files alone leave
/// it out.
pub fn arrival_shown<T: crate::Real>(arrival: T) -> T {
    if arrival == T::ZERO { T::from_f64(f64::NAN) } else { arrival }
}

/// The maps as the files show them at time `t` (the products' state's): the arrival map with
/// NaN for cells flooded from the start ([`arrival_shown`]), the duration with the spells still
/// going on counted up to `t`, and no `wet_since`, which only the model and its checkpoints need.
/// The maps change in place, on every core: at the end of a large run they are as large as the
/// state, and fresh copies would cost a page fault every 4 KiB on the writer's thread.
pub fn shown<T: crate::Real>(mut maps: Vec<Output<T>>, t: f64) -> Vec<Output<T>> {
    use rayon::prelude::*;
    let grain = crate::field::PARALLEL_GRAIN;
    let since = maps.iter().position(|m| m.name == "wet_since").map(|k| maps.remove(k));
    for m in &mut maps {
        match (m.name, &since) {
            ("arrival", _) => m.data.par_iter_mut().with_min_len(grain).for_each(|a| *a = arrival_shown(*a)),
            ("duration", Some(s)) => m
                .data
                .par_iter_mut()
                .zip(&s.data)
                .with_min_len(grain)
                .for_each(|(d, &s)| *d = kernels::products::flood_duration(*d, s, t)),
            _ => {}
        }
    }
    maps
}

/// The maps as outputs of shape (ny, nx), in the order of [`MAPS`].
fn maps<T>(nx: usize, ny: usize, maps: Maps<T>) -> Vec<Output<T>> {
    const ABOUT: [(&str, &str); 7] = [
        ("maximum water depth", "m"),
        ("maximum speed", "m/s"),
        ("maximum depth times speed (hazard, |(hu, hv)|)", "m2/s"),
        ("time of the maximum water depth", "s"),
        ("arrival time (depth first above output.arrival_depth after the start)", "s"),
        ("duration of flooding (time the depth was above output.arrival_depth)", "s"),
        ("start of the current flooding (model state)", "s"),
    ];
    MAPS.iter()
        .zip(ABOUT)
        .zip(maps)
        .map(|((&name, (long_name, units)), data)| Output { name, long_name, units, dims: vec![ny, nx], data })
        .collect()
}

#[cfg(test)]
mod tests;
