//! A run's clock and PyClaw's step control as point functions over an array of f64 slots, so
//! that the CPU reference and the device's control kernel take the same decisions: a step of
//! Δt is tried, its CFL number Δt·max|s|/Δ is measured over every wave of every sweep, a step
//! above the maximum is discarded and redone from the state before it, and the next Δt is
//! Δt·desired/CFL either way.
//!
//! On the device the state buffers a step reads and writes are named by `order` (one buffer
//! index per sweep boundary): sweep `k` reads buffer `order[k]` and writes `order[k + 1]`, so
//! the last sweep's output is the new state and the first sweep's input stays untouched until
//! the step is accepted. Accepting a step only rewrites `order` ([`next_order`]); nothing is
//! copied, and the host learns where the state is when it reads the clock.

/// The control's parameters, fixed for an advance.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Control {
    /// The CFL number the next Δt aims at.
    pub desired: f64,
    /// A step whose CFL number exceeds this is rejected.
    pub max: f64,
    /// Steps end here; the last one is cut to land on it exactly.
    pub t_stop: f64,
    /// Sweeps in a step: in 2D 2 (Godunov: x, y) or 3 (Strang: x½, y, x½); in 3D 3 or 5.
    pub sweeps: u32,
    /// 1: judge the step just tried, then arm the next; 0: only arm (a new `t_stop`).
    pub judge: u32,
}

/// Slots of the clock.
pub const CLOCK_T: usize = 0;
/// The Δt of the step being tried (0: no step, the run is at its stop or halted).
pub const CLOCK_DT: usize = 1;
/// The Δt the control wants for the next step, before the cut to `t_stop`.
pub const CLOCK_NEXT: usize = 2;
/// The last accepted step's Δt, its CFL number, and the rejections before it.
pub const CLOCK_LAST_DT: usize = 3;
pub const CLOCK_LAST_CFL: usize = 4;
pub const CLOCK_LAST_REJECTED: usize = 5;
pub const CLOCK_STEPS: usize = 6;
/// Rejections since the last accepted step, and in all.
pub const CLOCK_IN_ROW: usize = 7;
pub const CLOCK_REJECTED: usize = 8;
/// [`RUNNING`], [`NON_FINITE`] or [`STUCK`]; once not running, no step is armed.
pub const CLOCK_STATUS: usize = 9;
/// The CFL number of the last step judged, accepted or not.
pub const CLOCK_CFL: usize = 10;
pub const CLOCK_LEN: usize = 11;

pub const RUNNING: u32 = 0;
/// A step's CFL number was not finite: a wave speed turned infinite or NaN.
pub const NON_FINITE: u32 = 1;
/// [`MAX_REJECTS`] steps in a row were rejected: the speeds keep growing faster than Δt shrinks.
pub const STUCK: u32 = 2;

/// Steps rejected in a row before a run is declared one that would never end.
pub const MAX_REJECTS: u32 = 50;

/// A clock at time `t` whose first step will try `dt` (infinite for a state without waves).
pub fn start(t: f64, dt: f64) -> [f64; CLOCK_LEN] {
    let mut c = [0.0; CLOCK_LEN];
    c[CLOCK_T] = t;
    c[CLOCK_NEXT] = dt;
    c
}

/// Arms the next trial: Δt = min(next, t_stop − t), or 0 when the run is at its stop, has
/// halted, or has no finite Δt (a state without waves and no stop).
#[inline(always)]
pub fn arm(c: &Control, clock: &mut [f64; CLOCK_LEN]) {
    let left = c.t_stop - clock[CLOCK_T];
    let next = clock[CLOCK_NEXT];
    let dt = if next < left { next } else { left };
    let go = clock[CLOCK_STATUS] == RUNNING as f64 && left > 0.0 && dt > 0.0 && dt.is_finite();
    clock[CLOCK_DT] = if go { dt } else { 0.0 };
}

/// Judges the step just tried with Δt = `clock[CLOCK_DT]`, given `rate`, the largest
/// max|s|/Δ over its sweeps (each measured against the whole Δt): accepted when the CFL
/// number Δt·rate is at most `c.max` (the time lands exactly on `t_stop` when the step was cut
/// to it); the next Δt becomes Δt·desired/CFL either way. Returns whether the step was
/// accepted. A trial of Δt = 0 is no step and changes nothing.
#[inline(always)]
pub fn judge(c: &Control, clock: &mut [f64; CLOCK_LEN], rate: f64) -> bool {
    let dt = clock[CLOCK_DT];
    if dt.is_nan() || dt <= 0.0 {
        return false;
    }
    let cfl = dt * rate;
    clock[CLOCK_CFL] = cfl;
    if cfl > 0.0 {
        clock[CLOCK_NEXT] = dt * c.desired / cfl;
    }
    if cfl <= c.max {
        let t = clock[CLOCK_T];
        clock[CLOCK_T] = if dt == c.t_stop - t { c.t_stop } else { t + dt };
        clock[CLOCK_STEPS] += 1.0;
        clock[CLOCK_LAST_DT] = dt;
        clock[CLOCK_LAST_CFL] = cfl;
        clock[CLOCK_LAST_REJECTED] = clock[CLOCK_IN_ROW];
        clock[CLOCK_IN_ROW] = 0.0;
        return true;
    }
    clock[CLOCK_IN_ROW] += 1.0;
    clock[CLOCK_REJECTED] += 1.0;
    if !cfl.is_finite() {
        clock[CLOCK_STATUS] = NON_FINITE as f64;
    } else if clock[CLOCK_IN_ROW] >= MAX_REJECTS as f64 {
        clock[CLOCK_STATUS] = STUCK as f64;
    }
    false
}

/// Entries of a buffer order: enough for the longest step, Strang's five sweeps in 3D.
pub const ORDER_LEN: usize = 6;

/// The buffer order after a step of `sweeps` sweeps (2 to 5) is accepted: its output
/// `order[sweeps]` becomes the state, and the sweeps of the next step alternate between the
/// other two buffers, so none of them writes the state kept for a redo.
#[inline(always)]
pub fn next_order(order: [u32; ORDER_LEN], sweeps: u32) -> [u32; ORDER_LEN] {
    // Constant indices: a variable one would put the array in local memory (and a bounds check
    // in the kernel).
    let s = match sweeps {
        2 => order[2],
        3 => order[3],
        4 => order[4],
        _ => order[5],
    };
    let a = if s == 0 { 1 } else { 0 };
    let b = 3 - s - a;
    [s, a, b, a, b, a]
}

/// The order a run starts from: the state in buffer 0.
pub const FIRST_ORDER: [u32; ORDER_LEN] = [0, 1, 2, 1, 2, 1];

/// The control kernel: judges the step just tried from the largest of the rates `rate[0..n]`
/// (when `c.judge` is 1), rewrites `order` if it was accepted, and arms the next step, writing
/// its Δt (as T) to `dt[0]`. The block takes the maximum itself, so a step needs no reduction
/// kernel where the rates are few.
///
/// # Safety
/// One block, a multiple of 32 threads, with 32 `T`s of dynamic shared memory; `rate` holds `n`
/// values (any number where `c.judge` is 0), `dt` one, `clock` [`CLOCK_LEN`], `order`
/// [`ORDER_LEN`].
#[cfg(target_arch = "nvptx64")]
pub unsafe fn control<T: crate::device::DeviceReal>(
    c: Control,
    rate: *const T,
    n: u64,
    dt: *mut T,
    clock: *mut f64,
    order: *mut u32,
) {
    use crate::device::{reduce::block_max_of, shared, thread};
    let n = if c.judge == 1 { n } else { 0 };
    // SAFETY: rate holds n values, written by the launches before.
    let largest = unsafe { block_max_of(rate, n, shared::dynamic::<T>()) };
    if thread::thread_idx_x() != 0 {
        return;
    }
    unsafe {
        let mut k = [0.0; CLOCK_LEN];
        for (s, v) in k.iter_mut().enumerate() {
            *v = *clock.add(s);
        }
        if c.judge == 1 && judge(&c, &mut k, largest.to_f64()) {
            let mut o = [0; ORDER_LEN];
            for (s, v) in o.iter_mut().enumerate() {
                *v = *order.add(s);
            }
            for (s, v) in next_order(o, c.sweeps).iter().enumerate() {
                *order.add(s) = *v;
            }
        }
        arm(&c, &mut k);
        *dt = T::from_f64(k[CLOCK_DT]);
        for (s, v) in k.iter().enumerate() {
            *clock.add(s) = *v;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Over many accepted steps of either splitting, each sweep reads and writes two different
    /// buffers, the next step starts from the last sweep's output, and the step's input is
    /// never written by its own sweeps (so a rejected step can be redone from it).
    #[test]
    fn orders_keep_the_state_until_a_step_is_accepted() {
        for sweeps in [2u32, 3, 5] {
            let mut order = FIRST_ORDER;
            for _ in 0..10 {
                let n = sweeps as usize;
                for k in 0..n {
                    assert_ne!(order[k], order[k + 1], "{order:?}");
                    assert!(order[k] < 3 && order[k + 1] < 3, "{order:?}");
                    if k > 0 {
                        assert_ne!(order[k + 1], order[0], "sweep {k} of {order:?} overwrites the kept state");
                    }
                }
                let next = next_order(order, sweeps);
                assert_eq!(next[0], order[n], "{order:?} → {next:?}");
                order = next;
            }
        }
    }

    /// A step that lands on the stop time ends exactly there; a rejected step keeps the time
    /// and shrinks Δt by desired/CFL; a NaN rate halts; nothing is armed past the stop.
    #[test]
    fn judge_lands_on_the_stop_and_rejects_fast_steps() {
        let c = Control { desired: 0.9, max: 1.0, t_stop: 0.3, sweeps: 2, judge: 1 };
        let mut k = start(0.0, 0.2);
        arm(&c, &mut k);
        assert_eq!(k[CLOCK_DT], 0.2);
        assert!(!judge(&c, &mut k, 10.0), "CFL 2 accepted");
        assert_eq!((k[CLOCK_T], k[CLOCK_IN_ROW]), (0.0, 1.0));
        assert!((k[CLOCK_NEXT] - 0.2 * 0.9 / 2.0).abs() < 1e-15);
        arm(&c, &mut k);
        assert!(judge(&c, &mut k, 1.0));
        assert_eq!((k[CLOCK_STEPS], k[CLOCK_LAST_REJECTED]), (1.0, 1.0));
        k[CLOCK_NEXT] = 1.0;
        arm(&c, &mut k);
        assert!(judge(&c, &mut k, 0.5));
        assert_eq!(k[CLOCK_T], 0.3, "the last step must land on the stop");
        arm(&c, &mut k);
        assert_eq!(k[CLOCK_DT], 0.0);
        assert!(!judge(&c, &mut k, f64::NAN), "no step was armed");
        let mut k = start(0.0, 0.1);
        arm(&c, &mut k);
        assert!(!judge(&c, &mut k, f64::NAN));
        assert_eq!(k[CLOCK_STATUS], NON_FINITE as f64);
        arm(&c, &mut k);
        assert_eq!(k[CLOCK_DT], 0.0, "a halted clock armed a step");
    }
}
