//! Kurganov–Petrova kernels: flux (full and early exit), RK stage, boundary, Δt.
//!
//! Launch contract (all): `k` describes padded state arrays of `(nx+4)(ny+4)` cells and a
//! corner array of `(nx+5)(ny+5)`; every pointer is a whole such array (or as stated); outputs
//! do not alias inputs unless stated. The flux and RK kernels run on the same grid of blocks of
//! `k.bx × k.by` threads (one interior cell each, `bx·by` a multiple of 32), `k.nbx × k.nby`
//! blocks; per-block outputs (rate, wet map) are indexed `blockIdx.y·nbx + blockIdx.x`.

use super::{
    CLOCK_DT, CLOCK_STATUS, CLOCK_STEPS, CLOCK_T, Clock, Coeffs, FaceState, Flux, Recon, STEP_OK, assemble, bed_x,
    bed_y, block_active, central_upwind, ghost_pair, recon_x, recon_y, rk_point, set_ghost, time_step,
};
use crate::device::reduce::block_max;
use crate::device::{DeviceReal, shared, thread};

/// Load the tiles; compute every face flux of the block once (each thread its cell's west and
/// south faces, the last column and row also the east and north ones) into shared memory;
/// assemble R for this thread's cell; write it and the block's largest rate.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn flux_body<T: DeviceReal>(
    k: &Coeffs<T>,
    w: *const T,
    hu: *const T,
    hv: *const T,
    bed: *const T,
    rw: *mut T,
    rhu: *mut T,
    rhv: *mut T,
    rate: *mut T,
) {
    let (bx, by) = (thread::block_dim_x(), thread::block_dim_y());
    let (tx, ty) = (thread::thread_idx_x(), thread::thread_idx_y());
    let (i0, j0) = (thread::block_idx_x() * bx, thread::block_idx_y() * by);
    let (tw, th) = (bx + 4, by + 4);
    let (cw, ch) = (bx + 3, by + 3);
    let tn = (tw * th) as usize;
    let base = shared::dynamic::<T>();
    let threads = bx * by;
    let rank = ty * bx + tx;
    let p = k.pitch as usize;
    let cp = k.cpitch as usize;
    // Face-flux arrays: x faces (bx+1) per row, y faces bx per row over by+1 rows.
    let (nfx, nfy) = (((bx + 1) * by) as usize, (bx * (by + 1)) as usize);
    unsafe {
        let (sw, su, sv) = (base, base.add(tn), base.add(2 * tn));
        let sb = base.add(3 * tn);
        let fx = sb.add((cw * ch) as usize);
        let fy = fx.add(3 * nfx);
        let scratch = fy.add(3 * nfy);
        // State tile: padded cells (i0 + a, j0 + b), a < bx+4, b < by+4, where they exist.
        let mut t = rank;
        while t < tw * th {
            let (a, b) = (t % tw, t / tw);
            let (gi, gj) = (i0 + a, j0 + b);
            if gi < k.nx + 4 && gj < k.ny + 4 {
                let g = gj as usize * p + gi as usize;
                *sw.add(t as usize) = T::ldg(w.add(g));
                *su.add(t as usize) = T::ldg(hu.add(g));
                *sv.add(t as usize) = T::ldg(hv.add(g));
            }
            t += threads;
        }
        // Corner tile: padded corners (i0 + 1 + a, j0 + 1 + b).
        let mut t = rank;
        while t < cw * ch {
            let (a, b) = (t % cw, t / cw);
            let (gi, gj) = (i0 + 1 + a, j0 + 1 + b);
            if gi < k.nx + 5 && gj < k.ny + 5 {
                *sb.add(t as usize) = T::ldg(bed.add(gj as usize * cp + gi as usize));
            }
            t += threads;
        }
        thread::sync_threads();
        let (i, j) = (i0 + tx, j0 + ty);
        let valid = i < k.nx && j < k.ny;
        let c = ((ty + 2) * tw + tx + 2) as isize;
        let q = |di: i32, dj: i32| {
            let s = (c + di as isize + dj as isize * tw as isize) as usize;
            (*sw.add(s), *su.add(s), *sv.add(s))
        };
        let cc = ((ty + 1) * cw + tx + 1) as isize;
        let b = |ci: i32, cj: i32| *sb.add((cc + ci as isize + cj as isize * cw as isize) as usize);
        let put = |f: *mut T, n: usize, at: usize, v: Flux<T>| {
            *f.add(at) = v.f0;
            *f.add(n + at) = v.fn_;
            *f.add(2 * n + at) = v.ft;
        };
        let get = |f: *mut T, n: usize, at: usize| Flux {
            f0: *f.add(at),
            fn_: *f.add(n + at),
            ft: *f.add(2 * n + at),
            speed: T::ZERO,
        };
        let mut r = T::ZERO;
        let mut rx = Recon {
            m: FaceState { w: T::ZERO, h: T::ZERO, qn: T::ZERO, qt: T::ZERO },
            p: FaceState { w: T::ZERO, h: T::ZERO, qn: T::ZERO, qt: T::ZERO },
        };
        let mut ry = rx;
        if valid {
            let fxa = (ty * (bx + 1) + tx) as usize;
            let fya = (ty * bx + tx) as usize;
            rx = recon_x(k, &q, &b, 0);
            let west = central_upwind(k, recon_x(k, &q, &b, -1).p, rx.m);
            put(fx, nfx, fxa, west);
            r = r.max(west.speed * k.inv_dx);
            if tx + 1 == bx || i + 1 == k.nx {
                let east = central_upwind(k, rx.p, recon_x(k, &q, &b, 1).m);
                put(fx, nfx, fxa + 1, east);
                r = r.max(east.speed * k.inv_dx);
            }
            ry = recon_y(k, &q, &b, 0);
            let south = central_upwind(k, recon_y(k, &q, &b, -1).p, ry.m);
            put(fy, nfy, fya, south);
            r = r.max(south.speed * k.inv_dy);
            if ty + 1 == by || j + 1 == k.ny {
                let north = central_upwind(k, ry.p, recon_y(k, &q, &b, 1).m);
                put(fy, nfy, fya + bx as usize, north);
                r = r.max(north.speed * k.inv_dy);
            }
        }
        thread::sync_threads();
        if valid {
            let fxa = (ty * (bx + 1) + tx) as usize;
            let fya = (ty * bx + tx) as usize;
            let (fw, fe) = (get(fx, nfx, fxa), get(fx, nfx, fxa + 1));
            let (gs, gn) = (get(fy, nfy, fya), get(fy, nfy, fya + bx as usize));
            let beds = (bed_x(&b, 0), bed_x(&b, 1), bed_y(&b, 0), bed_y(&b, 1));
            let out = assemble(k, fw, fe, gs, gn, rx, ry, beds);
            let g = (j + 2) as usize * p + (i + 2) as usize;
            *rw.add(g) = out.w;
            *rhu.add(g) = out.hu;
            *rhv.add(g) = out.hv;
            // A NaN would lose every max: count it as an infinite speed.
            if !r.is_finite() || !out.w.is_finite() || !out.hu.is_finite() || !out.hv.is_finite() {
                r = T::INFINITY;
            }
        }
        let m = block_max(r, scratch);
        if rank == 0 {
            *rate.add((thread::block_idx_y() * thread::grid_dim_x() + thread::block_idx_x()) as usize) = m;
        }
    }
}

/// R = (R_w, R_hu, R_hv) at every interior cell and each block's max(a_x/Δx, a_y/Δy).
///
/// # Safety
/// Launch contract above; `rate` holds nbx·nby; shared memory `flux_shared(bx, by)` T.
unsafe fn kp_flux<T: DeviceReal>(
    k: Coeffs<T>,
    w: *const T,
    hu: *const T,
    hv: *const T,
    bed: *const T,
    rw: *mut T,
    rhu: *mut T,
    rhv: *mut T,
    rate: *mut T,
) {
    unsafe { flux_body(&k, w, hu, hv, bed, rw, rhu, rhv, rate) }
}

/// [`kp_flux`] with early exit: a block that is dry, with its four neighbours, by the wet map
/// has R = 0 and writes only its rate, 0, without reading the state; its R is left unwritten
/// (the RK kernel knows it is 0, see [`kp_rk`]).
///
/// # Safety
/// As [`kp_flux`]; `wet` holds nbx·nby flags written by the last RK stage (or the host).
#[allow(clippy::too_many_arguments)]
unsafe fn kp_flux_early<T: DeviceReal>(
    k: Coeffs<T>,
    w: *const T,
    hu: *const T,
    hv: *const T,
    bed: *const T,
    rw: *mut T,
    rhu: *mut T,
    rhv: *mut T,
    rate: *mut T,
    wet: *const u32,
) {
    let (bi, bj) = (thread::block_idx_x(), thread::block_idx_y());
    let nbx = k.nbx;
    // Uniform over the block, so the early return keeps the block's barriers consistent.
    let active = block_active(&k, bi, bj, |a, b| unsafe { *wet.add((b * nbx + a) as usize) } != 0);
    if !active {
        if thread::thread_idx_x() == 0 && thread::thread_idx_y() == 0 {
            unsafe { *rate.add((bj * thread::grid_dim_x() + bi) as usize) = T::ZERO };
        }
        return;
    }
    unsafe { flux_body(&k, w, hu, hv, bed, rw, rhu, rhv, rate) }
}

/// One RK stage (`stage` 1 or 2, see `rk_point`) on the interior: out = stage(q0, q1, R) with
/// Δt from `dt[0]`, plus the wet map of the result (`wet_out`, one flag a block).
///
/// After an early-exit flux (`early` ≠ 0) R was not written for blocks that are inactive by
/// `wet_in` (dry with their four neighbours, see `block_active`): their R is 0 and their cells
/// are dry with no momentum, so E(q) = q exactly. Stage 1 then writes clean(q0) without reading
/// R; stage 2, when the block was also inactive in stage 1 (by `wet_m0`, the map stage 1 read),
/// has q1 = q0 and ½(q0 + q1) = q0, so it leaves the block alone. Results are bit for bit those
/// of the full update.
///
/// # Safety
/// Launch contract above; 32 T of shared memory. `out*` may alias `q0*` (stage 2 updates Qⁿ in
/// place: each thread reads its own cell before writing it); they alias nothing else. The three
/// wet maps hold nbx·nby flags; `wet_out` is neither of the others.
#[allow(clippy::too_many_arguments)]
unsafe fn kp_rk<T: DeviceReal>(
    k: Coeffs<T>,
    stage: u32,
    early: u32,
    dt: *const T,
    bc: *const T,
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
    wet_m0: *const u32,
    wet_in: *const u32,
    wet_out: *mut u32,
) {
    let (bi, bj) = (thread::block_idx_x(), thread::block_idx_y());
    let first = thread::thread_idx_x() == 0 && thread::thread_idx_y() == 0;
    let flags = |map: *const u32| move |a: u32, b: u32| unsafe { *map.add((b * k.nbx + a) as usize) } != 0;
    // Uniform over the block (so are the barriers below).
    let inactive = early != 0 && !block_active(&k, bi, bj, flags(wet_in));
    if inactive && stage == 2 && !block_active(&k, bi, bj, flags(wet_m0)) {
        if first {
            unsafe { *wet_out.add((bj * k.nbx + bi) as usize) = 0 };
        }
        return;
    }
    let (i, j) = thread::index_2d();
    let mut is_wet = T::ZERO;
    unsafe {
        if i < k.nx && j < k.ny {
            let g = (j + 2) as usize * k.pitch as usize + (i + 2) as usize;
            let d = T::ldg(dt);
            // q0 through plain loads: in stage 2 the same buffers are written.
            let q0 = (*w0.add(g), *hu0.add(g), *hv0.add(g));
            let (q1, r) = if inactive {
                let q1 = if stage == 1 { q0 } else { (T::ldg(w1.add(g)), T::ldg(hu1.add(g)), T::ldg(hv1.add(g))) };
                (q1, (T::ZERO, T::ZERO, T::ZERO))
            } else {
                (
                    (T::ldg(w1.add(g)), T::ldg(hu1.add(g)), T::ldg(hv1.add(g))),
                    (T::ldg(rw.add(g)), T::ldg(rhu.add(g)), T::ldg(rhv.add(g))),
                )
            };
            let ((a, b, c), wet_cell) = rk_point(&k, stage, d, T::ldg(bc.add(g)), q0, q1, r);
            *ow.add(g) = a;
            *ohu.add(g) = b;
            *ohv.add(g) = c;
            if wet_cell {
                is_wet = T::ONE;
            }
        }
        let m = block_max(is_wet, shared::dynamic::<T>());
        if first {
            *wet_out.add((bj * k.nbx + bi) as usize) = if m > T::ZERO { 1 } else { 0 };
        }
    }
}

/// Ghost cells of pass `axis` (0: west/east columns of the interior rows; 1: south/north rows
/// of all columns, after pass 0), one thread each.
///
/// # Safety
/// Launch contract above; 1D grid of at least `ghosts_x(ny)` / `ghosts_y(nx)` threads.
unsafe fn kp_boundary<T: DeviceReal>(k: Coeffs<T>, axis: u32, w: *mut T, hu: *mut T, hv: *mut T, bc: *const T) {
    let t = thread::index_1d();
    if t > u32::MAX as u64 {
        return;
    }
    if let Some(gh) = ghost_pair(&k, axis, t as u32) {
        unsafe { set_ghost(w, hu, hv, bc, gh) }
    }
}

/// Δt from the device-wide largest rate `rate[0]`: writes Δt (as T) to `dt[0]` and advances
/// the clock (f64: t, Δt, status, steps). Once the status is not OK it stays so and Δt is 0.
///
/// # Safety
/// One thread; `rate` and `dt` hold 1, `clock` holds `CLOCK_LEN`.
unsafe fn kp_dt<T: DeviceReal>(c: Clock, rate: *const T, dt: *mut T, clock: *mut f64) {
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

stamp! {
    kp_flux => kp_flux_f32, kp_flux_f64 (k: Coeffs<T>, w: *const T, hu: *const T, hv: *const T, bed: *const T,
        rw: *mut T, rhu: *mut T, rhv: *mut T, rate: *mut T);
    kp_flux_early => kp_flux_early_f32, kp_flux_early_f64 (k: Coeffs<T>, w: *const T, hu: *const T, hv: *const T,
        bed: *const T, rw: *mut T, rhu: *mut T, rhv: *mut T, rate: *mut T, wet: *const u32);
    kp_rk => kp_rk_f32, kp_rk_f64 (k: Coeffs<T>, stage: u32, early: u32, dt: *const T, bc: *const T, w0: *const T,
        hu0: *const T, hv0: *const T, w1: *const T, hu1: *const T, hv1: *const T, rw: *const T, rhu: *const T,
        rhv: *const T, ow: *mut T, ohu: *mut T, ohv: *mut T, wet_m0: *const u32, wet_in: *const u32,
        wet_out: *mut u32);
    kp_boundary => kp_boundary_f32, kp_boundary_f64 (k: Coeffs<T>, axis: u32, w: *mut T, hu: *mut T, hv: *mut T,
        bc: *const T);
    kp_dt => kp_dt_f32, kp_dt_f64 (c: Clock, rate: *const T, dt: *mut T, clock: *mut f64);
}
