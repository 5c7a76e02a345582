//! What a model starts from, for the whole grid or for one rank's slab of it (docs/ranks.md).
//!
//! A slab's padded fields are the whole grid's rows, with the whole grid's constants (its dry
//! depth depends on the largest bed and depth anywhere): the corner bed, the activity and the
//! initial state's ghost rows beyond each cut are the undivided grid's bit for bit. They are
//! made from the rows about the slab as a grid of their own ([`Problem::slab_start`]), so that
//! no rank builds the whole grid's.

use super::problem::Padded;
use super::segments::Segments;
use super::{Boundary, Coeffs, Problem};
use crate::field::Field2;
use crate::ranks::Slab;
use crate::{Error, Real, Result};
use std::ops::Range;

/// Rows beyond each cut of a slab that its start is made from
/// ([`Problem::window_start`]): its two ghost rows, and one more that takes what the window's
/// own edges set.
pub const WINDOW_MARGIN: usize = 3;

/// What each slab's start takes of the whole grid beyond the rows about it
/// ([`Problem::whole_grid`]), worked out once for all the slabs of a run: each is a pass over
/// every cell.
pub struct WholeGrid {
    /// The scale the dry depth comes from (`Problem::scale`).
    scale: f64,
    /// The streamed flux kernel's plain strips, where there is an activity map.
    plain_strips: Option<Vec<u8>>,
}

/// The rows about a slab as a problem of their own, and its start made with the whole grid's
/// constants ([`Problem::window_start`]).
pub(super) struct Window<T> {
    pub problem: Problem,
    pub start: Start<T>,
    /// The whole grid's constants in f64, fitted to these rows.
    pub k64: Coeffs<f64>,
    /// The whole grid's row that is the window's first.
    pub lo: usize,
}

/// The constants and padded fields a model starts from ([`Problem::start`], [`Start::slab`]).
pub struct Start<T> {
    pub k: Coeffs<T>,
    pub padded: Padded<T>,
    /// The activity of every padded cell (`Problem::active_map`), where some cell is inactive
    /// or some face lets water only out.
    pub active: Option<Vec<u8>>,
    /// The streamed flux kernel's strips that read no cell that is or may become inactive
    /// (`Problem::plain_strips`), of the whole grid, where there is an activity map.
    pub plain_strips: Option<Vec<u8>>,
    /// The faces that let water only out (`Problem::out_only_faces`); a slab's of its perimeter.
    pub out_only: Vec<u32>,
    /// g·n² per padded cell, with a Manning field (`Problem::friction_field`).
    pub friction: Option<Field2<T>>,
    /// The water account's segments of the perimeter's faces (`Segments::of`); a slab's faces
    /// at its cuts in none.
    pub segments: Segments,
}

impl Problem {
    /// The whole grid's start in precision `T` for blocks of `block` cells, of a validated
    /// problem: the kernels' constants, the padded fields with their ghosts set.
    pub fn start<T: Real>(&self, block: (u32, u32)) -> Result<Start<T>> {
        let k = self.coeffs::<T>(block);
        let active = self.active_map();
        let plain_strips = active.as_deref().map(|m| self.plain_strips_of(m));
        Ok(Start {
            padded: self.padded(&k)?,
            k,
            active,
            plain_strips,
            out_only: self.out_only_faces(),
            friction: self.friction_field()?,
            segments: Segments::of(self),
        })
    }

    /// The problem of interior rows `rows` as a model of a slab sees it: its sizes, its rows of
    /// the initial fields and rasters, the whole grid's constants and sides. It is never
    /// validated or padded on its own (a periodic y axis would not repeat within it): the
    /// slab's fields come from [`slab_start`](Self::slab_start).
    pub fn slab(&self, rows: Range<usize>) -> Result<Problem> {
        if rows.is_empty() || rows.end > self.ny {
            return Err(Error::invalid(format!("kp: rows {rows:?} of a grid of {} rows", self.ny)));
        }
        let cells = |v: &[f64]| v[rows.start * self.nx..rows.end * self.nx].to_vec();
        let n = self.nx + 1;
        // Field by field: the whole grid's arrays are not copied.
        Ok(Problem {
            nx: self.nx,
            ny: rows.len(),
            dx: self.dx,
            dy: self.dy,
            g: self.g,
            theta: self.theta,
            cfl: self.cfl,
            manning: self.manning,
            manning_field: self.manning_field.as_deref().map(cells),
            boundary: self.boundary,
            scheme: self.scheme,
            ds_safety: self.ds_safety,
            wet_dry: self.wet_dry,
            kappa_depth: self.kappa_depth,
            dt_floor: self.dt_floor,
            dt_max: self.dt_max,
            accumulation: self.accumulation,
            forcing: self.forcing.slab(self.nx, self.ny, rows.clone()),
            h: cells(&self.h),
            hu: cells(&self.hu),
            hv: cells(&self.hv),
            bed: self.bed[rows.start * n..(rows.end + 1) * n].to_vec(),
            active: self.active.as_ref().map(|a| a[rows.start * self.nx..rows.end * self.nx].to_vec()),
        })
    }

    /// What every slab's start takes of this whole grid ([`WholeGrid`]).
    pub fn whole_grid(&self) -> WholeGrid {
        WholeGrid { scale: self.scale(), plain_strips: self.active_map().map(|m| self.plain_strips_of(&m)) }
    }

    /// The start of `slab`, bit for bit the whole grid's start cut to it
    /// ([`start`](Self::start), [`Start::slab`]), made from the rows about the slab alone
    /// (`window_start`) unless they reach the first or last row of a periodic y axis: no rank
    /// but those builds the whole grid's padded fields.
    pub fn slab_start<T: Real>(&self, block: (u32, u32), slab: &Slab) -> Result<Start<T>> {
        self.slab_start_in(&self.whole_grid(), block, slab)
    }

    /// [`slab_start`](Self::slab_start) with this grid's [`whole_grid`](Self::whole_grid).
    pub fn slab_start_in<T: Real>(&self, grid: &WholeGrid, block: (u32, u32), slab: &Slab) -> Result<Start<T>> {
        match self.window_start::<T>(grid, block, slab)? {
            Some(w) => self.cut_window_start(grid, w.start, slab, w.lo),
            None => self.start::<T>(block)?.slab(slab),
        }
    }

    /// The rows from `slab`'s first less [`WINDOW_MARGIN`] to its last plus it as a problem
    /// of their own, with its start ([`Window`]); none where the window is the whole grid,
    /// or where it reaches the first or last row of a periodic y axis: those slabs cut the
    /// whole grid's start.
    ///
    /// Each padded row of the slab is a function of the whole grid's rows about it: an interior
    /// row of its own row and corner rows (its x ghosts too), a ghost row beyond a side of the
    /// grid of the two rows inside it. The window's sides within the grid are walls of its
    /// own, and the outlets and held levels that it cuts short end at its edges: what those set
    /// lies beyond the rows the slab keeps. Its activity map is made where the whole grid's
    /// is, the whole grid's perimeter (its faces letting water only out, its segments) and the
    /// streamed kernel's plain strips are the whole grid's (`cut_window_start`).
    pub(super) fn window_start<T: Real>(
        &self,
        grid: &WholeGrid,
        block: (u32, u32),
        slab: &Slab,
    ) -> Result<Option<Window<T>>> {
        let rows = &slab.rows;
        let (lo, hi) = (rows.start.saturating_sub(WINDOW_MARGIN), (rows.end + WINDOW_MARGIN).min(self.ny));
        let periodic = self.boundary[2] == Boundary::Periodic;
        // Across a periodic axis the first and last rows are each other's neighbours (ghost
        // rows, the ends of outlets on the west and east sides): a window there would not see
        // the rows beyond them.
        if (lo == 0 && hi == self.ny) || (periodic && (lo == 0 || hi == self.ny)) {
            return Ok(None);
        }
        let mut window = self.slab(lo..hi)?;
        if lo > 0 {
            window.boundary[2] = Boundary::Wall;
        }
        if hi < self.ny {
            window.boundary[3] = Boundary::Wall;
        }
        let (k, k64) = (
            window.fit(self.coeffs_at_scale::<T>(block, grid.scale)),
            window.fit(self.coeffs_at_scale(block, grid.scale)),
        );
        let start = Start {
            padded: window.padded_with(&k, &k64)?,
            k,
            active: self.has_active_map().then(|| window.activity()),
            plain_strips: None,
            out_only: Vec::new(),
            friction: window.friction_field()?,
            segments: Segments::of(&window),
        };
        Ok(Some(Window { problem: window, start, k64, lo }))
    }

    /// The constants `k` of the whole grid for this window of its rows: its rows and sides.
    fn fit<T: Copy>(&self, mut k: Coeffs<T>) -> Coeffs<T> {
        k.ny = self.ny as u32;
        k.nby = k.ny.div_ceil(k.by);
        k.bc = self.boundary.map(Boundary::code);
        k
    }

    /// The start of `slab` cut from `start`, the start of the rows from `lo` on
    /// (`window_start`), with the whole grid's perimeter faces and
    /// plain strips.
    pub(super) fn cut_window_start<T: Real>(
        &self,
        grid: &WholeGrid,
        start: Start<T>,
        slab: &Slab,
        lo: usize,
    ) -> Result<Start<T>> {
        let rows = &slab.rows;
        let mut cut = start.slab(&Slab { rows: rows.start - lo..rows.end - lo, ..slab.clone() })?;
        // The slab's sides are the whole grid's, as its cut flags say which it sets.
        cut.k.bc = self.boundary.map(Boundary::code);
        Ok(Start {
            plain_strips: grid.plain_strips.clone(),
            out_only: super::out_only::slab_faces(&self.out_only_faces(), self.nx, self.ny, rows),
            segments: Segments::of(self).slab(self.nx, self.ny, rows),
            ..cut
        })
    }

    /// Why this problem does not run decomposed over ranks, if it does not
    /// ([`refuses_ranks`]).
    pub fn refuses_ranks(&self) -> Option<String> {
        refuses_ranks(self.scheme)
    }
}

impl<T: Real> Start<T> {
    /// The start of `slab`: the whole grid's constants with the slab's rows, and its padded
    /// fields cut from the whole grid's (the rows beyond a cut are the neighbours' interior
    /// rows; at a side of the grid its own ghosts).
    pub fn slab(&self, slab: &Slab) -> Result<Start<T>> {
        let rows = slab.rows.clone();
        let nodes = rows.start..rows.end + 1;
        let Padded { bed, cell_bed, q } = &self.padded;
        let layout = cell_bed.layout();
        let (p, g) = (layout.pitch as usize, layout.halo as usize);
        let mut k = self.k;
        k.ny = rows.len() as u32;
        k.nby = k.ny.div_ceil(k.by);
        // The rows beyond a cut inside the grid are its cells; beyond a periodic side (the
        // first slab's below, the last's above) they are ghosts, as on the whole grid.
        let south = slab.below.is_some() && rows.start > 0;
        let north = slab.above.is_some_and(|r| r != 0);
        let (below, above) = (slab.below.is_some(), slab.above.is_some());
        k.cut = south as u32 | (north as u32) << 1 | (below as u32) << 2 | (above as u32) << 3;
        Ok(Start {
            k,
            padded: Padded {
                bed: bed.slab(nodes)?,
                cell_bed: cell_bed.slab(rows.clone())?,
                q: [q[0].slab(rows.clone())?, q[1].slab(rows.clone())?, q[2].slab(rows.clone())?],
            },
            active: self.active.as_ref().map(|a| a[rows.start * p..(rows.end + 2 * g) * p].to_vec()),
            plain_strips: self.plain_strips.clone(),
            out_only: super::out_only::slab_faces(&self.out_only, self.k.nx as usize, self.k.ny as usize, &rows),
            friction: self.friction.as_ref().map(|f| f.slab(rows.clone())).transpose()?,
            segments: self.segments.slab(self.k.nx as usize, self.k.ny as usize, &rows),
        })
    }
}

/// Why a problem of `scheme` does not run decomposed over ranks, if it does not: the split
/// schemes sweep whole lines of both axes.
pub(super) fn refuses_ranks(scheme: super::Scheme) -> Option<String> {
    scheme.is_split().then(|| format!(
        "kp's {} scheme transposes the whole grid between its sweeps and does not run on several ranks: use rk2, srk2 or euler (time.scheme)",
        scheme.name()
    ))
}
