//! The tile flux kernels (Amundsen's): one thread a cell on a 2D shared-memory tile of
//! `k.bx × k.by` cells, full and early exit (launch contract: `entries.rs`).

use super::smem::{get_flux, load_cell, put_flux, store_r, to_view};
use super::{
    Coeffs, Recon, WetDryScheme, assemble, bed_x, bed_y, block_active, face_flux, is_active, recon_x_on, recon_y_on,
};
use crate::device::reduce::block_max;
use crate::device::{DeviceReal, shared, thread};

/// Load the tiles and, in a scheme with partially flooded cells, turn w̄ into the
/// reconstruction's w* and drain cap (`surface`); compute every face flux of the block once
/// (each thread its cell's west and south faces, the last column and row also the east and north
/// ones) into shared memory; assemble R for this thread's cell; write it and the block's largest
/// rate. The shared layout is [`flux_shared`](super::flux_shared)'s.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn flux_body<S: WetDryScheme, T: DeviceReal>(
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
    // The corner tile starts `o` corners in from the state tile's south-west corner: where the
    // reconstruction reads cells through their corners (`cell_view`) it holds every corner of
    // the state tile's cells, else only those the cross's faces need.
    let o = if S::CORNERS { 0 } else { 1 };
    let (cw, ch) = (bx + 5 - 2 * o, by + 5 - 2 * o);
    let tn = (tw * th) as usize;
    let base = shared::dynamic::<T>();
    let threads = bx * by;
    let rank = ty * bx + tx;
    let p = k.pitch as usize;
    let cp = k.cpitch as usize;
    // Face-flux arrays: x faces (bx+1) per row, y faces bx per row over by+1 rows.
    let (nfx, nfy) = (((bx + 1) * by) as usize, (bx * (by + 1)) as usize);
    unsafe {
        // The cap tile exists only with partially flooded cells.
        let (sw, su, sv, scap) = (base, base.add(tn), base.add(2 * tn), base.add(3 * tn));
        let sb = base.add(if S::PARTIAL { 4 } else { 3 } * tn);
        let fx = sb.add((cw * ch) as usize);
        let fy = fx.add(3 * nfx);
        let scratch = fy.add(3 * nfy);
        // State tile: padded cells (i0 + a, j0 + b), a < bx+4, b < by+4, where they exist.
        let mut t = rank;
        while t < tw * th {
            let (a, b) = (t % tw, t / tw);
            let (gi, gj) = (i0 + a, j0 + b);
            if gi < k.nx + 4 && gj < k.ny + 4 {
                load_cell([sw, su, sv], t as usize, [w, hu, hv], gj as usize * p + gi as usize);
            }
            t += threads;
        }
        // Corner tile: padded corners (i0 + o + a, j0 + o + b).
        let mut t = rank;
        while t < cw * ch {
            let (a, b) = (t % cw, t / cw);
            let (gi, gj) = (i0 + o + a, j0 + o + b);
            if gi < k.nx + 5 && gj < k.ny + 5 {
                *sb.add(t as usize) = T::ldg(bed.add(gj as usize * cp + gi as usize));
            }
            t += threads;
        }
        thread::sync_threads();
        if S::CORNERS {
            // `cell_view` once a tile cell (state tile cell (a, b) has its south-west corner at
            // corner tile (a, b)).
            let mut t = rank;
            while t < tw * th {
                let (a, b) = (t % tw, t / tw);
                if i0 + a < k.nx + 4 && j0 + b < k.ny + 4 {
                    let c = (b * cw + a) as usize;
                    let corners = (*sb.add(c), *sb.add(c + 1), *sb.add(c + cw as usize), *sb.add(c + 1 + cw as usize));
                    to_view::<S, T>(k, [sw, su, sv, scap], t as usize, corners);
                }
                t += threads;
            }
            thread::sync_threads();
        }
        let (i, j) = (i0 + tx, j0 + ty);
        let valid = i < k.nx && j < k.ny;
        let c = ((ty + 2) * tw + tx + 2) as isize;
        let q = |di: i32, dj: i32| {
            let s = (c + di as isize + dj as isize * tw as isize) as usize;
            let cap = if S::PARTIAL { *scap.add(s) } else { T::INFINITY };
            (*sw.add(s), *su.add(s), *sv.add(s), cap)
        };
        let cc = ((ty + 2 - o) * cw + tx + 2 - o) as isize;
        let b = |ci: i32, cj: i32| *sb.add((cc + ci as isize + cj as isize * cw as isize) as usize);
        // The activity of the cross's cells (`walls.rs`), from global memory: read only where
        // some cell is inactive. One body for both (two bodies in one entry put the bollermann
        // tile's reconstructions in local memory); the streamed kernel, the default, has two.
        let map = k.active();
        let g = (j + 2) as usize * p + (i + 2) as usize;
        let on = |di: i32, dj: i32| is_active(map, (g as isize + di as isize + dj as isize * p as isize) as usize);
        let mut r = T::ZERO;
        let mut rx = Recon::ZERO;
        let mut ry = rx;
        // An inactive cell's faces with active cells are computed by its active neighbours (each
        // face by both cells' threads, the same value); a face between two inactive cells sets
        // no rate.
        let me = valid && on(0, 0);
        if valid {
            let fxa = (ty * (bx + 1) + tx) as usize;
            let fya = (ty * bx + tx) as usize;
            let seen = |other: bool, speed: T| if me || other { speed } else { T::ZERO };
            rx = recon_x_on::<S, T>(k, &q, &b, &on, 0);
            let (w_on, e_on, s_on, n_on) = (on(-1, 0), on(1, 0), on(0, -1), on(0, 1));
            let west = face_flux::<S, T>(k, recon_x_on::<S, T>(k, &q, &b, &on, -1).p, rx.m, (w_on, me), false);
            put_flux(fx, nfx, fxa, west);
            r = r.max(seen(w_on, west.speed) * k.inv_dx);
            if tx + 1 == bx || i + 1 == k.nx {
                let east = face_flux::<S, T>(k, rx.p, recon_x_on::<S, T>(k, &q, &b, &on, 1).m, (me, e_on), false);
                put_flux(fx, nfx, fxa + 1, east);
                r = r.max(seen(e_on, east.speed) * k.inv_dx);
            }
            ry = recon_y_on::<S, T>(k, &q, &b, &on, 0);
            let south = face_flux::<S, T>(k, recon_y_on::<S, T>(k, &q, &b, &on, -1).p, ry.m, (s_on, me), true);
            put_flux(fy, nfy, fya, south);
            r = r.max(seen(s_on, south.speed) * k.inv_dy);
            if ty + 1 == by || j + 1 == k.ny {
                let north = face_flux::<S, T>(k, ry.p, recon_y_on::<S, T>(k, &q, &b, &on, 1).m, (me, n_on), true);
                put_flux(fy, nfy, fya + bx as usize, north);
                r = r.max(seen(n_on, north.speed) * k.inv_dy);
            }
        }
        thread::sync_threads();
        if valid && !me {
            // Outside the domain: R = 0.
            r = store_r([rw, rhu, rhv], g, (T::ZERO, T::ZERO, T::ZERO), r);
        } else if valid {
            let fxa = (ty * (bx + 1) + tx) as usize;
            let fya = (ty * bx + tx) as usize;
            let (fw, fe) = (get_flux(fx, nfx, fxa), get_flux(fx, nfx, fxa + 1));
            let (gs, gn) = (get_flux(fy, nfy, fya), get_flux(fy, nfy, fya + bx as usize));
            let beds = (bed_x(&b, 0), bed_x(&b, 1), bed_y(&b, 0), bed_y(&b, 1));
            let out = assemble::<S, T>(k, fw, fe, gs, gn, rx, ry, beds);
            r = store_r([rw, rhu, rhv], (j + 2) as usize * p + (i + 2) as usize, (out.w, out.hu, out.hv), r);
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
/// The launch contract of `entries.rs`; `rate` holds nbx·nby; shared memory `flux_shared::<S>(bx, by)` T.
pub(super) unsafe fn kp_flux<S: WetDryScheme, T: DeviceReal>(
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
    unsafe { flux_body::<S, T>(&k, w, hu, hv, bed, rw, rhu, rhv, rate) }
}

/// [`kp_flux`] with early exit: a block that is dry, with its four neighbours, by the wet map
/// has R = 0 and writes only its rate, 0, without reading the state; its R is left unwritten
/// (the RK kernel knows it is 0, see [`kp_rk`]).
///
/// # Safety
/// As [`kp_flux`]; `wet` holds nbx·nby flags written by the last RK stage (or the host).
#[allow(clippy::too_many_arguments)]
pub(super) unsafe fn kp_flux_early<S: WetDryScheme, T: DeviceReal>(
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
    unsafe { flux_body::<S, T>(&k, w, hu, hv, bed, rw, rhu, rhv, rate) }
}
