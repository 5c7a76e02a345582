//! The forcing kernels (`forcing.rs`; launch contract: `entries.rs`).

use super::{
    CLOCK_T, CellForcing, Coeffs, FORCED_SPAN, SeriesSet, cell_inputs, force_point, inflow_depth, integrate_span,
    is_active,
};
use crate::device::{DeviceReal, thread};
use crate::forcing::Infiltration;

/// One thread: every series integrated over the span the model clock advanced past the forcing
/// clock, the rain frame holding at the span's start found, and the forcing clock moved up to
/// the model's.
///
/// # Safety
/// `clock` holds the model clock, `span` 1; the rest as [`integrate_span`] says.
#[allow(clippy::too_many_arguments)]
pub(super) unsafe fn kp_force_clock<T: DeviceReal>(
    set: SeriesSet,
    clock: *const f64,
    forced: *mut f64,
    times: *const f64,
    values: *const f64,
    starts: *const u32,
    amounts: *mut f64,
    levels: *mut f64,
    frame_times: *const f64,
    span: *mut T,
) {
    if thread::index_1d() != 0 {
        return;
    }
    unsafe {
        integrate_span(set, *clock.add(CLOCK_T), forced, times, values, starts, amounts, levels, frame_times);
        *span = T::from_f64(*forced.add(FORCED_SPAN));
    }
}

/// Flags the wet map's block of interior cell (i, j) wet (every writer writes 1: no race that
/// matters; the next RK stage writes the map afresh).
#[inline(always)]
unsafe fn flag_wet<T: DeviceReal>(k: &Coeffs<T>, wet: *mut u32, i: u32, j: u32) {
    // max(1) proves the divisors non-zero (no trap path).
    let b = ((j - 2) / k.by.max(1)) * k.nbx + (i - 2) / k.bx.max(1);
    unsafe { *wet.add(b as usize) = 1 };
}

/// The momenta of cell `c` times `keep`, read and written only where `keep` ≠ 1.
#[inline(always)]
unsafe fn scale_momenta<T: DeviceReal>(c: usize, keep: T, hu: *mut T, hv: *mut T) {
    if keep != T::ONE {
        unsafe { (*hu.add(c), *hv.add(c)) = (*hu.add(c) * keep, *hv.add(c) * keep) };
    }
}

/// One thread an inflow cell: the cell gains its inflows' depth over the span.
///
/// # Safety
/// `cells` holds `count` padded interior indexes, each once; `starts` `count + 1` offsets into
/// `series` and `weights`; `amounts` every series listed; `lo` null or w's padded low part; the
/// state arrays padded; `wet` the wet map of the state.
#[allow(clippy::too_many_arguments)]
pub(super) unsafe fn kp_force_inflow<T: DeviceReal>(
    k: Coeffs<T>,
    count: u32,
    cells: *const u32,
    starts: *const u32,
    series: *const u32,
    weights: *const f64,
    amounts: *const f64,
    span: *const T,
    w: *mut T,
    lo: *mut T,
    hu: *mut T,
    hv: *mut T,
    bc: *const T,
    wet: *mut u32,
) {
    let t = thread::index_1d();
    if t >= count as u64 {
        return;
    }
    unsafe {
        let c = *cells.add(t as usize) as usize;
        let add = inflow_depth::<T>(t as usize, starts, series, weights, amounts);
        let dt = *span;
        let l = if lo.is_null() { T::ZERO } else { *lo.add(c) };
        let ((nw, nl), keep, _, is_wet) =
            force_point(&k, (*w.add(c), l), *bc.add(c), add, Infiltration::NONE, T::ZERO, dt, !lo.is_null());
        *w.add(c) = nw;
        if !lo.is_null() {
            *lo.add(c) = nl;
        }
        scale_momenta(c, keep, hu, hv);
        if is_wet {
            let p = (k.pitch as usize).max(1);
            flag_wet(&k, wet, (c % p) as u32, (c / p) as u32);
        }
    }
}

/// One thread an interior cell (a 2D grid: x across, y along the blocks' rows): the rain's
/// depth over the span and the cell's soil ([`cell_inputs`]), then the soil's take
/// ([`force_point`]); `f` the soil's total per cell, null without a soil. The cell comes from
/// the 2D index rather than a 64-bit division of a 1D one, which costs more than the pass's
/// memory traffic.
///
/// # Safety
/// As [`kp_force_inflow`] and [`cell_inputs`]; `f` null or padded; the grid covers at least
/// nx × ny threads.
#[allow(clippy::too_many_arguments)]
pub(super) unsafe fn kp_force_cells<T: DeviceReal>(
    k: Coeffs<T>,
    cf: CellForcing<T>,
    amounts: *const f64,
    forced: *const f64,
    frame_times: *const f64,
    frames: *const f32,
    rain_cells: *const u32,
    soils: *const T,
    soil_cells: *const u32,
    span: *const T,
    w: *mut T,
    lo: *mut T,
    hu: *mut T,
    hv: *mut T,
    bc: *const T,
    f: *mut T,
    wet: *mut u32,
) {
    let (x, y) = thread::index_2d();
    if x >= k.nx || y >= k.ny {
        return;
    }
    let (i, j) = (x + 2, y + 2);
    let c = k.at(i, j);
    unsafe {
        // Outside the domain no rain falls and no soil takes water.
        if !is_active(k.active(), c) {
            return;
        }
        let n = y as usize * k.nx as usize + x as usize;
        let (add, soil) = cell_inputs(&cf, n, amounts, forced, frame_times, frames, rain_cells, soils, soil_cells);
        let dt = *span;
        let l = if lo.is_null() { T::ZERO } else { *lo.add(c) };
        let f0 = if f.is_null() { T::ZERO } else { *f.add(c) };
        let ((nw, nl), keep, nf, is_wet) =
            force_point(&k, (*w.add(c), l), *bc.add(c), add, soil, f0, dt, !lo.is_null());
        *w.add(c) = nw;
        if !lo.is_null() {
            *lo.add(c) = nl;
        }
        scale_momenta(c, keep, hu, hv);
        if !f.is_null() {
            *f.add(c) = nf;
        }
        if is_wet {
            flag_wet(&k, wet, i, j);
        }
    }
}
