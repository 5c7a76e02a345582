//! The device clock and the Δt rule.

/// Parameters of the Δt kernel.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct Clock {
    pub cfl: f64,
    /// Δt is capped at `t_stop − t`.
    pub t_stop: f64,
    pub dt_floor: f64,
}

/// Slots of the device clock (an f64 array).
pub const CLOCK_T: usize = 0;
pub const CLOCK_DT: usize = 1;
pub const CLOCK_STATUS: usize = 2;
pub const CLOCK_STEPS: usize = 3;
pub const CLOCK_LEN: usize = 4;

/// Outcome of choosing a time step.
pub const STEP_OK: u32 = 0;
/// The largest wave speed is not finite: the state has blown up.
pub const STEP_NON_FINITE: u32 = 1;
/// Δt fell below the floor before the stop time.
pub const STEP_COLLAPSED: u32 = 2;

/// Δt = CFL / rate, capped at the time left until `t_stop` (0 once there); a non-finite rate
/// or a Δt below `dt_floor` short of `t_stop` stops the run (Δt 0, status ≠ [`STEP_OK`]).
/// A still state (rate 0) steps straight to `t_stop` (Δt 0 when that is infinitely far).
#[inline(always)]
pub fn time_step(cfl: f64, rate: f64, t: f64, t_stop: f64, dt_floor: f64) -> (f64, u32) {
    let left = t_stop - t;
    if !rate.is_finite() {
        return (0.0, STEP_NON_FINITE);
    }
    if left <= 0.0 {
        return (0.0, STEP_OK);
    }
    let dt = if rate > 0.0 { cfl / rate } else { f64::INFINITY };
    let dt = if dt < left { dt } else { left };
    if !dt.is_finite() {
        return (0.0, STEP_OK);
    }
    if dt < dt_floor && left > dt_floor {
        return (0.0, STEP_COLLAPSED);
    }
    (dt, STEP_OK)
}
