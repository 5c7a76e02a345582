//! The split schemes DS1 and DS2 on the device (Amundsen §3.1.2–3.1.3, docs/kp-schemes.md "DS1
//! and DS2 on the GPU"; launch contract: `entries.rs`): the RK stage of a substep, which writes
//! its output transposed when the next substep works in the other orientation, and the clock
//! kernels that choose Δt, check each substep's own limit and discard a step that exceeded one.
//!
//! A step never reads anything back to the host. [`kp_split_begin`] sets Δt from the estimates
//! and marks the step going (or idle); after each substep's first flux launch [`kp_split_check`]
//! records the substep's limit and marks the step discarded if it is below Δt; the RK kernels of
//! a step that is not going write no state; [`kp_split_end`] advances the clock or halves the
//! estimates. Qⁿ is written only by the last stage of the step, so a discarded step leaves it
//! as it was: the substeps' own buffers are the backup Amundsen's scheme keeps.

use super::{
    CLOCK_DS_RETRIES, CLOCK_DS_STATE, CLOCK_DS_X, CLOCK_DS_Y, CLOCK_DT, CLOCK_STATUS, CLOCK_STEPS, CLOCK_T, Coeffs,
    Friction, SPLIT_DISCARD, SPLIT_GOING, SPLIT_IDLE, STEP_NON_FINITE, STEP_OK, SplitClock, rk_point, split_dt,
    split_limit,
};
use crate::device::reduce::block_max;
use crate::device::{DeviceReal, shared, thread};

/// One RK stage of a split substep on the interior of orientation `k`: `stage` 1 (Euler:
/// out = E(q0)), 2 (out = ½(q0 + E(q1))) with R = (`rw`, `rhu`, `rhv`) from the x-line kernel
/// (the x faces only) and Δt `dt[0]`, or 0 (out = q0: the first step's transposed copy). With
/// `TRANSPOSE` the output goes to the transposed orientation: cell (i, j) to (j, i) of
/// `k.transposed()`, w with w and the momenta swapped (hu into hv's place), through a shared
/// tile of `k.by` rows of `k.bx + 1` (the padding keeps the column reads free of bank
/// conflicts); then block (bi, bj) is block (bj, bi) of the output's grid, whose flags it writes.
///
/// The flags of the output are those of `kp_rk` (wet map, and in `clamp`, `hi` not null, the
/// `partial` and `shore` flags), indexed in the output's orientation. A step that is not going
/// (`clock[CLOCK_DS_STATE]`) writes no state and the flags that make the passes look at every
/// block (wet, partial, nothing to clamp): correct for any state, so the passes after it find
/// what they would have found for Qⁿ.
///
/// # Safety
/// The launch contract of `entries.rs` for orientation `k`; shared memory 32 T, plus with
/// `TRANSPOSE` 3·by·(bx + 1) T after them. `out*` alias nothing (not even `q0`: a transposed
/// tile is written where other blocks read); `wet_out`, `partial`, `shore` hold nbx·nby flags;
/// `clock` holds `CLOCK_LEN_SPLIT`; with `F` = `PerCell` `gn2` is a padded array.
#[allow(clippy::too_many_arguments)]
pub(super) unsafe fn kp_rk_split<F: Friction, T: DeviceReal, const TRANSPOSE: bool>(
    k: Coeffs<T>,
    stage: u32,
    dt: *const T,
    clock: *const f64,
    bc: *const T,
    gn2: *const T,
    w0: *const T,
    hu0: *const T,
    hv0: *const T,
    w1: *const T,
    hu1: *const T,
    hv1: *const T,
    rw: *const T,
    rhu: *const T,
    rhv: *const T,
    ow: *mut T,
    ohu: *mut T,
    ohv: *mut T,
    wet_out: *mut u32,
    hi: *const T,
    partial: *mut u32,
    shore: *mut u32,
) {
    let (bi, bj) = (thread::block_idx_x(), thread::block_idx_y());
    let (tx, ty) = (thread::thread_idx_x(), thread::thread_idx_y());
    let first = tx == 0 && ty == 0;
    let b = if TRANSPOSE { bi * k.nby + bj } else { bj * k.nbx + bi } as usize;
    let flags_shore = !hi.is_null();
    // The same word for every thread: uniform, so are the barriers below.
    if unsafe { *clock.add(CLOCK_DS_STATE) } != SPLIT_GOING as f64 {
        if first {
            unsafe {
                *wet_out.add(b) = 1;
                if flags_shore {
                    *partial.add(b) = 1;
                    *shore.add(b) = 0;
                }
            }
        }
        return;
    }
    let (i, j) = thread::index_2d();
    let inside = i < k.nx && j < k.ny;
    let mut is_wet = T::ZERO;
    let (mut is_partial, mut to_clamp) = (false, false);
    let mut out = (T::ZERO, T::ZERO, T::ZERO);
    let g = (j + 2) as usize * k.pitch as usize + (i + 2) as usize;
    unsafe {
        if inside {
            let q0 = (T::ldg(w0.add(g)), T::ldg(hu0.add(g)), T::ldg(hv0.add(g)));
            let cb = T::ldg(bc.add(g));
            let wet_cell = if stage == 0 {
                out = q0;
                true
            } else {
                let q1 = if stage == 1 { q0 } else { (T::ldg(w1.add(g)), T::ldg(hu1.add(g)), T::ldg(hv1.add(g))) };
                let r = (T::ldg(rw.add(g)), T::ldg(rhu.add(g)), T::ldg(rhv.add(g)));
                let g_n2 = if F::PER_CELL { T::ldg(gn2.add(g)) } else { k.g_n2 };
                let (q, wet_cell) = rk_point(&k, g_n2, stage, T::ldg(dt), cb, q0, q1, r);
                out = q;
                wet_cell
            };
            if wet_cell {
                is_wet = T::ONE;
            }
            if flags_shore {
                // B_hi and the bed are the cell's whichever orientation the output is in.
                is_partial = out.0 < T::ldg(hi.add(g));
                to_clamp = super::to_clamp(&k, is_partial, out.0 - cb);
            }
        }
        if TRANSPOSE {
            let (tp, plane) = ((k.bx + 1) as usize, (k.by * (k.bx + 1)) as usize);
            let tile = shared::dynamic::<T>().add(32);
            let s = ty as usize * tp + tx as usize;
            *tile.add(s) = out.0;
            *tile.add(plane + s) = out.1;
            *tile.add(2 * plane + s) = out.2;
            thread::sync_threads();
            // Thread t of the block writes cell (r, c) of the output tile: row r (the input's
            // column) of `by` cells along the output's x (the input's rows), so that consecutive
            // threads write consecutive cells.
            // `checked_*`: no panic path for a zero block (the host never launches one).
            let t = ty * k.bx + tx;
            let (r, c) = (t.checked_div(k.by).unwrap_or(0), t.checked_rem(k.by).unwrap_or(0));
            let (oi, oj) = (bj * k.by + c, bi * k.bx + r);
            if oi < k.ny && oj < k.nx {
                let o = (oj + 2) as usize * (k.ny + 4) as usize + (oi + 2) as usize;
                let s = c as usize * tp + r as usize;
                *ow.add(o) = *tile.add(s);
                *ohu.add(o) = *tile.add(2 * plane + s);
                *ohv.add(o) = *tile.add(plane + s);
            }
        } else if inside {
            *ow.add(g) = out.0;
            *ohu.add(g) = out.1;
            *ohv.add(g) = out.2;
        }
        let m = block_max(is_wet, shared::dynamic::<T>());
        if first {
            *wet_out.add(b) = if m > T::ZERO { 1 } else { 0 };
        }
        if flags_shore {
            let (any_partial, any_clamp) = (thread::sync_threads_or(is_partial), thread::sync_threads_or(to_clamp));
            if first {
                *partial.add(b) = any_partial as u32;
                *shore.add(b) = any_clamp as u32;
            }
        }
    }
}

/// The start of a split step: Δt (`split_dt`) from the estimates into `dt[0]` (as T) and the
/// clock's Δt slot, and the step marked going, or idle where Δt is 0 (stop time reached, still
/// state, halted run). One thread.
///
/// # Safety
/// `dt` holds 1, `clock` `CLOCK_LEN_SPLIT`; the estimates are set (not NaN: the host measures
/// them before the first step).
pub(super) unsafe fn kp_split_begin<T: DeviceReal>(c: SplitClock, dt: *mut T, clock: *mut f64) {
    if thread::index_1d() != 0 {
        return;
    }
    unsafe {
        let status = *clock.add(CLOCK_STATUS);
        let (d, status) = if status != STEP_OK as f64 {
            (0.0, status)
        } else {
            let (d, s) = split_dt(&c, *clock.add(CLOCK_DS_X), *clock.add(CLOCK_DS_Y), *clock.add(CLOCK_T));
            (d, s as f64)
        };
        *dt = T::from_f64(d);
        *clock.add(CLOCK_DT) = d;
        *clock.add(CLOCK_STATUS) = status;
        *clock.add(CLOCK_DS_STATE) = if d > 0.0 { SPLIT_GOING } else { SPLIT_IDLE } as f64;
    }
}

/// A substep's own limit from the device-wide largest rate `rate[0]` of the state it starts
/// from, as the estimate of its direction (`axis` 0: x, 1: y). With `compare` ≠ 0 (a step's
/// substep) only while the step is going, and a limit below Δt discards the step; with 0 (the
/// first step's measurement) whatever the step's state. A non-finite rate halts the run.
/// One thread.
///
/// # Safety
/// `rate` holds 1, `clock` `CLOCK_LEN_SPLIT`.
pub(super) unsafe fn kp_split_check<T: DeviceReal>(
    c: SplitClock,
    axis: u32,
    compare: u32,
    rate: *const T,
    clock: *mut f64,
) {
    if thread::index_1d() != 0 {
        return;
    }
    unsafe {
        if compare != 0 && *clock.add(CLOCK_DS_STATE) != SPLIT_GOING as f64 {
            return;
        }
        match split_limit(c.cfl, (*rate).to_f64()) {
            None => {
                *clock.add(CLOCK_STATUS) = STEP_NON_FINITE as f64;
                *clock.add(CLOCK_DS_STATE) = SPLIT_IDLE as f64;
            }
            Some(limit) => {
                *clock.add(if axis == 0 { CLOCK_DS_X } else { CLOCK_DS_Y }) = limit;
                if compare != 0 && limit < *clock.add(CLOCK_DT) {
                    *clock.add(CLOCK_DS_STATE) = SPLIT_DISCARD as f64;
                }
            }
        }
    }
}

/// The end of a split step: a step that went through advances t by `substeps`·Δt and counts;
/// a discarded one halves the estimates (those the step measured so far), counts a retry and
/// advances nothing. The clock's Δt slot then holds the time advanced (0 unless the step went
/// through), and `dt[0]` 0 until the next step sets it. One thread.
///
/// # Safety
/// `dt` holds 1, `clock` `CLOCK_LEN_SPLIT`.
pub(super) unsafe fn kp_split_end<T: DeviceReal>(c: SplitClock, dt: *mut T, clock: *mut f64) {
    if thread::index_1d() != 0 {
        return;
    }
    unsafe {
        let state = *clock.add(CLOCK_DS_STATE);
        let mut advanced = 0.0;
        if state == SPLIT_GOING as f64 {
            advanced = c.substeps * *clock.add(CLOCK_DT);
            *clock.add(CLOCK_T) += advanced;
            *clock.add(CLOCK_STEPS) += 1.0;
        } else if state == SPLIT_DISCARD as f64 {
            *clock.add(CLOCK_DS_X) *= 0.5;
            *clock.add(CLOCK_DS_Y) *= 0.5;
            *clock.add(CLOCK_DS_RETRIES) += 1.0;
        }
        *clock.add(CLOCK_DT) = advanced;
        *dt = T::ZERO;
    }
}
