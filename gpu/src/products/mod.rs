//! Run products every step (issue 15.4, as GeoClaw's gauges and fgmax maps): the largest depth
//! and speed each cell has seen, the time water first stood deeper than a threshold in it, and
//! gauge time series sampled at chosen cells. Solver-agnostic: a model hands over its depth (or
//! surface and bed) and momenta as padded arrays ([`Fields`]) and its device clock.
//!
//! The point functions below are what the CPU reference and the kernel (`kernel.rs`, entry
//! points in `entries.rs`) both call.

use crate::Real;

mod entries;
pub use entries::*;

#[cfg(target_arch = "nvptx64")]
mod kernel;

/// Values a gauge records per sample, in this order.
pub const GAUGE_VALUES: usize = 4;
/// Their names (CSV columns after `t`): depth, momenta, surface elevation.
pub const GAUGE_COLUMNS: [&str; GAUGE_VALUES] = ["h", "hu", "hv", "eta"];

/// Where a model's cell fields lie and what the products take from them.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct Fields<T> {
    pub nx: u32,
    pub ny: u32,
    /// Row pitch of the padded arrays, and the padded index of interior cell (0, 0).
    pub pitch: u32,
    pub origin: u32,
    /// 1 when `level` holds the surface w (depth = w − bed), 0 when it holds the depth.
    pub surface: u32,
    /// 1 when the maps are kept.
    pub maxima: u32,
    /// Depths at or below this count as dry: no speed, no depth in the maximum.
    pub dry: T,
    /// Water has arrived in a cell when its depth exceeds this.
    pub arrival_depth: T,
}

/// When gauges are sampled and where their records go.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct Sampling {
    pub gauges: u32,
    /// A sample every `every` steps (steps counted by the clock: a step of Δt = 0 past a stop
    /// time does not count, and re-writes the same sample with the same values).
    pub every: u32,
    /// Samples the record buffers hold; sample n goes to slot n mod `capacity`.
    pub capacity: u32,
}

impl<T: Real> Fields<T> {
    /// The fields of padded arrays of `layout`; `surface` says whether the level array holds
    /// the surface (else the depth). Maxima off until the host sets them.
    pub fn on(layout: crate::grid::Layout2, surface: bool, dry: T, arrival_depth: T) -> Fields<T> {
        Fields {
            nx: layout.nx,
            ny: layout.ny,
            pitch: layout.pitch,
            origin: layout.halo * layout.pitch + layout.halo,
            surface: u32::from(surface),
            maxima: 0,
            dry,
            arrival_depth,
        }
    }

    /// Padded index of interior cell `c` (row-major over nx × ny).
    #[inline(always)]
    pub fn padded(&self, c: usize) -> usize {
        let (i, j) = (c % self.nx as usize, c / self.nx as usize);
        self.origin as usize + j * self.pitch as usize + i
    }

    /// (depth, surface) of a cell from its `level` and bed.
    #[inline(always)]
    pub fn depth_surface(&self, level: T, bed: T) -> (T, T) {
        if self.surface != 0 { (level - bed, level) } else { (level, level + bed) }
    }
}

/// Speed of a cell: |(hu, hv)|/h where the cell is wet, else 0.
#[inline(always)]
pub fn speed<T: Real>(dry: T, h: T, hu: T, hv: T) -> T {
    if h > dry { (hu * hu + hv * hv).sqrt() / h } else { T::ZERO }
}

/// One cell's maps after a step at time `t`: `m` = [max depth, max speed, arrival], the running
/// maxima of depth (wet depths only) and speed, and the arrival time (NaN until the depth first
/// exceeds the threshold).
#[inline(always)]
pub fn update_maxima<T: Real>(f: &Fields<T>, t: f64, h: T, hu: T, hv: T, m: &mut [T; 3]) {
    let wet = if h > f.dry { h } else { T::ZERO };
    if wet > m[0] {
        m[0] = wet;
    }
    let s = speed(f.dry, h, hu, hv);
    if s > m[1] {
        m[1] = s;
    }
    // NaN is the only value not equal to itself: not arrived yet.
    #[allow(clippy::eq_op)]
    let unset = m[2] != m[2];
    if unset && h > f.arrival_depth {
        m[2] = T::from_f64(t);
    }
}

/// The slot sample `steps / every` goes to, if `steps` is a sampling step.
#[inline(always)]
pub fn sample_slot(s: &Sampling, steps: u64) -> Option<usize> {
    let every = s.every.max(1) as u64;
    if steps.is_multiple_of(every) { Some(((steps / every) % s.capacity.max(1) as u64) as usize) } else { None }
}
