//! Gauges and maximum-value maps, as GeoClaw offers them (gauges, fgmax): time series of depth,
//! momenta and surface at named points, sampled every step (or every k steps), and maps of the
//! largest depth and speed each cell has seen and of the time water first arrived in it.
//!
//! What the case asks for is [`Spec`] (`[output]` keys `gauges`, `gauge_every`, `maxima`,
//! `arrival_depth`); a model keeps the products on its backend ([`CpuProducts`],
//! [`GpuProducts`], both calling the point functions of `kernels::products`), and hands them
//! out as [`Products`], which [`write`] turns into files. On the GPU the maps and the samples
//! stay on the device while stepping: no copy to the host per step; the samples come over in
//! batches when the model reads its clock anyway.

mod cpu;
mod files;
mod gpu;
mod saved;

pub use cpu::CpuProducts;
pub use files::{NEVER_ARRIVED, write};
pub use gpu::{ClockAt, GpuProducts};
pub use kernels::products::{
    Fields, GAUGE_COLUMNS, GAUGE_VALUES, LEVEL_DEPTH, LEVEL_DEPTH_FLAT, LEVEL_ELEVATION, LEVEL_SURFACE, Sampling, View,
};

pub use crate::case::products::{ARRIVAL_DEPTH, Gauge, MAX_GAUGES, Spec};
pub use crate::model::{Products, Series};

use crate::model::Output;

/// The state fields, in this order, of equations that have a water depth: the ones whose runs
/// keep gauges and maximum maps among the wave-propagation solver's.
pub const DEPTH_FIELDS: [&str; 3] = ["h", "hu", "hv"];

/// The series of `spec`'s gauges at `cells`, empty.
fn empty_series(spec: &Spec, cells: &[u32]) -> Vec<Series> {
    spec.gauges
        .iter()
        .zip(cells)
        .map(|(g, &c)| Series { gauge: g.clone(), cell: c as usize, times: Vec::new(), values: Vec::new() })
        .collect()
}

/// The arrival map as the files show it: NaN where the water was above the threshold from the
/// start, as where it never came. The map records t = 0 for the first (only the initial state
/// has that time), so a restart restores it as it was and the files alone leave it out.
pub fn arrival_shown<T: crate::Real>(arrival: &[T]) -> Vec<T> {
    arrival.iter().map(|&a| if a == T::ZERO { T::from_f64(f64::NAN) } else { a }).collect()
}

/// The three maps as outputs of shape (ny, nx).
fn maps<T>(nx: usize, ny: usize, [h, s, a]: [Vec<T>; 3]) -> Vec<Output<T>> {
    let out = |name, long_name, units, data| Output { name, long_name, units, dims: vec![ny, nx], data };
    vec![
        out("max_h", "maximum water depth", "m", h),
        out("max_speed", "maximum speed", "m/s", s),
        out("arrival", "arrival time (depth first above output.arrival_depth after the start)", "s", a),
    ]
}

#[cfg(test)]
mod tests;
