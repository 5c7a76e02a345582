//! SRK2's flux kernels (Amundsen §3.1.1): the F fluxes in an x-line kernel of long one-row
//! blocks, the G fluxes in a y-block kernel whose tiles have no x halo. Each writes its part of
//! R (`part_x`, `part_y`) and one rate a block; the RK kernel adds the parts in the order
//! `assemble` does (launch contract: `entries.rs`).

use super::early_exit::map_flags;
use super::smem::{get_flux, load_cell, put_flux, store_r, to_view};
use super::{
    Coeffs, Recon, WetDryScheme, bed_x, bed_y, block_active, face_flux, is_active, part_x, part_y, recon_x_on,
    recon_y_on,
};
use crate::device::reduce::block_max;
use crate::device::{DeviceReal, shared, thread};

/// The x part of R at the interior cells of row `blockIdx.y`, columns `blockIdx.x·l …` (a block
/// of `l` threads in one row), and the block's largest x rate a_x/Δx. Each thread computes its
/// cell's west face (the last one of the line also its east face) once into shared memory.
///
/// With early exit (`early` ≠ 0) a cell whose RK block (`k.bx × k.by`) is inactive by `wet`
/// gets no R (the RK kernel knows it is 0), and a face's speed counts where a cell next to it
/// is active: the faces the tile kernel's active blocks compute, so the rates are theirs.
///
/// # Safety
/// The launch contract of `entries.rs`, but blocks of `l` × 1 threads (`l` a multiple of 32),
/// grid (⌈nx/l⌉, ny); `rate` holds `line_slots(nx, ny, l)`; shared memory `line_shared::<S>(l)`
/// T; `wet` holds nbx·nby flags where `early` ≠ 0.
///
/// `MASKED` reads the activity map `k.active` (walls.rs); without it every cell is active.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(super) unsafe fn kp_flux_x<S: WetDryScheme, T: DeviceReal, const MASKED: bool>(
    k: Coeffs<T>,
    early: u32,
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
    let l = thread::block_dim_x();
    let tx = thread::thread_idx_x();
    let (bi, j) = (thread::block_idx_x(), thread::block_idx_y());
    let (i0, i) = (bi * l, bi * l + tx);
    let slot = (j * thread::grid_dim_x() + bi) as usize;
    // `checked_div`: no panic path for a zero block (the host never launches one).
    let block_of = |c: u32, size: u32| c.checked_div(size).unwrap_or(0);
    let active_at =
        |c: u32| c < k.nx && (early == 0 || block_active(&k, block_of(c, k.bx), block_of(j, k.by), map_flags(&k, wet)));
    let active = active_at(i);
    // Uniform over the block, so the early return keeps the barriers below consistent.
    if !thread::sync_threads_or(active) {
        if tx == 0 {
            unsafe { *rate.add(slot) = T::ZERO };
        }
        return;
    }
    let (tl, cl) = (l + 4, l + 5);
    let base = shared::dynamic::<T>();
    unsafe {
        let (sw, su, sv, scap) = (base, base.add(tl as usize), base.add(2 * tl as usize), base.add(3 * tl as usize));
        let sb = base.add(if S::PARTIAL { 4 } else { 3 } * tl as usize);
        let nf = (l + 1) as usize;
        let fx = sb.add(2 * cl as usize);
        let scratch = fx.add(3 * nf);
        // State tile: padded cells (i0 + a, j + 2), a < l + 4, where they exist.
        let row = (j + 2) as usize * k.pitch as usize;
        let mut t = tx;
        while t < tl {
            if i0 + t < k.nx + 4 {
                load_cell([sw, su, sv], t as usize, [w, hu, hv], row + (i0 + t) as usize);
            }
            t += l;
        }
        // Corner tile: padded corners (i0 + a, j + 2 + r), r < 2: tile cell a's south-west
        // corner is corner a of row 0.
        let mut t = tx;
        while t < 2 * cl {
            let (a, r) = (t % cl, t / cl);
            if i0 + a < k.nx + 5 {
                *sb.add(t as usize) = T::ldg(bed.add((j + 2 + r) as usize * k.cpitch as usize + (i0 + a) as usize));
            }
            t += l;
        }
        thread::sync_threads();
        if S::CORNERS {
            let mut t = tx;
            while t < tl {
                if i0 + t < k.nx + 4 {
                    let c = t as usize;
                    let corners = (*sb.add(c), *sb.add(c + 1), *sb.add(c + cl as usize), *sb.add(c + 1 + cl as usize));
                    to_view::<S, T>(&k, [sw, su, sv, scap], c, corners);
                }
                t += l;
            }
            thread::sync_threads();
        }
        let c = (tx + 2) as i32;
        let q = |di: i32, _: i32| {
            let s = (c + di) as usize;
            let cap = if S::PARTIAL { *scap.add(s) } else { T::INFINITY };
            (*sw.add(s), *su.add(s), *sv.add(s), cap)
        };
        let b = |ci: i32, cj: i32| *sb.add((cj * cl as i32 + c + ci) as usize);
        let valid = i < k.nx;
        // The activity of the row's cells (`walls.rs`): a face's speed counts where a cell next
        // to it is in the domain; an inactive cell's R is 0.
        let (map, g) = (if MASKED { k.active() } else { core::ptr::null() }, row + (i + 2) as usize);
        let on = |di: i32, _: i32| is_active(map, (g as isize + di as isize) as usize);
        let me = valid && on(0, 0);
        let mut r = T::ZERO;
        let mut rx = Recon::ZERO;
        if valid {
            rx = recon_x_on::<S, T>(&k, &q, &b, &on, 0);
            let w_on = on(-1, 0);
            let west = face_flux::<S, T>(&k, recon_x_on::<S, T>(&k, &q, &b, &on, -1).p, rx.m, (w_on, me), false);
            put_flux(fx, nf, tx as usize, west);
            if (active && me) || (i > 0 && active_at(i - 1) && w_on) {
                r = r.max(west.speed * k.inv_dx);
            }
            if tx + 1 == l || i + 1 == k.nx {
                let e_on = on(1, 0);
                let east = face_flux::<S, T>(&k, rx.p, recon_x_on::<S, T>(&k, &q, &b, &on, 1).m, (me, e_on), false);
                put_flux(fx, nf, tx as usize + 1, east);
                if active && (me || e_on) {
                    r = r.max(east.speed * k.inv_dx);
                }
            }
        }
        thread::sync_threads();
        if active && !me {
            r = store_r([rw, rhu, rhv], g, (T::ZERO, T::ZERO, T::ZERO), r);
        } else if active {
            let (fw, fe) = (get_flux(fx, nf, tx as usize), get_flux(fx, nf, tx as usize + 1));
            let out = part_x::<S, T>(&k, fw, fe, &rx, bed_x(&b, 0), bed_x(&b, 1));
            r = store_r([rw, rhu, rhv], row + (i + 2) as usize, out, r);
        }
        let m = block_max(r, scratch);
        if tx == 0 {
            *rate.add(slot) = m;
        }
    }
}

/// The y part of R at the interior cells of one block of `k.bx × k.by` (the RK kernel's), and
/// the block's largest y rate a_y/Δy: the tile kernel without x faces, so its tiles need no x
/// halo. With early exit a block inactive by `wet` writes only its rate, 0, as the tile kernel.
///
/// # Safety
/// The launch contract of `entries.rs` (the tile kernel's grid and blocks); `rate` holds
/// nbx·nby; shared memory `yblock_shared::<S>(bx, by)` T; `wet` holds nbx·nby flags where
/// `early` ≠ 0.
///
/// `MASKED` reads the activity map `k.active` (walls.rs); without it every cell is active.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(super) unsafe fn kp_flux_y<S: WetDryScheme, T: DeviceReal, const MASKED: bool>(
    k: Coeffs<T>,
    early: u32,
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
    let (bx, by) = (thread::block_dim_x(), thread::block_dim_y());
    let (tx, ty) = (thread::thread_idx_x(), thread::thread_idx_y());
    let (bi, bj) = (thread::block_idx_x(), thread::block_idx_y());
    let rank = ty * bx + tx;
    let slot = (bj * thread::grid_dim_x() + bi) as usize;
    // Uniform over the block.
    if early != 0 && !block_active(&k, bi, bj, map_flags(&k, wet)) {
        if rank == 0 {
            unsafe { *rate.add(slot) = T::ZERO };
        }
        return;
    }
    let (i0, j0) = (bi * bx, bj * by);
    let (tw, th) = (bx, by + 4);
    let (cw, ch) = (bx + 1, by + 5);
    let tn = (tw * th) as usize;
    let threads = bx * by;
    let base = shared::dynamic::<T>();
    let p = k.pitch as usize;
    let nf = (bx * (by + 1)) as usize;
    unsafe {
        let (sw, su, sv, scap) = (base, base.add(tn), base.add(2 * tn), base.add(3 * tn));
        let sb = base.add(if S::PARTIAL { 4 } else { 3 } * tn);
        let fy = sb.add((cw * ch) as usize);
        let scratch = fy.add(3 * nf);
        // State tile: padded cells (i0 + 2 + a, j0 + b), a < bx, b < by + 4, where they exist.
        let mut t = rank;
        while t < tw * th {
            let (gi, gj) = (i0 + 2 + t % tw, j0 + t / tw);
            if gi < k.nx + 4 && gj < k.ny + 4 {
                load_cell([sw, su, sv], t as usize, [w, hu, hv], gj as usize * p + gi as usize);
            }
            t += threads;
        }
        // Corner tile: padded corners (i0 + 2 + a, j0 + b), a < bx + 1, b < by + 5 (tile cell
        // (a, b)'s south-west corner is corner (a, b)).
        let mut t = rank;
        while t < cw * ch {
            let (gi, gj) = (i0 + 2 + t % cw, j0 + t / cw);
            if gi < k.nx + 5 && gj < k.ny + 5 {
                *sb.add(t as usize) = T::ldg(bed.add(gj as usize * k.cpitch as usize + gi as usize));
            }
            t += threads;
        }
        thread::sync_threads();
        if S::CORNERS {
            let mut t = rank;
            while t < tw * th {
                let (a, b) = (t % tw, t / tw);
                if i0 + 2 + a < k.nx + 4 && j0 + b < k.ny + 4 {
                    let c = (b * cw + a) as usize;
                    let corners = (*sb.add(c), *sb.add(c + 1), *sb.add(c + cw as usize), *sb.add(c + 1 + cw as usize));
                    to_view::<S, T>(&k, [sw, su, sv, scap], t as usize, corners);
                }
                t += threads;
            }
            thread::sync_threads();
        }
        let (i, j) = (i0 + tx, j0 + ty);
        let valid = i < k.nx && j < k.ny;
        let q = |_: i32, dj: i32| {
            let s = ((ty as i32 + 2 + dj) * tw as i32 + tx as i32) as usize;
            let cap = if S::PARTIAL { *scap.add(s) } else { T::INFINITY };
            (*sw.add(s), *su.add(s), *sv.add(s), cap)
        };
        let b = |ci: i32, cj: i32| *sb.add(((ty as i32 + 2 + cj) * cw as i32 + tx as i32 + ci) as usize);
        let (map, g) = (if MASKED { k.active() } else { core::ptr::null() }, (j + 2) as usize * p + (i + 2) as usize);
        let on = |_: i32, dj: i32| is_active(map, (g as isize + dj as isize * p as isize) as usize);
        let me = valid && on(0, 0);
        let mut r = T::ZERO;
        let mut ry = Recon::ZERO;
        if valid {
            let at = (ty * bx + tx) as usize;
            let seen = |other: bool, speed: T| if me || other { speed } else { T::ZERO };
            ry = recon_y_on::<S, T>(&k, &q, &b, &on, 0);
            let s_on = on(0, -1);
            let south = face_flux::<S, T>(&k, recon_y_on::<S, T>(&k, &q, &b, &on, -1).p, ry.m, (s_on, me), true);
            put_flux(fy, nf, at, south);
            r = r.max(seen(s_on, south.speed) * k.inv_dy);
            if ty + 1 == by || j + 1 == k.ny {
                let n_on = on(0, 1);
                let north = face_flux::<S, T>(&k, ry.p, recon_y_on::<S, T>(&k, &q, &b, &on, 1).m, (me, n_on), true);
                put_flux(fy, nf, at + bx as usize, north);
                r = r.max(seen(n_on, north.speed) * k.inv_dy);
            }
        }
        thread::sync_threads();
        if valid && !me {
            r = store_r([rw, rhu, rhv], g, (T::ZERO, T::ZERO, T::ZERO), r);
        } else if valid {
            let at = (ty * bx + tx) as usize;
            let (gs, gn) = (get_flux(fy, nf, at), get_flux(fy, nf, at + bx as usize));
            let out = part_y::<S, T>(&k, gs, gn, &ry, bed_y(&b, 0), bed_y(&b, 1));
            r = store_r([rw, rhu, rhv], (j + 2) as usize * p + (i + 2) as usize, out, r);
        }
        let m = block_max(r, scratch);
        if rank == 0 {
            *rate.add(slot) = m;
        }
    }
}
