//! The device clock and the Δt rule.

/// Parameters of the Δt kernel.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct Clock {
    pub cfl: f64,
    /// Δt is capped at `t_stop − t`.
    pub t_stop: f64,
    pub dt_floor: f64,
    /// Δt is capped at this (infinite: no cap beyond the CFL condition).
    pub dt_max: f64,
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

/// Δt = CFL / rate, capped at `dt_max` and at the time left until `t_stop` (0 once there); a
/// non-finite rate or a Δt below `dt_floor` short of `t_stop` stops the run (Δt 0, status ≠
/// [`STEP_OK`]). A still state (rate 0) steps by `dt_max` or straight to `t_stop` (Δt 0 when
/// that is infinitely far).
#[inline(always)]
pub fn time_step(cfl: f64, rate: f64, t: f64, t_stop: f64, dt_floor: f64, dt_max: f64) -> (f64, u32) {
    let left = t_stop - t;
    if !rate.is_finite() {
        return (0.0, STEP_NON_FINITE);
    }
    if left <= 0.0 {
        return (0.0, STEP_OK);
    }
    let dt = if rate > 0.0 { cfl / rate } else { f64::INFINITY };
    let dt = if dt < dt_max { dt } else { dt_max };
    let dt = if dt < left { dt } else { left };
    if !dt.is_finite() {
        return (0.0, STEP_OK);
    }
    if dt < dt_floor && left > dt_floor {
        return (0.0, STEP_COLLAPSED);
    }
    (dt, STEP_OK)
}

/// Slots of the split schemes (DS1, DS2) after the common ones: the CFL limits Δt_x and Δt_y
/// the last substeps measured (NaN before the first step), the step's outcome so far
/// ([`SPLIT_GOING`], [`SPLIT_DISCARD`], [`SPLIT_IDLE`]) and the steps discarded over the run.
pub const CLOCK_DS_X: usize = 4;
pub const CLOCK_DS_Y: usize = 5;
pub const CLOCK_DS_STATE: usize = 6;
pub const CLOCK_DS_RETRIES: usize = 7;
/// The clock's length with the split schemes' slots.
pub const CLOCK_LEN_SPLIT: usize = 8;

/// The step goes on: every substep so far allowed Δt.
pub const SPLIT_GOING: u32 = 0;
/// A substep's own limit fell below Δt: the step is discarded (Qⁿ stays) and tried again with
/// halved estimates.
pub const SPLIT_DISCARD: u32 = 1;
/// Nothing to do this step (the stop time is reached, the state is still, or the run halted):
/// the kernels write no state.
pub const SPLIT_IDLE: u32 = 2;

/// Parameters of the split schemes' clock kernels.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct SplitClock {
    pub cfl: f64,
    /// r of Δt = r·min(Δt_x, Δt_y).
    pub safety: f64,
    /// Time a step advances in units of Δt: 1 (DS1) or 2 (DS2's double step).
    pub substeps: f64,
    pub t_stop: f64,
    pub dt_floor: f64,
    /// Δt is capped at this (infinite: no cap).
    pub dt_max: f64,
}

/// Δt of a split step from the estimates `ex`, `ey` at time `t`: r·min(ex, ey), capped at
/// `dt_max` and so that the step (`substeps`·Δt) ends at `t_stop` at the latest; 0 once there or where the state is
/// still (infinite estimates); a Δt below `dt_floor` short of the stop collapses the run.
#[inline(always)]
pub fn split_dt(c: &SplitClock, ex: f64, ey: f64, t: f64) -> (f64, u32) {
    let left = (c.t_stop - t) / c.substeps;
    if left <= 0.0 {
        return (0.0, STEP_OK);
    }
    let dt = c.safety * if ex < ey { ex } else { ey };
    let dt = if dt < c.dt_max { dt } else { c.dt_max };
    let dt = if dt < left { dt } else { left };
    if !dt.is_finite() {
        return (0.0, STEP_OK);
    }
    if dt < c.dt_floor && left > c.dt_floor {
        return (0.0, STEP_COLLAPSED);
    }
    (dt, STEP_OK)
}

/// A substep's own CFL limit CFL/rate from its largest rate (infinite for a still state), or
/// None where the rate is not finite.
#[inline(always)]
pub fn split_limit(cfl: f64, rate: f64) -> Option<f64> {
    if !rate.is_finite() {
        return None;
    }
    Some(if rate > 0.0 { cfl / rate } else { f64::INFINITY })
}
