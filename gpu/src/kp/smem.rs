//! Shared-memory pieces of the tiled flux kernels (`tile.rs`, `split_flux.rs`): face fluxes kept
//! as three arrays, cells loaded into the state tiles, and the cells turned into what the
//! reconstruction reads (`cell_view`) in place.

use super::{Coeffs, Flux, WetDryScheme, cell_view};
use crate::device::DeviceReal;

/// Face flux `v` into slot `at` of three shared arrays of `n` (mass, normal, tangential).
#[inline(always)]
pub(super) unsafe fn put_flux<T: DeviceReal>(f: *mut T, n: usize, at: usize, v: Flux<T>) {
    unsafe {
        *f.add(at) = v.f0;
        *f.add(n + at) = v.fn_;
        *f.add(2 * n + at) = v.ft;
    }
}

/// The face flux in slot `at` (its speed is not kept: 0).
#[inline(always)]
pub(super) unsafe fn get_flux<T: DeviceReal>(f: *const T, n: usize, at: usize) -> Flux<T> {
    unsafe { Flux { f0: *f.add(at), fn_: *f.add(n + at), ft: *f.add(2 * n + at), speed: T::ZERO } }
}

/// Padded cell `g` of the state (w, hu, hv) into slot `t` of the tiles (sw, su, sv). Written
/// out, not a loop over the arrays: a loop put them in local memory (the ptxas check).
#[inline(always)]
pub(super) unsafe fn load_cell<T: DeviceReal>(
    [sw, su, sv]: [*mut T; 3],
    t: usize,
    [w, hu, hv]: [*const T; 3],
    g: usize,
) {
    unsafe {
        *sw.add(t) = T::ldg(w.add(g));
        *su.add(t) = T::ldg(hu.add(g));
        *sv.add(t) = T::ldg(hv.add(g));
    }
}

/// Slot `t` of the state tiles (sw, su, sv) from (w̄, hu, hv) to what the reconstruction reads,
/// and its drain cap into the cap tile, from the corners (sw, se, nw, ne) of its cell:
/// [`cell_view`] (w*, and the velocities in a scheme that reconstructs them).
#[inline(always)]
pub(super) unsafe fn to_view<S: WetDryScheme, T: DeviceReal>(
    k: &Coeffs<T>,
    [sw, su, sv, scap]: [*mut T; 4],
    t: usize,
    corners: (T, T, T, T),
) {
    unsafe {
        let (ws, n_x, n_y, cap) = cell_view::<S, T, T>(k, (*sw.add(t), *su.add(t), *sv.add(t)), corners);
        *sw.add(t) = ws;
        if S::PARTIAL {
            // The cap tile exists only with partially flooded cells.
            *scap.add(t) = cap;
        }
        if S::VELOCITIES {
            *su.add(t) = n_x;
            *sv.add(t) = n_y;
        }
    }
}

/// R = `out` into padded cell `g` of (R_w, R_hu, R_hv); returns the thread's rate `rate`, or ∞
/// where it or R is not finite (a NaN would lose every max, and Δt must see it).
#[inline(always)]
pub(super) unsafe fn store_r<T: DeviceReal>(r: [*mut T; 3], g: usize, out: (T, T, T), rate: T) -> T {
    unsafe {
        *r[0].add(g) = out.0;
        *r[1].add(g) = out.1;
        *r[2].add(g) = out.2;
    }
    if !rate.is_finite() || !out.0.is_finite() || !out.1.is_finite() || !out.2.is_finite() { T::INFINITY } else { rate }
}
