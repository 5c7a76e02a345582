//! The bounded scheme's kernels. A point needs only old values on its 5-point stencil
//! ([`bounded_point`]), so one stencil body serves the h-kernels (writing h'), the s-kernels
//! (writing s') and the fused ones (both): `OUT` says which. Those that write h' also write its
//! low part on the compensated path (`lo`, `lon` not null).

use super::stencil::{
    Load, Low, Plain, ReadOnly, fill_tile, five_tile, halo_computes, halo_ij, interior_ij, multi_rows,
};
use super::{
    BOUNDED_RING, BOUNDED_STREAM_COLS, Coeffs, Five, RING_H_VALUES, RING_T_VALUES, bounded_next, bounded_rings,
    mobility,
};
use crate::async_copy;
use crate::device::{DeviceReal, shared, thread};
use crate::{Bands, Level};

/// What a kernel writes: h', s' or both.
pub(super) const H: u8 = 1;
pub(super) const S: u8 = 2;
pub(super) const BOTH: u8 = 3;

/// The inputs of one point: h, s and the two mobilities.
#[derive(Clone, Copy)]
struct Cell<T, H = T> {
    h: H,
    s: T,
    a: T,
    b: T,
}

#[inline(always)]
unsafe fn cell<T: DeviceReal, H: DeviceReal, L: Load>(
    k: &Coeffs<T>,
    h: *const H,
    s: *const T,
    al: *const T,
    be: *const T,
    g: usize,
) -> Cell<T, H> {
    unsafe {
        let sv = L::ld(s, g);
        let (a, b) = mobility(k, sv, L::ld(al, g), L::ld(be, g));
        Cell { h: L::ld(h, g), s: sv, a, b }
    }
}

/// (h' with its low part, s') at `c` from the stencil of old values there.
type Next<T, H = T> = ((H, H), T);

/// Store what `OUT` asks for at index `c` (with h' its low part on the compensated path).
#[inline(always)]
unsafe fn store<T: DeviceReal, H: DeviceReal, const OUT: u8, const LOW: bool>(
    hn: *mut H,
    sn: *mut T,
    low: Low<H, LOW>,
    c: usize,
    ((hp, lp), sp): Next<T, H>,
) {
    unsafe {
        if OUT & H != 0 {
            *hn.add(c) = hp;
            low.put(c, lp);
        }
        if OUT & S != 0 {
            *sn.add(c) = sp;
        }
    }
}

/// (h' with its low part, s') from the five cells of a stencil and the centre's low part.
#[inline(always)]
fn point<T: DeviceReal>(
    k: &Coeffs<T>,
    lo: Option<T>,
    c: Cell<T>,
    w: Cell<T>,
    e: Cell<T>,
    s: Cell<T>,
    n: Cell<T>,
) -> Next<T> {
    let hv = Five { c: c.h, w: w.h, e: e.h, s: s.h, n: n.h };
    let a = Five { c: c.a, w: w.a, e: e.a, s: s.a, n: n.a };
    let b = Five { c: c.b, w: w.b, e: e.b, s: s.b, n: n.b };
    bounded_next(k, hv, lo, c.s, a, b)
}

/// Baseline (plain loads) and OPT-1 (read-only cache): one point a thread.
///
/// # Safety
/// The sediment launch contract (`entries.rs`); `hn` (for `H`) and `sn` (for `S`) whole arrays.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(super) unsafe fn bounded_direct<T: DeviceReal, L: Load, const OUT: u8, const LOW: bool>(
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
    let (i, j) = interior_ij();
    if i > k.nx || j > k.ny {
        return;
    }
    let p = k.pitch as usize;
    let c = j as usize * p + i as usize;
    unsafe {
        let at = |g: usize| cell::<T, T, L>(&k, h, s, al, be, g);
        let v = point(&k, low.at(c), at(c), at(c - 1), at(c + 1), at(c - p), at(c + p));
        store::<T, T, OUT, LOW>(hn, sn, low, c, v);
    }
}

/// OPT-2: h and the mobilities in shared tiles with a halo, each computed once a point.
/// Shared memory: 3·(BX+2)(BY+2) T.
///
/// # Safety
/// As [`bounded_direct`], with the shared memory stated.
#[allow(clippy::too_many_arguments)]
pub(super) unsafe fn bounded_opt2<T: DeviceReal, const OUT: u8, const LOW: bool>(
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
    let (bx, by) = (thread::block_dim_x(), thread::block_dim_y());
    let (tx, ty) = (thread::thread_idx_x(), thread::thread_idx_y());
    let (i, j) = interior_ij();
    let p = k.pitch as usize;
    let tw = (bx + 2) as usize;
    let size = tw * (by + 2) as usize;
    let th = shared::dynamic::<T>();
    unsafe {
        let (ta, tb) = (th.add(size), th.add(2 * size));
        let put = |ti: u32, tj: u32, gi: u32, gj: u32| {
            let v = cell::<T, T, ReadOnly>(&k, h, s, al, be, gj as usize * p + gi as usize);
            let t = tj as usize * tw + ti as usize;
            (*th.add(t), *ta.add(t), *tb.add(t)) = (v.h, v.a, v.b);
        };
        fill_tile(&k, (i, j), put);
        thread::sync_threads();
        if i <= k.nx && j <= k.ny {
            let t = (ty + 1) as usize * tw + (tx + 1) as usize;
            let c = j as usize * p + i as usize;
            let (hv, a, b) = (five_tile(th, t, tw), five_tile(ta, t, tw), five_tile(tb, t, tw));
            let v = bounded_next(&k, hv, low.at(c), T::ldg(s.add(c)), a, b);
            store::<T, T, OUT, LOW>(hn, sn, low, c, v);
        }
    }
}

/// OPT-3 (and, writing both, fused-tile): OPT-2 with halo threads, a (BX+2)×(BY+2) block where
/// every thread fills one tile entry and the interior ones compute. Shared memory:
/// 3·(BX+2)(BY+2) T.
///
/// # Safety
/// As [`bounded_direct`], halo-thread blocks, with the shared memory stated.
#[allow(clippy::too_many_arguments)]
pub(super) unsafe fn bounded_opt3<T: DeviceReal, const OUT: u8, const LOW: bool>(
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
    let p = k.pitch as usize;
    let tw = thread::block_dim_x() as usize;
    let size = tw * thread::block_dim_y() as usize;
    let t = ty as usize * tw + tx as usize;
    let c = j as usize * p + i as usize;
    let th = shared::dynamic::<T>();
    unsafe {
        let (ta, tb) = (th.add(size), th.add(2 * size));
        let mut sc = T::ZERO;
        if i <= k.nx + 1 && j <= k.ny + 1 {
            let v = cell::<T, T, ReadOnly>(&k, h, s, al, be, c);
            (*th.add(t), *ta.add(t), *tb.add(t), sc) = (v.h, v.a, v.b, v.s);
        }
        thread::sync_threads();
        if halo_computes(tx, ty) && i <= k.nx && j <= k.ny {
            let (hv, a, b) = (five_tile(th, t, tw), five_tile(ta, t, tw), five_tile(tb, t, tw));
            let v = bounded_next(&k, hv, low.at(c), sc, a, b);
            store::<T, T, OUT, LOW>(hn, sn, low, c, v);
        }
    }
}

/// Several rows a thread: a register window of rows j−1, j, j+1 slides along y, so each row is
/// loaded once a column; x-neighbours come from the read-only cache.
///
/// # Safety
/// As [`bounded_direct`], the grid covering `rows_per_thread` rows a thread.
#[allow(clippy::too_many_arguments)]
pub(super) unsafe fn bounded_multi<T: DeviceReal, const OUT: u8, const LOW: bool>(
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
    let (i, j0) = multi_rows(k.rows_per_thread);
    if i > k.nx || j0 > k.ny {
        return;
    }
    let p = k.pitch as usize;
    let j_end = (j0 + k.rows_per_thread - 1).min(k.ny);
    unsafe {
        let at = |g: usize| cell::<T, T, ReadOnly>(&k, h, s, al, be, g);
        let mut c = j0 as usize * p + i as usize;
        let (mut south, mut centre) = (at(c - p), at(c));
        let mut j = j0;
        while j <= j_end {
            let north = at(c + p);
            let v = point(&k, low.at(c), centre, at(c - 1), at(c + 1), south, north);
            store::<T, T, OUT, LOW>(hn, sn, low, c, v);
            (south, centre) = (centre, north);
            c += p;
            j += 1;
        }
    }
}

/// The streamed fused step (the default `fused`). Block (32, W): each warp owns a strip of 30
/// output columns (lanes 1..=30; lanes 0 and 31 load the strip's x-neighbours) and
/// `bands.rows` rows (its chunk), slides down them with three rows of inputs in registers and
/// gets x-neighbours by shuffles: every input read once per strip (32/30 of the points), no
/// barrier. In f64 ([`bounded_rings`]) the rows below the three come through the warp's ring
/// of [`BOUNDED_RING`] rows of shared memory: each lane copies its column of the row
/// [`BOUNDED_RING`] − 1 ahead of the one it reads (`cp.async`), so that several rows are in
/// flight while only three sit in registers; in f32 and mixed precision each row is loaded as
/// the march reaches it, h's low part a row ahead.
///
/// Mixed precision (`H` = f64, `T` = f32): h and h′ are f64 arrays, the rest f32 (no low
/// parts: `LOW` false); h's differences are formed in f64 ([`crate::Level`]).
///
/// # Safety
/// Block x-dimension 32; grid x covers ceil(nx/30) strips, grid y × W covers `bands.count`
/// slots, slot y computing chunk `bands.band(y)` of `bands.rows` rows; the launch gives
/// [`bounded_ring_bytes`] of `H` and `T` for each of the W warps of dynamic shared memory;
/// arrays as for every sediment kernel.
// Inlined into each entry: the plain f64 entry and the mixed one's (unused) f64 entry are
// the same instance, which the compiler would otherwise call with its parameters in local memory.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(super) unsafe fn bounded_fused<T: DeviceReal, H: DeviceReal + Level<T>, const LOW: bool>(
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
    let i = (thread::block_idx_x() * BOUNDED_STREAM_COLS + lane) as i64;
    let warp = thread::thread_idx_y() as usize;
    let slot = thread::block_idx_y() * thread::block_dim_y() + warp as u32;
    if slot >= bands.count {
        return; // the whole warp: the slot is the same for every lane
    }
    let rows = bands.rows as i64;
    let j0 = bands.band(slot) as i64 * rows + 1;
    if j0 > ny {
        return;
    }
    let jl = (j0 + rows - 1).min(ny);
    // Lanes past the array load a clamped column and never store.
    let col = i.min(nx + 1) as usize;
    let load = |row: i64| unsafe { cell::<T, H, ReadOnly>(&k, h, s, al, be, row as usize * p + col) };
    let low_at = |row: i64| unsafe { low.at(row as usize * p + col) };
    let ringed = bounded_rings(size_of::<H>() as u32, size_of::<T>() as u32);
    // The warp's ring: a row's slot holds its h and low part (`H`, `H_SLOT` values), and its s,
    // α and β (`T`, `T_SLOT` values), a lane's value of each at `lane`; every warp's `H` ring
    // first, then the `T` rings.
    const RING: usize = BOUNDED_RING as usize;
    const H_SLOT: usize = RING_H_VALUES as usize * 32;
    const T_SLOT: usize = RING_T_VALUES as usize * 32;
    let (hs, ts) = unsafe {
        let base = shared::dynamic::<H>();
        let warps = thread::block_dim_y() as usize;
        let ts = base.add(warps * RING * H_SLOT) as *mut T;
        (base.add(warp * RING * H_SLOT + lane as usize), ts.add(warp * RING * T_SLOT + lane as usize))
    };
    let (hb, tb) = (size_of::<H>() as u32, size_of::<T>() as u32);
    let (hs_at, ts_at) = (async_copy::shared_address(hs), async_copy::shared_address(ts));
    // Start copying `row` (up to the chunk's last north row jl + 1) into its ring slot, and close
    // the group: one group a row, empty past jl + 1, so that the count of groups in flight
    // is the same every row.
    let fetch = |row: i64| unsafe {
        if row <= jl + 1 {
            let g = row as usize * p + col;
            let r = (row as usize % RING) as u32;
            let (hd, td) = (hs_at + r * H_SLOT as u32 * hb, ts_at + r * T_SLOT as u32 * tb);
            H::start_copy(hd, h.add(g));
            if LOW {
                H::start_copy(hd + 32 * hb, lo.add(g));
            }
            T::start_copy(td, s.add(g));
            T::start_copy(td + 32 * tb, al.add(g));
            T::start_copy(td + 64 * tb, be.add(g));
        }
        async_copy::commit();
    };
    // `row`'s inputs and h's low part from its ring slot, once its group has arrived.
    let take = |row: i64| unsafe {
        let r = row as usize % RING;
        let sv = *ts.add(r * T_SLOT);
        let (a, b) = mobility(&k, sv, *ts.add(r * T_SLOT + 32), *ts.add(r * T_SLOT + 64));
        (Cell { h: *hs.add(r * H_SLOT), s: sv, a, b }, if LOW { Some(*hs.add(r * H_SLOT + 32)) } else { None })
    };
    let writes = lane >= 1 && lane <= BOUNDED_STREAM_COLS && i <= nx;
    let (mut south, mut centre, mut lo_c) = (load(j0 - 1), load(j0), low_at(j0));
    if ringed {
        for ahead in 1..RING as i64 {
            fetch(j0 + ahead);
        }
    }
    let mut j = j0;
    while j <= jl {
        let (north, lo_n) = if ringed {
            // The slot of row j + RING is row j's, read into `centre` the row before.
            fetch(j + RING as i64);
            async_copy::wait::<{ BOUNDED_RING - 1 }>();
            take(j + 1)
        } else {
            // h's low part on the compensated path comes a row ahead, loaded before the row is
            // computed rather than by the store that needs it (which would wait on it each row).
            let lo_n = if j < jl { low_at(j + 1) } else { lo_c };
            (load(j + 1), lo_n)
        };
        // Every lane runs every shuffle (no divergent shuffles).
        let hv = Five { c: centre.h, w: centre.h.shfl_up(1), e: centre.h.shfl_down(1), s: south.h, n: north.h };
        let a = Five { c: centre.a, w: centre.a.shfl_up(1), e: centre.a.shfl_down(1), s: south.a, n: north.a };
        let b = Five { c: centre.b, w: centre.b.shfl_up(1), e: centre.b.shfl_down(1), s: south.b, n: north.b };
        if writes {
            let c = j as usize * p + i as usize;
            unsafe { store::<T, H, BOTH, LOW>(hn, sn, low, c, bounded_next(&k, hv, lo_c, centre.s, a, b)) };
        }
        (south, centre, lo_c) = (centre, north, lo_n);
        j += 1;
    }
}

// The split kernels' entry bodies: one output array, the other pointer unused; the S kernels
// pass no low parts (they write no h'); their entries take LOW false.

macro_rules! split_bodies {
    ($($name:ident = $body:expr;)*) => {$(
        pub(super) unsafe fn $name<T: DeviceReal, const LOW: bool>(
            k: Coeffs<T>,
            h: *const T,
            s: *const T,
            al: *const T,
            be: *const T,
            out: *mut T,
            lo: *const T,
            lon: *mut T,
        ) {
            unsafe { $body(k, h, s, al, be, out, lo, lon) }
        }
    )*};
}

split_bodies! {
    bh_baseline = |k, h, s, al, be, o, lo, lon| bounded_direct::<T, Plain, H, LOW>(k, h, s, al, be, o, core::ptr::null_mut(), lo, lon);
    bh_opt1 = |k, h, s, al, be, o, lo, lon| bounded_direct::<T, ReadOnly, H, LOW>(k, h, s, al, be, o, core::ptr::null_mut(), lo, lon);
    bh_opt2 = |k, h, s, al, be, o, lo, lon| bounded_opt2::<T, H, LOW>(k, h, s, al, be, o, core::ptr::null_mut(), lo, lon);
    bh_opt3 = |k, h, s, al, be, o, lo, lon| bounded_opt3::<T, H, LOW>(k, h, s, al, be, o, core::ptr::null_mut(), lo, lon);
    bh_multi = |k, h, s, al, be, o, lo, lon| bounded_multi::<T, H, LOW>(k, h, s, al, be, o, core::ptr::null_mut(), lo, lon);
    bs_baseline = |k, h, s, al, be, o, _lo, _lon| bounded_direct::<T, Plain, S, false>(k, h, s, al, be, core::ptr::null_mut(), o, core::ptr::null(), core::ptr::null_mut());
    bs_opt1 = |k, h, s, al, be, o, _lo, _lon| bounded_direct::<T, ReadOnly, S, false>(k, h, s, al, be, core::ptr::null_mut(), o, core::ptr::null(), core::ptr::null_mut());
    bs_opt2 = |k, h, s, al, be, o, _lo, _lon| bounded_opt2::<T, S, false>(k, h, s, al, be, core::ptr::null_mut(), o, core::ptr::null(), core::ptr::null_mut());
    bs_multi = |k, h, s, al, be, o, _lo, _lon| bounded_multi::<T, S, false>(k, h, s, al, be, core::ptr::null_mut(), o, core::ptr::null(), core::ptr::null_mut());
}

/// fused-tile: [`bounded_opt3`] writing both.
#[allow(clippy::too_many_arguments)]
pub(super) unsafe fn bounded_fused_tile<T: DeviceReal, const LOW: bool>(
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
    unsafe { bounded_opt3::<T, BOTH, LOW>(k, h, s, al, be, hn, sn, lo, lon) }
}
