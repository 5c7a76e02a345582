//! Ghost cells and ghost corners: which interior cell (or corner) each one copies.

use super::{BC_OUTFLOW, BC_PERIODIC, BC_WALL, Coeffs};
use crate::Real;

/// Source cell of ghost cell index `g` (0..n+4) along an axis of `n` ≥ 1 interior cells for
/// boundary condition `bc` on that side, and whether the normal momentum flips sign.
/// Ghosts: 0, 1 (minus side) and n+2, n+3 (plus side); interior indices map to themselves.
/// Sources are always interior cells (mirrors clamp when n < 2; periodic wraps modulo n).
#[inline(always)]
pub fn ghost_source(n: u32, g: u32, bc: u32) -> (u32, bool) {
    let n = n.max(1);
    if g < 2 {
        match bc {
            BC_WALL => ((3 - g).min(n + 1), true),
            BC_OUTFLOW => (2, false),
            _ => ((g + 2 * n - 2) % n + 2, false),
        }
    } else if g >= n + 2 {
        match bc {
            BC_WALL => ((2 * n + 3).saturating_sub(g).max(2), true),
            BC_OUTFLOW => (n + 1, false),
            _ => ((g - 2) % n + 2, false),
        }
    } else {
        (g, false)
    }
}

/// Ghost corner index: corners 0..=n+4 along an axis, interior corners 2..=n+2. Periodic sides
/// wrap (corner n+2 is corner 2), the others mirror the bed about the boundary (clamped to the
/// interior corners when n < 2).
#[inline(always)]
pub fn corner_source(n: u32, c: u32, bc: u32) -> u32 {
    let n = n.max(1);
    if c < 2 {
        if bc == BC_PERIODIC { (c + 2 * n - 2) % n + 2 } else { (4 - c).min(n + 2) }
    } else if c > n + 2 {
        if bc == BC_PERIODIC { (c - 2) % n + 2 } else { (2 * (n + 2)).saturating_sub(c).max(2) }
    } else {
        c
    }
}

/// Number of ghost cells the x-pass of the boundary kernel sets: 4 columns × interior rows.
pub const fn ghosts_x(ny: u32) -> u32 {
    4 * ny
}
/// Number of ghost cells the y-pass sets: 4 rows × all (nx+4) columns (corner blocks included).
pub const fn ghosts_y(nx: u32) -> u32 {
    4 * (nx + 4)
}

/// How a ghost cell is set from its source.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ghost {
    pub ghost: usize,
    pub source: usize,
    pub flip_u: bool,
    pub flip_v: bool,
    /// Outflow: copy the depth (w − B) onto the ghost's own bed; otherwise copy w.
    pub outflow: bool,
}

/// The ghost cell number `t` of pass `axis` sets, and from where
/// (0: west/east columns for the interior rows; 1: south/north rows over all columns, run
/// after the x-pass so the corner blocks copy already-set ghosts).
#[inline(always)]
pub fn ghost_pair<T: Real>(k: &Coeffs<T>, axis: u32, t: u32) -> Option<Ghost> {
    if axis == 0 {
        if t >= ghosts_x(k.ny) {
            return None;
        }
        let j = t / 4 + 2;
        let col = t % 4;
        let (g, side) = match col {
            0 => (0, 0),
            1 => (1, 0),
            2 => (k.nx + 2, 1),
            _ => (k.nx + 3, 1),
        };
        let bc = k.side(side);
        let (s, flip) = ghost_source(k.nx, g, bc);
        Some(Ghost { ghost: k.at(g, j), source: k.at(s, j), flip_u: flip, flip_v: false, outflow: bc == BC_OUTFLOW })
    } else {
        if t >= ghosts_y(k.nx) {
            return None;
        }
        // max(1) proves the divisor non-zero (no trap path).
        let w = (k.nx + 4).max(1);
        let (i, row) = (t % w, t / w);
        let (g, side) = match row {
            0 => (0, 2),
            1 => (1, 2),
            2 => (k.ny + 2, 3),
            _ => (k.ny + 3, 3),
        };
        let bc = k.side(side);
        let (s, flip) = ghost_source(k.ny, g, bc);
        Some(Ghost { ghost: k.at(i, g), source: k.at(i, s), flip_u: false, flip_v: flip, outflow: bc == BC_OUTFLOW })
    }
}

/// Set one ghost cell. Walls and periodic sides copy w (the bed is mirrored or wrapped, so
/// the ghost's B equals its source's); outflow copies the depth onto the ghost's own bed.
///
/// # Safety
/// Every pointer holds `(nx+4)(ny+4)` cells and the pair comes from [`ghost_pair`].
#[inline(always)]
pub unsafe fn set_ghost<T: Real>(w: *mut T, hu: *mut T, hv: *mut T, bc: *const T, gh: Ghost) {
    let (g, s) = (gh.ghost, gh.source);
    unsafe {
        let ws = *w.add(s);
        *w.add(g) = if gh.outflow { (ws - *bc.add(s)).max(T::ZERO) + *bc.add(g) } else { ws };
        let (u, v) = (*hu.add(s), *hv.add(s));
        *hu.add(g) = if gh.flip_u { -u } else { u };
        *hv.add(g) = if gh.flip_v { -v } else { v };
    }
}
