//! The fused kernels: h' and s' in one pass, on a haloed shared tile or streamed by warps.

use super::stencil::{Low, ReadOnly, ab, five, five_tile, halo_computes, halo_ij};
use super::{Coeffs, Five, STREAM_COLS, face_k, ghost_h, h_next, products, s_point, upwind_is_south, upwind_is_west};
use crate::device::{DeviceReal, shared, thread};
use crate::{Bands, Level};

/// One pass for the whole step (fused-tile): halo threads compute h' on a (BX+2)×(BY+2) tile (ghost tile
/// points by the boundary rule), then the interior threads compute s' from the tile.
/// Reads h, s, α, β once (plus the halo ring) and writes h', s': 6 words per point instead
/// of 10. Shared memory: 2·(BX+2)(BY+2) T (h' tile, αs tile). On the compensated path h′'s low
/// part stays in the register of the thread that computed it, which is the one that writes it.
#[allow(clippy::too_many_arguments)]
pub(super) unsafe fn fused_tile<T: DeviceReal, const LOW: bool>(
    k: Coeffs<T>,
    h: *const T,
    s: *const T,
    al: *const T,
    be: *const T,
    hn: *mut T,
    sn: *mut T,
    lo: *const T,
    lon: *mut T,
) {
    let low = Low::<T, LOW>::new(lo, lon);
    let (i, j, tx, ty) = halo_ij();
    let (nx, ny) = (k.nx, k.ny);
    let p = k.pitch as usize;
    let tw = thread::block_dim_x() as usize;
    let t = ty as usize * tw + tx as usize;
    let c = j as usize * p + i as usize;
    let in_array = i <= nx + 1 && j <= ny + 1;
    let interior = i >= 1 && j >= 1 && i <= nx && j <= ny;
    let th = shared::dynamic::<T>();
    let mut lo_next = T::ZERO;
    unsafe {
        let ta = th.add(tw * thread::block_dim_y() as usize);
        if in_array {
            *ta.add(t) = T::ldg(al.add(c)) * T::ldg(s.add(c));
        }
        if interior {
            let (ac, bc) = ab::<T, ReadOnly>(s, al, be, c);
            let (aw, bw) = ab::<T, ReadOnly>(s, al, be, c - 1);
            let (ae, be_) = ab::<T, ReadOnly>(s, al, be, c + 1);
            let (as_, bs) = ab::<T, ReadOnly>(s, al, be, c - p);
            let (an, bn) = ab::<T, ReadOnly>(s, al, be, c + p);
            let a = Five { c: ac, w: aw, e: ae, s: as_, n: an };
            let b = Five { c: bc, w: bw, e: be_, s: bs, n: bn };
            let hp;
            (hp, lo_next) = h_next(&k, five::<T, ReadOnly>(h, c, p), low.at(c), a, b);
            *th.add(t) = hp;
        }
        thread::sync_threads();
        // Ghost points of the tile (not corners: no stencil reads them): the boundary rule
        // applied to h', with the face conductance from the (unchanged) s, α, β.
        let side_inner = if !in_array || interior {
            None
        } else if i == 0 && j >= 1 && j <= ny {
            Some((0usize, c + 1, t + 1))
        } else if i == nx + 1 && j >= 1 && j <= ny {
            Some((1, c - 1, t - 1))
        } else if j == 0 && i >= 1 && i <= nx {
            Some((2, c + p, t + tw))
        } else if j == ny + 1 && i >= 1 && i <= nx {
            Some((3, c - p, t - tw))
        } else {
            None
        };
        if let Some((side, gi, ti)) = side_inner {
            let (ag, bg) = ab::<T, ReadOnly>(s, al, be, c);
            let (ai, bi) = ab::<T, ReadOnly>(s, al, be, gi);
            *th.add(t) = ghost_h(*th.add(ti), k.q_delta_of(side), face_k::<T, T>(&k, ag, ai, bg, bi));
        }
        thread::sync_threads();
        if interior && halo_computes(tx, ty) {
            let hv = five_tile(th, t, tw);
            let a = five_tile(ta, t, tw);
            let a_x = if upwind_is_west(&hv) { a.w } else { a.e };
            let a_y = if upwind_is_south(&hv) { a.s } else { a.n };
            *sn.add(c) = s_point(&k, T::ldg(h.add(c)), T::ldg(s.add(c)), hv, a.c, a_x, a_y);
            *hn.add(c) = hv.c;
            low.put(c, lo_next);
        }
    }
}

/// The inputs of one row at this lane's column: h, s, αs, β(1−s), and h's low part on the
/// compensated path.
#[derive(Clone, Copy)]
struct Row<T, H> {
    h: H,
    s: T,
    a: T,
    b: T,
    lo: Option<H>,
}

/// Fused step streamed by warps (the default `fused`). Block (32, W): each warp owns a strip
/// of 28 output columns and `bands.rows` rows (its chunk); it slides down the rows keeping
/// three rows of inputs and of h' in registers, getting x-neighbours by shuffles. Every input
/// is read once per strip (32/28 of the points) with no shared memory and no barrier: about 6.6
/// words a point instead of the tile version's halo overhead (7.6 with h's low parts read and
/// written on the compensated path: h' is carried as (high, low) pairs, neighbours see the
/// high part).
///
/// Mixed precision (`H` = f64, `T` = f32): h and h′ are f64 arrays, the rest f32 (no low
/// parts: `LOW` false); h's differences are formed in f64 ([`crate::Level`]).
///
/// # Safety
/// Block x-dimension 32; grid x covers ceil(nx/28) strips, grid y × W covers `bands.count`
/// slots, slot y computing chunk `bands.band(y)` of `bands.rows` rows; arrays as for every
/// sediment kernel.
// Inlined into each entry: the plain f64 entry and the mixed one's (unused) f64 entry are
// the same instance, which the compiler would otherwise call with its parameters in local memory.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(super) unsafe fn fused<T: DeviceReal, H: DeviceReal + Level<T>, const LOW: bool>(
    k: Coeffs<T>,
    bands: Bands,
    h: *const H,
    s: *const T,
    al: *const T,
    be: *const T,
    hn: *mut H,
    sn: *mut T,
    lo: *const H,
    lon: *mut H,
) {
    let low = Low::<H, LOW>::new(lo, lon);
    let (nx, ny) = (k.nx as i64, k.ny as i64);
    let p = k.pitch as usize;
    let lane = thread::thread_idx_x();
    let i = (thread::block_idx_x() * STREAM_COLS + lane) as i64 - 1;
    let slot = thread::block_idx_y() * thread::block_dim_y() + thread::thread_idx_y();
    if slot >= bands.count {
        return; // the whole warp: the slot is the same for every lane
    }
    let rows = bands.rows as i64;
    let j0 = bands.band(slot) as i64 * rows + 1;
    if j0 > ny {
        return;
    }
    let jl = (j0 + rows - 1).min(ny);
    // Lanes outside the array load a clamped column and never store.
    let col = i.clamp(0, nx + 1) as usize;
    let load = |row: i64| unsafe {
        let g = row as usize * p + col;
        let sv = T::ldg(s.add(g));
        let hv = H::ldg(h.add(g));
        let (a, b) = products::<T, H>(T::ldg(al.add(g)), sv, T::ldg(be.add(g)));
        Row { h: hv, s: sv, a, b, lo: low.at(g) }
    };
    // h' at an interior row from rows (m, c, p) of inputs; ghost columns by the boundary rule
    // from their inner neighbour. Every lane runs every shuffle (no divergent shuffles).
    let hp_row = |m: &Row<T, H>, c: &Row<T, H>, n: &Row<T, H>| {
        let hv = Five { c: c.h, w: c.h.shfl_up(1), e: c.h.shfl_down(1), s: m.h, n: n.h };
        let a = Five { c: c.a, w: c.a.shfl_up(1), e: c.a.shfl_down(1), s: m.a, n: n.a };
        let b = Five { c: c.b, w: c.b.shfl_up(1), e: c.b.shfl_down(1), s: m.b, n: n.b };
        let v = h_next(&k, hv, c.lo, a, b);
        let (from_e, from_w) = (v.0.shfl_down(1), v.0.shfl_up(1));
        if i == 0 {
            (ghost_h(from_e, k.q_delta_of(0), face_k::<T, H>(&k, c.a, a.e, c.b, b.e)), H::ZERO)
        } else if i == nx + 1 {
            (ghost_h(from_w, k.q_delta_of(1), face_k::<T, H>(&k, c.a, a.w, c.b, b.w)), H::ZERO)
        } else {
            v
        }
    };
    // h' at a ghost row from the inner row's h' (south: side 2, north: side 3).
    let hp_ghost_row = |inner_hp: (H, H), ghost: &Row<T, H>, inner: &Row<T, H>, side: usize| {
        (ghost_h(inner_hp.0, k.q_delta_of(side), face_k::<T, H>(&k, ghost.a, inner.a, ghost.b, inner.b)), H::ZERO)
    };
    let writes = lane >= 2 && lane <= STREAM_COLS + 1 && i >= 1 && i <= nx;

    // Prologue: h' at rows j0−1 and j0, the input window at rows j0 and j0+1.
    let (mut pm, mut pc, mut a_prev, mut im, mut ic);
    if j0 == 1 {
        let (r0, r1, r2) = (load(0), load(1), load(2));
        let p1 = hp_row(&r0, &r1, &r2);
        pm = hp_ghost_row(p1, &r0, &r1, 2);
        pc = p1;
        (a_prev, im, ic) = (r0.a, r1, r2);
    } else {
        let (r_2, r_1, r0, r1) = (load(j0 - 2), load(j0 - 1), load(j0), load(j0 + 1));
        pm = hp_row(&r_2, &r_1, &r0);
        pc = hp_row(&r_1, &r0, &r1);
        (a_prev, im, ic) = (r_1.a, r0, r1);
    }
    let mut j = j0;
    while j <= jl {
        // h' one row ahead of the output row j.
        let (pn, ip) = if j < ny {
            let ip = load(j + 2);
            (hp_row(&im, &ic, &ip), ip)
        } else {
            (hp_ghost_row(pc, &ic, &im, 3), ic)
        };
        let hv = Five { c: pc.0, w: pc.0.shfl_up(1), e: pc.0.shfl_down(1), s: pm.0, n: pn.0 };
        let (a_w, a_e) = (im.a.shfl_up(1), im.a.shfl_down(1));
        if writes {
            let a_x = if upwind_is_west(&hv) { a_w } else { a_e };
            let a_y = if upwind_is_south(&hv) { a_prev } else { ic.a };
            let c = j as usize * p + i as usize;
            unsafe {
                *sn.add(c) = s_point(&k, im.h, im.s, hv, im.a, a_x, a_y);
                *hn.add(c) = pc.0;
                low.put(c, pc.1);
            }
        }
        (pm, pc, a_prev, im, ic) = (pc, pn, im.a, ic, ip);
        j += 1;
    }
}
