//! The scheme's ghost cells: the shared halo rules (`crate::halo`) applied to (w, hu, hv).
//!
//! Walls mirror the state and flip the normal momentum; outflow extrapolates the depth h = w − B
//! (not the surface, which would pour water over a rising bed) onto the ghost's own bed; periodic
//! sides wrap. The padded bed's ghost corners are mirrored or wrapped the same way
//! ([`crate::halo::node_source`]), so a mirrored ghost's bed equals its source's and copying w
//! copies the depth.

use super::Coeffs;
use crate::halo::{EAST, EXTRAPOLATE, Ghost, NORTH, SOUTH, WEST, ghost_value};
use crate::{Level, Real};

/// Set ghost `gh` (of pass `axis`, from [`crate::halo::edge_ghost`]) of the state from its source.
///
/// # Safety
/// Every pointer holds the padded `(nx+4)(ny+4)` cells of the scheme's coefficients `k`, and
/// `gh` comes from `edge_ghost(&k.layout(), k.bc, axis, _)`.
#[inline(always)]
pub unsafe fn set_ghost<T: Real>(axis: u32, w: *mut T, hu: *mut T, hv: *mut T, bed: *const T, gh: Ghost) {
    unsafe { set_ghost_of::<T, T>(axis, w, hu, hv, bed, gh) }
}

/// [`set_ghost`] of a state whose surface is a level `W` of `T` (mixed precision): an outflow
/// ghost's depth is formed in `W`.
///
/// # Safety
/// As [`set_ghost`].
#[inline(always)]
pub unsafe fn set_ghost_of<T: Real, W: Level<T>>(
    axis: u32,
    w: *mut W,
    hu: *mut T,
    hv: *mut T,
    bed: *const T,
    gh: Ghost,
) {
    let (g, s) = (gh.ghost, gh.source);
    let bc = gh.bc;
    // The wall's sign for each momentum: the one normal to this pass's sides flips.
    let (flip_u, flip_v) = if axis == 0 { (-T::ONE, T::ONE) } else { (T::ONE, -T::ONE) };
    unsafe {
        // Every load before any store: the three fields are separate pointers the compiler must
        // assume may alias, so a store between two loads would serialise their round trips.
        let (ws, u, v) = (*w.add(s), *hu.add(s), *hv.add(s));
        *w.add(g) =
            if bc == EXTRAPOLATE { (ws - W::widen(*bed.add(s))).max(W::ZERO) + W::widen(*bed.add(g)) } else { ws };
        *hu.add(g) = ghost_value(bc, u, flip_u, T::ZERO, T::ZERO);
        *hv.add(g) = ghost_value(bc, v, flip_v, T::ZERO, T::ZERO);
    }
}

/// [`level_of`] of a ghost no level holds.
pub const NO_LEVEL: u32 = u32::MAX;

/// [`level_of`] of a ghost on an outlet: a reach of a wall side where water leaves freely.
pub const OPEN: u32 = u32::MAX - 1;

/// The level entry that holds ghost `gh` (from `edge_ghost` of `k`'s layout), or [`NO_LEVEL`]:
/// `map` has one entry a side cell — the west side's `ny` (from the south), the east's `ny`,
/// the south's `nx` (from the west), the north's `nx`. Corner ghosts have none.
///
/// # Safety
/// `map` holds 2(nx + ny) entries.
#[inline(always)]
pub unsafe fn level_of<T: Real>(k: &Coeffs<T>, gh: &Ghost, map: *const u32) -> u32 {
    // max(1) proves the divisor non-zero (no trap path).
    let p = (k.pitch as usize).max(1);
    let (i, j) = ((gh.ghost % p) as i64 - 2, (gh.ghost / p) as i64 - 2);
    let (nx, ny) = (k.nx as i64, k.ny as i64);
    let at = match gh.side {
        WEST if (0..ny).contains(&j) => j,
        EAST if (0..ny).contains(&j) => ny + j,
        SOUTH if (0..nx).contains(&i) => 2 * ny + i,
        NORTH if (0..nx).contains(&i) => 2 * ny + nx + i,
        _ => return NO_LEVEL,
    };
    unsafe { *map.add(at as usize) }
}

/// Ghost `gh` of a wall side as an outlet's: its source is the interior cell next to the side
/// (not the mirror image), its rule extrapolation, as on an outflow side.
#[inline(always)]
pub fn opened<T: Real>(k: &Coeffs<T>, gh: Ghost) -> Ghost {
    let (p, l) = (k.pitch as usize, gh.layer as usize);
    let source = match gh.side {
        WEST => gh.ghost + l,
        EAST => gh.ghost - l,
        SOUTH => gh.ghost + l * p,
        _ => gh.ghost - l * p,
    };
    Ghost { source, bc: EXTRAPOLATE, mirrored: false, ..gh }
}

/// Ghost `gh` (of pass `axis`) under its side's rule, then as `map` ([`level_of`]) says: at a
/// held level from `levels`, or opened ([`OPEN`]). A null `map` holds nothing.
///
/// # Safety
/// As [`set_ghost`]; `map` null, or 2(nx + ny) entries, each [`NO_LEVEL`], [`OPEN`] or an
/// index into `levels`.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub unsafe fn set_forced_ghost<T: Real, W: Level<T>>(
    k: &Coeffs<T>,
    axis: u32,
    w: *mut W,
    hu: *mut T,
    hv: *mut T,
    bed: *const T,
    gh: Ghost,
    levels: *const f64,
    map: *const u32,
) {
    unsafe {
        let e = if map.is_null() { NO_LEVEL } else { level_of(k, &gh, map) };
        if e == OPEN {
            set_ghost_of::<T, W>(axis, w, hu, hv, bed, opened(k, gh));
        } else if e != NO_LEVEL {
            set_level_ghost::<T, W>(w, hu, hv, bed, gh, *levels.add(e as usize));
        } else {
            set_ghost_of::<T, W>(axis, w, hu, hv, bed, gh);
        }
    }
}

/// Ghost `gh` at a held level: the surface at `level`, not below the ghost's own bed, and the
/// momenta of its source (no mirror: water flows in or out as the level and the flow inside
/// say).
///
/// # Safety
/// As [`set_ghost`].
#[inline(always)]
pub unsafe fn set_level_ghost<T: Real, W: Level<T>>(
    w: *mut W,
    hu: *mut T,
    hv: *mut T,
    bed: *const T,
    gh: Ghost,
    level: f64,
) {
    let (g, s) = (gh.ghost, gh.source);
    unsafe {
        let (u, v, b) = (*hu.add(s), *hv.add(s), W::widen(*bed.add(g)));
        let l = W::from_f64(level);
        *w.add(g) = if l > b { l } else { b };
        *hu.add(g) = u;
        *hv.add(g) = v;
    }
}
