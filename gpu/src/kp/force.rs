//! The forcing kernels (`forcing.rs`; launch contract: `entries.rs`).

use super::{
    CLOCK_T, CellForcing, Coeffs, FORCED_SPAN, FORCED_T, NO_RAIN, SeriesSet, cell_inputs, force_point, force_rows,
    inflow_depth, integrate_span, is_active, rain_depth, span_of,
};
use crate::device::{DeviceReal, thread};
use crate::forcing::{Infiltration, NO_SOIL};
use crate::sediment::compensated_add;

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

/// One thread: the step's uniform forcing for its last RK stage (`rk.rs`, `StageForcing`): the
/// uniform rain's depth over the step the model clock has just taken ([`rain_depth`]; 0 where
/// `rain` is [`NO_RAIN`]) into `uniform[0]`, and the step's span, as the clock kernel finds it
/// after the step ([`span_of`]), into `uniform[1]`.
///
/// # Safety
/// `clock` holds the model clock, `uniform` 2; the rest as [`rain_depth`] says.
#[allow(clippy::too_many_arguments)]
pub(super) unsafe fn kp_force_stage<T: DeviceReal>(
    rain: u32,
    clock: *const f64,
    forced: *const f64,
    times: *const f64,
    values: *const f64,
    starts: *const u32,
    uniform: *mut T,
) {
    if thread::index_1d() != 0 {
        return;
    }
    unsafe {
        let t = *clock.add(CLOCK_T);
        *uniform = if rain == NO_RAIN { T::ZERO } else { rain_depth(rain, t, forced, times, values, starts) };
        *uniform.add(1) = T::from_f64(span_of(*forced.add(FORCED_T), t));
    }
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
            // Few cells: the divisions cost nothing that shows. max(1) proves the divisors
            // non-zero (no trap path).
            let p = (k.pitch as usize).max(1);
            let (i, j) = ((c % p) as u32, (c / p) as u32);
            let b = ((j - 2) / k.by.max(1)) * k.nbx + (i - 2) / k.bx.max(1);
            *wet.add(b as usize) = 1;
        }
    }
}

/// The pass over every cell, on the wet map's blocks (`k.nbx × k.nby` blocks of `k.bx` ×
/// ⌈`k.by` / [`force_rows`]⌉ threads, thread row r taking the block's rows r, r + blockDim.y, …):
/// each cell's rain over the span and its soil ([`cell_inputs`]), then the soil's take
/// ([`force_point`]); `f` the soil's total per cell, null without a soil. `SOIL` is the soil's
/// model (`NO_SOIL`, `GREEN_AMPT`, `HORTON`: `cf.soil.model`), so each entry holds one model's
/// arithmetic and registers. Without a soil nothing leaves a cell and rain is never negative
/// (refused at input), so the momenta keep their values and a cell's bed is read only to flag
/// a dry block that the rain wets; with a soil the momenta are read with the rest and written
/// where the soil takes water. Loads of every row come before the arithmetic, so they are in
/// flight together (up to four rows: [`force_rows`]).
///
/// # Safety
/// As [`kp_force_inflow`] and [`cell_inputs`]; `f` null or padded; the launch as above.
#[allow(clippy::too_many_arguments)]
pub(super) unsafe fn kp_force_cells<T: DeviceReal, const SOIL: u32>(
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
    let (bx, by) = (thread::block_idx_x(), thread::block_idx_y());
    let x = bx * k.bx + thread::thread_idx_x();
    if x >= k.nx {
        return;
    }
    let compensated = !lo.is_null();
    unsafe {
        let flag = wet.add((by * k.nbx + bx) as usize);
        let flagged = *flag != 0;
        let dt = *span;
        // A row's cell and what the pass reads of it (the bed with a soil), or None outside the block,
        // the grid or the domain (where no rain falls and no soil takes water).
        let load = |r: u32| {
            let ty = thread::thread_idx_y() + r * thread::block_dim_y();
            let y = by * k.by + ty;
            let c = k.at(x + 2, y + 2);
            if !(r < force_rows(SOIL) && ty < k.by && y < k.ny && is_active(k.active(), c)) {
                return None;
            }
            let l = if compensated { *lo.add(c) } else { T::ZERO };
            // With a soil the bed is always needed, and the momenta nearly always (a soil takes
            // water wherever there is some, and the momenta keep its velocity): read with the
            // rest, so that no load waits on the soil's arithmetic.
            let (b, f0, m) = if SOIL != NO_SOIL {
                (*bc.add(c), *f.add(c), (*hu.add(c), *hv.add(c)))
            } else {
                (T::ZERO, T::ZERO, (T::ZERO, T::ZERO))
            };
            let n = y as usize * k.nx as usize + x as usize;
            let (add, soil) = cell_inputs(&cf, n, amounts, forced, frame_times, frames, rain_cells, soils, soil_cells);
            Some((c, *w.add(c), l, b, f0, m, add, Infiltration { model: SOIL, p: soil.p }))
        };
        // Every row's loads are issued before the flag's value is needed: a block already
        // flagged needs no bed, without a soil, to flag it again.
        let rows = [load(0), load(1), load(2), load(3)];
        let needs_bed = SOIL != NO_SOIL || !flagged;
        // The row forced and written; whether it flags its block wet.
        #[allow(clippy::type_complexity)]
        let store = |row: Option<(usize, T, T, T, T, (T, T), T, Infiltration<T>)>| {
            let Some((c, wc, l, b, f0, (u, v), add, soil)) = row else { return false };
            if SOIL == NO_SOIL {
                let b = if needs_bed { *bc.add(c) } else { b };
                let (nw, nl) = if compensated { compensated_add(wc, l, add) } else { (wc + add, T::ZERO) };
                *w.add(c) = nw;
                if compensated {
                    *lo.add(c) = nl;
                }
                // As force_point: nothing taken, so the cell holds h + add.
                needs_bed && ((wc - b) + l).max(T::ZERO) + add > k.wet_above
            } else {
                let ((nw, nl), keep, nf, is_wet) = force_point(&k, (wc, l), b, add, soil, f0, dt, compensated);
                *w.add(c) = nw;
                if compensated {
                    *lo.add(c) = nl;
                }
                if keep != T::ONE {
                    (*hu.add(c), *hv.add(c)) = (u * keep, v * keep);
                }
                *f.add(c) = nf;
                is_wet
            }
        };
        let [a, b, c, d] = rows;
        let any_wet = store(a) | store(b) | store(c) | store(d);
        if any_wet {
            *flag = 1;
        }
    }
}
