//! The water account's boundary faces (docs/kp-forcing.md, "The water account"): which faces of
//! the perimeter a launch measures, the mass flux out through one, recomputed from the state and
//! its ghosts by the point functions the flux kernels call, and the totals each face keeps. The
//! kernels of `account.rs` and the CPU reference (`hydrokern::kp`'s `perimeter.rs`) both call
//! these, so that the account measures what the flux kernels let through the sides without any
//! of them writing a face flux.
//!
//! Each face keeps the net volume out of the step under way (`pending`, one f64, summed stage by
//! stage with each stage's weight: Δt in Euler, ½Δt a stage in RK2) and, once the step is
//! whole, adds it to what left through it or to what came in by it, each a compensated pair
//! (value and low part), so that millions of steps add up to round-off. A split scheme's step may
//! be discarded after some of its substeps: its pending volumes are then dropped, not committed.

use super::{
    Cell, Coeffs, WetDryScheme, cell_view_at_of, central_upwind, drain_face, face_x, face_y, reconstruct_on, wall_pair,
};
use crate::sediment::compensated_add;
use crate::{Level, Real};

/// A face that no segment of the account holds (a wall's, a periodic side's): not measured.
pub const NO_SEGMENT: u32 = u32::MAX;

/// What a launch measures: every face of the perimeter (the unsplit schemes).
pub const FACES_ALL: u32 = 0;
/// The x faces of a split substep in the problem's orientation (its west and east faces).
pub const FACES_X: u32 = 1;
/// The x faces of a split substep in the transposed orientation: the problem's south and north.
pub const FACES_X_T: u32 = 2;

/// A launch's measurement: the weight of its stage (1 in Euler, ½ a stage in RK2), which faces
/// it measures (`FACES_*`), and whether the step is whole with it (≠ 0: each face's pending
/// volume is then committed to its totals, [`commit_face`]). The faces' lengths travel apart
/// ([`face_lengths`]), as scalars: a kernel that picks one of two fields of a by-value struct
/// by its face's side reads the struct through its address, from local memory.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Measure {
    pub scale: f64,
    pub faces: u32,
    pub commit: u32,
}

/// The lengths (m) of the x faces and of the y faces of a launch measuring `faces` in a problem
/// of cells `dx` × `dy`: the transposed orientation's x faces ([`FACES_X_T`]) are the
/// problem's y faces, Δx long.
#[inline(always)]
pub fn face_lengths((dx, dy): (f64, f64), faces: u32) -> (f64, f64) {
    if faces == FACES_X_T { (dx, dy) } else { (dy, dx) }
}

/// Faces of the perimeter of an nx × ny grid, in the order of the held levels' map
/// (`level_of`): west, then east (ny each, from the south), south, then north (nx each, from
/// the west).
#[inline(always)]
pub fn perimeter_faces(nx: u32, ny: u32) -> u32 {
    2 * (nx + ny)
}

/// Faces a launch measuring `faces` in orientation `k` visits: one thread each.
#[inline(always)]
pub fn measured_faces<T>(k: &Coeffs<T>, faces: u32) -> u32 {
    if faces == FACES_ALL { perimeter_faces(k.nx, k.ny) } else { 2 * k.ny }
}

/// Face `n` of a launch measuring `faces` in orientation `k` ([`measured_faces`]): its side in
/// that orientation (0 west, 1 east, 2 south, 3 north), the interior cell (i, j) it bounds there,
/// and its index in the problem's perimeter ([`perimeter_faces`]). Comparisons, no divisions:
/// a division by a launch parameter is a trap in a kernel.
#[inline(always)]
pub fn measured_face<T>(k: &Coeffs<T>, faces: u32, n: u32) -> (u32, u32, u32, u32) {
    let (nx, ny) = (k.nx, k.ny);
    // The transposed west is the problem's south: its faces follow the problem's 2·ny x faces,
    // and the problem's ny is this orientation's nx.
    let base = if faces == FACES_X_T { 2 * nx } else { 0 };
    if n < ny {
        (0, 0, n, base + n)
    } else if n < 2 * ny {
        (1, nx - 1, n - ny, base + n)
    } else if n < 2 * ny + nx {
        (2, n - 2 * ny, 0, n)
    } else {
        (3, n - 2 * ny - nx, ny - 1, n)
    }
}

/// The mass flux out of the domain (m²/s, negative where water comes in) through the face on
/// `side` (0 west, 1 east, 2 south, 3 north) of a boundary cell, as the flux kernels compute it:
/// `central_upwind` of the plus face of the cell before it and the minus face of the cell after
/// it, each reconstructed from its three cells. `q(di, dj)` is the state (w, hu, hv) of the
/// cell at offset (di, dj) from the boundary cell along the face's axis (−2 to 2, ghosts
/// included), `b(ci, cj)` B at the corner at offset (ci, cj) from its south-west corner. `on`
/// is the activity of the cell at offset (di, dj) (`walls.rs`: a face next to an inactive cell
/// is a wall, and the reconstruction mirrors the cell), `phi`
/// is the boundary cell's draining factor (`clamp`'s, 1 in the other schemes): the face drains
/// by it where water leaves the cell ([`drain_face`]; a ghost cell is never drained).
#[inline(always)]
pub fn outward_flux<S: WetDryScheme, T: Real>(
    k: &Coeffs<T>,
    side: u32,
    q: impl Fn(i32, i32) -> (T, T, T),
    b: impl Fn(i32, i32) -> T,
    on: impl Fn(i32, i32) -> bool,
    phi: T,
) -> T {
    outward_flux_of::<S, T, T>(k, side, q, b, on, phi)
}

/// [`outward_flux`] of a state whose surface is a level `W` of `T` (mixed precision).
#[inline(always)]
pub fn outward_flux_of<S: WetDryScheme, T: Real, W: Level<T>>(
    k: &Coeffs<T>,
    side: u32,
    q: impl Fn(i32, i32) -> (W, T, T),
    b: impl Fn(i32, i32) -> T,
    on: impl Fn(i32, i32) -> bool,
    phi: T,
) -> T {
    let plus = side == 1 || side == 3;
    let y = side >= 2;
    // The face lies between the cells at offsets o and o + 1 along its axis.
    let o = if plus { 0 } else { -1 };
    // A cell as `recon_x` and `recon_y` read it: the normal component is hu along x, hv along y.
    let cell = |d: i32| {
        let (di, dj) = if y { (0, d) } else { (d, 0) };
        let (w, a, c, cap) = cell_view_at_of::<S, T, W>(k, q(di, dj), &b, di, dj);
        if y { Cell { w, n: c, t: a, cap } } else { Cell { w, n: a, t: c, cap } }
    };
    let face = |d: i32| if y { face_y(&b, d) } else { face_x(&b, d) };
    // Written out, not built by a loop over an array: in a kernel that array would go to
    // local memory.
    let (c0, c1, c2, c3) = (cell(o - 1), cell(o), cell(o + 1), cell(o + 2));
    let at = |d: i32| if y { on(0, d) } else { on(d, 0) };
    let (a0, a1, a2, a3) = (at(o - 1), at(o), at(o + 1), at(o + 2));
    let l = reconstruct_on::<S, T>(k, c0, c1, c2, (a0, a2), face(o), face(o + 1));
    let r = reconstruct_on::<S, T>(k, c1, c2, c3, (a1, a3), face(o + 1), face(o + 2));
    let (phi_l, phi_r) = if plus { (phi, T::ONE) } else { (T::ONE, phi) };
    let sides = wall_pair(l.p, r.m, a1, a2);
    let f = drain_face(k, central_upwind::<S, T>(k, sides.0, sides.1, y), sides, phi_l, phi_r);
    if plus { f.f0 } else { -f.f0 }
}

/// Whether the face on `side` of boundary cell (i, j) lets water out, or lets none through,
/// with its ghosts open (extrapolated, as an outflow side's, and as active as the cell): the
/// [`outward_flux_of`] of the state as `q`, `b` and `on` give it is not negative. Every ghost
/// it reads (those beyond the face, and in a grid one cell across those beyond the opposite
/// side) counts as active as the cell, whatever `on` says: the ghosts of faces like this one
/// are what the decisions write. Undrained: a draining factor only scales the water leaving a
/// cell, so it never turns the flux in. A face of a normal-depth side or outlet that would take
/// water in is closed for the stage instead (`out_only.rs`).
#[inline(always)]
pub fn lets_out<S: WetDryScheme, T: Real, W: Level<T>>(
    k: &Coeffs<T>,
    (side, i, j): (u32, u32, u32),
    q: impl Fn(i32, i32) -> (W, T, T),
    b: impl Fn(i32, i32) -> T,
    on: impl Fn(i32, i32) -> bool,
) -> bool {
    let inside = |di: i32, dj: i32| {
        let (x, y) = (i as i64 + di as i64, j as i64 + dj as i64);
        (0..k.nx as i64).contains(&x) && (0..k.ny as i64).contains(&y)
    };
    let open = |di: i32, dj: i32| if inside(di, dj) { on(di, dj) } else { on(0, 0) };
    outward_flux_of::<S, T, W>(k, side, q, b, open, T::ONE) >= T::ZERO
}

/// The padded offsets of the two ghosts beyond the face on `side` of a boundary cell, from the
/// cell: the ghost next to it, then the one beyond.
#[inline(always)]
pub fn ghosts_beyond<T>(k: &Coeffs<T>, side: u32) -> (isize, isize) {
    let p = k.pitch as isize;
    let step = match side {
        0 => -1,
        1 => 1,
        2 => -p,
        _ => p,
    };
    (step, 2 * step)
}

/// The volume (m³) a stage of weight `scale` and step `dt` lets out through a face of length
/// `length` at the outward flux `flux`: each product rounded on its own (`mul_rn`), so that the
/// kernel and the CPU reference form the same bits from the same flux.
#[inline(always)]
pub fn face_volume(scale: f64, dt: f64, flux: f64, length: f64) -> f64 {
    flux.mul_rn(length).mul_rn(scale.mul_rn(dt))
}

/// A face's pending volume `pending` with a stage's `volume` added (`add_rn`: never fused with
/// the products that formed it).
#[inline(always)]
pub fn add_pending(pending: f64, volume: f64) -> f64 {
    pending.add_rn(volume)
}

/// A face's totals after a step that let the net volume `v` out through it (negative: in):
/// `out` what left through it, `into` what came in by it, each a compensated pair (value, low
/// part); a step of no flow leaves both as they are.
#[inline(always)]
pub fn commit_volume(v: f64, out: (f64, f64), into: (f64, f64)) -> ((f64, f64), (f64, f64)) {
    if v > 0.0 {
        (compensated_add(out.0, out.1, v), into)
    } else if v < 0.0 {
        (out, compensated_add(into.0, into.1, -v))
    } else {
        (out, into)
    }
}

/// Commit face `f`'s pending volume to its totals ([`commit_volume`]) and clear it. `totals`
/// holds four arrays of `count` faces one after the other: what left (values, then low parts),
/// then what came in (values, then low parts).
///
/// # Safety
/// `f < count`; `pending` holds `count` values, `totals` 4·`count`.
#[inline(always)]
pub unsafe fn commit_face(totals: *mut f64, pending: *mut f64, f: usize, count: usize) {
    unsafe {
        let at = |part: usize| totals.add(part * count + f);
        let (out, into) = commit_volume(*pending.add(f), (*at(0), *at(1)), (*at(2), *at(3)));
        (*at(0), *at(1), *at(2), *at(3)) = (out.0, out.1, into.0, into.1);
        *pending.add(f) = 0.0;
    }
}
