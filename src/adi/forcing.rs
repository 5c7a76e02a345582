//! Rain and infiltration of an ADI run (`[forcing]` of the case: `crate::forcing`), laid out as
//! the forcing kernel reads it; the CPU reference applies it after each step (`cpu.rs`) with the
//! kernels' point functions (`kernels::forcing::cell_gain`, `kernels::adi::force_cell_adi`).
//! Δt is fixed, so the host knows every step's span: it integrates the uniform rain over it and
//! finds the rain frame holding at its start, for the CPU reference and the kernel alike.

use crate::Real;
use crate::forcing::{CellArrays, Forcing};
use kernels::forcing::{CellForcing, NO_RAIN, Span, frame_at};

/// The rain and the soils of a run as arrays.
#[derive(Clone, Debug, PartialEq)]
pub struct AdiForcing {
    /// The uniform rain (m/s), if any.
    pub rain: Option<crate::forcing::Series>,
    /// The rain grid and the soils.
    pub per_cell: CellArrays,
}

impl AdiForcing {
    /// The rain and soils of `f`, `None` without either (the case refuses the rest of
    /// `[forcing]` for the ADI model).
    pub fn of(f: &Forcing) -> Option<AdiForcing> {
        if f.rain.is_none() && f.rain_grid.is_none() && f.soil.is_none() {
            return None;
        }
        Some(AdiForcing { rain: f.rain.clone(), per_cell: CellArrays::of(f) })
    }

    /// Whether the cells have a soil.
    pub fn has_soil(&self) -> bool {
        self.per_cell.has_soil()
    }

    /// What every cell receives, in `T` (the uniform rain's depth comes in the [`Span`]).
    pub fn cell_forcing<T: Real>(&self) -> CellForcing<T> {
        self.per_cell.cell_forcing(if self.rain.is_some() { 0 } else { NO_RAIN })
    }

    /// The span of the step from `t0` to `t1` (s): the uniform rain's depth over it and the
    /// rain frame holding at its start.
    pub fn span(&self, t0: f64, t1: f64) -> Span {
        let uniform = self.rain.as_ref().map_or(0.0, |r| r.integral(t0, t1));
        let frames = &self.per_cell.frame_times;
        let frame = if self.per_cell.frames() > 0 { frame_at(frames, t0) as u32 } else { 0 };
        Span { uniform, from: t0, to: t1, frame }
    }
}
