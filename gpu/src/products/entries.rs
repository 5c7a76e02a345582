//! The products' entry point.
//!
//! Launch contract: a 2D grid of blocks covering nx × ny threads (one interior cell each; the
//! block size any multiple of 32 with at least `s.gauges` threads in block (0, 0)). `level`,
//! `bed`, `hu`, `hv` are padded arrays indexed by [`Fields::padded`]; `max_h`, `max_speed`,
//! `arrival` hold nx·ny values (unused when `f.maxima` is 0); `cells` holds `s.gauges` padded
//! indices ([`Fields::padded`] of their interior cells); `values` holds `s.capacity · s.gauges · GAUGE_VALUES` T and `times`
//! `s.capacity` f64; `t_at` and `steps_at` point at the model's device clock (f64).

#[cfg(target_arch = "nvptx64")]
use super::kernel::products_update;
use super::{Fields, Sampling};

kernels! {
    /// Maxima and arrival of every cell, and the gauges' sample of this step.
    pub struct Update<T> {
        f: Fields<T>, s: Sampling, level: *const T, bed: *const T, hu: *const T, hv: *const T,
        t_at: *const f64, steps_at: *const f64,
        max_h: *mut T, max_speed: *mut T, arrival: *mut T,
        cells: *const u32, values: *mut T, times: *mut f64,
    }
    pub const UPDATE: Update = products_update(products_update::<T>);
}
