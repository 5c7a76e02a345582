//! The products' entry points.
//!
//! Launch contract: a 2D grid of blocks covering nx × ny threads (one interior cell each; the
//! block size any multiple of 32), or, when `f.maxima` is 0, any grid; the threads of block
//! (0, 0) take the `s.gauges` sampled cells in turn, however many. `level`, `bed`, `hu`, `hv`
//! are arrays (of `T`; for `M_UPDATE` of f64 and f32) holding every element their
//! [`View`](super::View)s in `f` reach (the bed is not read when `f.level_is` is
//! `LEVEL_DEPTH_FLAT`); with `select` not null, level and momenta lie `*select · f.buffer`
//! elements further on (a state buffer the device chose). `max_h`, `max_speed`, `arrival`,
//! `max_hazard`, `max_h_time`, `duration`, `wet_since` hold nx·ny values each (unused when
//! `f.maxima` is 0); `cells` holds `s.gauges` pairs (i, j) of interior cells (the gauges' and
//! the lines'); `values` holds `s.capacity · s.gauges · GAUGE_VALUES` T and `times`
//! `s.capacity` f64. The time and step count are read at `t_at` and `steps_at` (the model's
//! device clock, f64 slots), or, where `t_at` is null, are `t` and `steps` (a clock the host
//! knows).

#[cfg(target_arch = "nvptx64")]
use super::kernel::products_update;
use super::{Fields, Sampling};

kernels! {
    /// Maxima, their times, arrival and flooding of every cell, and the gauges' sample of this step.
    pub struct Update<T> {
        f: Fields<T>, s: Sampling, level: *const T, bed: *const T, hu: *const T, hv: *const T,
        select: *const u32, t_at: *const f64, steps_at: *const f64, t: f64, steps: u64,
        max_h: *mut T, max_speed: *mut T, arrival: *mut T,
        max_hazard: *mut T, max_h_time: *mut T, duration: *mut T, wet_since: *mut T,
        cells: *const u32, values: *mut T, times: *mut f64,
    }
    pub const UPDATE: Update = products_update(products_update::<T, T, T>);
    /// The shallow-water model's mixed precision: `level` carries an array of f64, `bed`, `hu`
    /// and `hv` arrays of f32.
    pub const M_UPDATE: Update = products_m_update(products_update::<T, f64, f32>);
}
