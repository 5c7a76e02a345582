//! The h' kernels: baseline, OPT-1, OPT-2, OPT-3 and several rows per thread.

use super::stencil::{
    Load, Low, Plain, ReadOnly, ab, fill_tile, five, five_tile, halo_computes, halo_ij, interior_ij, multi_rows,
};
use super::{Coeffs, Five, h_next};
use crate::device::{DeviceReal, shared, thread};

/// Store h' at `c` (and on the compensated path its low part): every h-kernel's last step.
#[inline(always)]
unsafe fn put_h<T: DeviceReal, const LOW: bool>(
    k: &Coeffs<T>,
    hv: Five<T>,
    a: Five<T>,
    b: Five<T>,
    low: Low<T, LOW>,
    hn: *mut T,
    c: usize,
) {
    unsafe {
        let (hi, lo) = h_next(k, hv, low.at(c), a, b);
        *hn.add(c) = hi;
        low.put(c, lo);
    }
}

/// Baseline and OPT-1: every input loaded from global memory (αs, β(1−s) computed five times).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn h_direct<T: DeviceReal, L: Load, const LOW: bool>(
    k: Coeffs<T>,
    h: *const T,
    s: *const T,
    al: *const T,
    be: *const T,
    hn: *mut T,
    lo: *const T,
    lon: *mut T,
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
        put_h(&k, five::<T, L>(h, c, p), a, b, Low::<T, LOW>::new(lo, lon), hn, c);
    }
}

#[allow(clippy::too_many_arguments)]
pub(super) unsafe fn h_baseline<T: DeviceReal, const LOW: bool>(
    k: Coeffs<T>,
    h: *const T,
    s: *const T,
    al: *const T,
    be: *const T,
    hn: *mut T,
    lo: *const T,
    lon: *mut T,
) {
    unsafe { h_direct::<T, Plain, LOW>(k, h, s, al, be, hn, lo, lon) }
}
#[allow(clippy::too_many_arguments)]
pub(super) unsafe fn h_opt1<T: DeviceReal, const LOW: bool>(
    k: Coeffs<T>,
    h: *const T,
    s: *const T,
    al: *const T,
    be: *const T,
    hn: *mut T,
    lo: *const T,
    lon: *mut T,
) {
    unsafe { h_direct::<T, ReadOnly, LOW>(k, h, s, al, be, hn, lo, lon) }
}

/// OPT-2. Shared memory: 2·(BX+2)(BY+2) T (αs tile, then β(1−s) tile).
#[allow(clippy::too_many_arguments)]
pub(super) unsafe fn h_opt2<T: DeviceReal, const LOW: bool>(
    k: Coeffs<T>,
    h: *const T,
    s: *const T,
    al: *const T,
    be: *const T,
    hn: *mut T,
    lo: *const T,
    lon: *mut T,
) {
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
            let (a, b) = (five_tile(ta, t, tw), five_tile(tb, t, tw));
            put_h(&k, five::<T, ReadOnly>(h, c, p), a, b, Low::<T, LOW>::new(lo, lon), hn, c);
        }
    }
}

/// OPT-3: OPT-2 with halo threads. Shared memory: 2·(BX+2)(BY+2) T.
#[allow(clippy::too_many_arguments)]
pub(super) unsafe fn h_opt3<T: DeviceReal, const LOW: bool>(
    k: Coeffs<T>,
    h: *const T,
    s: *const T,
    al: *const T,
    be: *const T,
    hn: *mut T,
    lo: *const T,
    lon: *mut T,
) {
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
            let (a, b) = (five_tile(ta, t, tw), five_tile(tb, t, tw));
            put_h(&k, five::<T, ReadOnly>(h, c, p), a, b, Low::<T, LOW>::new(lo, lon), hn, c);
        }
    }
}

/// Several points per thread: a register window of h, αs, β(1−s) at rows j−1, j, j+1 slides
/// along y, so each row's values are loaded once per column; x-neighbours come from the
/// read-only cache.
#[allow(clippy::too_many_arguments)]
pub(super) unsafe fn h_multi<T: DeviceReal, const LOW: bool>(
    k: Coeffs<T>,
    h: *const T,
    s: *const T,
    al: *const T,
    be: *const T,
    hn: *mut T,
    lo: *const T,
    lon: *mut T,
) {
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
            put_h(&k, hv, a, b, Low::<T, LOW>::new(lo, lon), hn, c);
            (hs, hc, a_s, a_c, b_s, b_c) = (hc, hn_, a_c, a_n, b_c, b_n);
            c += p;
            j += 1;
        }
    }
}
