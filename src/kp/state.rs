//! The CPU reference's padded state and what keeps it a state every stage can start from:
//! the level w is stored in ([`Surface`]), the fields ([`State`]), their ghosts
//! ([`apply_boundary`]), a clean start ([`clean_state`]) and the wet map ([`wet_map`]).
//! The problem's start, the plain and mixed references and the split schemes all use these,
//! so they sit below all of them.

use crate::Real;
use crate::field::Field2;
use kernels::Level;
use kernels::halo::{edge_ghost, ghosts_x, ghosts_y};
use kernels::kp::{Coeffs, NO_LEVEL, OPEN, clean_of, set_forced_ghost};

/// A level the reference stores w in: `T` itself, or a wider type (the mixed precision's f64
/// over f32, `mixed.rs`).
pub trait Surface<T: Real>: Level<T> {
    /// The surface as `T` values where `Self` is `T`, else `None`: the compensated update and
    /// the split schemes work on `T` fields and exist only there.
    fn plain(w: &[Self]) -> Option<&[T]>;
    /// [`plain`](Self::plain), to write.
    fn plain_mut(w: &mut [Self]) -> Option<&mut [T]>;
}

impl<T: Real> Surface<T> for T {
    fn plain(w: &[T]) -> Option<&[T]> {
        Some(w)
    }
    fn plain_mut(w: &mut [T]) -> Option<&mut [T]> {
        Some(w)
    }
}

/// A padded state (or R): the surface in `W`, the momenta in `T`.
#[derive(Clone)]
pub struct State<T, W> {
    pub w: Field2<W>,
    pub hu: Field2<T>,
    pub hv: Field2<T>,
}

impl<T: Real, W: Real> State<T, W> {
    pub(super) fn fields(&self) -> (&[W], &[T], &[T]) {
        (&self.w, &self.hu, &self.hv)
    }
    pub(super) fn fields_mut(&mut self) -> (&mut [W], &mut [T], &mut [T]) {
        (&mut self.w, &mut self.hu, &mut self.hv)
    }
}

impl<T: Real, W: Surface<T>> State<T, W> {
    /// The fields as `T` ([`Surface::plain`]), for the compensated update and the split
    /// schemes: `CpuKp::new` sets those up only where w is `T`.
    pub(super) fn plain(&self) -> [&[T]; 3] {
        [W::plain(&self.w).expect("w in T where low parts exist (CpuKp::new)"), &self.hu, &self.hv]
    }
    pub(super) fn plain_mut(&mut self) -> [&mut [T]; 3] {
        let w = W::plain_mut(&mut self.w).expect("w in T where low parts or a split scheme exist (CpuKp::new)");
        [w, &mut self.hu, &mut self.hv]
    }
}

/// Set both ghost layers on all four sides (x-pass, then y-pass over all columns); an outflow
/// ghost's depth is formed in `W`. With `levels` (the held levels' values and their map,
/// `kernels::kp::level_of`), the ghosts of held reaches take their level and those of outlets
/// extrapolate, in the same pass as the kernel does.
pub fn apply_boundary<T: Real, W: Level<T>>(
    k: &Coeffs<T>,
    w: &mut [W],
    hu: &mut [T],
    hv: &mut [T],
    cell_bed: &[T],
    levels: Option<(&[f64], &[u32])>,
) {
    let n = k.cells();
    assert!(w.len() == n && hu.len() == n && hv.len() == n && cell_bed.len() == n, "field lengths");
    let (values, map) = levels.map_or((std::ptr::null(), std::ptr::null()), |(v, m)| {
        assert_eq!(m.len(), 2 * (k.nx + k.ny) as usize, "level map");
        assert!(m.iter().all(|&e| e == NO_LEVEL || e == OPEN || (e as usize) < v.len()), "level map entries");
        (v.as_ptr(), m.as_ptr())
    });
    let layout = k.layout();
    for (axis, count) in [(0, ghosts_x(&layout)), (1, ghosts_y(&layout))] {
        for t in 0..count {
            if let Some(gh) = edge_ghost(&layout, k.bc, axis, t) {
                let (w, hu, hv, b) = (w.as_mut_ptr(), hu.as_mut_ptr(), hv.as_mut_ptr(), cell_bed.as_ptr());
                // SAFETY: the slices hold (nx+4)(ny+4) cells (asserted) and `gh` indexes them; the
                // map's length and entries are asserted.
                unsafe { set_forced_ghost(k, axis, w, hu, hv, b, gh, values, map) };
            }
        }
    }
}

/// Start from a clean state, as every RK stage leaves it: the surface not below the bed, no
/// momentum in dry cells (h ≤ `k.dry`; the depth formed in `W`). The GPU's early exit relies on
/// dry blocks being clean.
pub fn clean_state<T: Real, W: Level<T>>(k: &Coeffs<T>, w: &mut [W], hu: &mut [T], hv: &mut [T], cell_bed: &[T]) {
    for j in 0..k.ny {
        for i in 0..k.nx {
            let c = k.at(i + 2, j + 2);
            ((w[c], hu[c], hv[c]), _) = clean_of(k, cell_bed[c], (w[c], hu[c], hv[c]));
        }
    }
}

/// The wet map of a padded state: 1 for a block with a cell deeper than `k.wet_above` (the
/// depth compared in `W`).
pub fn wet_map<T: Real, W: Level<T>>(k: &Coeffs<T>, w: &[W], cell_bed: &[T]) -> Vec<u8> {
    wet_blocks(k.nx, k.ny, (k.bx, k.by), |c| w[c] - W::widen(cell_bed[c]) > W::widen(k.wet_above))
}

/// Each padded cell's wetness as an RK stage leaves it (`kernels::kp::clean_of`,
/// `clean_pair`): 1 where the depth w − B̄ (plus w's low part `low`, on the compensated path)
/// is above `k.wet_above`, 0 elsewhere and on the ghost layers; formed in the level's precision
/// `W` (`T`, or the mixed precision's f64 over f32, as [`wet_map`] forms it). A stage's wet
/// map is these flags' per block ([`wet_blocks`]).
pub fn wet_cells<T: Real, W: Level<T>>(k: &Coeffs<T>, w: &[W], low: Option<&[W]>, cell_bed: &[T]) -> Vec<u8> {
    let mut wet = vec![0u8; k.cells()];
    for j in 0..k.ny {
        for i in 0..k.nx {
            let c = k.at(i + 2, j + 2);
            let h = match low {
                Some(lo) => (w[c] - W::widen(cell_bed[c])) + lo[c],
                None => w[c] - W::widen(cell_bed[c]),
            };
            wet[c] = (h > W::widen(k.wet_above)) as u8;
        }
    }
    wet
}

/// The wet map (one flag a block of `bx × by` cells) of a padded `nx × ny` grid (two ghost
/// layers) whose interior cell of padded index c is wet where `wet(c)`.
pub fn wet_blocks(nx: u32, ny: u32, (bx, by): (u32, u32), wet: impl Fn(usize) -> bool) -> Vec<u8> {
    let (nbx, p) = (nx.div_ceil(bx), nx as usize + 4);
    let mut map = vec![0u8; (nbx * ny.div_ceil(by)) as usize];
    for j in 0..ny {
        for i in 0..nx {
            if wet((j as usize + 2) * p + i as usize + 2) {
                map[(j / by * nbx + i / bx) as usize] = 1;
            }
        }
    }
    map
}
