//! The products kernel (launch contract: `entries.rs`).

use super::{
    Fields, GAUGE_VALUES, Sampling, arrival as arrival_at, maxima_stand, sample_slot, spell_open, update_maxima,
    update_spell,
};
use crate::device::{DeviceReal, thread};

/// An element of a model's array read as the products' precision `T`: a value of `T` as it
/// is; in the shallow-water model's mixed precision an f64 surface or an f32 bed or momentum,
/// converted once on load.
pub(super) trait Stored<T>: DeviceReal {
    fn into_products(self) -> T;
}

impl<T: DeviceReal> Stored<T> for T {
    #[inline(always)]
    fn into_products(self) -> T {
        self
    }
}

impl Stored<f32> for f64 {
    #[inline(always)]
    fn into_products(self) -> f32 {
        self as f32
    }
}

impl Stored<f64> for f32 {
    #[inline(always)]
    fn into_products(self) -> f64 {
        self as f64
    }
}

/// The level array holds elements of `L`, the bed and momenta arrays elements of `N` (the
/// parameters' pointers carry them, whatever their declared type).
///
/// # Safety
/// The launch contract of `entries.rs`; the state arrays are not written during the launch.
#[allow(clippy::too_many_arguments)]
pub(super) unsafe fn products_update<T: DeviceReal, L: Stored<T>, N: Stored<T>>(
    f: Fields<T>,
    s: Sampling,
    level: *const T,
    bed: *const T,
    hu: *const T,
    hv: *const T,
    select: *const u32,
    t_at: *const f64,
    steps_at: *const f64,
    t: f64,
    steps: u64,
    max_h: *mut T,
    max_speed: *mut T,
    arrival: *mut T,
    max_hazard: *mut T,
    max_h_time: *mut T,
    duration: *mut T,
    wet_since: *mut T,
    cells: *const u32,
    values: *mut T,
    times: *mut f64,
) {
    unsafe {
        let (t, steps) = if t_at.is_null() { (t, steps) } else { (*t_at, *steps_at as u64) };
        let shift = if select.is_null() { 0 } else { *select as usize * f.buffer as usize };
        let (level, bed) = (level.cast::<L>().add(shift), bed.cast::<N>());
        let (hu, hv) = (hu.cast::<N>().add(shift), hv.cast::<N>().add(shift));
        // The arrays by number, as `Fields::cell` reads them (constants once inlined).
        let read = |a: usize, k: usize| match a {
            0 => L::ldg(level.add(k)).into_products(),
            1 => N::ldg(bed.add(k)).into_products(),
            2 => N::ldg(hu.add(k)).into_products(),
            _ => N::ldg(hv.add(k)).into_products(),
        };
        let (i, j) = thread::index_2d();
        if f.maxima != 0 && i < f.nx && j < f.ny {
            let c = (j * f.nx + i) as usize;
            let (h, _) = f.depth_at(i, j, &read);
            // Loaded with the depth, before the maps' stores: the start alone tells whether a
            // spell is going on, and the duration is read only where one ends.
            let start = *wet_since.add(c);
            if !maxima_stand(&f, h) {
                let (u, v) = f.momenta_at(i, j, &read);
                let old = [*max_h.add(c), *max_speed.add(c), *max_hazard.add(c)];
                let mut m = old;
                let may_arrive = update_maxima(&f, h, u, v, &mut m);
                // Written where they change: most cells' maxima stand still most steps.
                if m[0] != old[0] {
                    *max_h.add(c) = m[0];
                    *max_h_time.add(c) = T::from_f64(t);
                }
                if m[1] != old[1] {
                    *max_speed.add(c) = m[1];
                }
                if m[2] != old[2] {
                    *max_hazard.add(c) = m[2];
                }
                if may_arrive {
                    *arrival.add(c) = arrival_at(t, *arrival.add(c));
                }
            }
            let mut spell = [T::ZERO, start];
            if (h > f.arrival_depth) != spell_open(start) {
                spell[0] = *duration.add(c);
                update_spell(&f, h, t, &mut spell);
                *duration.add(c) = spell[0];
                *wet_since.add(c) = spell[1];
            }
        }
        // The sampled cells (the gauges' and those beside the lines' faces): the threads of
        // block (0, 0) take them in turn, so their number is not bound to the block's size.
        if thread::block_idx_x() != 0 || thread::block_idx_y() != 0 {
            return;
        }
        let mut n = thread::thread_rank_in_block();
        let Some(slot) = sample_slot(&s, steps) else { return };
        if n == 0 {
            *times.add(slot) = t;
        }
        let threads = thread::block_size();
        while n < s.gauges {
            let at = cells.add(2 * n as usize);
            let [h, u, v, eta] = f.cell(*at, *at.add(1), read);
            let out = values.add((slot * s.gauges as usize + n as usize) * GAUGE_VALUES);
            *out = h;
            *out.add(1) = u;
            *out.add(2) = v;
            *out.add(3) = eta;
            n += threads;
        }
    }
}
