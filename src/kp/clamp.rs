//! The CPU reference of the `clamp` wet–dry scheme (docs/kp-wet-dry.md, "Draining" and "After
//! each RK stage: the velocity clamp and films (`clamp`)"): Bollermann et al.'s reconstruction
//! of partially flooded cells, the draining time step with the actual Δt, a velocity maximum
//! principle in partially flooded cells, and films' velocities held to their neighbours'
//! waves.
//!
//! A stage computes every face flux once (the point functions of the scheme `Clamp`: no a-priori
//! cap), then Δt (first stage), then each partially flooded cell's draining factor from its
//! outgoing mass fluxes and Δt; the faces water leaves such a cell through are scaled by it
//! (mass and advective momentum; the pressure part kept), and R is assembled from the faces as
//! `cell_rhs` assembles it. After the RK stage, each velocity component of a partially flooded
//! cell is held to the range of its eight neighbours' that are fully flooded and not films, or,
//! where none is, of those deeper than `dry`; u = 0 where no neighbour is wet. A fully flooded
//! film (deeper than `dry`, h⁴ < κ) has each velocity component held to the range of its eight
//! neighbours' Riemann invariants u ∓ 2c (those deeper than `dry`). Where no cell is partially flooded (flat beds, fully wet lakes) nothing is
//! drained and the faces are `cell_rhs`'s: the results are `bollermann`'s bit for bit until a
//! film forms.

use crate::Real;
use crate::field::{STENCIL_GRAIN, stencil_rows};
use kernels::Level;
use kernels::kp::{
    Clamp, Coeffs, Flux, Recon, assemble, bed_x, bed_y, cell_view_at_of, central_upwind, clamp_pass, drain_face,
    draining_factor, highest_corner, mass_rate, outflow, recon_x_on, recon_y_on, to_clamp, wall_pair,
};
use rayon::prelude::*;

/// The faces of a stage and the cells' highest corners (partially flooded where w̄ < B_hi).
pub struct Faces<T> {
    hi: Vec<T>,
    surf: Vec<(T, T, T, T)>,
    rx: Vec<Recon<T>>,
    ry: Vec<Recon<T>>,
    /// The west (x) and south (y) face flux of each padded cell.
    fx: Vec<Flux<T>>,
    fy: Vec<Flux<T>>,
    phi: Vec<T>,
    /// The padded rows that are cells of the grid (`cpu::grid_rows`): a face's water leaves
    /// by the factor of a cell in them, and the clamp reads the velocities of neighbours in them.
    rows: std::ops::Range<usize>,
    /// Whether some cell of `rows` drains this stage.
    any: bool,
    /// How often a cell was drained (φ < 1) and how often the clamp changed a cell's momenta,
    /// over the run: the tests check that their cases take these paths.
    pub drained: u64,
    pub clamped: u64,
}

/// The corner bed around padded cell `c`: `b(ci, cj)` is B at offset (ci, cj) from its
/// south-west corner.
pub(super) fn corners<T: Real>(k: &Coeffs<T>, bed: &[T], c: usize) -> impl Fn(i32, i32) -> T {
    let (p, cp) = (k.pitch as usize, k.cpitch as usize);
    let cc = c / p * cp + c % p;
    move |ci: i32, cj: i32| bed[(cc as isize + ci as isize + cj as isize * cp as isize) as usize]
}

impl<T: Real> Faces<T> {
    /// Scratch for the padded layout of `k` over the corner bed `bed`, whose padded `rows` are
    /// cells of the grid.
    pub fn new(k: &Coeffs<T>, bed: &[T], rows: std::ops::Range<usize>) -> Faces<T> {
        let n = k.cells();
        Faces {
            hi: highest_corners(k, bed),
            surf: vec![(T::ZERO, T::ZERO, T::ZERO, T::ZERO); n],
            rx: vec![Recon::ZERO; n],
            ry: vec![Recon::ZERO; n],
            fx: vec![Flux::ZERO; n],
            fy: vec![Flux::ZERO; n],
            phi: vec![T::ONE; n],
            rows,
            any: false,
            drained: 0,
            clamped: 0,
        }
    }

    /// Every face flux of the padded state (w, hu, hv) (before draining), w a level `W` of `T`
    /// (`kernels::kp::cell_view_at_of`); returns the rate Δt is taken from, max(a_x/Δx, a_y/Δy)
    /// over all faces of the interior (a NaN counts as infinite). With an activity map
    /// (`kernels::kp::walls`), a face next to an inactive cell is a wall and one between two
    /// inactive cells sets nothing.
    pub fn fluxes<W: Level<T>>(
        &mut self,
        k: &Coeffs<T>,
        w: &[W],
        hu: &[T],
        hv: &[T],
        bed: &[T],
        active: Option<&[u8]>,
    ) -> T {
        let (nx, ny, p) = (k.nx as usize, k.ny as usize, k.pitch as usize);
        let on = |c: usize| active.is_none_or(|a| a[c] != 0);
        // Each pass below runs over rows, split among the pool's threads where the grid is large
        // enough (`field::STENCIL_GRAIN`); a value depends only on what the passes before it
        // wrote, so neither the split nor the thread count changes a bit.
        let grain = stencil_rows(p);
        self.surf.par_iter_mut().enumerate().with_min_len(STENCIL_GRAIN).for_each(|(c, s)| {
            *s = cell_view_at_of::<Clamp, T, W>(k, (w[c], hu[c], hv[c]), &corners(k, bed, c), 0, 0);
        });
        let surf = &self.surf;
        // The interior's reconstructions and those of the ghost cells next to it.
        let rows = self.rx.par_chunks_mut(p).zip(self.ry.par_chunks_mut(p)).enumerate();
        rows.skip(1).take(ny + 2).with_min_len(grain).for_each(|(j, (rx, ry))| {
            for i in 1..nx + 3 {
                let c = j * p + i;
                let at = |di: i32, dj: i32| (c as isize + di as isize + dj as isize * p as isize) as usize;
                let q = |di: i32, dj: i32| surf[at(di, dj)];
                let around = |di: i32, dj: i32| on(at(di, dj));
                if (2..ny + 2).contains(&j) {
                    rx[i] = recon_x_on::<Clamp, T>(k, &q, &corners(k, bed, c), &around, 0);
                }
                if (2..nx + 2).contains(&i) {
                    ry[i] = recon_y_on::<Clamp, T>(k, &q, &corners(k, bed, c), &around, 0);
                }
            }
        });
        let (rx, ry) = (&self.rx, &self.ry);
        let rows = self.fx.par_chunks_mut(p).zip(self.fy.par_chunks_mut(p)).enumerate();
        // The largest rate (a maximum of values none of which is NaN: the same in any order).
        rows.skip(2)
            .take(ny + 1)
            .with_min_len(grain)
            .map(|(j, (fx, fy))| {
                let mut rate = T::ZERO;
                let mut see =
                    |speed: T, inv: T| rate = rate.max(if speed.is_finite() { speed * inv } else { T::INFINITY });
                for i in 2..nx + 3 {
                    let c = j * p + i;
                    if j < ny + 2 {
                        let (l, r) = wall_pair(rx[c - 1].p, rx[c].m, on(c - 1), on(c));
                        fx[i] = central_upwind::<Clamp, T>(k, l, r, false);
                        if on(c - 1) || on(c) {
                            see(fx[i].speed, k.inv_dx);
                        }
                    }
                    if i < nx + 2 {
                        let (l, r) = wall_pair(ry[c - p].p, ry[c].m, on(c - p), on(c));
                        fy[i] = central_upwind::<Clamp, T>(k, l, r, true);
                        if on(c - p) || on(c) {
                            see(fy[i].speed, k.inv_dy);
                        }
                    }
                }
                rate
            })
            .reduce(|| T::ZERO, |a, b| a.max(b))
    }

    /// The draining factors of the partially flooded cells of the interior for a stage of `dt`
    /// from the faces [`fluxes`](Self::fluxes) left, the surface `w` a level `W` of `T`. On a
    /// slab the factors of the rows beyond its cuts come from the neighbours
    /// ([`phi_mut`](Self::phi_mut)) before [`drain_and_rhs`](Self::drain_and_rhs).
    pub fn factors<W: Level<T>>(&mut self, k: &Coeffs<T>, dt: T, w: &[W], cell_bed: &[T], active: Option<&[u8]>) {
        let p = k.pitch as usize;
        let (fx, fy) = (&self.fx, &self.fy);
        let faces = |c: usize| [fx[c].f0, fx[c + 1].f0, fy[c].f0, fy[c + p].f0];
        let (_, drained) = draining_factors(k, dt, w, cell_bed, &self.surf, faces, active, &mut self.phi);
        self.drained += drained;
    }

    /// The draining factors of every padded cell, for a slab to take those beyond its cuts
    /// from its neighbours.
    pub fn phi_mut(&mut self) -> &mut [T] {
        &mut self.phi
    }

    /// The faces water leaves a drained cell through scaled by its factor, and R from the faces
    /// into (R_w, R_hu, R_hv), R_w in `W` (`kernels::kp::mass_rate`: the faces' `T` fluxes
    /// summed in `W`).
    #[allow(clippy::type_complexity)]
    pub fn drain_and_rhs<W: Level<T>>(
        &mut self,
        k: &Coeffs<T>,
        bed: &[T],
        active: Option<&[u8]>,
        (rw, rhu, rhv): (&mut [W], &mut [T], &mut [T]),
    ) {
        let (nx, ny, p) = (k.nx as usize, k.ny as usize, k.pitch as usize);
        let on = |c: usize| active.is_none_or(|a| a[c] != 0);
        let rows = self.rows.clone();
        // The cells whose factors this slab has: its own, the rows beyond its cuts and those
        // another rank supplies across a periodic side (refreshed before).
        let column = |c: usize| (2..nx + 2).contains(&(c % p));
        let cell = |c: usize| column(c) && (rows.contains(&(c / p)) || k.is_exchanged_row((c / p) as i32 - 2));
        let grain = stencil_rows(p);
        self.any =
            (0..(ny + 4) * p).into_par_iter().with_min_len(STENCIL_GRAIN).any(|c| cell(c) && self.phi[c] < T::ONE);
        let (rx, ry) = (&self.rx, &self.ry);
        if self.any {
            // The factor of a cell a face's water may leave: a ghost across a periodic side of
            // this slab has the factor of the cell it is the image of (the face is that cell's
            // too, and both sides of it must drain alike); other ghost cells are not drained.
            let phi = |c: usize| if cell(c) { self.phi[c] } else { ghost_factor(k, &self.phi, c) };
            let rows = self.fx.par_chunks_mut(p).zip(self.fy.par_chunks_mut(p)).enumerate();
            rows.skip(2).take(ny + 1).with_min_len(grain).for_each(|(j, (fx, fy))| {
                for i in 2..nx + 3 {
                    let c = j * p + i;
                    if j < ny + 2 {
                        let sides = wall_pair(rx[c - 1].p, rx[c].m, on(c - 1), on(c));
                        fx[i] = drain_face(k, fx[i], sides, phi(c - 1), phi(c));
                    }
                    if i < nx + 2 {
                        let sides = wall_pair(ry[c - p].p, ry[c].m, on(c - p), on(c));
                        fy[i] = drain_face(k, fy[i], sides, phi(c - p), phi(c));
                    }
                }
            });
        }
        let (fx, fy) = (&self.fx, &self.fy);
        let rows = rw.par_chunks_mut(p).zip(rhu.par_chunks_mut(p)).zip(rhv.par_chunks_mut(p)).enumerate();
        rows.skip(2).take(ny).with_min_len(grain).for_each(|(j, ((rw, rhu), rhv))| {
            for i in 2..nx + 2 {
                let c = j * p + i;
                if !on(c) {
                    (rw[i], rhu[i], rhv[i]) = (W::ZERO, T::ZERO, T::ZERO);
                    continue;
                }
                let b = corners(k, bed, c);
                let beds = (bed_x(&b, 0), bed_x(&b, 1), bed_y(&b, 0), bed_y(&b, 1));
                let (fw, fe, gs, gn) = (fx[c], fx[c + 1], fy[c], fy[c + p]);
                let s = assemble::<Clamp, T>(k, fw, fe, gs, gn, rx[c], ry[c], beds);
                // In `T` (W = T) this is `s.w` bit for bit.
                (rw[i], rhu[i], rhv[i]) = (mass_rate(k, [fw.f0, fe.f0, gs.f0, gn.f0]), s.hu, s.hv);
            }
        });
    }

    /// The draining factors of the last stage (padded; 1 outside the interior and where the
    /// cell is not drained): what the water account drains the boundary faces by.
    pub fn phi(&self) -> &[T] {
        &self.phi
    }

    /// After an RK stage: each velocity component of a partially flooded cell held to the range
    /// of its neighbours', films' to their neighbours' waves ([`clamp_velocities`]), w a level `W` of `T`.
    pub fn clamp<W: Level<T>>(&mut self, k: &Coeffs<T>, cell_bed: &[T], w: &[W], hu: &mut [T], hv: &mut [T]) {
        self.clamped += clamp_velocities(k, &self.hi, cell_bed, w, hu, hv, self.rows.clone());
    }
}

/// The draining factor of padded ghost cell `c` of `phi` (the interior's factors): that of the
/// cell it is the image of across a periodic side (`Coeffs::periodic_image`), else 1.
pub(super) fn ghost_factor<T: Real>(k: &Coeffs<T>, phi: &[T], c: usize) -> T {
    let p = k.pitch as usize;
    let (i, j) = ((c % p) as i32 - 2, (c / p) as i32 - 2);
    k.periodic_image(i, j).map_or(T::ONE, |(a, b)| phi[k.at(a + 2, b + 2)])
}

/// The draining factor φ of every interior cell for a stage (or substep) of `dt` into `phi`: 1
/// where the cell is fully flooded (`surf`'s fourth entry infinite: KP07's positivity argument
/// holds), else from what leaves it through the mass fluxes `faces(c)` (west, east, south,
/// north; a split substep passes zeros for the faces it does not use). Returns whether some φ
/// is below 1, and how many.
#[allow(clippy::too_many_arguments)]
pub(super) fn draining_factors<T: Real, W: Level<T>>(
    k: &Coeffs<T>,
    dt: T,
    w: &[W],
    cell_bed: &[T],
    surf: &[(T, T, T, T)],
    faces: impl Fn(usize) -> [T; 4] + Sync,
    active: Option<&[u8]>,
    phi: &mut [T],
) -> (bool, u64) {
    let (nx, ny, p) = (k.nx as usize, k.ny as usize, k.pitch as usize);
    let drained: u64 = phi
        .par_chunks_mut(p)
        .enumerate()
        .skip(2)
        .take(ny)
        .with_min_len(stencil_rows(p))
        .map(|(j, phi)| {
            let mut drained = 0;
            for (i, phi) in phi.iter_mut().enumerate().take(nx + 2).skip(2) {
                let c = j * p + i;
                *phi = T::ONE;
                // Inactive cells hold no water to drain.
                if surf[c].3 == T::INFINITY || active.is_some_and(|a| a[c] == 0) {
                    continue;
                }
                *phi = draining_factor(w[c].minus(W::widen(cell_bed[c])).max(T::ZERO), outflow(k, faces(c)), dt);
                drained += (*phi < T::ONE) as u64;
            }
            drained
        })
        .sum();
    (drained > 0, drained)
}

/// Each cell's highest corner (padded, for [`clamp_velocities`]) from the corner bed.
pub fn highest_corners<T: Real>(k: &Coeffs<T>, bed: &[T]) -> Vec<T> {
    (0..k.cells())
        .map(|c| {
            let b = corners(k, bed, c);
            highest_corner(b(0, 0), b(1, 0), b(0, 1), b(1, 1))
        })
        .collect()
}

/// After an RK stage, `clamp`'s pass ([`to_clamp`]): each velocity component of a partially
/// flooded cell (w below its highest corner `hi`, deeper than `dry`) held to the range of its
/// neighbours' (see the module), and a fully flooded film's velocity held to its neighbours'
/// Riemann invariants u ∓ 2c; w a level `W` of `T` (depths formed in `W` and rounded once). The
/// neighbours' velocities are read before any cell changes, so the order of the cells does not
/// matter. Neighbours count in the padded rows `rows` (the grid's cells, `cpu::grid_rows`).
/// Returns how many cells changed.
pub fn clamp_velocities<T: Real, W: Level<T>>(
    k: &Coeffs<T>,
    hi: &[T],
    cell_bed: &[T],
    w: &[W],
    hu: &mut [T],
    hv: &mut [T],
    rows: std::ops::Range<usize>,
) -> u64 {
    let (nx, ny, p) = (k.nx as usize, k.ny as usize, k.pitch as usize);
    let h = |c: usize| w[c].minus(W::widen(cell_bed[c]));
    let (hu_old, hv_old) = (&*hu, &*hv);
    // Every row's changes from the velocities as they are, then applied: the order of the rows
    // and cells does not matter.
    let new: Vec<Vec<(usize, T, T)>> = (2..ny + 2)
        .into_par_iter()
        .with_min_len(stencil_rows(p))
        .map(|j| {
            let mut row = Vec::new();
            for i in 2..nx + 2 {
                let c = j * p + i;
                let partial = w[c] < W::widen(hi[c]);
                if !to_clamp(k, partial, h(c)) {
                    continue;
                }
                let around = |di: i32, dj: i32| {
                    let (a, b) = (i as i32 + di, j as i32 + dj);
                    let inside = (2..nx as i32 + 2).contains(&a) && rows.contains(&(b as usize));
                    let n = b as usize * p + a as usize;
                    inside.then(|| (h(n), hu_old[n], hv_old[n], w[n] >= W::widen(hi[n])))
                };
                let (a, b) = clamp_pass(k, partial, h(c), (hu_old[c], hv_old[c]), around);
                if (a, b) != (hu_old[c], hv_old[c]) {
                    row.push((c, a, b));
                }
            }
            row
        })
        .collect();
    let mut changed = 0;
    for &(c, a, b) in new.iter().flatten() {
        (hu[c], hv[c]) = (a, b);
        changed += 1;
    }
    changed
}
