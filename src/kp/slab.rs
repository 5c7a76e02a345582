//! What a model starts from, for the whole grid or for one rank's slab of it (docs/ranks.md).
//!
//! A slab's padded fields are cut from the whole grid's, not built from a problem of the slab's
//! rows: the whole grid's constants (its dry depth depends on the largest bed and depth
//! anywhere), the corner bed and the activity of the rows beyond each cut, and the initial
//! state's ghost rows there are then the undivided grid's bit for bit.

use super::problem::Padded;
use super::segments::Segments;
use super::{Coeffs, Problem};
use crate::field::Field2;
use crate::ranks::Slab;
use crate::{Error, Real, Result};
use std::ops::Range;

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
    /// slab's fields come from [`Start::slab`].
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

    /// Why this problem does not run decomposed over ranks, if it does not: the split schemes
    /// sweep whole lines of both axes.
    pub fn refuses_ranks(&self) -> Option<String> {
        self.scheme.is_split().then(|| format!(
            "kp's {} scheme transposes the whole grid between its sweeps and does not run on several ranks: use rk2, srk2 or euler (time.scheme)",
            self.scheme.name()
        ))
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
