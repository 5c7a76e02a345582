//! The passes of the `clamp` wet–dry scheme around its flux and RK kernels
//! (docs/kp-wet-dry-kernels.md, "The clamp scheme on the GPU"; launch contract: `entries.rs`).
//!
//! After the flux kernel (R before draining) and Δt: [`kp_drain`] finds the draining factor of
//! every partially flooded cell, [`kp_drain_rhs`] recomputes R where a face leaves a drained
//! cell. After the RK stage: [`kp_clamp`] clamps the velocities of partially flooded cells (and
//! holds films' velocities to their neighbours' waves) into scratch fields, [`kp_clamp_copy`] copies them back. Nearly
//! everywhere no cell is partially flooded or draining binds, so the passes visit only the
//! blocks (of the RK kernel's grid) that [`kp_shore_lists`] lists after each RK stage, from the
//! flags the RK kernel leaves: a grid of a few blocks a multiprocessor steps through each list.
//! Launched over every block they cost as much as the flux kernel with nothing to do (their
//! blocks hold the registers of the work).

use super::early_exit::map_flags;
use super::{
    Clamp, Coeffs, block_active, cell_faces_on, clamp_pass, drain_face, draining_factor, is_active, mass_rate, outflow,
    to_clamp,
};
use crate::Level;
use crate::device::{DeviceReal, thread, warp};

/// The padded cell index and the corner index of interior cell (i, j).
#[inline(always)]
fn at<T: DeviceReal>(k: &Coeffs<T>, i: u32, j: u32) -> (usize, usize) {
    ((j + 2) as usize * k.pitch as usize + (i + 2) as usize, (j + 2) as usize * k.cpitch as usize + (i + 2) as usize)
}

/// Calls `body(bi, bj)` for every block (bi, bj) of the list `list` (pairs) of length
/// `*count`, this block taking entries blockIdx.x, blockIdx.x + gridDim.x, …: every thread of
/// the block calls `body` for the same blocks, so barriers in it are uniform.
#[inline(always)]
pub(super) unsafe fn for_listed(list: *const u32, count: *const u32, mut body: impl FnMut(u32, u32)) {
    let n = unsafe { *count };
    let mut e = thread::block_idx_x();
    while e < n {
        let (bi, bj) = unsafe { (*list.add(2 * e as usize), *list.add(2 * e as usize + 1)) };
        body(bi, bj);
        e += thread::grid_dim_x();
    }
}

/// Interior cell (i, j) of this thread in block (bi, bj).
#[inline(always)]
fn cell_of<T: DeviceReal>(k: &Coeffs<T>, bi: u32, bj: u32) -> (u32, u32) {
    (bi * k.bx + thread::thread_idx_x(), bj * k.by + thread::thread_idx_y())
}

/// The lists of blocks the passes visit, after an RK stage, from the flags it left of its
/// output: the drain list (pairs at `lists`, length `counts[0]`) holds every block next to or
/// being one that has a partially flooded cell (`partial`) and is active by the output's wet
/// map `wet` (`block_active`: a block dry with its four neighbours neither drains nor has a
/// face that does, as the early-exit kernels rely on); the clamp list (pairs at
/// `lists + 2·nbx·nby`, length `counts[1]`) every block with a cell to clamp (`shore`). It
/// also clears `drained`, which the drain pass sets for the listed blocks only, and flags the
/// drain list's blocks in `listed` (the streamed second stage leaves them to the RK kernel). One thread a
/// block of the RK grid; the order within a list does not matter (each entry writes its own
/// block's cells).
///
/// # Safety
/// A 2-D launch of blocks 32 threads wide (whole warps) covering nbx × nby threads; `wet`, `partial`, `shore`,
/// `drained` and `listed` hold nbx·nby flags; `lists` 4·nbx·nby words; `counts` two words, 0 before.
#[allow(clippy::too_many_arguments)]
pub(super) unsafe fn kp_shore_lists<T: DeviceReal>(
    k: Coeffs<T>,
    wet: *const u32,
    partial: *const u32,
    shore: *const u32,
    drained: *mut u32,
    listed: *mut u32,
    lists: *mut u32,
    counts: *mut u32,
) {
    let blocks = k.nbx * k.nby;
    let (bi, bj) = thread::index_2d();
    let b = bj * k.nbx + bi;
    let (mut drain, mut clamp) = (false, false);
    if bi < k.nbx && bj < k.nby {
        let shore_active =
            |a: u32, c: u32| unsafe { *partial.add((c * k.nbx + a) as usize) } != 0 && block_active(&k, a, c, map_flags(&k, wet));
        // A block at a cut is listed too: a neighbouring slab's cells may drain through it.
        drain = block_active(&k, bi, bj, shore_active) || k.touches_cut(bj);
        clamp = unsafe { *shore.add(b as usize) } != 0;
        unsafe {
            *drained.add(b as usize) = 0;
            *listed.add(b as usize) = drain as u32;
        }
    }
    unsafe {
        warp::append_pair(drain, bi, bj, lists, counts);
        warp::append_pair(clamp, bi, bj, lists.add(2 * blocks as usize), counts.add(1));
    }
}

/// The four faces of the cell at padded index `g` (corner index `cc`) from global memory, the
/// surface `w` of the level type `W`.
#[inline(always)]
unsafe fn faces_at<T: DeviceReal, W: DeviceReal + Level<T>>(
    k: &Coeffs<T>,
    w: *const W,
    [hu, hv, bed]: [*const T; 3],
    g: usize,
    cc: usize,
) -> super::CellFaces<T> {
    let (p, cp) = (k.pitch as isize, k.cpitch as isize);
    let q = |di: i32, dj: i32| {
        let o = (g as isize + di as isize + dj as isize * p) as usize;
        unsafe { (W::ldg(w.add(o)), T::ldg(hu.add(o)), T::ldg(hv.add(o))) }
    };
    let b = |ci: i32, cj: i32| unsafe { T::ldg(bed.add((cc as isize + ci as isize + cj as isize * cp) as usize)) };
    let map = k.active();
    let on = |di: i32, dj: i32| unsafe { is_active(map, (g as isize + di as isize + dj as isize * p) as usize) };
    cell_faces_on::<Clamp, T, W>(k, q, b, on)
}

/// The draining factor of every partially flooded cell (w̄ < B_hi, `hi`) of the state (w, hu, hv)
/// for a stage of Δt `dt[0]`, from its four face fluxes (recomputed: the flux kernel keeps no
/// faces), in the blocks of the drain list (`list`, `count`: [`kp_shore_lists`]). A block where
/// some factor is below 1 writes every cell's factor into `phi` and flags itself in `drained`.
/// With `early` ≠ 0, blocks inactive by `wet_in` (dry with their four neighbours: no flux) are
/// left out. With `split` ≠ 0 (a substep of DS1 or DS2) only the two x faces count: the substep
/// moves water through no other. The surface `w` is of the level type `W` (`T`, or f64 in mixed
/// precision: depths formed in f64 and rounded once).
///
/// # Safety
/// The launch contract of `entries.rs`, blocks of `k.bx × k.by` threads, any 1-D grid; `phi`
/// padded; `drained` nbx·nby flags, 0 outside the list.
// Inlined into each entry point: the plain and the mixed `_f64` entries share this
// instance, and a call between them would pass `k` through local memory.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(super) unsafe fn kp_drain<T: DeviceReal, W: DeviceReal + Level<T>>(
    k: Coeffs<T>,
    early: u32,
    split: u32,
    dt: *const T,
    w: *const W,
    hu: *const T,
    hv: *const T,
    bed: *const T,
    bc: *const T,
    hi: *const T,
    wet_in: *const u32,
    list: *const u32,
    count: *const u32,
    phi: *mut T,
    drained: *mut u32,
) {
    let first = thread::thread_idx_x() == 0 && thread::thread_idx_y() == 0;
    unsafe {
        for_listed(
            list,
            count,
            // Inlined: the plain and mixed `_f64` entries share this instance (see `kp_drain`).
            #[inline(always)]
            |bi, bj| {
                // One thread reads the flags and the barrier tells the block (uniform, as `early` is).
                if early != 0 && !thread::sync_threads_or(first && block_active(&k, bi, bj, map_flags(&k, wet_in))) {
                    return;
                }
                let (i, j) = cell_of(&k, bi, bj);
                let inside = i < k.nx && j < k.ny;
                let (g, cc) = at(&k, i, j);
                let mut f = T::ONE;
                // Inactive cells hold no water to drain.
                if inside && is_active(k.active(), g) {
                    let wc = W::ldg(w.add(g));
                    if wc < W::widen(T::ldg(hi.add(g))) {
                        // A dry cell between dry cells has dry faces on both sides of each face: no
                        // flux, φ = 1. On a terrain most partially flooded cells are such.
                        let p = k.pitch as usize;
                        let depth = |c: usize| W::ldg(w.add(c)).minus(W::widen(T::ldg(bc.add(c))));
                        let h = wc.minus(W::widen(T::ldg(bc.add(g)))).max(T::ZERO);
                        let dry_around = h <= T::ZERO
                            && depth(g - 1) <= T::ZERO
                            && depth(g + 1) <= T::ZERO
                            && depth(g - p) <= T::ZERO
                            && depth(g + p) <= T::ZERO;
                        if !dry_around {
                            let faces = faces_at(&k, w, [hu, hv, bed], g, cc);
                            let [fw, fe, gs, gn] = faces.flux;
                            let (gs, gn) = if split != 0 { (T::ZERO, T::ZERO) } else { (gs.f0, gn.f0) };
                            f = draining_factor(h, outflow(&k, [fw.f0, fe.f0, gs, gn]), T::ldg(dt));
                        }
                    }
                }
                // Every thread needs the answer (a flagged block writes all its factors).
                let any = thread::sync_threads_or(f < T::ONE);
                if any && inside {
                    *phi.add(g) = f;
                }
                if first && any {
                    *drained.add((bj * k.nbx + bi) as usize) = 1;
                }
            },
        );
    }
}

/// R of every cell with a face whose water leaves a drained cell (the cell itself or one of its
/// four neighbours, by `phi` where `drained` flags the block), from its four faces recomputed and
/// drained (`drain_face`); other cells keep the flux kernel's R. Visits the drain list as
/// [`kp_drain`]; a listed block with no drained block among itself and its four neighbours
/// leaves at once, and so does, with `early` ≠ 0, one inactive by `wet_in` (the RK kernel reads
/// no R there). With `split` ≠ 0 (DS1, DS2) R is the x part alone, from the x faces.
///
/// # Safety
/// As [`kp_drain`], whose `phi` and `drained` this reads; R padded, distinct from the inputs;
/// `ry` null or three padded arrays one after the other (SRK2's y part). `w` and R_w `rw` are
/// of the level type `W` (R_w by `mass_rate`; the split and SRK2 paths with `W` = `T`).
// Inlined into each entry point: the plain and the mixed `_f64` entries share this
// instance, and a call between them would pass `k` through local memory.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(super) unsafe fn kp_drain_rhs<T: DeviceReal, W: DeviceReal + Level<T>>(
    k: Coeffs<T>,
    early: u32,
    split: u32,
    w: *const W,
    hu: *const T,
    hv: *const T,
    bed: *const T,
    phi: *const T,
    drained: *const u32,
    wet_in: *const u32,
    list: *const u32,
    count: *const u32,
    rw: *mut W,
    rhu: *mut T,
    rhv: *mut T,
    ry: *mut T,
) {
    let first = thread::thread_idx_x() == 0 && thread::thread_idx_y() == 0;
    unsafe {
        for_listed(
            list,
            count,
            #[inline(always)]
            |bi, bj| {
                let work = first
                    && (block_active(&k, bi, bj, map_flags(&k, drained)) || k.touches_cut(bj))
                    && (early == 0 || block_active(&k, bi, bj, map_flags(&k, wet_in)));
                if !thread::sync_threads_or(work) {
                    return;
                }
                let (i, j) = cell_of(&k, bi, bj);
                if i >= k.nx || j >= k.ny {
                    return;
                }
                let is_drained = map_flags(&k, drained);
                let (tx, ty) = (thread::thread_idx_x() as i32, thread::thread_idx_y() as i32);
                let (bx, by) = (k.bx as i32, k.by as i32);
                // The factor of interior cell (i + di, j + dj), |di|, |dj| ≤ 1: 1 outside the interior
                // (ghost cells are not drained) but across a periodic side, where it is the factor
                // of the cell the ghost is the image of, and 1 in blocks that drained nothing. Its
                // block is this one or the next along the step (no division: the blocks are
                // k.bx × k.by threads), or across a periodic side one at the other end.
                let factor = |di: i32, dj: i32| {
                    let (a, b) = (i as i32 + di, j as i32 + dj);
                    let step = |t: i32, d: i32, size: i32| {
                        if t + d < 0 {
                            -1
                        } else if t + d >= size {
                            1
                        } else {
                            0
                        }
                    };
                    let (na, nb) = ((bi as i32 + step(tx, di, bx)) as u32, (bj as i32 + step(ty, dj, by)) as u32);
                    if (0..k.nx as i32).contains(&a) && !k.is_grid_row(b) && k.is_exchanged_row(b) {
                        // A periodic side wrapped to another rank: that rank's factors, as
                        // beyond a cut.
                        *phi.add((b + 2) as usize * k.pitch as usize + (a + 2) as usize)
                    } else if a < 0 || a >= k.nx as i32 || !k.is_grid_row(b) {
                        // An edge neighbour's image lies in the first or last block of the wrapped
                        // axis.
                        let (wa, wb) = (
                            if a < 0 {
                                k.nbx - 1
                            } else if a >= k.nx as i32 {
                                0
                            } else {
                                na
                            },
                            if b < 0 {
                                k.nby - 1
                            } else if b >= k.ny as i32 {
                                0
                            } else {
                                nb
                            },
                        );
                        match k.periodic_image(a, b) {
                            Some((pa, pb)) if is_drained(wa, wb) => *phi.add(at(&k, pa, pb).0),
                            _ => T::ONE,
                        }
                    } else if b < 0 || b >= k.ny as i32 {
                        // Beyond a cut: the neighbouring slab's factors, 1 where it drained
                        // nothing (its φ is reset every stage on a slab).
                        *phi.add((b + 2) as usize * k.pitch as usize + (a + 2) as usize)
                    } else if !is_drained(na, nb) {
                        T::ONE
                    } else {
                        *phi.add(at(&k, a as u32, b as u32).0)
                    }
                };
                // A split substep's y faces move nothing: their factors do not matter.
                let (ps, pn) = if split != 0 { (T::ONE, T::ONE) } else { (factor(0, -1), factor(0, 1)) };
                let (pc, pw, pe) = (factor(0, 0), factor(-1, 0), factor(1, 0));
                if pc.min(pw).min(pe).min(ps).min(pn) >= T::ONE {
                    return;
                }
                let (g, cc) = at(&k, i, j);
                if !is_active(k.active(), g) {
                    return; // R = 0, as the flux kernel left it
                }
                let mut faces = faces_at(&k, w, [hu, hv, bed], g, cc);
                let [fw, fe, gs, gn] = faces.flux;
                let [sw, se, ss, sn] = faces.sides;
                faces.flux = [
                    drain_face(&k, fw, sw, pw, pc),
                    drain_face(&k, fe, se, pc, pe),
                    drain_face(&k, gs, ss, ps, pc),
                    drain_face(&k, gn, sn, pc, pn),
                ];
                if split != 0 {
                    let x = faces.parts::<Clamp>(&k).0;
                    (*rw.add(g), *rhu.add(g), *rhv.add(g)) = (W::widen(x.0), x.1, x.2);
                } else if ry.is_null() {
                    let r = faces.rhs::<Clamp>(&k);
                    let [fw, fe, gs, gn] = faces.flux;
                    // `r.w` bit for bit where W = T.
                    *rw.add(g) = mass_rate(&k, [fw.f0, fe.f0, gs.f0, gn.f0]);
                    *rhu.add(g) = r.hu;
                    *rhv.add(g) = r.hv;
                } else {
                    // SRK2: the parts where its flux kernels left them.
                    let (x, y) = faces.parts::<Clamp>(&k);
                    let n = k.cells();
                    (*rw.add(g), *rhu.add(g), *rhv.add(g)) = (W::widen(x.0), x.1, x.2);
                    (*ry.add(g), *ry.add(n + g), *ry.add(2 * n + g)) = y;
                }
            },
        );
    }
}

/// The velocity clamp after an RK stage, on its output state (w, hu, hv), in the blocks of the
/// clamp list (`list`, `count`: [`kp_shore_lists`], blocks the RK kernel found holding a cell to
/// clamp): the momenta of every cell `to_clamp` names (`clamp_pass`: a partially flooded cell
/// deeper than `dry` held to its neighbours' velocities, read from the unclamped state; a
/// film's held to its neighbours' Riemann invariants), and every other cell's momenta, into the scratch pair (`shu`, `shv`).
///
/// # Safety
/// The launch contract of `entries.rs`, blocks of `k.bx × k.by` threads, any 1-D grid; scratch
/// padded and distinct from the state. The surface `w` is of the level type `W`.
// Inlined into each entry point: the plain and the mixed `_f64` entries share this
// instance, and a call between them would pass `k` through local memory.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(super) unsafe fn kp_clamp<T: DeviceReal, W: DeviceReal + Level<T>>(
    k: Coeffs<T>,
    w: *const W,
    hu: *const T,
    hv: *const T,
    bc: *const T,
    hi: *const T,
    list: *const u32,
    count: *const u32,
    shu: *mut T,
    shv: *mut T,
) {
    unsafe {
        for_listed(
            list,
            count,
            #[inline(always)]
            |bi, bj| {
                let (i, j) = cell_of(&k, bi, bj);
                if i >= k.nx || j >= k.ny {
                    return;
                }
                let g = at(&k, i, j).0;
                let (mut qu, mut qv) = (T::ldg(hu.add(g)), T::ldg(hv.add(g)));
                // Only a partially flooded cell deeper than `dry` reads its neighbours.
                let wc = W::ldg(w.add(g));
                let partial = wc < W::widen(T::ldg(hi.add(g)));
                let h = wc.minus(W::widen(T::ldg(bc.add(g))));
                if to_clamp(&k, partial, h) {
                    let around = |di: i32, dj: i32| {
                        let (a, b) = (i as i32 + di, j as i32 + dj);
                        // Beyond a cut, the neighbouring slab's cells as the stage left them.
                        if a < 0 || a >= k.nx as i32 || !k.is_grid_row(b) {
                            return None;
                        }
                        let n = (b + 2) as usize * k.pitch as usize + (a + 2) as usize;
                        let wn = W::ldg(w.add(n));
                        let full = wn >= W::widen(T::ldg(hi.add(n)));
                        Some((wn.minus(W::widen(T::ldg(bc.add(n)))), T::ldg(hu.add(n)), T::ldg(hv.add(n)), full))
                    };
                    (qu, qv) = clamp_pass(&k, partial, h, (qu, qv), around);
                }
                *shu.add(g) = qu;
                *shv.add(g) = qv;
            },
        );
    }
}

/// The momenta [`kp_clamp`] left in the scratch pair, copied into the state's in the blocks of
/// the clamp list.
///
/// # Safety
/// As [`kp_clamp`].
pub(super) unsafe fn kp_clamp_copy<T: DeviceReal>(
    k: Coeffs<T>,
    shu: *const T,
    shv: *const T,
    list: *const u32,
    count: *const u32,
    hu: *mut T,
    hv: *mut T,
) {
    unsafe {
        for_listed(
            list,
            count,
            #[inline(always)]
            |bi, bj| {
                let (i, j) = cell_of(&k, bi, bj);
                if i < k.nx && j < k.ny {
                    let g = at(&k, i, j).0;
                    *hu.add(g) = T::ldg(shu.add(g));
                    *hv.add(g) = T::ldg(shv.add(g));
                }
            },
        );
    }
}
