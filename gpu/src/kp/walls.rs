//! Inactive cells (a DEM's nodata): cells outside the domain, whose faces with active cells are
//! walls. The rule is the wall side's, applied face by face inside the grid: where a cell's
//! neighbour along an axis is inactive, the reconstruction reads the cell's own mirror image
//! instead (w and the tangential value kept, the normal value negated), as a wall side's ghost
//! holds; and the flux through a face between an active and an inactive cell is the
//! central-upwind flux between the active side's face state and its mirror image, as a wall
//! side's face gets from its mirrored ghost. Its mass flux is exactly 0, so no water enters an
//! inactive cell, and the normal momentum flux is the face's pressure (with the upwind
//! dissipation a wall has). An inactive cell itself has R = 0 and no rate.
//!
//! The activity of padded cells is one byte a cell, 1 active, 0 not; ghosts take the value of
//! the cell their side copies. A null map means every cell is active: every function here then
//! computes what the unmasked ones do (the same operations; compiled apart, the two codes need
//! not round alike). On the GPU the map is followed by one byte a strip of the streamed flux
//! kernel (`STREAM_COLS` interior columns and the two either side): 1 where no cell the strip
//! reads, in any row of the whole grid, is inactive or may become so (a ghost beyond a face
//! that lets water only out or is closed for good). The masked streamed kernels run such a
//! strip as the plain ones do, without the map.

use super::{
    Cell, CellFaces, Coeffs, FaceState, Flux, Recon, WetDryScheme, bed_x, bed_y, cell_view_at_of, central_upwind,
    face_x, face_y, reconstruct,
};
use crate::{Level, Real};

/// `c` seen across a face normal to its axis: the normal value negated.
#[inline(always)]
pub fn mirror_cell<T: Real>(c: Cell<T>) -> Cell<T> {
    Cell { n: -c.n, ..c }
}

/// A face state seen across its face: the normal velocity negated.
#[inline(always)]
pub fn mirror_face<T: Real>(f: FaceState<T>) -> FaceState<T> {
    FaceState { un: -f.un, ..f }
}

/// The flux through the face between `l` (the plus face of the cell before it, active when
/// `l_on`) and `r` (the minus face of the cell after it, `r_on`), an x face or with `y` a y face:
/// [`central_upwind`], with the inactive side's state replaced by the active side's mirror
/// image. A face between two inactive cells gets a flux no active cell reads.
#[inline(always)]
pub fn face_flux<S: WetDryScheme, T: Real>(
    k: &Coeffs<T>,
    l: FaceState<T>,
    r: FaceState<T>,
    (l_on, r_on): (bool, bool),
    y: bool,
) -> Flux<T> {
    let (l, r) = wall_pair(l, r, l_on, r_on);
    central_upwind::<S, T>(k, l, r, y)
}

/// The two states [`face_flux`] computes its flux from.
#[inline(always)]
pub fn wall_pair<T: Real>(l: FaceState<T>, r: FaceState<T>, l_on: bool, r_on: bool) -> (FaceState<T>, FaceState<T>) {
    if !r_on {
        (l, mirror_face(l))
    } else if !l_on {
        (mirror_face(r), r)
    } else {
        (l, r)
    }
}

/// The reconstruction of the cell between `cm` and `cp`, either of which, inactive (`m_on`,
/// `p_on` false), is replaced by the cell's mirror image ([`reconstruct`]'s arguments
/// otherwise).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub fn reconstruct_on<S: WetDryScheme, T: Real>(
    k: &Coeffs<T>,
    cm: Cell<T>,
    c: Cell<T>,
    cp: Cell<T>,
    (m_on, p_on): (bool, bool),
    bm: (T, T),
    bp: (T, T),
) -> Recon<T> {
    let cm = if m_on { cm } else { mirror_cell(c) };
    let cp = if p_on { cp } else { mirror_cell(c) };
    reconstruct::<S, T>(k, cm, c, cp, bm, bp)
}

/// [`recon_x`](super::recon_x) of the cell at offset `di` with the activity `on(di, dj)` of the
/// cells around it.
#[inline(always)]
pub fn recon_x_on<S: WetDryScheme, T: Real>(
    k: &Coeffs<T>,
    q: &impl Fn(i32, i32) -> (T, T, T, T),
    b: &impl Fn(i32, i32) -> T,
    on: &impl Fn(i32, i32) -> bool,
    di: i32,
) -> Recon<T> {
    let c = |d: i32| {
        let (w, n, t, cap) = q(d, 0);
        Cell { w, n, t, cap }
    };
    let sides = (on(di - 1, 0), on(di + 1, 0));
    reconstruct_on::<S, T>(k, c(di - 1), c(di), c(di + 1), sides, face_x(b, di), face_x(b, di + 1))
}

/// [`recon_y`](super::recon_y) of the cell at offset `dj` with the activity around it.
#[inline(always)]
pub fn recon_y_on<S: WetDryScheme, T: Real>(
    k: &Coeffs<T>,
    q: &impl Fn(i32, i32) -> (T, T, T, T),
    b: &impl Fn(i32, i32) -> T,
    on: &impl Fn(i32, i32) -> bool,
    dj: i32,
) -> Recon<T> {
    let c = |d: i32| {
        let (w, t, n, cap) = q(0, d);
        Cell { w, n, t, cap }
    };
    let sides = (on(0, dj - 1), on(0, dj + 1));
    reconstruct_on::<S, T>(k, c(dj - 1), c(dj), c(dj + 1), sides, face_y(b, dj), face_y(b, dj + 1))
}

/// [`cell_faces_of`](super::cell_faces_of) with the activity `on(di, dj)` of the cross's cells
/// (`|di| + |dj| ≤ 2` on the axes). The cell itself is taken to be active: an inactive cell's
/// R is 0, which its caller writes.
#[inline(always)]
pub fn cell_faces_on<S: WetDryScheme, T: Real, W: Level<T>>(
    k: &Coeffs<T>,
    q: impl Fn(i32, i32) -> (W, T, T),
    b: impl Fn(i32, i32) -> T,
    on: impl Fn(i32, i32) -> bool,
) -> CellFaces<T> {
    // The cross's nine cells, each seen through `cell_view_at` once, not once per reconstruction
    // that reads it (18 times: four corner loads each, a square root where partially flooded,
    // a desingularization with velocities).
    let at = |di: i32, dj: i32| cell_view_at_of::<S, T, W>(k, q(di, dj), &b, di, dj);
    // Written out, not built by loops (`array::from_fn`, `map`): in a kernel a rolled loop over
    // a register array puts the array in local memory.
    let c = at(0, 0);
    let row = [at(-2, 0), at(-1, 0), c, at(1, 0), at(2, 0)];
    let col = [at(0, -2), at(0, -1), c, at(0, 1), at(0, 2)];
    let q = |di: i32, dj: i32| if dj == 0 { row[(di + 2) as usize] } else { col[(dj + 2) as usize] };
    let (rx_m, rx_0, rx_p) = (
        recon_x_on::<S, T>(k, &q, &b, &on, -1),
        recon_x_on::<S, T>(k, &q, &b, &on, 0),
        recon_x_on::<S, T>(k, &q, &b, &on, 1),
    );
    let (ry_m, ry_0, ry_p) = (
        recon_y_on::<S, T>(k, &q, &b, &on, -1),
        recon_y_on::<S, T>(k, &q, &b, &on, 0),
        recon_y_on::<S, T>(k, &q, &b, &on, 1),
    );
    // The face states each flux is computed from: a wall's mirror image in place of an inactive
    // neighbour's.
    let sides = [
        wall_pair(rx_m.p, rx_0.m, on(-1, 0), true),
        wall_pair(rx_0.p, rx_p.m, true, on(1, 0)),
        wall_pair(ry_m.p, ry_0.m, on(0, -1), true),
        wall_pair(ry_0.p, ry_p.m, true, on(0, 1)),
    ];
    let flux = |(l, r): (FaceState<T>, FaceState<T>), y: bool| central_upwind::<S, T>(k, l, r, y);
    CellFaces {
        flux: [flux(sides[0], false), flux(sides[1], false), flux(sides[2], true), flux(sides[3], true)],
        sides,
        rx: rx_0,
        ry: ry_0,
        beds: (bed_x(&b, 0), bed_x(&b, 1), bed_y(&b, 0), bed_y(&b, 1)),
    }
}

/// Whether padded cell `g` is active by the map `active` (null: every cell is).
///
/// # Safety
/// `active` is null or holds the padded grid's bytes.
#[inline(always)]
pub unsafe fn is_active(active: *const u8, g: usize) -> bool {
    active.is_null() || unsafe { *active.add(g) } != 0
}
