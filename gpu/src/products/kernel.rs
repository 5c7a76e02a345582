//! The products kernel (launch contract: `entries.rs`).

use super::{Fields, GAUGE_VALUES, Sampling, sample_slot, update_maxima};
use crate::device::{DeviceReal, thread};

/// # Safety
/// The launch contract of `entries.rs`; the state arrays are not written during the launch.
#[allow(clippy::too_many_arguments)]
pub(super) unsafe fn products_update<T: DeviceReal>(
    f: Fields<T>,
    s: Sampling,
    level: *const T,
    bed: *const T,
    hu: *const T,
    hv: *const T,
    t_at: *const f64,
    steps_at: *const f64,
    max_h: *mut T,
    max_speed: *mut T,
    arrival: *mut T,
    cells: *const u32,
    values: *mut T,
    times: *mut f64,
) {
    unsafe {
        let t = *t_at;
        let (i, j) = thread::index_2d();
        if f.maxima != 0 && i < f.nx && j < f.ny {
            let c = (j * f.nx + i) as usize;
            let g = f.origin as usize + j as usize * f.pitch as usize + i as usize;
            let (h, _) = f.depth_surface(T::ldg(level.add(g)), T::ldg(bed.add(g)));
            let mut m = [*max_h.add(c), *max_speed.add(c), *arrival.add(c)];
            update_maxima(&f, t, h, T::ldg(hu.add(g)), T::ldg(hv.add(g)), &mut m);
            *max_h.add(c) = m[0];
            *max_speed.add(c) = m[1];
            *arrival.add(c) = m[2];
        }
        // The gauges: threads of block (0, 0), one gauge each.
        if thread::block_idx_x() != 0 || thread::block_idx_y() != 0 {
            return;
        }
        let n = thread::thread_idx_y() * thread::block_dim_x() + thread::thread_idx_x();
        let Some(slot) = sample_slot(&s, *steps_at as u64) else { return };
        if n == 0 {
            *times.add(slot) = t;
        }
        if n < s.gauges {
            let g = *cells.add(n as usize) as usize;
            let (h, eta) = f.depth_surface(T::ldg(level.add(g)), T::ldg(bed.add(g)));
            let out = values.add((slot * s.gauges as usize + n as usize) * GAUGE_VALUES);
            *out = h;
            *out.add(1) = T::ldg(hu.add(g));
            *out.add(2) = T::ldg(hv.add(g));
            *out.add(3) = eta;
        }
    }
}
