//! Time stepping on the device: one RK stage, and Δt from the largest wave speed (launch
//! contract: `entries.rs`).

use super::{
    CLOCK_DT, CLOCK_STATUS, CLOCK_STEPS, CLOCK_T, Clock, Coeffs, Friction, STEP_OK, block_active, rk_of, rk_pair,
    time_step,
};
use crate::Level;
use crate::device::reduce::block_max;
use crate::device::{DeviceReal, Low, shared, thread};

/// One RK stage (`stage` 1 or 2, see `rk_point`) on the interior: out = stage(q0, q1, R) with
/// Δt from `dt[0]`, plus the wet map of the result (`wet_out`, one flag a block). Each cell's
/// g·n² is `k.g_n2` ([`Uniform`](super::Uniform): `gn2` is not read) or `gn2` at the cell
/// ([`PerCell`](super::PerCell)).
///
/// After an early-exit flux (`early` ≠ 0) R was not written for blocks that are inactive by
/// `wet_in` (dry with their four neighbours, see `block_active`): their R is 0 and their cells
/// are dry with no momentum, so E(q) = q exactly. Stage 1 then writes clean(q0) without reading
/// R; stage 2, when the block was also inactive in stage 1 (by `wet_m0`, the map stage 1 read),
/// has q1 = q0 and ½(q0 + q1) = q0, so it leaves the block alone. Results are bit for bit those
/// of the full update.
///
/// In SRK2 (`ry` not null) R is the x part in `r*` plus the y part in `ry` (`split_flux.rs`),
/// added as `assemble` adds them.
///
/// In `clamp` (`hi`, each cell's highest corner B_hi, not null) it also flags the blocks of the
/// result that hold a partially flooded cell (w̄ < B_hi: `partial`) and a cell the clamp pass
/// changes (`to_clamp`: a partially flooded cell deeper than `dry`, or a film: `shore`), for the
/// lists of the passes (`drain.rs`); nothing to clamp in a stage of Δt = 0. A block left alone
/// gets `partial` set (it was not read; the drain pass looks at its cells if it is listed) and
/// `shore` clear (its cells are dry).
///
/// # Safety
/// The launch contract of `entries.rs`; 32 T of shared memory. `out*` may alias `q0*` (stage 2 updates Qⁿ in
/// place: each thread reads its own cell before writing it); they alias nothing else. The three
/// wet maps hold nbx·nby flags; `wet_out` is neither of the others. `ry` is null or holds three
/// padded arrays of `k.cells()` one after the other. With `F` = `PerCell`, `gn2`
/// is a padded array of `k.cells()`. `hi` is null or a padded array, and then `partial` and
/// `shore` hold nbx·nby flags.
///
/// With `LOW` (the compensated update, `rk_pair`), w's low parts: `lo0` of Qⁿ (plain loads:
/// stage 2 writes it in place through `olo`; stage 1 does not read it), `lo1` of the state R was
/// evaluated at, the output's into `olo`, each a padded array aliasing as the w it goes with. A
/// block left alone keeps its low parts (Qⁿ's, in place). Without `LOW` they are not read (nulls
/// will do) and the code is the one-field update's.
///
/// The surfaces `w0`, `w1`, `ow` and R_w `rw` are of the level type `W`: `T`, or f64 in mixed
/// precision (`rk_of`: the stages add to w in f64); `LOW` only with `W` = `T`.
// Inlined into each entry point: the plain and the mixed `_f64` entries share this
// instance, and a call between them would pass `k` through local memory.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(super) unsafe fn kp_rk<F: Friction, T: DeviceReal, W: DeviceReal + Level<T>, const LOW: bool>(
    k: Coeffs<T>,
    stage: u32,
    early: u32,
    dt: *const T,
    bc: *const T,
    gn2: *const T,
    w0: *const W,
    hu0: *const T,
    hv0: *const T,
    w1: *const W,
    hu1: *const T,
    hv1: *const T,
    rw: *const W,
    rhu: *const T,
    rhv: *const T,
    ry: *const T,
    ow: *mut W,
    ohu: *mut T,
    ohv: *mut T,
    wet_m0: *const u32,
    wet_in: *const u32,
    wet_out: *mut u32,
    hi: *const T,
    partial: *mut u32,
    shore: *mut u32,
    lo0: *const T,
    lo1: *const T,
    olo: *mut T,
) {
    let (bi, bj) = (thread::block_idx_x(), thread::block_idx_y());
    let first = thread::thread_idx_x() == 0 && thread::thread_idx_y() == 0;
    let flags = |map: *const u32| move |a: u32, b: u32| unsafe { *map.add((b * k.nbx + a) as usize) } != 0;
    // Uniform over the block (so are the barriers below).
    let inactive = early != 0 && !block_active(&k, bi, bj, flags(wet_in));
    let b = (bj * k.nbx + bi) as usize;
    let flags_shore = !hi.is_null();
    if inactive && stage == 2 && !block_active(&k, bi, bj, flags(wet_m0)) {
        if first {
            unsafe { *wet_out.add(b) = 0 };
            if flags_shore {
                unsafe {
                    *partial.add(b) = 1;
                    *shore.add(b) = 0;
                }
            }
        }
        return;
    }
    let (i, j) = thread::index_2d();
    let mut is_wet = T::ZERO;
    let (mut is_partial, mut to_clamp) = (false, false);
    unsafe {
        if i < k.nx && j < k.ny {
            let g = (j + 2) as usize * k.pitch as usize + (i + 2) as usize;
            let d = T::ldg(dt);
            // q0 through plain loads: in stage 2 the same buffers are written.
            let q0 = (*w0.add(g), *hu0.add(g), *hv0.add(g));
            let (q1, r) = if inactive {
                let q1 = if stage == 1 { q0 } else { (W::ldg(w1.add(g)), T::ldg(hu1.add(g)), T::ldg(hv1.add(g))) };
                (q1, (W::ZERO, T::ZERO, T::ZERO))
            } else {
                let mut r = (W::ldg(rw.add(g)), T::ldg(rhu.add(g)), T::ldg(rhv.add(g)));
                if !ry.is_null() {
                    // SRK2: x part + y part, in `assemble`'s order.
                    let n = k.cells();
                    let y = (T::ldg(ry.add(g)), T::ldg(ry.add(n + g)), T::ldg(ry.add(2 * n + g)));
                    r = (r.0 + W::widen(y.0), r.1 + y.1, r.2 + y.2);
                }
                ((W::ldg(w1.add(g)), T::ldg(hu1.add(g)), T::ldg(hv1.add(g))), r)
            };
            // An inactive block's cells are dry in the state friction is evaluated at (h ≤ dry,
            // as `block_active` says), where friction is 0 whatever g·n² is: no load for it.
            let g_n2 = if F::PER_CELL && !inactive { T::ldg(gn2.add(g)) } else { k.g_n2 };
            let cb = T::ldg(bc.add(g));
            let low = Low::<T, LOW>::new(lo1, olo);
            let ((a, hu, hv), wet_cell) = match low.at(g) {
                None => rk_of(&k, g_n2, stage, d, cb, q0, q1, r),
                Some(l1) => {
                    // Stage 1 does not read Qⁿ (it is the state R was evaluated at): no load.
                    let l0 = if stage == 2 { *lo0.add(g) } else { T::ZERO };
                    // `LOW` runs with W = T: narrow and widen are the identity.
                    let t = |q: (W, T, T)| (q.0.narrow(), q.1, q.2);
                    let (q, lo, wet_cell) = rk_pair(&k, g_n2, stage, d, cb, (t(q0), l0), (t(q1), l1), t(r));
                    low.put(g, lo);
                    ((W::widen(q.0), q.1, q.2), wet_cell)
                }
            };
            *ow.add(g) = a;
            *ohu.add(g) = hu;
            *ohv.add(g) = hv;
            if wet_cell {
                is_wet = T::ONE;
            }
            if flags_shore {
                is_partial = a < W::widen(T::ldg(hi.add(g)));
                // A stage of Δt = 0 (the clock at `t_stop`: the host's batches of launches run
                // such steps) changes no state, so the pass, which scales films whatever the
                // stage did, must not run either: the CPU reference takes no such step.
                to_clamp = d > T::ZERO && super::to_clamp(&k, is_partial, a.minus(W::widen(cb)));
            }
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

/// Δt from the device-wide largest rate `rate[0]`: writes Δt (as T) to `dt[0]` and advances
/// the clock (f64: t, Δt, status, steps). Once the status is not OK it stays so and Δt is 0.
///
/// # Safety
/// One thread; `rate` and `dt` hold 1, `clock` holds `CLOCK_LEN`.
pub(super) unsafe fn kp_dt<T: DeviceReal>(c: Clock, rate: *const T, dt: *mut T, clock: *mut f64) {
    if thread::index_1d() != 0 {
        return;
    }
    unsafe {
        let t = *clock.add(CLOCK_T);
        let (mut d, mut status) = time_step(c.cfl, (*rate).to_f64(), t, c.t_stop, c.dt_floor);
        if *clock.add(CLOCK_STATUS) != STEP_OK as f64 {
            d = 0.0;
            status = *clock.add(CLOCK_STATUS) as u32;
        }
        *dt = T::from_f64(d);
        *clock.add(CLOCK_DT) = d;
        *clock.add(CLOCK_STATUS) = status as f64;
        if d > 0.0 {
            *clock.add(CLOCK_T) = t + d;
            *clock.add(CLOCK_STEPS) += 1.0;
        }
    }
}
