//! Ghost layers: which interior point a ghost takes its value from, and how, for the boundary
//! conditions the solvers share. Point functions, used by the kernels and the CPU references
//! alike, so a boundary is written once.
//!
//! Conditions are `u32` codes so they sit in `#[repr(C)]` parameter structs:
//! - [`WALL`]: reflecting wall. The ghost mirrors the interior about the boundary face; the
//!   component normal to the wall changes sign (the caller says which, by the sign it passes).
//! - [`EXTRAPOLATE`]: free outflow. Every ghost copies the interior point next to the boundary
//!   (zero-order extrapolation, zero normal gradient).
//! - [`PERIODIC`]: the ghost copies the interior point one period away; both sides of an axis
//!   must be periodic.
//! - [`VALUE`]: a prescribed value v at the boundary face: ghost = 2v − mirror, so the mean of a
//!   ghost and its mirror image, the face value of a linear reconstruction, is v.
//! - [`GRADIENT`]: a prescribed outward normal gradient g: ghost = mirror + g·d, d the distance
//!   between the two (a flux condition for a diffusion law once g is flux / conductance).
//!
//! Cell-centred fields put the boundary face half a cell outside the edge points; node-centred
//! fields (bathymetry at cell corners, say) put it on the edge node.

use crate::Real;
use crate::grid::{Layout2, Layout3};

pub const WALL: u32 = 0;
pub const EXTRAPOLATE: u32 = 1;
pub const PERIODIC: u32 = 2;
pub const VALUE: u32 = 3;
pub const GRADIENT: u32 = 4;

/// Sides in the order every solver lists them.
pub const WEST: u32 = 0;
pub const EAST: u32 = 1;
pub const SOUTH: u32 = 2;
pub const NORTH: u32 = 3;
/// The z sides of a 3D grid ([`edge_ghost3`]; a 2D one-pass fill, [`perimeter_ghost`], uses 4
/// for its corner blocks instead).
pub const BOTTOM: u32 = 4;
pub const TOP: u32 = 5;

/// The interior cell a ghost cell takes its value from, along an axis of `n` ≥ 1 cells (0..n),
/// for ghost index `g` (g < 0 on the minus side, g ≥ n on the plus side) under condition `bc`;
/// and whether it is the mirror image (so a normal component flips sign on a wall). Indices
/// inside 0..n map to themselves. Mirrors reaching past the far side (n smaller than the halo)
/// clamp to the last interior cell.
#[inline(always)]
pub fn cell_source(n: u32, g: i32, bc: u32) -> (u32, bool) {
    // Clamped so the kernels' divisions provably see 1 ≤ n (no trap path).
    let n = n.clamp(1, i32::MAX as u32) as i32;
    if (0..n).contains(&g) {
        return (g as u32, false);
    }
    match bc {
        PERIODIC => (g.rem_euclid(n) as u32, false),
        EXTRAPOLATE => (if g < 0 { 0 } else { n - 1 } as u32, false),
        // Wall, value and gradient conditions all start from the mirror image.
        _ => {
            let m = if g < 0 { -g - 1 } else { 2 * n - 1 - g };
            (m.clamp(0, n - 1) as u32, true)
        }
    }
}

/// The interior node a ghost node takes its value from, along an axis of `n` ≥ 1 cells, that
/// is n + 1 nodes 0..=n with nodes 0 and n on the boundary: mirrored about the boundary node
/// (clamped to the interior nodes), or, on a periodic axis, node n + k ≡ node k.
#[inline(always)]
pub fn node_source(n: u32, g: i32, bc: u32) -> u32 {
    let n = n.clamp(1, i32::MAX as u32) as i32;
    if (0..=n).contains(&g) {
        return g as u32;
    }
    if bc == PERIODIC {
        return g.rem_euclid(n) as u32;
    }
    let m = if g < 0 { -g } else { 2 * n - g };
    m.clamp(0, n) as u32
}

/// A ghost's value from its source's, `q`, under condition `bc`: `flip` is the sign a wall
/// gives this component (−1 for the velocity or momentum normal to it, else 1); `prescribed`
/// is v for [`VALUE`] and g for [`GRADIENT`]; `distance` the distance from the source to the
/// ghost (for a cell-centred mirror, (2·layer − 1)·Δ with layer 1 next to the boundary).
#[inline(always)]
pub fn ghost_value<T: Real>(bc: u32, q: T, flip: T, prescribed: T, distance: T) -> T {
    match bc {
        WALL => flip * q,
        VALUE => T::TWO * prescribed - q,
        GRADIENT => q + prescribed * distance,
        _ => q,
    }
}

/// One ghost point and the interior point it is filled from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ghost {
    /// Stored index of the ghost.
    pub ghost: usize,
    /// Stored index of its source.
    pub source: usize,
    /// [`WEST`], [`EAST`], [`SOUTH`], [`NORTH`] (and in 3D [`BOTTOM`], [`TOP`]), or 4 for a
    /// corner block of the 2D one-pass fill.
    pub side: u32,
    /// The condition of that side ([`EXTRAPOLATE`] for a corner block, which copies its
    /// interior corner), so a fill needs no look-up of its own.
    pub bc: u32,
    /// 1 for the layer next to the boundary, up to the halo width.
    pub layer: u32,
    /// Whether the source is the mirror image (a wall flips the normal component).
    pub mirrored: bool,
}

/// Ghosts of the x-pass of [`edge_ghost`]: the west and east ghost columns over the interior
/// rows.
#[inline(always)]
pub const fn ghosts_x(l: &Layout2) -> u32 {
    2 * l.halo * l.ny
}

/// Ghosts of the y-pass of [`edge_ghost`]: the south and north ghost rows over every stored
/// column (corner blocks included).
#[inline(always)]
pub const fn ghosts_y(l: &Layout2) -> u32 {
    2 * l.halo * l.pitch
}

/// Ghost number `t` of pass `axis` (0: x, 1: y) with conditions `bc` (west, east, south,
/// north). The y-pass runs after the x-pass: its corner ghosts copy ghost columns the x-pass
/// set, so corners follow both sides' conditions. Within a pass no ghost is another's source,
/// so one thread per ghost may fill a pass in any order.
#[inline(always)]
pub fn edge_ghost(l: &Layout2, bc: [u32; 4], axis: u32, t: u32) -> Option<Ghost> {
    // Clamped so the divisions below provably see a non-zero divisor (no trap path).
    let h = l.halo.clamp(1, 1 << 15);
    if axis == 0 {
        if t >= ghosts_x(l) {
            return None;
        }
        let j = (t / (2 * h)) as i32;
        let c = t % (2 * h);
        let (i, side, layer) =
            if c < h { (c as i32 - h as i32, WEST, h - c) } else { ((l.nx + c - h) as i32, EAST, c - h + 1) };
        let bc = if side == WEST { bc[0] } else { bc[1] };
        let (s, mirrored) = cell_source(l.nx, i, bc);
        Some(Ghost { ghost: l.at(i, j), source: l.at(s as i32, j), side, bc, layer, mirrored })
    } else {
        if t >= ghosts_y(l) {
            return None;
        }
        // max(1) proves the divisor non-zero (no trap path in the kernels).
        let w = l.pitch.max(1);
        let i = (t % w) as i32 - l.halo as i32;
        let r = t / w;
        let (j, side, layer) =
            if r < h { (r as i32 - h as i32, SOUTH, h - r) } else { ((l.ny + r - h) as i32, NORTH, r - h + 1) };
        let bc = if side == SOUTH { bc[2] } else { bc[3] };
        let (s, mirrored) = cell_source(l.ny, j, bc);
        Some(Ghost { ghost: l.at(i, j), source: l.at(i, s as i32), side, bc, layer, mirrored })
    }
}

/// Ghosts of pass `axis` (0: x, 1: y, 2: z) of [`edge_ghost3`]: the two ghost slabs across the
/// axis, over every stored point of the axes filled before it and the interior of the others.
#[inline(always)]
pub const fn ghosts3(l: &Layout3, axis: u32) -> u32 {
    let h2 = 2 * l.halo;
    match axis {
        0 => h2 * l.ny * l.nz,
        1 => h2 * l.pitch * l.nz,
        _ => h2 * l.pitch * l.rows(),
    }
}

/// Ghost number `t` of pass `axis` (0: x, 1: y, 2: z) of a 3D grid with conditions `bc` (west,
/// east, south, north, bottom, top): [`edge_ghost`] one dimension up. The passes run in order,
/// x, y, z, each covering the ghosts the earlier ones filled, so edges and corners follow every
/// side's condition; within a pass no ghost is another's source. In the y- and z-passes
/// consecutive ghosts are consecutive along x (coalesced when one thread fills one ghost).
#[inline(always)]
pub fn edge_ghost3(l: &Layout3, bc: [u32; 6], axis: u32, t: u32) -> Option<Ghost> {
    if t >= ghosts3(l, axis) {
        return None;
    }
    // Clamped so the divisions below provably see a non-zero divisor (no trap path).
    let h = l.halo.clamp(1, 1 << 15);
    let (w, ny) = (l.pitch.max(1), l.ny.max(1));
    let hi = l.halo as i32;
    // c (0..2h) numbers a pass's ghost layers: the minus side's outermost first.
    let (axis, c, i, j, k) = match axis {
        0 => (0, t % (2 * h), 0, ((t / (2 * h)) % ny) as i32, (t / (2 * h) / ny) as i32),
        1 => (1, (t / w) % (2 * h), (t % w) as i32 - hi, 0, (t / w / (2 * h)) as i32),
        _ => (2, t / w / l.rows().max(1), (t % w) as i32 - hi, ((t / w) % l.rows().max(1)) as i32 - hi, 0),
    };
    // Constant indices only: a run-time index into `bc` would put it in local memory.
    let (n, minus, plus) = match axis {
        0 => (l.nx, bc[0], bc[1]),
        1 => (l.ny, bc[2], bc[3]),
        _ => (l.nz, bc[4], bc[5]),
    };
    let (g, side, layer) =
        if c < h { (c as i32 - h as i32, 2 * axis, h - c) } else { ((n + c - h) as i32, 2 * axis + 1, c - h + 1) };
    let bc = if c < h { minus } else { plus };
    let (s, mirrored) = cell_source(n, g, bc);
    let (ghost, source) = match axis {
        0 => (l.at(g, j, k), l.at(s as i32, j, k)),
        1 => (l.at(i, g, k), l.at(i, s as i32, k)),
        _ => (l.at(i, j, g), l.at(i, j, s as i32)),
    };
    Some(Ghost { ghost, source, side, bc, layer, mirrored })
}

/// Ghost points a one-pass fill visits: [`perimeter_ghost`].
#[inline(always)]
pub const fn perimeter_len(l: &Layout2) -> u32 {
    2 * l.halo * (l.nx + l.ny) + 4 * l.halo * l.halo
}

/// Ghost number `t` of a one-pass fill for stencils that never read the corner blocks (the
/// 5-point ones): the west then east columns over the interior rows, the south then north rows
/// over the interior columns, each from its side's source under `bc`; then the four corner
/// blocks (side 4), each copying the interior corner point next to it. One thread per ghost,
/// any order.
#[inline(always)]
pub fn perimeter_ghost(l: &Layout2, bc: [u32; 4], t: u32) -> Option<Ghost> {
    let h = l.halo.clamp(1, 1 << 15);
    let x_edges = 2 * h * l.ny;
    let y_edges = 2 * h * l.nx;
    if t < x_edges {
        return edge_ghost(l, bc, 0, t);
    }
    let t = t - x_edges;
    if t < y_edges {
        let r = t / l.nx.max(1);
        let i = (t % l.nx.max(1)) as i32;
        let (j, side, layer) =
            if r < h { (r as i32 - h as i32, SOUTH, h - r) } else { ((l.ny + r - h) as i32, NORTH, r - h + 1) };
        let bc = if side == SOUTH { bc[2] } else { bc[3] };
        let (s, mirrored) = cell_source(l.ny, j, bc);
        return Some(Ghost { ghost: l.at(i, j), source: l.at(i, s as i32), side, bc, layer, mirrored });
    }
    let t = t - y_edges;
    if t >= 4 * h * h {
        return None;
    }
    let (block, k) = (t / (h * h), t % (h * h));
    let (a, b) = ((k % h) as i32, (k / h) as i32);
    let (nx, ny) = (l.nx.max(1) as i32, l.ny.max(1) as i32);
    // Block 0: south-west, 1: south-east, 2: north-west, 3: north-east.
    let (i, si) = if block % 2 == 0 { (-1 - a, 0) } else { (nx + a, nx - 1) };
    let (j, sj) = if block < 2 { (-1 - b, 0) } else { (ny + b, ny - 1) };
    Some(Ghost {
        ghost: l.at(i, j),
        source: l.at(si, sj),
        side: 4,
        bc: EXTRAPOLATE,
        layer: 1 + a.max(b) as u32,
        mirrored: false,
    })
}
