//! Sediment kernels. Every variant computes the same point functions (`h_point`, `s_point`);
//! they differ in how the stencil's inputs reach the thread:
//! - baseline: plain global loads; OPT-1: read-only cache loads;
//! - OPT-2: OPT-1 plus a shared-memory tile of αs and β(1−s), each computed once per point
//!   (edge threads also fill the tile's halo);
//! - OPT-3: OPT-2 with halo threads, a block of (BX+2)×(BY+2) where every thread fills one
//!   tile entry and the interior ones compute;
//! - multi: several rows per thread, sliding a register window along y;
//! - fused-tile: h' on a haloed shared tile (halo threads), then s' from it, in one pass;
//! - fused: one pass streamed by warps down the rows: h' in registers, x-neighbours by shuffle.
//!
//! Launch contract (all): `k` describes arrays of `(nx+2)(ny+2)` elements, every pointer is a
//! whole such array, outputs do not alias inputs, and the grid covers the interior as the host
//! driver (`src/sediment/gpu.rs`) computes it; tiled variants get the shared memory stated.

use super::{Coeffs, Five, face_k, ghost_h, h_point, perimeter, s_point, set_ghost, upwind_is_south, upwind_is_west};
use crate::device::{DeviceReal, shared, thread};

/// How a kernel loads its read-only inputs.
trait Load {
    unsafe fn ld<T: DeviceReal>(p: *const T, i: usize) -> T;
}
struct Plain;
struct ReadOnly;
impl Load for Plain {
    #[inline(always)]
    unsafe fn ld<T: DeviceReal>(p: *const T, i: usize) -> T {
        unsafe { *p.add(i) }
    }
}
impl Load for ReadOnly {
    #[inline(always)]
    unsafe fn ld<T: DeviceReal>(p: *const T, i: usize) -> T {
        unsafe { T::ldg(p.add(i)) }
    }
}

#[inline(always)]
unsafe fn five<T: DeviceReal, L: Load>(p: *const T, c: usize, pitch: usize) -> Five<T> {
    unsafe {
        Five { c: L::ld(p, c), w: L::ld(p, c - 1), e: L::ld(p, c + 1), s: L::ld(p, c - pitch), n: L::ld(p, c + pitch) }
    }
}

/// (αs, β(1−s)) at index `g`.
#[inline(always)]
unsafe fn ab<T: DeviceReal, L: Load>(s: *const T, al: *const T, be: *const T, g: usize) -> (T, T) {
    unsafe {
        let sv = L::ld(s, g);
        (L::ld(al, g) * sv, L::ld(be, g) * (T::ONE - sv))
    }
}

/// Global interior point (i, j) of this thread in a block of interior threads.
#[inline(always)]
fn interior_ij() -> (u32, u32) {
    let (x, y) = thread::index_2d();
    (x + 1, y + 1)
}

// ---------------------------------------------------------------- h-kernel ----

/// Baseline and OPT-1: every input loaded from global memory (αs, β(1−s) computed five times).
#[inline(always)]
unsafe fn h_direct<T: DeviceReal, L: Load>(
    k: Coeffs<T>,
    h: *const T,
    s: *const T,
    al: *const T,
    be: *const T,
    hn: *mut T,
) {
    let (i, j) = interior_ij();
    if i > k.nx || j > k.ny {
        return;
    }
    let p = k.pitch as usize;
    let c = j as usize * p + i as usize;
    unsafe {
        let (ac, bc) = ab::<T, L>(s, al, be, c);
        let (aw, bw) = ab::<T, L>(s, al, be, c - 1);
        let (ae, be_) = ab::<T, L>(s, al, be, c + 1);
        let (as_, bs) = ab::<T, L>(s, al, be, c - p);
        let (an, bn) = ab::<T, L>(s, al, be, c + p);
        let a = Five { c: ac, w: aw, e: ae, s: as_, n: an };
        let b = Five { c: bc, w: bw, e: be_, s: bs, n: bn };
        *hn.add(c) = h_point(&k, five::<T, L>(h, c, p), a, b);
    }
}

unsafe fn h_baseline<T: DeviceReal>(k: Coeffs<T>, h: *const T, s: *const T, al: *const T, be: *const T, hn: *mut T) {
    unsafe { h_direct::<T, Plain>(k, h, s, al, be, hn) }
}
unsafe fn h_opt1<T: DeviceReal>(k: Coeffs<T>, h: *const T, s: *const T, al: *const T, be: *const T, hn: *mut T) {
    unsafe { h_direct::<T, ReadOnly>(k, h, s, al, be, hn) }
}

/// Read a 5-point stencil out of a shared tile of width `tw` around tile point `t`.
#[inline(always)]
unsafe fn five_tile<T: DeviceReal>(tile: *const T, t: usize, tw: usize) -> Five<T> {
    unsafe {
        Five { c: *tile.add(t), w: *tile.add(t - 1), e: *tile.add(t + 1), s: *tile.add(t - tw), n: *tile.add(t + tw) }
    }
}

/// Fill a (BX+2)×(BY+2) tile for a block of BX×BY interior threads: each thread its own point,
/// edge threads also the halo beyond them. `put(ti, tj, gi, gj)` stores global point (gi, gj)
/// at tile point (ti, tj). Threads past the ghost layer load nothing.
#[inline(always)]
fn fill_tile<T>(k: &Coeffs<T>, (i, j): (u32, u32), mut put: impl FnMut(u32, u32, u32, u32)) {
    let (bx, by) = (thread::block_dim_x(), thread::block_dim_y());
    let (tx, ty) = (thread::thread_idx_x(), thread::thread_idx_y());
    if i > k.nx + 1 || j > k.ny + 1 {
        return;
    }
    put(tx + 1, ty + 1, i, j);
    if tx == 0 {
        put(0, ty + 1, i - 1, j);
    }
    if tx == bx - 1 && i <= k.nx {
        put(tx + 2, ty + 1, i + 1, j);
    }
    if ty == 0 {
        put(tx + 1, 0, i, j - 1);
    }
    if ty == by - 1 && j <= k.ny {
        put(tx + 1, ty + 2, i, j + 1);
    }
}

/// OPT-2. Shared memory: 2·(BX+2)(BY+2) T (αs tile, then β(1−s) tile).
unsafe fn h_opt2<T: DeviceReal>(k: Coeffs<T>, h: *const T, s: *const T, al: *const T, be: *const T, hn: *mut T) {
    let (bx, by) = (thread::block_dim_x(), thread::block_dim_y());
    let (tx, ty) = (thread::thread_idx_x(), thread::thread_idx_y());
    let (i, j) = interior_ij();
    let p = k.pitch as usize;
    let tw = (bx + 2) as usize;
    let ta = shared::dynamic::<T>();
    unsafe {
        let tb = ta.add(tw * (by + 2) as usize);
        let put = |ti: u32, tj: u32, gi: u32, gj: u32| {
            let (a, b) = ab::<T, ReadOnly>(s, al, be, gj as usize * p + gi as usize);
            let t = tj as usize * tw + ti as usize;
            *ta.add(t) = a;
            *tb.add(t) = b;
        };
        fill_tile(&k, (i, j), put);
        thread::sync_threads();
        if i <= k.nx && j <= k.ny {
            let t = (ty + 1) as usize * tw + (tx + 1) as usize;
            let c = j as usize * p + i as usize;
            *hn.add(c) = h_point(&k, five::<T, ReadOnly>(h, c, p), five_tile(ta, t, tw), five_tile(tb, t, tw));
        }
    }
}

/// Tile coordinates of a halo-thread block: block (BX+2)×(BY+2), thread (tx, ty) holds global
/// point (blockIdx·BX + tx, blockIdx·BY + ty); threads 1..=BX × 1..=BY are the interior ones.
#[inline(always)]
fn halo_ij() -> (u32, u32, u32, u32) {
    let (bxi, byi) = (thread::block_dim_x() - 2, thread::block_dim_y() - 2);
    let (tx, ty) = (thread::thread_idx_x(), thread::thread_idx_y());
    (thread::block_idx_x() * bxi + tx, thread::block_idx_y() * byi + ty, tx, ty)
}

#[inline(always)]
fn halo_computes(tx: u32, ty: u32) -> bool {
    tx >= 1 && ty >= 1 && tx <= thread::block_dim_x() - 2 && ty <= thread::block_dim_y() - 2
}

/// OPT-3: OPT-2 with halo threads. Shared memory: 2·(BX+2)(BY+2) T.
unsafe fn h_opt3<T: DeviceReal>(k: Coeffs<T>, h: *const T, s: *const T, al: *const T, be: *const T, hn: *mut T) {
    let (i, j, tx, ty) = halo_ij();
    let p = k.pitch as usize;
    let tw = thread::block_dim_x() as usize;
    let t = ty as usize * tw + tx as usize;
    let ta = shared::dynamic::<T>();
    unsafe {
        let tb = ta.add(tw * thread::block_dim_y() as usize);
        if i <= k.nx + 1 && j <= k.ny + 1 {
            let (a, b) = ab::<T, ReadOnly>(s, al, be, j as usize * p + i as usize);
            *ta.add(t) = a;
            *tb.add(t) = b;
        }
        thread::sync_threads();
        if halo_computes(tx, ty) && i <= k.nx && j <= k.ny {
            let c = j as usize * p + i as usize;
            *hn.add(c) = h_point(&k, five::<T, ReadOnly>(h, c, p), five_tile(ta, t, tw), five_tile(tb, t, tw));
        }
    }
}

/// Rows handled by thread row `ty` of a multi-point block: `rows_per_thread` consecutive rows.
#[inline(always)]
fn multi_rows(k_rows: u32) -> (u32, u32) {
    let i = thread::block_idx_x() * thread::block_dim_x() + thread::thread_idx_x() + 1;
    let j0 = (thread::block_idx_y() * thread::block_dim_y() + thread::thread_idx_y()) * k_rows + 1;
    (i, j0)
}

/// Several points per thread: a register window of h, αs, β(1−s) at rows j−1, j, j+1 slides
/// along y, so each row's values are loaded once per column; x-neighbours come from the
/// read-only cache.
unsafe fn h_multi<T: DeviceReal>(k: Coeffs<T>, h: *const T, s: *const T, al: *const T, be: *const T, hn: *mut T) {
    let (i, j0) = multi_rows(k.rows_per_thread);
    if i > k.nx || j0 > k.ny {
        return;
    }
    let p = k.pitch as usize;
    let j_end = (j0 + k.rows_per_thread - 1).min(k.ny);
    unsafe {
        let mut c = j0 as usize * p + i as usize;
        let (mut hs, mut hc) = (T::ldg(h.add(c - p)), T::ldg(h.add(c)));
        let (mut a_s, mut b_s) = ab::<T, ReadOnly>(s, al, be, c - p);
        let (mut a_c, mut b_c) = ab::<T, ReadOnly>(s, al, be, c);
        let mut j = j0;
        while j <= j_end {
            let hn_ = T::ldg(h.add(c + p));
            let (a_n, b_n) = ab::<T, ReadOnly>(s, al, be, c + p);
            let (a_w, b_w) = ab::<T, ReadOnly>(s, al, be, c - 1);
            let (a_e, b_e) = ab::<T, ReadOnly>(s, al, be, c + 1);
            let hv = Five { c: hc, w: T::ldg(h.add(c - 1)), e: T::ldg(h.add(c + 1)), s: hs, n: hn_ };
            let a = Five { c: a_c, w: a_w, e: a_e, s: a_s, n: a_n };
            let b = Five { c: b_c, w: b_w, e: b_e, s: b_s, n: b_n };
            *hn.add(c) = h_point(&k, hv, a, b);
            (hs, hc, a_s, a_c, b_s, b_c) = (hc, hn_, a_c, a_n, b_c, b_n);
            c += p;
            j += 1;
        }
    }
}

// ---------------------------------------------------------------- s-kernel ----

/// Baseline and OPT-1: h' on the stencil, αs at the point and its two upwind neighbours.
#[inline(always)]
unsafe fn s_direct<T: DeviceReal, L: Load>(
    k: Coeffs<T>,
    h: *const T,
    hp: *const T,
    s: *const T,
    al: *const T,
    sn: *mut T,
) {
    let (i, j) = interior_ij();
    if i > k.nx || j > k.ny {
        return;
    }
    let p = k.pitch as usize;
    let c = j as usize * p + i as usize;
    unsafe {
        let hv = five::<T, L>(hp, c, p);
        let ux = if upwind_is_west(&hv) { c - 1 } else { c + 1 };
        let uy = if upwind_is_south(&hv) { c - p } else { c + p };
        let sc = L::ld(s, c);
        let a_c = L::ld(al, c) * sc;
        let a_x = L::ld(al, ux) * L::ld(s, ux);
        let a_y = L::ld(al, uy) * L::ld(s, uy);
        *sn.add(c) = s_point(&k, L::ld(h, c), sc, hv, a_c, a_x, a_y);
    }
}

unsafe fn s_baseline<T: DeviceReal>(k: Coeffs<T>, h: *const T, hp: *const T, s: *const T, al: *const T, sn: *mut T) {
    unsafe { s_direct::<T, Plain>(k, h, hp, s, al, sn) }
}
unsafe fn s_opt1<T: DeviceReal>(k: Coeffs<T>, h: *const T, hp: *const T, s: *const T, al: *const T, sn: *mut T) {
    unsafe { s_direct::<T, ReadOnly>(k, h, hp, s, al, sn) }
}

/// OPT-2: αs in a shared tile with halo. Shared memory: (BX+2)(BY+2) T.
unsafe fn s_opt2<T: DeviceReal>(k: Coeffs<T>, h: *const T, hp: *const T, s: *const T, al: *const T, sn: *mut T) {
    let bx = thread::block_dim_x();
    let (tx, ty) = (thread::thread_idx_x(), thread::thread_idx_y());
    let (i, j) = interior_ij();
    let p = k.pitch as usize;
    let tw = (bx + 2) as usize;
    let ta = shared::dynamic::<T>();
    unsafe {
        let put = |ti: u32, tj: u32, gi: u32, gj: u32| {
            let g = gj as usize * p + gi as usize;
            *ta.add(tj as usize * tw + ti as usize) = T::ldg(al.add(g)) * T::ldg(s.add(g));
        };
        fill_tile(&k, (i, j), put);
        thread::sync_threads();
        if i <= k.nx && j <= k.ny {
            let t = (ty + 1) as usize * tw + (tx + 1) as usize;
            let c = j as usize * p + i as usize;
            let hv = five::<T, ReadOnly>(hp, c, p);
            let a = five_tile(ta, t, tw);
            let a_x = if upwind_is_west(&hv) { a.w } else { a.e };
            let a_y = if upwind_is_south(&hv) { a.s } else { a.n };
            *sn.add(c) = s_point(&k, T::ldg(h.add(c)), T::ldg(s.add(c)), hv, a.c, a_x, a_y);
        }
    }
}

/// Several points per thread: a register window of h' and αs at rows j−1, j, j+1.
unsafe fn s_multi<T: DeviceReal>(k: Coeffs<T>, h: *const T, hp: *const T, s: *const T, al: *const T, sn: *mut T) {
    let (i, j0) = multi_rows(k.rows_per_thread);
    if i > k.nx || j0 > k.ny {
        return;
    }
    let p = k.pitch as usize;
    let j_end = (j0 + k.rows_per_thread - 1).min(k.ny);
    let a_at = |g: usize| unsafe { T::ldg(al.add(g)) * T::ldg(s.add(g)) };
    unsafe {
        let mut c = j0 as usize * p + i as usize;
        let (mut hs, mut hc) = (T::ldg(hp.add(c - p)), T::ldg(hp.add(c)));
        let (mut a_s, mut a_c) = (a_at(c - p), a_at(c));
        let mut j = j0;
        while j <= j_end {
            let hn_ = T::ldg(hp.add(c + p));
            let a_n = a_at(c + p);
            let hv = Five { c: hc, w: T::ldg(hp.add(c - 1)), e: T::ldg(hp.add(c + 1)), s: hs, n: hn_ };
            let a_x = a_at(if upwind_is_west(&hv) { c - 1 } else { c + 1 });
            let a_y = if upwind_is_south(&hv) { a_s } else { a_n };
            *sn.add(c) = s_point(&k, T::ldg(h.add(c)), T::ldg(s.add(c)), hv, a_c, a_x, a_y);
            (hs, hc, a_s, a_c) = (hc, hn_, a_c, a_n);
            c += p;
            j += 1;
        }
    }
}

// ------------------------------------------------------------------- fused ----

/// One pass for the whole step (fused-tile): halo threads compute h' on a (BX+2)×(BY+2) tile (ghost tile
/// points by the boundary rule), then the interior threads compute s' from the tile.
/// Reads h, s, α, β once (plus the halo ring) and writes h', s': 6 words per point instead
/// of 10. Shared memory: 2·(BX+2)(BY+2) T (h' tile, αs tile).
#[allow(clippy::too_many_arguments)]
unsafe fn fused_tile<T: DeviceReal>(
    k: Coeffs<T>,
    h: *const T,
    s: *const T,
    al: *const T,
    be: *const T,
    hn: *mut T,
    sn: *mut T,
) {
    let (i, j, tx, ty) = halo_ij();
    let (nx, ny) = (k.nx, k.ny);
    let p = k.pitch as usize;
    let tw = thread::block_dim_x() as usize;
    let t = ty as usize * tw + tx as usize;
    let c = j as usize * p + i as usize;
    let in_array = i <= nx + 1 && j <= ny + 1;
    let interior = i >= 1 && j >= 1 && i <= nx && j <= ny;
    let th = shared::dynamic::<T>();
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
            *th.add(t) = h_point(&k, five::<T, ReadOnly>(h, c, p), a, b);
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
            *th.add(t) = ghost_h(*th.add(ti), k.side(side).0, face_k(&k, ag, ai, bg, bi));
        }
        thread::sync_threads();
        if interior && halo_computes(tx, ty) {
            let hv = five_tile(th, t, tw);
            let a = five_tile(ta, t, tw);
            let a_x = if upwind_is_west(&hv) { a.w } else { a.e };
            let a_y = if upwind_is_south(&hv) { a.s } else { a.n };
            *sn.add(c) = s_point(&k, T::ldg(h.add(c)), T::ldg(s.add(c)), hv, a.c, a_x, a_y);
            *hn.add(c) = hv.c;
        }
    }
}

/// The inputs of one row at this lane's column: h, s, αs, β(1−s).
#[derive(Clone, Copy)]
struct Row<T> {
    h: T,
    s: T,
    a: T,
    b: T,
}

/// Output columns per warp in the streamed fused kernel: 32 lanes load, lanes 1..=30 compute
/// h', lanes 2..=29 write.
const STREAM_COLS: u32 = 28;

/// Fused step streamed by warps (the default `fused`). Block (32, W): each warp owns a strip
/// of 28 output columns and `rows_per_thread` rows; it slides down the rows keeping three rows
/// of inputs and of h' in registers, getting x-neighbours by shuffles. Every input is read once
/// per strip (32/28 of the points) with no shared memory and no barrier: about 6.6 words a
/// point instead of the tile version's halo overhead.
///
/// # Safety
/// Block x-dimension 32; grid x covers ceil(nx/28) strips, grid y × W covers ceil(ny/rows)
/// chunks; arrays as for every sediment kernel.
#[allow(clippy::too_many_arguments)]
unsafe fn fused<T: DeviceReal>(
    k: Coeffs<T>,
    h: *const T,
    s: *const T,
    al: *const T,
    be: *const T,
    hn: *mut T,
    sn: *mut T,
) {
    let (nx, ny) = (k.nx as i64, k.ny as i64);
    let p = k.pitch as usize;
    let lane = thread::thread_idx_x();
    let i = (thread::block_idx_x() * STREAM_COLS + lane) as i64 - 1;
    let chunk = thread::block_idx_y() * thread::block_dim_y() + thread::thread_idx_y();
    let rows = k.rows_per_thread as i64;
    let j0 = chunk as i64 * rows + 1;
    if j0 > ny {
        return; // the whole warp: j0 is the same for every lane
    }
    let jl = (j0 + rows - 1).min(ny);
    // Lanes outside the array load a clamped column and never store.
    let col = i.clamp(0, nx + 1) as usize;
    let load = |row: i64| unsafe {
        let g = row as usize * p + col;
        let sv = T::ldg(s.add(g));
        Row { h: T::ldg(h.add(g)), s: sv, a: T::ldg(al.add(g)) * sv, b: T::ldg(be.add(g)) * (T::ONE - sv) }
    };
    // h' at an interior row from rows (m, c, p) of inputs; ghost columns by the boundary rule
    // from their inner neighbour. Every lane runs every shuffle (no divergent shuffles).
    let hp_row = |m: &Row<T>, c: &Row<T>, n: &Row<T>| {
        let hv = Five { c: c.h, w: c.h.shfl_up(1), e: c.h.shfl_down(1), s: m.h, n: n.h };
        let a = Five { c: c.a, w: c.a.shfl_up(1), e: c.a.shfl_down(1), s: m.a, n: n.a };
        let b = Five { c: c.b, w: c.b.shfl_up(1), e: c.b.shfl_down(1), s: m.b, n: n.b };
        let v = h_point(&k, hv, a, b);
        let (from_e, from_w) = (v.shfl_down(1), v.shfl_up(1));
        if i == 0 {
            ghost_h(from_e, k.side(0).0, face_k(&k, c.a, a.e, c.b, b.e))
        } else if i == nx + 1 {
            ghost_h(from_w, k.side(1).0, face_k(&k, c.a, a.w, c.b, b.w))
        } else {
            v
        }
    };
    // h' at a ghost row from the inner row's h' (south: side 2, north: side 3).
    let hp_ghost_row = |inner_hp: T, ghost: &Row<T>, inner: &Row<T>, side: usize| {
        ghost_h(inner_hp, k.side(side).0, face_k(&k, ghost.a, inner.a, ghost.b, inner.b))
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
        let hv = Five { c: pc, w: pc.shfl_up(1), e: pc.shfl_down(1), s: pm, n: pn };
        let (a_w, a_e) = (im.a.shfl_up(1), im.a.shfl_down(1));
        if writes {
            let a_x = if upwind_is_west(&hv) { a_w } else { a_e };
            let a_y = if upwind_is_south(&hv) { a_prev } else { ic.a };
            let c = j as usize * p + i as usize;
            unsafe {
                *sn.add(c) = s_point(&k, im.h, im.s, hv, im.a, a_x, a_y);
                *hn.add(c) = pc;
            }
        }
        (pm, pc, a_prev, im, ic) = (pc, pn, im.a, ic, ip);
        j += 1;
    }
}

// ------------------------------------------------------------------ ghosts ----

/// One thread per perimeter point (`perimeter_len(nx, ny)` threads): set the ghost layer.
unsafe fn ghosts<T: DeviceReal>(k: Coeffs<T>, h: *mut T, s: *mut T, al: *mut T, be: *mut T) {
    let t = thread::index_1d();
    if t >= u32::MAX as u64 {
        return;
    }
    if let Some(pt) = perimeter(k.nx, k.ny, t as u32) {
        unsafe { set_ghost(&k, h, s, al, be, pt) }
    }
}

stamp! {
    h_baseline => sediment_h_baseline_f32, sediment_h_baseline_f64 (k: Coeffs<T>, h: *const T, s: *const T, al: *const T, be: *const T, hn: *mut T);
    h_opt1 => sediment_h_opt1_f32, sediment_h_opt1_f64 (k: Coeffs<T>, h: *const T, s: *const T, al: *const T, be: *const T, hn: *mut T);
    h_opt2 => sediment_h_opt2_f32, sediment_h_opt2_f64 (k: Coeffs<T>, h: *const T, s: *const T, al: *const T, be: *const T, hn: *mut T);
    h_opt3 => sediment_h_opt3_f32, sediment_h_opt3_f64 (k: Coeffs<T>, h: *const T, s: *const T, al: *const T, be: *const T, hn: *mut T);
    h_multi => sediment_h_multi_f32, sediment_h_multi_f64 (k: Coeffs<T>, h: *const T, s: *const T, al: *const T, be: *const T, hn: *mut T);
    s_baseline => sediment_s_baseline_f32, sediment_s_baseline_f64 (k: Coeffs<T>, h: *const T, hp: *const T, s: *const T, al: *const T, sn: *mut T);
    s_opt1 => sediment_s_opt1_f32, sediment_s_opt1_f64 (k: Coeffs<T>, h: *const T, hp: *const T, s: *const T, al: *const T, sn: *mut T);
    s_opt2 => sediment_s_opt2_f32, sediment_s_opt2_f64 (k: Coeffs<T>, h: *const T, hp: *const T, s: *const T, al: *const T, sn: *mut T);
    s_multi => sediment_s_multi_f32, sediment_s_multi_f64 (k: Coeffs<T>, h: *const T, hp: *const T, s: *const T, al: *const T, sn: *mut T);
    fused_tile => sediment_fused_tile_f32, sediment_fused_tile_f64 (k: Coeffs<T>, h: *const T, s: *const T, al: *const T, be: *const T, hn: *mut T, sn: *mut T);
    fused => sediment_fused_f32, sediment_fused_f64 (k: Coeffs<T>, h: *const T, s: *const T, al: *const T, be: *const T, hn: *mut T, sn: *mut T);
    ghosts => sediment_ghosts_f32, sediment_ghosts_f64 (k: Coeffs<T>, h: *mut T, s: *mut T, al: *mut T, be: *mut T);
}
