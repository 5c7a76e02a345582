//! The s' kernels: baseline, OPT-1, OPT-2 and several rows per thread.

use super::stencil::{Load, Plain, ReadOnly, fill_tile, five, five_tile, interior_ij, multi_rows};
use super::{Coeffs, Five, s_point, upwind_is_south, upwind_is_west};
use crate::device::{DeviceReal, shared, thread};

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

pub(super) unsafe fn s_baseline<T: DeviceReal>(
    k: Coeffs<T>,
    h: *const T,
    hp: *const T,
    s: *const T,
    al: *const T,
    sn: *mut T,
) {
    unsafe { s_direct::<T, Plain>(k, h, hp, s, al, sn) }
}
pub(super) unsafe fn s_opt1<T: DeviceReal>(
    k: Coeffs<T>,
    h: *const T,
    hp: *const T,
    s: *const T,
    al: *const T,
    sn: *mut T,
) {
    unsafe { s_direct::<T, ReadOnly>(k, h, hp, s, al, sn) }
}

/// OPT-2: αs in a shared tile with halo. Shared memory: (BX+2)(BY+2) T.
pub(super) unsafe fn s_opt2<T: DeviceReal>(
    k: Coeffs<T>,
    h: *const T,
    hp: *const T,
    s: *const T,
    al: *const T,
    sn: *mut T,
) {
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
pub(super) unsafe fn s_multi<T: DeviceReal>(
    k: Coeffs<T>,
    h: *const T,
    hp: *const T,
    s: *const T,
    al: *const T,
    sn: *mut T,
) {
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
