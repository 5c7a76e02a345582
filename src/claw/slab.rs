//! One rank's slab of a wave-propagation run decomposed over ranks (docs/ranks.md): the rows
//! (2D) or planes (3D) of the whole grid between two cuts, stepped as the whole grid's run
//! steps them. A sweep along the cut axis reads two cells beyond each cut, which the
//! neighbouring slab holds: after the sweep's ghost fill those ghost layers are replaced by
//! the neighbours' cells, as they stand after the step's earlier sweeps. A sweep along another
//! axis reads nothing across a cut. Every trial's rate is the largest over the ranks, so every
//! rank accepts or rejects it alike, and a blow-up names the whole grid's first bad cell.

use super::lines::Lines;
use crate::Real;
use crate::ranks::Halo;
use crate::runtime::Gpu;
use kernels::grid::{Layout2, Layout3};
use std::sync::Arc;

/// What a slab's run needs of the other ranks. The run itself (`Claw2`, `Claw3`) does not hold
/// it, so that it stays shareable between threads: its steps are given it.
#[derive(Clone)]
pub struct Across {
    halo: Halo,
    /// The axis the grid is cut across: y in 2D, z in 3D.
    axis: usize,
    /// The whole grid's padded layout, to name its cells.
    whole: Whole,
    /// The whole grid's interior cells before the slab's first (x fastest).
    before: usize,
}

/// A whole grid's padded layout.
#[derive(Clone, Copy)]
pub enum Whole {
    Plane(Layout2),
    Volume(Layout3),
}

impl Across {
    /// The slab of `halo` (whose layout's rows are the slab's padded rows or planes along the
    /// cut axis, of cells of `width` values) of a grid of padded layout `whole`, with `before`
    /// interior cells of the grid below it.
    pub fn new(halo: Halo, width: usize, whole: Whole, before: usize) -> Across {
        let axis = match whole {
            Whole::Plane(_) => 1,
            Whole::Volume(_) => 2,
        };
        Across { halo: halo.of_width(width), axis, whole, before }
    }

    /// The same slab's share of a run on `gpu`, whose state buffers hold each field's padded
    /// plane.
    pub fn on_device(&self, gpu: Arc<Gpu>) -> DeviceCut {
        DeviceCut { halo: self.halo.clone().of_width(1), axis: self.axis, gpu }
    }

    /// The ghost layers at the slab's cuts of the padded cells `q`, for a sweep along `dir`
    /// whose own fill has just set the ghosts: the neighbours' cells where `dir` crosses the cuts.
    pub fn exchange<T: Real, const N: usize>(&self, q: &mut [[T; N]], dir: usize) {
        if dir == self.axis {
            self.halo.refresh(&mut [q.as_flattened_mut()]);
        }
    }

    /// The largest of every rank's `rate` (sweeps' rates are never NaN: each is the largest
    /// of its wave speeds from 0, skipping NaN, as on the whole grid).
    pub fn rate(&self, rate: f64) -> f64 {
        self.max(rate)
    }

    /// The largest of every rank's `x`, inside a step, which has no error to return: a rank
    /// gone stops every rank.
    fn max(&self, x: f64) -> f64 {
        let comm = self.halo.comm();
        comm.max(x).unwrap_or_else(|e| comm.abort(&format!("rank {}: {e}", comm.rank()), 1))
    }

    /// The whole grid's first interior cell that is not finite, by name, from each rank's first
    /// (`mine`, numbered in its slab).
    fn first_bad(&self, mine: Option<usize>) -> Option<String> {
        // The largest of the negated numbers is the smallest number.
        let mine = mine.map_or(f64::NEG_INFINITY, |c| -((self.before + c) as f64));
        let first = self.max(mine);
        (first > f64::NEG_INFINITY).then(|| {
            let c = (-first) as usize;
            match &self.whole {
                Whole::Plane(l) => l.name(c),
                Whole::Volume(l) => l.name(c),
            }
        })
    }
}

/// The first interior cell of the padded cells `q` of `grid` that is not finite, by name: on
/// a slab of a run decomposed over ranks (`across`), the whole grid's first, on every rank.
pub fn first_bad<G: Lines, T: Real, const N: usize>(across: Option<&Across>, grid: &G, q: &[[T; N]]) -> Option<String> {
    match across {
        None => super::lines::first_bad(grid, q),
        Some(a) => a.first_bad(super::lines::first_bad_cell(grid, q)),
    }
}

/// A slab's share of a run on the GPU (`stepper::GpuRun`): before each sweep along the cut
/// axis the ghost layers at the cuts of every state buffer are the neighbours' (the device's
/// order, which the host does not read, names the one the sweep reads), and every trial's rate
/// is the largest over the ranks before the control kernel decides.
pub struct DeviceCut {
    pub halo: Halo,
    pub axis: usize,
    pub gpu: Arc<Gpu>,
}
