//! External forcing of the shallow-water state (`crate::forcing`), applied after each whole
//! step as a split operator: rain and inflows add water with no momentum, a soil (Green–Ampt or
//! Horton) takes what it may (at most what a cell holds) with the momentum it carries.
//!
//! On the device a one-thread clock kernel integrates every series over the span the step
//! advanced (from the forcing clock's time to the model clock's) into `amounts` and finds the
//! rain frame holding at the span's start; a kernel over the inflow cells and one over every
//! cell then add those amounts and each cell's gridded rain over the span, so no value comes
//! from the host during a run. The step's uniform forcing — uniform rain and a uniform
//! Green–Ampt soil, with no rain grid and no soils by cell — acts inside the step's last RK
//! stage instead ([`rain_depth`], [`span_of`], [`rain_on`], [`force_point`]), which saves the
//! pass over every cell.

use super::Coeffs;
use crate::Real;
pub use crate::forcing::{CellForcing, NO_RAIN};
use crate::forcing::{Infiltration, Soil, Span, cell_gain, force_cell, frame_at};
use crate::sediment::compensated_add;

/// Slots of the forcing clock (f64): the time forcing has been applied up to, and of the span
/// the last clock kernel integrated over its length, its start and the rain frame holding at
/// its start (an index, exact in f64).
pub const FORCED_T: usize = 0;
pub const FORCED_SPAN: usize = 1;
pub const FORCED_FROM: usize = 2;
pub const FORCED_FRAME: usize = 3;
pub const FORCED_LEN: usize = 4;

/// Rows of a wet-map block each thread of the pass over every cell takes (`force.rs`), by the
/// soil's model: rain alone and Green–Ampt are memory-bound, and with one row a thread has too
/// few loads in flight to keep the memory busy; Horton is bound by its f64 arithmetic, which a
/// second row's registers would slow by taking occupancy.
pub const fn force_rows(model: u32) -> u32 {
    match model {
        crate::forcing::HORTON => 1,
        crate::forcing::GREEN_AMPT => 2,
        _ => 4,
    }
}

/// The series the clock kernel evaluates: `count` of them, series s having the points
/// `starts[s]..starts[s + 1]` of `times` and `values`; those before `level_first` are
/// integrated over the span (rain, inflows), those from it on are levels, evaluated at the
/// span's end. And the number of gridded rain frames (0: none), whose `frames + 1` times
/// (`held_integral`'s) the clock kernel searches for the frame holding at the span's start.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct SeriesSet {
    pub count: u32,
    pub level_first: u32,
    pub frames: u32,
}

/// A cell after its forcing. The state's surface `w` (with its compensated low part `lo`, 0 on
/// the plain path) over the cell bed `cb` gains the depth `add` and loses what the soil that has
/// taken `f` takes over `dt` ([`force_cell`]). Returns ((w, lo), the factor the momenta are
/// multiplied by, the soil's new total, whether the cell is wet for the wet map); on the
/// compensated path the total is rounded down and the cell keeps the rest ([`soil_total`]).
/// The factor keeps the water's velocity where the soil takes some (what stays of the water),
/// is 0 where a cell deeper than the dry depth falls to it (as after an RK stage), and exactly
/// 1 otherwise — a cell already at or below the dry depth has no momentum since its last RK
/// stage — so a kernel touches the momenta only where they change (rain on a dry plain reads
/// none).
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub fn force_point<T: Real>(
    k: &Coeffs<T>,
    (w, lo): (T, T),
    cb: T,
    add: T,
    soil: Infiltration<T>,
    f: T,
    dt: T,
    compensated: bool,
) -> ((T, T), T, T, bool) {
    let h = ((w - cb) + lo).max(T::ZERO);
    let (dh, taken) = force_cell(h, add, soil, f, dt);
    let held = h + add;
    let left = held - taken;
    let (total, kept) = if compensated { soil_total(f, taken) } else { (f + taken, T::ZERO) };
    // A soil that takes all the cell holds leaves the surface on the bed, exactly: w + dh would
    // miss it by the rounding of h and of h + add, below the bed as often as above.
    let (w, lo) = if taken > T::ZERO && left <= T::ZERO {
        (cb, kept)
    } else if compensated {
        compensated_add(w, lo + kept, dh)
    } else {
        (w + dh, T::ZERO)
    };
    let keep = if left <= k.dry {
        if h > k.dry { T::ZERO } else { T::ONE }
    } else if taken > T::ZERO {
        left.div_refined(held)
    } else {
        T::ONE
    };
    ((w, lo), keep, total, left > k.wet_above)
}

/// A soil's total `f` after it takes `taken`, on the compensated path: f + taken rounded down,
/// and what of `taken` the total leaves out (≥ 0), so that total + kept = f + taken exactly
/// (the rounding as [`compensated_add`]'s TwoSum gives it; where the sum rounds up, the value
/// below it is taken, and the part kept is then exact to a rounding of an ulp of an ulp). The
/// cell keeps that part in w's low part, so the water the soil takes is what its total gains
/// and the water account closes at the compensated update's level however many steps the
/// totals grow by (a plain total rounds by up to half an ulp a step: steps·ε/2 of the water the
/// soil took). Down, so that a soil that takes all a cell holds never records more than it took.
#[inline(always)]
pub fn soil_total<T: Real>(f: T, taken: T) -> (T, T) {
    let (total, rounding) = compensated_add(f, T::ZERO, taken);
    if rounding >= T::ZERO {
        (total, rounding)
    } else {
        let below = total.next_down();
        (below, (total - below) + rounding)
    }
}

/// The clock kernel's work: the span from `forced[FORCED_T]` to the model's time `t`, each
/// integrated series' integral over it into `amounts`, each level's value at `t` into `levels`,
/// the span's start and the rain frame holding there into the clock, and the forcing clock
/// moved to `t`.
///
/// # Safety
/// `forced` holds [`FORCED_LEN`]; `starts` holds `set.count + 1` increasing offsets into
/// `times` and `values` (each series at least one point); `amounts` holds `set.level_first`,
/// `levels` `set.count − set.level_first`; `frame_times` `set.frames + 1` (when frames > 0).
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub unsafe fn integrate_span(
    set: SeriesSet,
    t: f64,
    forced: *mut f64,
    times: *const f64,
    values: *const f64,
    starts: *const u32,
    amounts: *mut f64,
    levels: *mut f64,
    frame_times: *const f64,
) {
    unsafe {
        let a = *forced.add(FORCED_T);
        *forced.add(FORCED_FROM) = a;
        if set.frames > 0 {
            let times = core::slice::from_raw_parts(frame_times, set.frames as usize + 1);
            *forced.add(FORCED_FRAME) = frame_at(times, a) as f64;
        }
        for s in 0..set.count as usize {
            let (ts, vs) = series_points(s, starts, times, values);
            if s < set.level_first as usize {
                *amounts.add(s) = crate::forcing::series_integral_unchecked(ts, vs, a, t);
            } else {
                *levels.add(s - set.level_first as usize) = crate::forcing::series_at_unchecked(ts, vs, t);
            }
        }
        *forced.add(FORCED_SPAN) = span_of(a, t);
        *forced.add(FORCED_T) = t;
    }
}

/// The length of the span from the forcing clock's time `from` to the model's `to` (0 where the
/// model clock has not moved past it).
#[inline(always)]
pub fn span_of(from: f64, to: f64) -> f64 {
    if to > from { to - from } else { 0.0 }
}

/// The uniform rain's depth over the step the model clock at `t` has just taken: series
/// `rain`'s integral from the forcing clock's time to `t`, rounded to `T`. The clock kernel
/// integrates the same series over the same span after the step, so this is the `add` its
/// per-cell pass would give every cell ([`cell_inputs`] without frames).
///
/// # Safety
/// `forced` holds [`FORCED_LEN`]; `starts` holds offsets into `times` and `values` for series
/// `rain` and the next (at least one point).
#[inline(always)]
pub unsafe fn rain_depth<T: Real>(
    rain: u32,
    t: f64,
    forced: *const f64,
    times: *const f64,
    values: *const f64,
    starts: *const u32,
) -> T {
    unsafe {
        let (ts, vs) = series_points(rain as usize, starts, times, values);
        T::from_f64(crate::forcing::series_integral_unchecked(ts, vs, *forced.add(FORCED_T), t))
    }
}

/// Series `s`'s times and values: points `starts[s]..starts[s + 1]` of `times` and `values`.
///
/// # Safety
/// `starts` holds `s + 2` increasing offsets into `times` and `values`; the slices live as long
/// as the arrays.
#[inline(always)]
unsafe fn series_points<'a>(
    s: usize,
    starts: *const u32,
    times: *const f64,
    values: *const f64,
) -> (&'a [f64], &'a [f64]) {
    unsafe {
        let (from, to) = (*starts.add(s) as usize, *starts.add(s + 1) as usize);
        (
            core::slice::from_raw_parts(times.add(from), to - from),
            core::slice::from_raw_parts(values.add(from), to - from),
        )
    }
}

/// Uniform rain's depth `rain` falling on a cell the step's last RK stage has just left at the
/// surface `w` (its low part `lo`, 0 on the plain path) over the cell bed `cb`: the cell's new
/// (w, lo) and whether it holds more than the wet depth. The arithmetic of [`force_point`]
/// without a soil, whose momenta factor is 1: rain adds water and no momentum.
#[inline(always)]
pub fn rain_on<T: Real>(k: &Coeffs<T>, w: T, lo: T, cb: T, rain: T, compensated: bool) -> (T, T, bool) {
    let h = ((w - cb) + lo).max(T::ZERO);
    let (w, lo) = if compensated { compensated_add(w, lo, rain) } else { (w + rain, T::ZERO) };
    (w, lo, h + rain > k.wet_above)
}

/// The step's uniform forcing on a cell its last RK stage has just left at (w, hu, hv), w's low
/// part `lo` (0 on the plain path), over the cell bed `cb`: the rain's depth `rain` and, with
/// `soil` (a Green–Ampt soil, the step's span, the cell's total so far), the soil's take —
/// [`force_point`]'s arithmetic, the momenta times its factor; without a soil [`rain_on`]'s,
/// which is the same arithmetic for a soil that takes nothing. Returns the cell's
/// ((w, hu, hv), lo), the soil's new total (0 without a soil) and whether the cell holds more
/// than the wet depth. Applied to the active cells where there is a soil or the rain is positive.
#[inline(always)]
pub fn force_stage_cell<T: Real>(
    k: &Coeffs<T>,
    ((w, hu, hv), lo): ((T, T, T), T),
    cb: T,
    rain: T,
    soil: Option<(Soil<T>, T, T)>,
    compensated: bool,
) -> (((T, T, T), T), T, bool) {
    match soil {
        Some((soil, span, f)) => {
            let ((w, lo), keep, f, wet) =
                force_point(k, (w, lo), cb, rain, Infiltration::green_ampt(soil), f, span, compensated);
            (((w, hu * keep, hv * keep), lo), f, wet)
        }
        None => {
            let (w, lo, wet) = rain_on(k, w, lo, cb, rain, compensated);
            (((w, hu, hv), lo), T::ZERO, wet)
        }
    }
}

/// What interior cell `n` (x fastest) receives over the span the clock kernel last integrated
/// ([`cell_gain`] over that span, with the uniform rain's depth from `amounts`).
///
/// # Safety
/// `forced` holds [`FORCED_LEN`] as the clock kernel left it; `amounts` the rain's index (with
/// uniform rain); the rest as [`cell_gain`].
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub unsafe fn cell_inputs<T: Real>(
    cf: &CellForcing<T>,
    n: usize,
    amounts: *const f64,
    forced: *const f64,
    frame_times: *const f64,
    frames: *const f32,
    rain_cells: *const u32,
    soils: *const T,
    soil_cells: *const u32,
) -> (T, Infiltration<T>) {
    unsafe {
        let uniform = if cf.rain == NO_RAIN { 0.0 } else { *amounts.add(cf.rain as usize) };
        let span = Span {
            uniform,
            from: *forced.add(FORCED_FROM),
            to: *forced.add(FORCED_T),
            frame: *forced.add(FORCED_FRAME) as u32,
        };
        cell_gain(cf, n, &span, frame_times, frames, rain_cells, soils, soil_cells)
    }
}

/// The depth the inflow cell `c` (of the CSR lists: cell `c`'s inflows are
/// `starts[c]..starts[c + 1]` of `series` and `weights`) receives: Σ weight × amount, the
/// weights in 1/m² (a share of the inflow over the cell's area).
///
/// # Safety
/// As the lists say; `amounts` holds every series index listed.
#[inline(always)]
pub unsafe fn inflow_depth<T: Real>(
    c: usize,
    starts: *const u32,
    series: *const u32,
    weights: *const f64,
    amounts: *const f64,
) -> T {
    unsafe {
        let mut d = 0.0f64;
        for e in *starts.add(c) as usize..*starts.add(c + 1) as usize {
            d += *weights.add(e) * *amounts.add(*series.add(e) as usize);
        }
        T::from_f64(d)
    }
}
