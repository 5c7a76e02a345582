//! What one cell of a grid receives over a span of time: its share of the uniform and gridded
//! rain, and its soil. The solvers differ in how they find the span (kp's clock kernel, the ADI's
//! fixed Δt on the host) and in what they do with a cell's water; they read these the same way.

use super::{Infiltration, held_integral};
use crate::Real;

/// What every cell receives: the index of the uniform rain's depth over the span among the
/// series a solver integrates (or [`NO_RAIN`]); the gridded rain's frame count (0: none) and the
/// length of a frame (the rain cells a frame holds); and the soil under every cell
/// (`Infiltration::NONE`: none), or with a soil per cell the model and unused parameters.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct CellForcing<T> {
    pub rain: u32,
    pub frames: u32,
    pub stride: u32,
    pub soil: Infiltration<T>,
}

/// [`CellForcing::rain`] of a run without uniform rain.
pub const NO_RAIN: u32 = u32::MAX;

/// A span of time [`from`, `to`] (s) and what does not vary from cell to cell over it: the
/// uniform rain's depth (m, 0 without) and the rain frame holding at `from`
/// ([`frame_at`](super::frame_at) of the frames' times).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Span {
    pub uniform: f64,
    pub from: f64,
    pub to: f64,
    pub frame: u32,
}

/// What interior cell `n` (x fastest) receives over `span`, as a depth: the uniform rain's and
/// the gridded rain's (the frames' values at its rain cell `rain_cells[n]`, frame k's at
/// `frames[k·stride + cell]`, integrated over the span from the span's frame), summed in f64 and
/// rounded once; and its soil (`cf.soil`, or with a soil per cell the entry `soil_cells[n]` of
/// `soils`, three values an entry).
///
/// # Safety
/// With frames, `frame_times` holds `cf.frames + 1`, `rain_cells` every interior cell and
/// `frames` `cf.frames·cf.stride` values, each rain cell below `cf.stride`; `soil_cells` null or
/// every interior cell's entry of `soils`.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub unsafe fn cell_gain<T: Real>(
    cf: &CellForcing<T>,
    n: usize,
    span: &Span,
    frame_times: *const f64,
    frames: *const f32,
    rain_cells: *const u32,
    soils: *const T,
    soil_cells: *const u32,
) -> (T, Infiltration<T>) {
    unsafe {
        let mut add = span.uniform;
        if cf.frames > 0 {
            let times = core::slice::from_raw_parts(frame_times, cf.frames as usize + 1);
            let cell = *rain_cells.add(n) as usize;
            let stride = cf.stride as usize;
            add += held_integral(times, span.frame as usize, span.from, span.to, |k| {
                *frames.add(k * stride + cell) as f64
            });
        }
        let soil = if soil_cells.is_null() {
            cf.soil
        } else {
            let e = *soil_cells.add(n) as usize * 3;
            Infiltration { model: cf.soil.model, p: [*soils.add(e), *soils.add(e + 1), *soils.add(e + 2)] }
        };
        (T::from_f64(add), soil)
    }
}
